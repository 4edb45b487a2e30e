#!/usr/bin/env bash
# What the request journal costs a page request (issue 34: at most 3 % more CPU a request with it on), both sides
# measured at the same time.
#
#   swift build -c release --static-swift-stdlib --scratch-path .build/static
#   Benchmarks/journal/cost.sh
#
# Servers of the same build with scenario 1's flags (Benchmarks/profiles/lib.sh: 2 loops, 10,000 items, seed 42, no
# access log, no store), two with the journal on (the default, journal.capacity 10,000; one for METHOD=saturated) and
# two with it off (--journal-capacity 0), all pinned to CPU 0 with their loads on CPU 1 (PIN=1, the default), so that
# whatever else this shared machine does falls on all alike. Each server's CPU time is read from the scheduler
# (/proc/PID/task/*/schedstat, in nanoseconds) and divided by the requests wrk got answered.
#
# METHOD=paced (the default): the four are loaded at once, each with scenario 1's pages at a pace (`wrk -t1
# -c${CONNECTIONS} -d${DURATION}s`, each connection waiting PAUSE ms after each answer: about 3,000 requests a second
# a server), ROUNDS rounds. Per round: CPU µs a request of each and each ÷ off; then the verdict, the two journal-on
# servers' CPU over their requests against the two journal-off servers', with the floors off2 ÷ off and on2 ÷ on.
# Until 2026-12-02 one server was on and two off (-c24): one of two identical servers could be 1-2 % dearer than the
# other for a whole sitting, a bias that two servers a side halve. Rounds of 20 s since 2026-12-03: in rounds of 10 s
# the floors ranged 0.966-1.039 over nine sittings of one morning, in rounds of 20 s 0.989-1.022 over four.
#
# METHOD=saturated: the earlier method, two servers at a time loaded to their capacity (`wrk -t1 -c32`, SLICES slices
# of SLICE seconds a round), on with off, then off2 with off. Servers that share a CPU at capacity serve more requests a
# wake-up the more they wait, so their CPU a request moves with the share each gets: off ÷ off 0.98-1.06 by round in
# one sitting (2026-12-01), where the paced method's floor was 0.986-1.019 over four.
#
# Environment: BIN (default .build/static/x86_64-unknown-linux-gnu/release/ListServer), METHOD (paced), ROUNDS (5),
# DURATION (20), CONNECTIONS (18), PAUSE (5), SLICES (10) and SLICE (1) for METHOD=saturated, PIN (1), OUT (a new
# directory under /tmp).
set -euo pipefail
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
# shellcheck source=SCRIPTDIR/../profiles/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../profiles/lib.sh"
setup_profile_bench journal 10
setup_pinned_pairs
METHOD=${METHOD:-paced}
DURATION=${DURATION:-20}
CONNECTIONS=${CONNECTIONS:-18}
PAUSE=${PAUSE:-5}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $BIN; METHOD=$METHOD; results in $OUT" |
    tee "$OUT/summary.txt"
start_pinned off "$BIN" --journal-capacity 0
start_pinned on "$BIN"
start_pinned off2 "$BIN" --journal-capacity 0
case $METHOD in
paced)
    start_pinned on2 "$BIN"
    echo "each server's CPU a request, and each ÷ off" | tee -a "$OUT/summary.txt"
    paced_rounds off on off2 on2
    # The verdict pools each side's two servers: a server's own layout and place in the CPU's turns made one of two
    # identical servers 1-2 % dearer than the other for a whole sitting (off2 ÷ off 1.009-1.012 in four of five
    # rounds, 2026-12-02), a bias two servers a side halve.
    echo "journal on ÷ off, both servers a side (issue 34: at most 1.03 in every round); the floors: off2 ÷ off," \
        "on2 ÷ on" | tee -a "$OUT/summary.txt"
    awk -F'\t' '{ ns[$1, $2] = $3; requests[$1, $2] = $4; rounds[$1] = 1 }
      function us(r, side) { return ns[r, side] / 1e3 / requests[r, side] }
      function pooled(r, a, b) { return (ns[r, a] + ns[r, b]) / 1e3 / (requests[r, a] + requests[r, b]) }
      END {
        printf "%-6s %12s %12s %12s\n", "round", "on/off", "off2/off", "on2/on"
        for (r = 1; r in rounds; r++)
          printf "%-6d %12.3f %12.3f %12.3f\n", r, pooled(r, "on", "on2") / pooled(r, "off", "off2"),
            us(r, "off2") / us(r, "off"), us(r, "on2") / us(r, "on")
      }' "$OUT/results.tsv" | tee -a "$OUT/summary.txt"
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
