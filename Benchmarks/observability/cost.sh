#!/usr/bin/env bash
# What metrics and the access log cost the page path, measured with wrk against a release build on 127.0.0.1.
#
#   swift build -c release && Benchmarks/observability/cost.sh
#
# For each round, every configuration in turn (so a change in the machine's load hits all of them alike): start
# `ListServer --host 127.0.0.1 --port $PORT --threads 2 <flags>` with its output to a file, warm up for 2 s,
# then `wrk -t2 -c64 -d${DURATION}s -s Benchmarks/load/load.lua -- pages 500` (random pages 1..500, limit 20, as
# scenario 1 of scripts/bench.sh). Each run reports wrk's requests/s and latency, and the server's own CPU time per
# request (utime + stime of every thread, from /proc/PID/stat, over the measured run): on a shared machine, CPU per
# request moves much less with other work than throughput does. At the end: the median of each configuration and
# its difference to the baseline.
#
# Environment: BIN (default .build/release/ListServer), MAIN_BIN (optional: main's binary, run as "main"),
# PORT (18480), ROUNDS (3), DURATION (10), OUT (a new directory under /tmp), ONLY (names of the configurations to
# run, space-separated; baseline should be one of them).
set -euo pipefail
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
cd "$root"
load_lua=Benchmarks/load/load.lua
BIN=${BIN:-.build/release/ListServer}
PORT=${PORT:-18480}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
OUT=${OUT:-$(mktemp -d /tmp/listserver-observability-cost.XXXXXX)}
mkdir -p "$OUT"
ticks=$(getconf CLK_TCK)

configs=(
  "baseline|$BIN|--no-metrics --no-access-log"
  "metrics|$BIN|--metrics --no-access-log"
  "access-log|$BIN|--no-metrics --access-log"
  "defaults|$BIN|"
  "json|$BIN|--log-format json"
)
if [[ -n "${MAIN_BIN:-}" ]]; then configs=("main|$MAIN_BIN|" "${configs[@]}"); fi
if [[ -n "${ONLY:-}" ]]; then
  selected=()
  for entry in "${configs[@]}"; do [[ " $ONLY " == *" ${entry%%|*} "* ]] && selected+=("$entry"); done
  configs=("${selected[@]}")
fi

trap stop_launched EXIT # a failed run leaves no server behind

run_one() { # name binary flags round
  local name=$1 binary=$2 flags=$3 round=$4
  local log="$OUT/$name-$round.stderr"
  # shellcheck disable=SC2086
  launch_server "$log" "$PORT" "$binary" --threads 2 $flags
  local pid=$launched_pid
  wrk -t2 -c64 -d2s -s "$load_lua" "http://127.0.0.1:$PORT/" -- pages 500 >/dev/null
  local load before after
  load=$(cut -d' ' -f1 /proc/loadavg)
  before=$(cpu_ticks "$pid")
  wrk -t2 -c64 -d"${DURATION}s" --latency -s "$load_lua" "http://127.0.0.1:$PORT/" -- pages 500 \
    >"$OUT/$name-$round.wrk"
  after=$(cpu_ticks "$pid")
  stop_process "$pid" || true
  local rps requests p50 p99
  rps=$(awk '/^Requests\/sec/ { print $2 }' "$OUT/$name-$round.wrk")
  requests=$(awk '/requests in/ { print $1 }' "$OUT/$name-$round.wrk")
  p50=$(awk '$1 == "50%" { print $2 }' "$OUT/$name-$round.wrk")
  p99=$(awk '$1 == "99%" { print $2 }' "$OUT/$name-$round.wrk")
  local cpu_us
  cpu_us=$(awk -v t=$((after - before)) -v hz="$ticks" -v n="$requests" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$name" "$rps" "$cpu_us" "$p50" "$p99" "$load" | tee -a "$OUT/results.tsv"
}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load before: $(cut -d' ' -f1-3 /proc/loadavg); results in $OUT"
printf 'round\tconfig\treq/s\tcpu_us/req\tp50\tp99\tload1\n' | tee "$OUT/results.tsv"
for round in $(seq "$ROUNDS"); do
  for entry in "${configs[@]}"; do
    IFS='|' read -r name binary flags <<<"$entry"
    run_one "$name" "$binary" "$flags" "$round"
  done
done

echo
echo "median over $ROUNDS rounds (difference to baseline):"
awk -F'\t' 'NR > 1 { rps[$2] = rps[$2] " " $3; cpu[$2] = cpu[$2] " " $4; if (!($2 in seen)) { order[++n] = $2; seen[$2] = 1 } }
  function median(list,   values, count, i, j, swap) {
    count = split(list, values, " ")
    for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++) if (values[j] + 0 < values[i] + 0) {
      swap = values[i]; values[i] = values[j]; values[j] = swap }
    return count % 2 ? values[(count + 1) / 2] : (values[count / 2] + values[count / 2 + 1]) / 2
  }
  END {
    base_rps = median(rps["baseline"]); base_cpu = median(cpu["baseline"])
    printf "%-11s %10s %9s %12s %9s\n", "config", "req/s", "vs base", "cpu_us/req", "vs base"
    for (k = 1; k <= n; k++) { c = order[k]; r = median(rps[c]); u = median(cpu[c])
      printf "%-11s %10.0f %+8.1f%% %12.2f %+8.1f%%\n", c, r, (r / base_rps - 1) * 100, u, (u / base_cpu - 1) * 100 }
  }' "$OUT/results.tsv" | tee "$OUT/summary.txt"
