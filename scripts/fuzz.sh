#!/usr/bin/env bash
# Fuzzes with libFuzzer and AddressSanitizer, each target for a bounded time: the pure-Swift request pipeline
# (target and query parsing, routing, raw heads), then the write bodies (the strict JSON parser and the item fields;
# the merge patch applied to a list) and the uploaded image files (JPEG, PNG, WebP, inspected as an upload is, on one
# set of codecs that must still decode a valid file after every input). Exits non-zero if the fuzzer finds a crash, a
# hang or a broken check in any of them.
#
#   scripts/fuzz.sh [seconds]          (default 60, for each target: seven targets, seven times as long in all)
#   FUZZ_TARGETS="json jpeg" scripts/fuzz.sh 30    (only these; pipeline, json, patch, jpeg, png, webp, websocket)
#
# Environment: FUZZ_CONFIGURATION=release builds optimised (about 3x the executions per second, a build that takes
# twice as long). One fuzzing process: the machines this runs on have few cores, shared with other builds.
#
# The fuzzer is the ListServerFuzz target (Fuzz/Harness/, whose FuzzEntry.swift defines LLVMFuzzerTestOneInput),
# built with -DLISTSERVER_LIBFUZZER, which leaves out the @main that replays files in a plain build, so libFuzzer's
# main runs. Seeds: Fuzz/corpus/ and Fuzz/corpus-TARGET/ (committed, read only; Fuzz/seeds.py writes them). New
# inputs go to .build-fuzz/corpus-TARGET/ and persist between runs; crashes to .build-fuzz/artifacts/.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

seconds=${1:-60}
configuration=${FUZZ_CONFIGURATION:-debug}
scratch=.build-fuzz
mkdir -p "$scratch/artifacts"

# Build flags, and why each is there:
# - --sanitize=fuzzer --sanitize=address link libFuzzer and ASan. SwiftPM passes them to the compiler as two
#   -sanitize= options, and the Swift 6.3 driver keeps only the last, so the code would get ASan but no coverage
#   instrumentation (libFuzzer then reports 2 counters and fuzzes blind): -Xswiftc -sanitize=fuzzer,address fixes it.
# - -parse-as-library: the target has no main.swift; with @main compiled out there is no entry point of ours.
# - lld instead of gold when the toolchain has it: gold prints a warning for every ASan runtime symbol.
build=(swift build --scratch-path "$scratch" -c "$configuration" --product ListServerFuzz
    --sanitize=fuzzer --sanitize=address -Xswiftc "-sanitize=fuzzer,address"
    -Xswiftc -DLISTSERVER_LIBFUZZER -Xswiftc -parse-as-library)
lld="$(dirname "$(readlink -f "$(command -v swiftc)")")/ld.lld"
if [[ -x $lld ]]; then
    printf '{"schemaVersion": "1.0", "linker": {"path": "%s"}}\n' "$lld" >"$scratch/lld-toolset.json"
    build+=(--toolset "$scratch/lld-toolset.json")
fi
"${build[@]}"
fuzzer="$scratch/$configuration/ListServerFuzz"

# libFuzzer's leak check runs LeakSanitizer after any input that allocates more than it frees, which the detail
# cache and the Swift runtime's caches do by design: it cut executions twentyfold and finds nothing the soak
# (scripts/soak.sh, RSS over time) would not. -timeout makes one input that runs 10 s a failure (a hang).
# SWIFT_BACKTRACE=enable=no: on a crash the Swift runtime's backtracer would run first, trip ASan in its own
# memory reader, and leave a swift-backtrace process holding the output pipe; libFuzzer and ASan print the stack.
#
# fuzz TARGET: one target for $seconds. The pipeline reads a selector byte (Fuzz/Harness/FuzzInput.swift) and
# its seeds from Fuzz/corpus/; every other target is named by LISTSERVER_FUZZ_ENTRY, takes whole inputs, and has
# seeds of its own in Fuzz/corpus-TARGET/. Image files get room for a small photo.
failed=0
fuzz() {
    local target=$1 entry="" seeds=Fuzz/corpus max_len=4096 dict=(-dict=Fuzz/http.dict)
    if [[ $target != pipeline ]]; then
        entry=$target seeds=Fuzz/corpus-$target dict=()
    fi
    case $target in jpeg | png | webp) max_len=65536 ;; esac
    mkdir -p "$scratch/corpus-$target"
    local log="$scratch/fuzz-$target.log" status=0
    echo "fuzz.sh: $target for $seconds s" >&2
    LISTSERVER_FUZZ_ENTRY=$entry SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 \
        timeout --kill-after=30 $((seconds + 120)) "$fuzzer" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" -detect_leaks=0 \
        "${dict[@]}" -artifact_prefix="$scratch/artifacts/$target-" -print_final_stats=1 \
        "$scratch/corpus-$target" "$seeds" 2>&1 | tee "$log" |
        grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE)' || status=${PIPESTATUS[0]}
    local done_line
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)
    [[ -z $done_line ]] || echo "fuzz.sh: $target: $done_line"
    if [[ $status -ne 0 ]]; then
        echo "fuzz.sh: $target: the fuzzer failed (status $status); log: $log" >&2
        grep -o -E "$scratch/artifacts/$target-[a-z]+-[0-9a-f]+" "$log" | sort -u | while read -r artifact; do
            echo "fuzz.sh: reproduce with: LISTSERVER_FUZZ_ENTRY=$entry $fuzzer $artifact" >&2
        done
        failed=1
    fi
}

for target in ${FUZZ_TARGETS:-pipeline json patch jpeg png webp websocket}; do fuzz "$target"; done
if [[ $failed -ne 0 ]]; then exit 1; fi
echo "fuzz.sh: no crash in $seconds s per target" >&2
