#!/usr/bin/env bash
# What a page of 20 messages costs against a page of 20 items (issue 36: "conversation pages as fast as item pages,
# the same CPU per request ±10 %"), in one sitting.
#
#   swift build -c release --static-swift-stdlib --scratch-path .build/static
#   Benchmarks/chat/pages.sh
#
# Servers of the build with one loop each (the journal off, no access log, no store), pinned to CPU 0, loaded from
# CPU 1 by wrk with Benchmarks/chat/pages.lua: pages of items at a spread of pages, or pages of messages of
# conversation 0 at a spread of depths. A page of messages is longer (about 5.1 KB against 3.8 KB): the ratio counts
# that too.
#
# METHOD=paced (the default): three servers, loaded at once for DURATION seconds at a pace (`wrk -t1
# -c${CONNECTIONS}`, each connection waiting PAUSE ms after each answer), one with pages of items, one with pages of
# messages, one with pages of items again. CPU from the scheduler (/proc/PID/task/*/schedstat), as in
# Benchmarks/journal/cost.sh (Benchmarks/profiles/lib.sh's paced_rounds: why a pace). Per round: CPU µs a request of
# each, messages ÷ items, and items2 ÷ items (the method's floor, in the same rounds).
#
# METHOD=turns: the earlier method, one server loaded to its capacity (`wrk -t1 -c16`) with pages of items and of
# messages in turn, TURNS slices of SLICE seconds of each a round in the order items, messages, messages, items, …;
# each kind's CPU (/proc/PID/stat) over the round divided by its requests. On a shared machine whose speed moved from
# second to second it printed 0.90-1.17 by round in one sitting (2026-12-01), where the paced method's floor was
# within 2.6 %.
#
# Environment: BIN (default .build/static/x86_64-unknown-linux-gnu/release/ListServer), METHOD (paced), ROUNDS (5),
# DURATION (10), CONNECTIONS (16), PAUSE (5), TURNS (4) and SLICE (1) for METHOD=turns, PIN (1), OUT (a new
# directory under /tmp).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$root/scripts/lib/common.sh"
bin=${BIN:-$root/.build/static/x86_64-unknown-linux-gnu/release/ListServer}
METHOD=${METHOD:-paced}
[[ -x $bin ]] || die "no ListServer at $bin (build it as the header says, or set BIN)"
install_missing_packages wrk
flags=(--threads 1 --data-path :memory: --no-access-log --journal-capacity 0)

if [[ $METHOD == paced ]]; then
    # shellcheck source=SCRIPTDIR/../profiles/lib.sh
    source "$root/Benchmarks/profiles/lib.sh"
    ROUNDS=${ROUNDS:-5}
    DURATION=${DURATION:-10}
    CONNECTIONS=${CONNECTIONS:-16}
    PAUSE=${PAUSE:-5}
    OUT=${OUT:-$(mktemp -d /tmp/chat-pages.XXXXXX)}
    mkdir -p "$OUT"
    load_lua=$root/Benchmarks/chat/pages.lua
    trap stop_launched EXIT
    setup_pinned_pairs
    echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $bin; METHOD=paced; results in $OUT" |
        tee "$OUT/summary.txt"
    for side in items messages items2; do
        launch_server "$OUT/$side.log" 0 "$bin" "${flags[@]}"
        pid[$side]=$launched_pid
        port[$side]=$launched_port
        if ((${#server_cpu[@]})); then "${server_cpu[@]}" "$launched_pid" >/dev/null; fi
        load_script[$side]=$load_lua
        load_args[$side]="${side%2} $PAUSE"
    done
    echo "messages ÷ items (issue 36: 0.90-1.10 in every round), and items2 ÷ items, the method's floor" |
        tee -a "$OUT/summary.txt"
    paced_rounds items messages items2
    exit 0
fi
[[ $METHOD == turns ]] || die "METHOD is paced or turns, not $METHOD"
rounds=${ROUNDS:-5}
turns=${TURNS:-4}
slice=${SLICE:-1}
work=$(mktemp -d /tmp/chat-pages.XXXXXX)
trap 'stop_launched; rm -rf "$work"' EXIT
launch_server "$work/server.log" 0 "$bin" "${flags[@]}"
pid=$launched_pid
taskset -a -p -c 0 "$pid" >/dev/null
base="http://127.0.0.1:$launched_port"
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
declare -A ticks requests
# slice MODE: adds a slice of MODE's pages to ticks[MODE] and requests[MODE].
slice() {
    local before after
    before=$(cpu_ticks)
    taskset -c 1 wrk -t1 -c16 -d"${slice}s" -s "$root/Benchmarks/chat/pages.lua" "$base" -- "$1" >"$work/wrk.out"
    after=$(cpu_ticks)
    grep -q 'Non-2xx' "$work/wrk.out" && die "wrk saw errors: $(cat "$work/wrk.out")"
    ticks[$1]=$((${ticks[$1]} + after - before))
    requests[$1]=$((${requests[$1]} + $(awk '/requests in/ { print $1 }' "$work/wrk.out")))
}
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $bin; $turns turns of ${slice} s a round"
printf '%-6s %12s %12s %8s\n' round "items us" "messages us" ratio
hz=$(getconf CLK_TCK)
for round in $(seq 1 "$rounds"); do
    ticks=([items]=0 [messages]=0)
    requests=([items]=0 [messages]=0)
    for turn in $(seq 1 "$turns"); do
        if ((turn % 2)); then slice items; slice messages; else slice messages; slice items; fi
    done
    python3 -c "
items = ${ticks[items]} * 1e6 / $hz / ${requests[items]}
messages = ${ticks[messages]} * 1e6 / $hz / ${requests[messages]}
print(f'{$round:<6} {items:12.2f} {messages:12.2f} {messages / items:8.3f}')"
done
