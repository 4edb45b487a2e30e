#!/usr/bin/env bash
# What the request journal costs a page request (issue 34: at most 3 % more CPU a request with it on), both sides
# measured at the same time.
#
#   swift build -c release --static-swift-stdlib --scratch-path .build/static
#   Benchmarks/journal/cost.sh
#
# Two servers of the same build with scenario 1's flags (Benchmarks/profiles/lib.sh: 2 loops, 10,000 items, seed 42,
# no access log, no store), one with the journal on (the default, journal.capacity 10,000) and one with it off
# (--journal-capacity 0), are loaded at the same time with scenario 1's requests (`wrk -t1 -c32 -d${SLICE}s -s
# Benchmarks/load/load.lua -- pages 500` against each), so that whatever else this shared machine does falls on both
# alike. Each server's CPU time (utime + stime from /proc/PID/stat) and wrk's requests go to its side's round
# totals; per round it prints CPU µs a request of each side and their ratio, on ÷ off. Then the same rounds with
# both servers off: the floor of the method (two servers that do the same work, told apart by their place only).
#
# With PIN=1 (the default) both servers' threads run on CPU 0 and both loads on CPU 1, and the load that starts first
# alternates from slice to slice. Unpinned, six busy threads on two CPUs were shared out differently each second, and
# a server's CPU a request with them (the more it waits, the more requests each wake-up serves): single slices of
# two identical servers differed by up to 1.6×, and rounds of ten by up to 6 % (off ÷ off 0.965–1.058 in one
# sitting). Pinned, the scheduler shares CPU 0 fairly between the four loop threads: off ÷ off 0.97–1.01.
#
# Environment: BIN (default .build/static/x86_64-unknown-linux-gnu/release/ListServer), ROUNDS (5), SLICES (10
# a round), SLICE (1 second), PIN (1), OUT (a new directory under /tmp).
set -euo pipefail
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
# shellcheck source=SCRIPTDIR/../profiles/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../profiles/lib.sh"
setup_profile_bench journal 10
setup_pinned_pairs

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $BIN; results in $OUT" |
    tee "$OUT/summary.txt"
start_pinned on "$BIN"
start_pinned off "$BIN" --journal-capacity 0
start_pinned off2 "$BIN" --journal-capacity 0
pinned_rounds on off "journal on ÷ off (issue 34: at most 1.03 in every round)"
pinned_rounds off2 off "off ÷ off: the method's floor"
# What the journal held at the end: its entries and memory, from /metrics.
curl -s "http://127.0.0.1:${port[on]}/metrics" | grep -E '^listserver_journal_(entries|memory_bytes|dropped_total) ' |
    tee -a "$OUT/summary.txt"
