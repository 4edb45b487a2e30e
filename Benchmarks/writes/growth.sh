#!/usr/bin/env bash
# Benchmarks/writes/growth.sh: one server, several runs of POST /items back to back, and after each the server's
# CPU per write and its resident memory: does a write cost more, and how much memory does a written item keep, as
# the list grows? ListServer (any binary) or writes-server.c, with an environment of choice (an allocator through
# LD_PRELOAD, glibc's malloc tunables), so that allocators can be compared on one binary.
#
#   Benchmarks/writes/growth.sh [--runs N] [--seconds S] [--clients C] [--synchronous full|normal]
#                               [--env NAME=VALUE ...] [--listserver PATH | --c-server]
#
# Defaults: 4 runs of 4 s at 64 connections, synchronous normal, the static build bench.sh makes. The data file is
# under .build-growth/ in the work tree (the disk the write benchmarks use), removed at the end. 127.0.0.1 only;
# bounded by runs x (seconds + 30 s). Installs wrk, gcc and libsqlite3-dev/libevent-dev (for writes-server.c) with
# apt when missing. Prints one line per run: writes/s, server CPU µs/write (utime + stime over the run ÷ 201s),
# items written so far, VmRSS.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$root/scripts/lib/common.sh"

runs=4 seconds=4 clients=64 sync=normal c_server=0
listserver="$root/.build/static/x86_64-unknown-linux-gnu/release/ListServer"
environment=()
while (($#)); do
    case $1 in
    --runs) runs=$2 && shift ;;
    --seconds) seconds=$2 && shift ;;
    --clients) clients=$2 && shift ;;
    --synchronous) sync=$2 && shift ;;
    --env) environment+=("$2") && shift ;;
    --listserver) listserver=$2 && shift ;;
    --c-server) c_server=1 ;;
    *) die "usage: $0 [--runs N] [--seconds S] [--clients C] [--synchronous full|normal] [--env NAME=VALUE]... [--listserver PATH | --c-server]" ;;
    esac
    shift
done
install_missing_packages wrk gcc libsqlite3-dev libevent-dev

work="$root/.build-growth"
rm -rf "$work" && mkdir -p "$work"
trap 'stop_launched; rm -rf "$work"' EXIT
if ((c_server)); then
    cc -O2 -Wall -Wextra -o "$work/writes-server" "$root/Benchmarks/sqlite/writes-server.c" -levent -lsqlite3 \
        -lpthread || die "cannot build writes-server.c"
    binary="$work/writes-server"
    arguments=(--threads 2 --data-path "$work/growth.sqlite" --synchronous "$sync" --changes-kept 100000)
    name=writes-server.c
else
    [[ -x $listserver ]] || die "no ListServer at $listserver (build it as bench.sh does, or pass --listserver)"
    binary=$listserver
    # A million items in one list: more than a shared server lets one dataset hold by default.
    arguments=(--threads 2 --no-access-log --data-path "$work/growth.sqlite" --data-synchronous "$sync"
        --max-dataset-bytes 17179869184 --max-memory-bytes 17179869184)
    name=$listserver
fi
# The environment applies to the server alone (not to wrk): a wrapper that sets it and runs the server.
{
    printf '#!/usr/bin/env bash\nexec env'
    printf ' %q' "${environment[@]}" "$binary"
    printf ' "$@"\n'
} >"$work/server"
chmod +x "$work/server"
launch_server "$work/server.log" 0 "$work/server" "${arguments[@]}"
pid=$launched_pid port=$launched_port
threads=2
((clients < 2)) && threads=1
echo "$name${environment[*]:+ with ${environment[*]}}: $runs runs of ${seconds} s, $clients connections, synchronous=$sync"
written=0
for run in $(seq 1 "$runs"); do
    ticks0=$(cpu_ticks "$pid")
    result=$(WRK_THREADS=$threads timeout --kill-after=5 $((seconds + 30)) wrk -t"$threads" -c"$clients" \
        -d"${seconds}s" --timeout 10s -s "$root/Benchmarks/writes/writes.lua" "http://127.0.0.1:$port" -- post 2>&1) ||
        die "wrk failed: $result"
    ticks1=$(cpu_ticks "$pid")
    s201=$(grep -o '"s201":[0-9]*' <<<"$result" | cut -d: -f2) || s201=0
    ((s201 > 0)) || die "no 201 in run $run: $result"
    written=$((written + s201))
    rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
    awk -v run="$run" -v n="$s201" -v s="$seconds" -v t=$((ticks1 - ticks0)) -v hz="$(getconf CLK_TCK)" \
        -v w="$written" -v rss="$rss" \
        'BEGIN { printf "run %d: %6.0f writes/s  %5.1f µs/write  %7d items written  VmRSS %6.1f MB\n",
                 run, n / s, t * 1e6 / hz / n, w, rss / 1024 }'
done
