#!/usr/bin/env bash
# What a dataset's profile costs a page request (issue 33), measured with wrk against release builds on 127.0.0.1.
#
#   swift build -c release --static-swift-stdlib --scratch-path .build/static
#   MAIN_BIN=<a build before profiles> Benchmarks/profiles/cost.sh
#
# Servers, all started once and left running (scenario 1's flags: 2 loops, 10,000 items, seed 42, no access log, no
# store), so that every round sees each under the same machine:
#   - "main" (only with MAIN_BIN): a build from before the change, no profile;
#   - "empty": this build, no profile at all (what scenario 1 of scripts/bench.sh measures);
#   - "profiled": this build with dataset `full` given a profile of every field, set so that requests still pass
#     (lib.sh's), and dataset `plain` with none.
# Each round runs SLICES passes; a pass runs, in an order that rotates, `wrk -t2 -c64 -d${SLICE}s -s
# Benchmarks/load/load.lua -- pages 500` (random pages 1..500, limit 20) against: main; empty; profiled with
# `X-Dataset: plain`; profiled with `X-Dataset: full`; the last two both with `Authorization: Bearer <token>`, the
# same request to a dataset with the profile and to one without (an app sends its token to either; reading the
# header is the request's cost, some 3,700 instructions, not the profile's). Short slices, many of
# them, interleaved: the machine's load drifts by more than 2 us a request within seconds (4 s slices, one each per
# round, gave full − plain from −2.6 to 6.7 us in one sitting). Each slice adds the server's CPU time (utime +
# stime from /proc/PID/stat) and wrk's requests to its configuration's round totals. Per round it prints CPU us a
# request, the ratios empty/main and plain/empty, and full − plain in microseconds: what the profile adds.
#
# Environment: BIN (default .build/static/x86_64-unknown-linux-gnu/release/ListServer), MAIN_BIN (optional),
# ROUNDS (5), SLICES (6 passes a round), SLICE (1 second), OUT (a new directory under /tmp).
set -euo pipefail
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
setup_profile_bench cost 6

declare -A pid port
start() { # name binary
    launch_server "$OUT/$1.log" 0 "$2" "${profile_flags[@]}"
    pid[$1]=$launched_pid
    port[$1]=$launched_port
}
[[ -n ${MAIN_BIN:-} ]] && start main "$MAIN_BIN"
start empty "$BIN"
start profiled "$BIN"
set_every_field_profile "${port[profiled]}"
token=$profile_token

# slice NAME SERVER [HEADER...]: one wrk slice; appends "round name cpu_us requests".
slice() {
    local name=$1 server=$2 round=$3
    shift 3
    local headers=() header
    for header in "$@"; do headers+=(-H "$header"); done
    local before after requests
    before=$(cpu_ticks "${pid[$server]}")
    wrk -t2 -c64 -d"${SLICE}s" ${headers[@]+"${headers[@]}"} -s "$load_lua" "http://127.0.0.1:${port[$server]}/" \
        -- pages 500 >"$OUT/$name-$round.wrk"
    after=$(cpu_ticks "${pid[$server]}")
    requests=$(awk '/requests in/ { print $1 }' "$OUT/$name-$round.wrk")
    grep -q 'Non-2xx' "$OUT/$name-$round.wrk" && die "$name: wrk saw errors (see $OUT/$name-$round.wrk)"
    awk -v r="$round" -v n="$name" -v t=$((after - before)) -v hz="$ticks" -v q="$requests" \
        'BEGIN { printf "%s\t%s\t%.2f\t%d\n", r, n, t / hz * 1e6 / q, q }' >>"$OUT/results.tsv"
}

configs=(empty plain full)
[[ -n ${MAIN_BIN:-} ]] && configs=(main "${configs[@]}")
run() { # config round
    case $1 in
        main) slice main main "$2" ;;
        empty) slice empty empty "$2" ;;
        plain) slice plain profiled "$2" "X-Dataset: plain" "Authorization: Bearer $token" ;;
        full) slice full profiled "$2" "X-Dataset: full" "Authorization: Bearer $token" ;;
    esac
}
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $BIN; results in $OUT"
for config in "${configs[@]}"; do run "$config" 0; done # warm-up, not counted
: >"$OUT/results.tsv"
count=${#configs[@]}
for ((round = 1; round <= ROUNDS; round++)); do
    for ((pass = 0; pass < SLICES; pass++)); do
        for ((k = 0; k < count; k++)); do run "${configs[$(((k + pass + round) % count))]}" "$round"; done
    done
done
awk -F'\t' '{ cpu_us[$1, $2] += $3 * $4; requests[$1, $2] += $4 }
  END { for (key in cpu_us) cpu[key] = cpu_us[key] / requests[key]

    printf "%-6s %8s %8s %8s %8s %10s %10s %12s\n", "round", "main", "empty", "plain", "full", "empty/main",
      "plain/empty", "full-plain us"
    for (r = 1; (r SUBSEP "empty") in cpu; r++) {
      m = ((r SUBSEP "main") in cpu) ? cpu[r, "main"] : 0
      printf "%-6d %8s %8.2f %8.2f %8.2f %10s %10.3f %12.2f\n", r, m ? sprintf("%.2f", m) : "-", cpu[r, "empty"],
        cpu[r, "plain"], cpu[r, "full"], m ? sprintf("%.3f", cpu[r, "empty"] / m) : "-",
        cpu[r, "plain"] / cpu[r, "empty"], cpu[r, "full"] - cpu[r, "plain"]
    }
  }' "$OUT/results.tsv" | tee "$OUT/summary.txt"
