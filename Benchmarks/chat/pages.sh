#!/usr/bin/env bash
# What a page of 20 messages costs against a page of 20 items (issue 36: "conversation pages as fast as item pages,
# the same CPU per request ±10 %"), in one sitting.
#
#   swift build -c release --static-swift-stdlib --scratch-path .build/static
#   Benchmarks/chat/pages.sh
#
# One server of the build (one loop pinned to CPU 0, the journal off, no access log, no store) is loaded from CPU 1
# by wrk (-t1 -c16, SLICE seconds) with pages of items and pages of messages in turn (Benchmarks/chat/pages.lua).
# A round is TURNS slices of each, in the order items, messages, messages, items, … (so a drift of the shared
# machine's speed during the round weighs on both alike); each kind's CPU (utime + stime from /proc/PID/stat) over
# the round is divided by its requests. Prints CPU µs a request of each and their ratio, messages ÷ items, by
# round. A page of messages is longer (about 5.4 KB against 3.8 KB): the ratio counts that too.
#
# Environment: BIN (default .build/static/x86_64-unknown-linux-gnu/release/ListServer), ROUNDS (5), TURNS (4),
# SLICE (1).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$root/scripts/lib/common.sh"
bin=${BIN:-$root/.build/static/x86_64-unknown-linux-gnu/release/ListServer}
rounds=${ROUNDS:-5}
turns=${TURNS:-4}
slice=${SLICE:-1}
[[ -x $bin ]] || die "no ListServer at $bin (build it as the header says, or set BIN)"
install_missing_packages wrk
work=$(mktemp -d /tmp/chat-pages.XXXXXX)
trap 'stop_launched; rm -rf "$work"' EXIT
launch_server "$work/server.log" 0 "$bin" --threads 1 --data-path :memory: --no-access-log --journal-capacity 0
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
