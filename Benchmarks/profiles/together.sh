#!/usr/bin/env bash
# What a dataset's profile of every field costs a page request (issue 33), both sides measured at the same time.
#
#   swift build -c release --static-swift-stdlib --scratch-path .build/static
#   Benchmarks/profiles/together.sh
#
# cost.sh runs the configurations one after another, and this shared machine's load moves by more than the 2 µs it
# looks for between two slices a second apart (one sitting gave full − plain from 1.0 to 3.0 µs, same binary).
# Here two servers of the same build (scenario 1's flags: 2 loops, 10,000 items, seed 42, no access log, no store),
# each with dataset `full` given lib.sh's profile (every field, requests still let through), are loaded at
# the same time, one with requests to `full`, the other with the same requests to `plain` (no profile; the same
# `Authorization` header), so that whatever else the machine does falls on both alike. Each slice swaps which
# server gets which (a server's own layout cancels out). Per slice, `wrk -t1 -c32 -d${SLICE}s -s
# Benchmarks/load/load.lua -- pages 500` against each; each server's CPU time (utime + stime from /proc/PID/stat)
# and wrk's requests go to its side's round totals. Per round it prints CPU µs a request of each side and their
# difference, full − plain: what the profile adds.
#
# Environment: BIN (default .build/static/x86_64-unknown-linux-gnu/release/ListServer), ROUNDS (5), SLICES (10
# a round), SLICE (1 second), OUT (a new directory under /tmp).
set -euo pipefail
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
setup_profile_bench together 10

declare -A pid port token
for server in a b; do
    launch_server "$OUT/$server.log" 0 "$BIN" "${profile_flags[@]}"
    pid[$server]=$launched_pid
    port[$server]=$launched_port
    set_every_field_profile "${port[$server]}"
    token[$server]=$profile_token
done

# slice ROUND FULL_SERVER PLAIN_SERVER: both loads at once; appends "round side cpu_us requests" per side.
slice() {
    local round=$1 full=$2 plain=$3 side server before_full before_plain requests loads=()
    before_full=$(cpu_ticks "${pid[$full]}")
    before_plain=$(cpu_ticks "${pid[$plain]}")
    for side in full plain; do
        if [[ $side == full ]]; then server=$full; else server=$plain; fi
        wrk -t1 -c32 -d"${SLICE}s" -H "X-Dataset: $side" -H "Authorization: Bearer ${token[$server]}" \
            -s "$load_lua" "http://127.0.0.1:${port[$server]}/" -- pages 500 >"$OUT/$side-$round.wrk" &
        loads+=($!)
    done
    wait "${loads[@]}" # the two loads, not the servers
    for side in full plain; do
        if [[ $side == full ]]; then server=$full; else server=$plain; fi
        local before=$before_plain
        [[ $side == full ]] && before=$before_full
        requests=$(awk '/requests in/ { print $1 }' "$OUT/$side-$round.wrk")
        grep -q 'Non-2xx' "$OUT/$side-$round.wrk" && die "$side: wrk saw errors (see $OUT/$side-$round.wrk)"
        awk -v r="$round" -v n="$side" -v t=$(($(cpu_ticks "${pid[$server]}") - before)) -v hz="$ticks" \
            -v q="$requests" 'BEGIN { printf "%s\t%s\t%.2f\t%d\n", r, n, t / hz * 1e6 / q, q }' >>"$OUT/results.tsv"
    done
}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $BIN; results in $OUT"
slice 0 a b # warm-up, not counted
slice 0 b a
: >"$OUT/results.tsv"
for ((round = 1; round <= ROUNDS; round++)); do
    for ((pass = 0; pass < SLICES; pass++)); do
        if ((pass % 2 == 0)); then slice "$round" a b; else slice "$round" b a; fi
    done
done
awk -F'\t' '{ cpu_us[$1, $2] += $3 * $4; requests[$1, $2] += $4 }
  END {
    printf "%-6s %8s %8s %12s\n", "round", "plain", "full", "full-plain us"
    for (r = 1; (r SUBSEP "full") in cpu_us; r++) {
      full = cpu_us[r, "full"] / requests[r, "full"]; plain = cpu_us[r, "plain"] / requests[r, "plain"]
      printf "%-6d %8.2f %8.2f %12.2f\n", r, plain, full, full - plain
    }
  }' "$OUT/results.tsv" | tee "$OUT/summary.txt"
