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
PIN=${PIN:-1}
server_cpu=() load_cpu=()
if [[ $PIN == 1 ]]; then
    (($(nproc) >= 2)) || die "PIN=1 needs two CPUs"
    server_cpu=(taskset -a -pc 0) load_cpu=(taskset -c 1)
fi

declare -A pid port
# start NAME FLAGS...: a server of the build with scenario 1's flags and FLAGS.
start() {
    local name=$1
    shift
    launch_server "$OUT/$name.log" 0 "$BIN" "${profile_flags[@]}" "$@"
    pid[$name]=$launched_pid
    port[$name]=$launched_port
    if ((${#server_cpu[@]})); then "${server_cpu[@]}" "$launched_pid" >/dev/null; fi
}

# slice ROUND A B [FIRST]: both loads at once, FIRST's (A's unless B) started first; appends "round side cpu_us
# requests" per server, A's line first.
slice() {
    local round=$1 side before requests loads=() order=("$2" "$3")
    [[ ${4:-$2} == "$3" ]] && order=("$3" "$2")
    declare -A before
    for side in "$2" "$3"; do before[$side]=$(cpu_ticks "${pid[$side]}"); done
    for side in "${order[@]}"; do
        "${load_cpu[@]}" wrk -t1 -c32 -d"${SLICE}s" -s "$load_lua" "http://127.0.0.1:${port[$side]}/" -- pages 500 \
            >"$OUT/$side-$round.wrk" &
        loads+=($!)
    done
    wait "${loads[@]}" # the two loads, not the servers
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
start on
start off --journal-capacity 0
start off2 --journal-capacity 0
rounds on off "journal on ÷ off (issue 34: at most 1.03 in every round)"
rounds off2 off "off ÷ off: the method's floor"
# What the journal held at the end: its entries and memory, from /metrics.
curl -s "http://127.0.0.1:${port[on]}/metrics" | grep -E '^listserver_journal_(entries|memory_bytes|dropped_total) ' |
    tee -a "$OUT/summary.txt"
