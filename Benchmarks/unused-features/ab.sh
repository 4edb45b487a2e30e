#!/usr/bin/env bash
# What did issue 6 (faults, delays, cursors, reset, growth; and on every answer ETag, Cache-Control, CORS and
# X-Request-Id) cost the fast path? Two builds of ListServer side by side on this machine: BEFORE (a commit without
# the issue) and AFTER (this tree), with the same flags; and, when given, the C baseline before and after it learnt
# to send the same new fields, to tell the cost of the extra bytes and fields on the wire (which any server pays)
# from the cost of ListServer's own code. Builds alternate within each round, in an order that flips every round,
# so that a change in the machine's load hits all of them alike.
#
#   swift build -c release --product ListServer                       # AFTER: this tree
#   git worktree add /tmp/ls-before f46672b                           # BEFORE: the last commit before issue 6
#   (cd /tmp/ls-before && swift build -c release --product ListServer)
#   BEFORE_BIN=/tmp/ls-before/.build/release/ListServer C_BEFORE_REV=f46672b Benchmarks/unused-features/ab.sh
#
# With C_BEFORE_REV, the script builds the C baseline of that commit and of this tree into OUT the one way every
# benchmark builds it (build_baseline in scripts/lib/common.sh: cc -O2, libevent_core + libevent_extra, as
# scripts/bench.sh measures it); C_BEFORE_BIN and C_AFTER_BIN name baselines built otherwise instead.
#
# Scenarios: "pages" (GET /items?page=<1..500>&limit=20, scenario 1 of scripts/bench.sh) and "details" (GET
# /items/<0..999>/detail after a warm-up that caches them all, scenario 2), each wrk -t2 -c64 for DURATION seconds
# after 2 s of warm-up, servers with 2 threads (ListServer with --no-access-log, as in scripts/bench.sh). Reported
# per run: wrk's requests/s and the server's CPU time per request (utime + stime of all its threads from
# /proc/PID/stat over the measured run), which moves much less with other work on a shared machine than throughput
# does. At the end: the median of each build and scenario, and each "after" against its "before".
#
# Environment: BEFORE_BIN (required), AFTER_BIN (default .build/release/ListServer), C_BEFORE_REV (optional: a
# commit whose baseline to build and compare with this tree's), or C_BEFORE_BIN and C_AFTER_BIN (optional, both or
# neither), PORT (18490), ROUNDS (3), DURATION (10), OUT (a new directory under /tmp).
set -euo pipefail
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
cd "$root"
: "${BEFORE_BIN:?set BEFORE_BIN to a ListServer built without issue 6}"
AFTER_BIN=${AFTER_BIN:-.build/release/ListServer}
PORT=${PORT:-18490}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
OUT=${OUT:-$(mktemp -d /tmp/listserver-unused-features.XXXXXX)}
mkdir -p "$OUT"
ticks=$(getconf CLK_TCK)
load_lua=Benchmarks/load/load.lua
listserver_flags="--threads 2 --no-access-log --latency-min-ms 1 --latency-max-ms 1"
c_flags="--threads 2 --latency-ms 1"

if [[ -n ${C_BEFORE_REV:-} ]]; then
    git show "$C_BEFORE_REV:Benchmarks/baseline/evhttp-baseline.c" >"$OUT/c-before.c" ||
        die "no Benchmarks/baseline/evhttp-baseline.c at $C_BEFORE_REV"
    # The header it includes beside it, where that revision has one (since the fields were shared with
    # writes-server.c).
    git show "$C_BEFORE_REV:Benchmarks/baseline/listserver-fields.h" >"$OUT/listserver-fields.h" 2>/dev/null ||
        rm -f "$OUT/listserver-fields.h"
    build_baseline "$OUT/c-before" "$OUT/c-before.c" || die "cannot build the baseline of $C_BEFORE_REV"
    build_baseline "$OUT/c-after" || die "cannot build this tree's baseline"
    C_BEFORE_BIN=$OUT/c-before C_AFTER_BIN=$OUT/c-after
fi

builds=("before|$BEFORE_BIN|$listserver_flags" "after|$AFTER_BIN|$listserver_flags")
if [[ -n "${C_BEFORE_BIN:-}" && -n "${C_AFTER_BIN:-}" ]]; then
    builds+=("c-before|$C_BEFORE_BIN|$c_flags" "c-after|$C_AFTER_BIN|$c_flags")
fi

trap stop_launched EXIT # a failed run leaves no server behind

run_one() { # build binary flags scenario round
    local build=$1 binary=$2 flags=$3 scenario=$4 round=$5
    # shellcheck disable=SC2086
    launch_server "$OUT/$build-$scenario-$round.stderr" "$PORT" "$binary" $flags
    local pid=$launched_pid
    local mode=pages argument=500
    if [[ $scenario == details ]]; then
        mode=details argument=1000
        for id in $(seq 0 999); do
            printf 'url = "http://127.0.0.1:%s/items/%s/detail"\noutput = "/dev/null"\n' "$PORT" "$id"
        done | curl -sf --no-progress-meter --max-time 30 --parallel --parallel-max 64 -K -
    fi
    timeout 30 wrk -t2 -c64 -d2s -s "$load_lua" "http://127.0.0.1:$PORT" -- "$mode" "$argument" >/dev/null
    local before after
    before=$(cpu_ticks "$pid")
    timeout $((DURATION + 30)) wrk -t2 -c64 -d"${DURATION}s" --latency -s "$load_lua" "http://127.0.0.1:$PORT" \
        -- "$mode" "$argument" >"$OUT/$build-$scenario-$round.wrk"
    after=$(cpu_ticks "$pid")
    stop_process "$pid" || true
    local rps requests errors cpu_us
    rps=$(awk '/^Requests\/sec/ { print $2 }' "$OUT/$build-$scenario-$round.wrk")
    requests=$(awk '/requests in/ { print $1 }' "$OUT/$build-$scenario-$round.wrk")
    errors=$(awk '/Non-2xx|Socket errors/ { n++ } END { print n + 0 }' "$OUT/$build-$scenario-$round.wrk")
    cpu_us=$(awk -v t=$((after - before)) -v hz="$ticks" -v n="$requests" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$scenario" "$build" "$rps" "$cpu_us" "$errors" | tee -a "$OUT/results.tsv"
}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load before: $(cut -d' ' -f1-3 /proc/loadavg); results in $OUT"
echo "# after: $AFTER_BIN at $(git rev-parse --short HEAD); before: $BEFORE_BIN"
printf 'round\tscenario\tbuild\treq/s\tcpu_us/req\terror lines\n' | tee "$OUT/results.tsv"
for round in $(seq "$ROUNDS"); do
    for scenario in pages details; do
        order=("${builds[@]}")
        if ((round % 2 == 0)); then # reversed every other round
            order=()
            for ((i = ${#builds[@]} - 1; i >= 0; i--)); do order+=("${builds[i]}"); done
        fi
        for entry in "${order[@]}"; do
            IFS='|' read -r build binary flags <<<"$entry"
            run_one "$build" "$binary" "$flags" "$scenario" "$round"
        done
    done
done

echo
echo "median over $ROUNDS rounds (each after against its before):"
awk -F'\t' 'NR > 1 { key = $2 "|" $3; rps[key] = rps[key] " " $4; cpu[key] = cpu[key] " " $5 }
  function median(list,   values, count, i, j, swap) {
    count = split(list, values, " ")
    for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++) if (values[j] + 0 < values[i] + 0) {
      swap = values[i]; values[i] = values[j]; values[j] = swap }
    return count % 2 ? values[(count + 1) / 2] : (values[count / 2] + values[count / 2 + 1]) / 2
  }
  END {
    printf "%-8s %-10s %12s %12s %7s %12s %12s %7s\n", "scenario", "server", "req/s before", "req/s after", "ratio",
      "cpu_us before", "cpu_us after", "ratio"
    split("pages details", scenarios, " ")
    for (k = 1; k <= 2; k++) { s = scenarios[k]
      for (c = 0; c < 2; c++) { p = c ? "c-" : ""; name = c ? "C baseline" : "ListServer"
        if (!((s "|" p "before") in rps)) continue
        rb = median(rps[s "|" p "before"]); ra = median(rps[s "|" p "after"])
        cb = median(cpu[s "|" p "before"]); ca = median(cpu[s "|" p "after"])
        printf "%-8s %-10s %12.0f %12.0f %7.3f %12.2f %12.2f %7.3f\n", s, name, rb, ra, ra / rb, cb, ca, ca / cb } }
  }' "$OUT/results.tsv" | tee "$OUT/summary.txt"
