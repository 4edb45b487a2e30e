#!/usr/bin/env bash
# Do issue 6's features (faults, delays, cursors, ETags, CORS, request ids, reset) cost the fast path anything when
# unused? Two builds of ListServer, side by side on this machine: BEFORE (a commit without them) and AFTER (this
# tree), with the same flags, alternating round by round so that a change in the machine's load hits both alike.
#
#   swift build -c release --product ListServer          # AFTER, this tree
#   git worktree add /tmp/ls-before f46672b && (cd /tmp/ls-before && swift build -c release --product ListServer)
#   BEFORE_BIN=/tmp/ls-before/.build/release/ListServer Benchmarks/unused-features/ab.sh
#
# Scenarios: "pages" (GET /items?page=<1..500>&limit=20, scenario 1 of scripts/bench.sh) and "details" (GET
# /items/<0..999>/detail after a warm-up that caches them, scenario 2), each with wrk -t2 -c64 for DURATION
# seconds after 2 s of warm-up, on a server started with --threads 2 --no-access-log. Reported per run: wrk's
# requests/s, and the server's CPU time per request (utime + stime of all its threads from /proc/PID/stat over the
# measured run), which moves much less with other work on a shared machine than throughput does. At the end: the
# median of each build and scenario, and AFTER's difference to BEFORE.
#
# Environment: BEFORE_BIN (required), AFTER_BIN (default .build/release/ListServer), PORT (18490), ROUNDS (3),
# DURATION (10), OUT (a new directory under /tmp).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
: "${BEFORE_BIN:?set BEFORE_BIN to a ListServer built without the features}"
AFTER_BIN=${AFTER_BIN:-.build/release/ListServer}
PORT=${PORT:-18490}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
OUT=${OUT:-$(mktemp -d /tmp/listserver-unused-features.XXXXXX)}
mkdir -p "$OUT"
ticks=$(getconf CLK_TCK)
load_lua=scripts/bench/load.lua

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

run_one() { # build binary scenario round
  local build=$1 binary=$2 scenario=$3 round=$4
  "$binary" --host 127.0.0.1 --port "$PORT" --threads 2 --no-access-log \
    --latency-min-ms 1 --latency-max-ms 1 2>"$OUT/$build-$scenario-$round.stderr" >/dev/null &
  local pid=$!
  for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/items" && break; sleep 0.1; done
  local mode=pages argument=500
  if [[ $scenario == details ]]; then
    mode=details argument=1000
    for id in $(seq 0 999); do printf 'url = "http://127.0.0.1:%s/items/%s/detail"\noutput = "/dev/null"\n' "$PORT" "$id"; done |
      curl -sf --parallel --parallel-max 64 -K -
  fi
  wrk -t2 -c64 -d2s -s "$load_lua" "http://127.0.0.1:$PORT" -- "$mode" "$argument" >/dev/null
  local before after
  before=$(cpu_ticks "$pid")
  wrk -t2 -c64 -d"${DURATION}s" --latency -s "$load_lua" "http://127.0.0.1:$PORT" -- "$mode" "$argument" \
    >"$OUT/$build-$scenario-$round.wrk"
  after=$(cpu_ticks "$pid")
  kill -TERM "$pid"
  wait "$pid" || true
  local rps requests errors cpu_us
  rps=$(awk '/^Requests\/sec/ { print $2 }' "$OUT/$build-$scenario-$round.wrk")
  requests=$(awk '/requests in/ { print $1 }' "$OUT/$build-$scenario-$round.wrk")
  errors=$(awk '/Non-2xx|Socket errors/ { n++ } END { print n + 0 }' "$OUT/$build-$scenario-$round.wrk")
  cpu_us=$(awk -v t=$((after - before)) -v hz="$ticks" -v n="$requests" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$scenario" "$build" "$rps" "$cpu_us" "$errors" | tee -a "$OUT/results.tsv"
}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load before: $(cut -d' ' -f1-3 /proc/loadavg); results in $OUT"
echo "# before: $BEFORE_BIN; after: $AFTER_BIN ($(git rev-parse --short HEAD))"
printf 'round\tscenario\tbuild\treq/s\tcpu_us/req\terror lines\n' | tee "$OUT/results.tsv"
for round in $(seq "$ROUNDS"); do
  for scenario in pages details; do
    # Alternate which build goes first, so neither always runs on the warmer (or busier) half of a round.
    if ((round % 2)); then order="before after"; else order="after before"; fi
    for build in $order; do
      binary=$BEFORE_BIN
      [[ $build == after ]] && binary=$AFTER_BIN
      run_one "$build" "$binary" "$scenario" "$round"
    done
  done
done

echo
echo "median over $ROUNDS rounds (after vs before):"
awk -F'\t' 'NR > 1 { key = $2 "|" $3; rps[key] = rps[key] " " $4; cpu[key] = cpu[key] " " $5 }
  function median(list,   values, count, i, j, swap) {
    count = split(list, values, " ")
    for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++) if (values[j] + 0 < values[i] + 0) {
      swap = values[i]; values[i] = values[j]; values[j] = swap }
    return count % 2 ? values[(count + 1) / 2] : (values[count / 2] + values[count / 2 + 1]) / 2
  }
  END {
    printf "%-8s %12s %12s %8s %14s %14s %8s\n", "scenario", "req/s before", "req/s after", "ratio", "cpu_us before", "cpu_us after", "ratio"
    split("pages details", scenarios, " ")
    for (k = 1; k <= 2; k++) { s = scenarios[k]
      rb = median(rps[s "|before"]); ra = median(rps[s "|after"]); cb = median(cpu[s "|before"]); ca = median(cpu[s "|after"])
      printf "%-8s %12.0f %12.0f %8.3f %14.2f %14.2f %8.3f\n", s, rb, ra, ra / rb, cb, ca, ca / cb }
  }' "$OUT/results.tsv" | tee "$OUT/summary.txt"
