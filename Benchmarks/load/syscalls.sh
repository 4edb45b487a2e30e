#!/usr/bin/env bash
# Benchmarks/load/syscalls.sh: the system calls each server makes per page request under load, for issue 16.
#
#   Benchmarks/load/syscalls.sh [--duration S] [--connections N] [--listserver PATH]
#
# Each server (ListServer as bench.sh builds it, release with the Swift runtime static; the C evhttp baseline) runs
# with 2 loops on scenario 1's catalog while wrk (-t2, N connections, default 64) asks for
# `/items?page=<1..500>&limit=20` for S seconds (default 4); `perf trace -s` counts every system call of the server
# meanwhile (tracepoints: they work where this VM has no PMU). Prints, per request, each system call of either
# server, side by side. perf trace slows both servers alike, so the rates are not the benchmark's: only the counts
# per request are. Installs linux-perf, wrk, gcc and libevent-dev with apt when missing. About half a minute.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/lib/common.sh"
listserver="$root/.build/static/x86_64-unknown-linux-gnu/release/ListServer"
duration=4
connections=64
while (($#)); do
    case $1 in
        --duration) duration=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
        --listserver) listserver=$2; shift 2 ;;
        *) die "usage: $0 [--duration S] [--connections N] [--listserver PATH]" ;;
    esac
done
[[ -x $listserver ]] || die "no ListServer at $listserver (build it as bench.sh does, or pass --listserver)"
command -v perf >/dev/null || install_missing_packages linux-perf
install_missing_packages wrk gcc libevent-dev

work=$(mktemp -d /tmp/syscalls.XXXXXX)
trap 'stop_launched; rm -rf "$work"' EXIT
build_baseline "$work/evhttp-baseline"

# trace NAME COMMAND...: starts the server, traces it under wrk, writes NAME.calls ("syscall count" lines) and
# NAME.requests.
trace() {
    local name=$1 port
    shift
    port=$(free_port)
    "$@" --host 127.0.0.1 --port "$port" --threads 2 --seed 42 --item-count 10000 >"$work/$name.log" 2>&1 &
    local pid=$!
    wait_for_url "http://127.0.0.1:$port/items" 20 || die "$name did not start (see $work/$name.log)"
    perf trace -s -p "$pid" -o "$work/$name.trace" -- sleep $((duration + 1)) &
    local tracer=$!
    sleep 0.5
    wrk -t2 -c"$connections" -d"${duration}s" -s "$root/Benchmarks/load/load.lua" "http://127.0.0.1:$port" -- pages 500 \
        >"$work/$name.wrk"
    wait "$tracer"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    awk '/requests in/ {print $1}' "$work/$name.wrk" >"$work/$name.requests"
    awk '$2 ~ /^[0-9]+$/ && $1 ~ /^[a-z_0-9]+$/ {calls[$1] += $2} END {for (c in calls) print c, calls[c]}' \
        "$work/$name.trace" >"$work/$name.calls"
}

cp "$listserver" "$work/ListServer-bin"
trace ListServer "$work/ListServer-bin" --no-access-log --data-path :memory: --default-limit 20 --max-limit 100
trace baseline "$work/evhttp-baseline" --max-limit 100

listserver_requests=$(cat "$work/ListServer.requests")
baseline_requests=$(cat "$work/baseline.requests")
echo "System calls per GET /items?page=<1..500>&limit=20, wrk -t2 -c$connections for ${duration} s under perf trace" \
    "(ListServer $listserver_requests requests, the baseline $baseline_requests):"
echo
echo "| system call | ListServer | baseline |"
echo "|---|---:|---:|"
sort -u <(cut -d' ' -f1 "$work/ListServer.calls") <(cut -d' ' -f1 "$work/baseline.calls") | while read -r call; do
    a=$(awk -v c="$call" '$1 == c {print $2}' "$work/ListServer.calls")
    b=$(awk -v c="$call" '$1 == c {print $2}' "$work/baseline.calls")
    awk -v c="$call" -v a="${a:-0}" -v b="${b:-0}" -v na="$listserver_requests" -v nb="$baseline_requests" \
        'BEGIN { if (a / na >= 0.0005 || b / nb >= 0.0005) printf "| `%s` | %.3f | %.3f |\n", c, a / na, b / nb }'
done
awk -v na="$listserver_requests" -v nb="$baseline_requests" 'FNR == 1 {file++} {total[file] += $2}
    END {printf "| all | %.3f | %.3f |\n", total[1] / na, total[2] / nb}' "$work/ListServer.calls" "$work/baseline.calls"
