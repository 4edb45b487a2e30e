#!/usr/bin/env bash
# What compressing a page costs (issue 35: a page request with gzip at most 1.5x the CPU of one without), both sides
# measured at the same time, as Benchmarks/journal/cost.sh measures the journal.
#
#   swift build -c release --static-swift-stdlib --scratch-path .build/static
#   Benchmarks/compression/pages.sh
#
# Servers of the same build with scenario 1's flags (Benchmarks/profiles/lib.sh) are loaded two at a time with
# scenario 1's requests (`wrk -t1 -c32 -d${SLICE}s -s Benchmarks/load/load.lua -- pages 500`: 20-item pages, 3.7 KB),
# one with `Accept-Encoding: gzip` (or zstd) and one without; each server's CPU time (utime + stime from
# /proc/PID/stat) and wrk's requests go to its side's round totals, and each round prints CPU µs a request of each
# side and their ratio. Then two servers without: the method's floor. Both servers' threads run on CPU 0 and both
# loads on CPU 1 (PIN=1), the load that starts first alternating from slice to slice.
#
# With OLD_BIN (a build from before compression), also the same requests without Accept-Encoding to this build and to
# that one: what answers nobody asked to compress pay for it (issue 35: s1 without Accept-Encoding unchanged).
#
# Environment: BIN (default .build/static/x86_64-unknown-linux-gnu/release/ListServer), OLD_BIN (none), ROUNDS (5),
# SLICES (10 a round), SLICE (1 second), PIN (1), OUT (a new directory under /tmp).
set -euo pipefail
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
# shellcheck source=SCRIPTDIR/../profiles/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../profiles/lib.sh"
setup_profile_bench compression 10
PIN=${PIN:-1}
server_cpu=() load_cpu=()
if [[ $PIN == 1 ]]; then
    (($(nproc) >= 2)) || die "PIN=1 needs two CPUs"
    server_cpu=(taskset -a -pc 0) load_cpu=(taskset -c 1)
fi

declare -A pid port coding
# start NAME CODING [BINARY]: a server of the build (or BINARY) with scenario 1's flags, loaded with Accept-Encoding
# CODING (none: "").
start() {
    launch_server "$OUT/$1.log" 0 "${3:-$BIN}" "${profile_flags[@]}"
    pid[$1]=$launched_pid
    port[$1]=$launched_port
    coding[$1]=$2
    if ((${#server_cpu[@]})); then "${server_cpu[@]}" "$launched_pid" >/dev/null; fi
}

# slice ROUND A B [FIRST]: both loads at once, FIRST's (A's unless B) started first; appends "round side cpu_us
# requests" per server.
slice() {
    local round=$1 side requests loads=() order=("$2" "$3") fields
    [[ ${4:-$2} == "$3" ]] && order=("$3" "$2")
    declare -A before
    for side in "$2" "$3"; do before[$side]=$(cpu_ticks "${pid[$side]}"); done
    for side in "${order[@]}"; do
        fields=()
        [[ -n ${coding[$side]} ]] && fields=(-H "Accept-Encoding: ${coding[$side]}")
        "${load_cpu[@]}" wrk -t1 -c32 -d"${SLICE}s" "${fields[@]}" -s "$load_lua" "http://127.0.0.1:${port[$side]}/" \
            -- pages 500 >"$OUT/$side-$round.wrk" &
        loads+=($!)
    done
    wait "${loads[@]}"
    for side in "$2" "$3"; do
        requests=$(awk '/requests in/ { print $1 }' "$OUT/$side-$round.wrk")
        grep -q 'Non-2xx' "$OUT/$side-$round.wrk" && die "$side: wrk saw errors (see $OUT/$side-$round.wrk)"
        awk -v r="$round" -v n="$side" -v t=$(($(cpu_ticks "${pid[$side]}") - before[$side])) -v hz="$ticks" \
            -v q="$requests" 'BEGIN { printf "%s\t%s\t%.3f\t%d\n", r, n, t / hz * 1e6 / q, q }' >>"$OUT/results.tsv"
    done
}

# rounds A B LABEL: ROUNDS rounds of SLICES slices of A and B together, and a line per round of A ÷ B.
rounds() {
    local a=$1 b=$2 label=$3 round pass
    slice 0 "$a" "$b" # warm-up, not counted
    : >"$OUT/results.tsv"
    for ((round = 1; round <= ROUNDS; round++)); do
        for ((pass = 0; pass < SLICES; pass++)); do
            if ((pass % 2)); then slice "$round" "$a" "$b" "$b"; else slice "$round" "$a" "$b"; fi
        done
    done
    awk -F'\t' -v a="$a" -v b="$b" -v label="$label" '{ cpu_us[$1, $2] += $3 * $4; requests[$1, $2] += $4 }
      END {
        printf "%s\n%-6s %10s %10s %8s %12s\n", label, "round", a " us", b " us", "ratio", "requests"
        for (r = 1; (r SUBSEP a) in cpu_us; r++) {
          x = cpu_us[r, a] / requests[r, a]; y = cpu_us[r, b] / requests[r, b]
          printf "%-6d %10.3f %10.3f %8.3f %12d\n", r, x, y, x / y, requests[r, a] + requests[r, b]
        }
      }' "$OUT/results.tsv" | tee -a "$OUT/summary.txt"
    cp "$OUT/results.tsv" "$OUT/results-$a-$b.tsv"
}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $BIN; results in $OUT" |
    tee "$OUT/summary.txt"
start gzip gzip
start zstd zstd
start plain ""
start plain2 ""
curl -s -o /dev/null -w '%{size_download} bytes gzip, ' -H 'Accept-Encoding: gzip' "http://127.0.0.1:${port[plain]}/items?page=7&limit=20" |
    tee -a "$OUT/summary.txt"
curl -s -o /dev/null -w '%{size_download} zstd, ' -H 'Accept-Encoding: zstd' "http://127.0.0.1:${port[plain]}/items?page=7&limit=20" |
    tee -a "$OUT/summary.txt"
curl -s -o /dev/null -w '%{size_download} identity (page 7 of 20)\n' "http://127.0.0.1:${port[plain]}/items?page=7&limit=20" |
    tee -a "$OUT/summary.txt"
rounds gzip plain "gzip ÷ none (issue 35: at most 1.5 in every round)"
rounds zstd plain "zstd ÷ none"
rounds plain2 plain "none ÷ none: the method's floor"
if [[ -n ${OLD_BIN:-} ]]; then
    stop_launched
    start plain ""
    start old "" "$OLD_BIN"
    rounds plain old "none, this build ÷ none, OLD_BIN ($OLD_BIN)"
fi
