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
setup_pinned_pairs

# start NAME CODING [BINARY]: a server of the build (or BINARY), loaded with Accept-Encoding CODING (none: "").
start() {
    start_pinned "$1" "${3:-$BIN}"
    [[ -z $2 ]] || load_fields[$1]="Accept-Encoding: $2"
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
pinned_rounds gzip plain "gzip ÷ none (issue 35: at most 1.5 in every round)"
pinned_rounds zstd plain "zstd ÷ none"
pinned_rounds plain2 plain "none ÷ none: the method's floor"
if [[ -n ${OLD_BIN:-} ]]; then
    stop_launched
    start plain ""
    start old "" "$OLD_BIN"
    pinned_rounds plain old "none, this build ÷ none, OLD_BIN ($OLD_BIN)"
fi
