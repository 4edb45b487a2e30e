#!/usr/bin/env bash
# What the request journal costs a page request (issue 34: at most 3 % more CPU a request with it on), both sides
# measured at the same time.
#
#   swift build -c release --static-swift-stdlib --scratch-path .build/static
#   Benchmarks/journal/cost.sh
#
# Servers of the same build with scenario 1's flags (Benchmarks/profiles/lib.sh: 2 loops, 10,000 items, seed 42, no
# access log, no store), one with the journal on (the default, journal.capacity 10,000) and two with it off
# (--journal-capacity 0), all pinned to CPU 0 with their loads on CPU 1 (PIN=1, the default), so that whatever else
# this shared machine does falls on all alike. Each server's CPU time is read from the scheduler
# (/proc/PID/task/*/schedstat, in nanoseconds) and divided by the requests wrk got answered.
#
# METHOD=paced (the default): the three are loaded at once, each with scenario 1's pages at a pace (`wrk -t1
# -c${CONNECTIONS} -d${DURATION}s`, each connection waiting PAUSE ms after each answer: about 4,000 requests a second
# a server, some 80 % of CPU 0 for the three), ROUNDS rounds. Per round: CPU µs a request of each, on ÷ off and
# off2 ÷ off (the method's floor, in the same rounds).
#
# METHOD=saturated: the earlier method, two servers at a time loaded to their capacity (`wrk -t1 -c32`, SLICES slices
# of SLICE seconds a round), on with off, then off2 with off. Servers that share a CPU at capacity serve more requests a
# wake-up the more they wait, so their CPU a request moves with the share each gets: off ÷ off 0.98-1.06 by round in
# one sitting (2026-12-01), where the paced method's floor was 0.986-1.019 over four.
#
# Environment: BIN (default .build/static/x86_64-unknown-linux-gnu/release/ListServer), METHOD (paced), ROUNDS (5),
# DURATION (10), CONNECTIONS (24), PAUSE (5), SLICES (10) and SLICE (1) for METHOD=saturated, PIN (1), OUT (a new
# directory under /tmp).
set -euo pipefail
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
# shellcheck source=SCRIPTDIR/../profiles/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../profiles/lib.sh"
setup_profile_bench journal 10
setup_pinned_pairs
METHOD=${METHOD:-paced}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-24}
PAUSE=${PAUSE:-5}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $BIN; METHOD=$METHOD; results in $OUT" |
    tee "$OUT/summary.txt"
start_pinned off "$BIN" --journal-capacity 0
start_pinned on "$BIN"
start_pinned off2 "$BIN" --journal-capacity 0
case $METHOD in
paced)
    echo "journal on ÷ off (issue 34: at most 1.03 in every round), and off ÷ off, the method's floor" |
        tee -a "$OUT/summary.txt"
    paced_rounds off on off2
    ;;
saturated)
    pinned_rounds on off "journal on ÷ off (issue 34: at most 1.03 in every round)"
    pinned_rounds off2 off "off ÷ off: the method's floor"
    ;;
*) die "METHOD is paced or saturated, not $METHOD" ;;
esac
# What the journal held at the end: its entries and memory, from /metrics.
curl -s "http://127.0.0.1:${port[on]}/metrics" | grep -E '^listserver_journal_(entries|memory_bytes|dropped_total) ' |
    tee -a "$OUT/summary.txt"
