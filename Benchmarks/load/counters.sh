#!/usr/bin/env bash
# Benchmarks/load/counters.sh: what one page request costs each server in user space, counted by valgrind where
# the machine has no hardware counters (this VM's perf: "PMU not available due to virtualization"), for issue 16.
#
#   Benchmarks/load/counters.sh [--requests N] [--keep DIR] [--listserver PATH]
#   Benchmarks/load/counters.sh --clients C [--seconds S] [--keep DIR] [--listserver PATH]
#
# Each server (ListServer as bench.sh builds it, release with the Swift runtime static; the C evhttp baseline)
# runs under callgrind with its cache and branch simulators (--cache-sim=yes --branch-sim=yes), 2 loops, scenario
# 1's catalog (10,000 items, seed 42). It gets 500 page requests to warm up, then N (default 5,000) sequential
# `GET /items?page=<1..500>&limit=20` on one keep-alive connection, counted with instrumentation switched on just
# for them (so start-up and warm-up do not count). Prints per request, in all and by library:
#   - instructions (Ir: exact, the number to judge a change by);
#   - branch mispredictions, conditional and indirect (Bcm + Bim, from callgrind's simple predictor model: not
#     the CPU's, but where they come from carries over);
#   - L1 data misses, reads and writes (D1mr + D1mw, from the simulated 32 kB L1d: likewise a model).
# Sequential requests leave out what concurrency adds (and the kernel, which callgrind cannot count); they give a
# count that does not move with the load of a shared machine. valgrind 3.19 cannot read the DWARF of Swift 6.3
# binaries, so ListServer runs as a copy without debug info. With --clients C, the measured requests come from
# wrk instead (-t2, C connections, S seconds, default 10, the pages of scenario 1), and every count is divided by the
# requests wrk completed: how the loops batch under concurrency then counts too (valgrind runs one thread at a
# time, so the batching is valgrind's, not the CPU's; the count moves by a percent or two between runs).
# --keep DIR keeps both callgrind outputs there for callgrind_annotate (for example `--show=Bcm,Bim --sort=Bcm`).
# Installs valgrind, gcc, libevent-dev and python3 with apt when missing. About two minutes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/lib/common.sh"
listserver="$root/.build/static/x86_64-unknown-linux-gnu/release/ListServer"
requests=5000
declare -A served  # requests counted, by server
clients=0
seconds=10
keep=""
while (($#)); do
    case $1 in
        --requests) requests=$2; shift 2 ;;
        --clients) clients=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        --listserver) listserver=$2; shift 2 ;;
        *) die "usage: $0 [--requests N | --clients C [--seconds S]] [--keep DIR] [--listserver PATH]" ;;
    esac
done
[[ -x $listserver ]] || die "no ListServer at $listserver (build it as bench.sh does, or pass --listserver)"
install_missing_packages valgrind gcc libevent-dev python3
((clients == 0)) || install_missing_packages wrk

work=$(mktemp -d /tmp/counters.XXXXXX)
trap 'stop_launched; rm -rf "$work"' EXIT
build_baseline "$work/evhttp-baseline"
cp "$listserver" "$work/ListServer"
strip --strip-debug "$work/ListServer"
# N sequential requests on one keep-alive connection; prints how many got the expected status.
keepalive="$root/Benchmarks/load/keepalive.py"

# count NAME PORT COMMAND...: callgrind over the measured requests; prints the table rows.
count() {
    local name=$1 port=$2
    shift 2
    valgrind --tool=callgrind --instr-atstart=no --cache-sim=yes --branch-sim=yes \
        --callgrind-out-file="$work/$name.out" "$@" >"$work/$name.log" 2>&1 &
    local pid=$!
    python3 "$keepalive" pages "$port" 500 >/dev/null || die "$name: the warm-up failed (see $work/$name.log)"
    callgrind_control -i on "$pid" >/dev/null 2>&1
    local answered
    if ((clients == 0)); then
        answered=$(python3 "$keepalive" pages "$port" "$requests") || die "$name: the requests failed"
    else
        timeout $((seconds + 60)) wrk -t2 -c"$clients" -d"${seconds}s" --timeout 30s \
            -s "$root/Benchmarks/load/load.lua" "http://127.0.0.1:$port" -- pages 500 >"$work/$name.wrk" 2>&1 ||
            die "$name: wrk failed (see $work/$name.wrk)"
        requests=$(sed -n 's/^BENCH //p' "$work/$name.wrk" | python3 -c '
import json, sys
bench = json.load(sys.stdin)
errors = [key for key in ("status", "connect", "read", "timeout") if bench[key]]
sys.exit("errors: " + ", ".join(errors)) if errors else print(bench["requests"])') ||
            die "$name: wrk saw errors (see $work/$name.wrk)"
        answered=$requests  # wrk's errors, 503s included, are checked above
    fi
    served[$name]=$requests
    callgrind_control -i off "$pid" >/dev/null 2>&1
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    ((answered == requests)) || die "$name: $answered of $requests requests were answered 200"
    [[ -z $keep ]] || { mkdir -p "$keep" && cp "$work/$name.out" "$keep/"; }
    callgrind_annotate --show=Ir,Bcm,Bim,D1mr,D1mw --show-percs=no --threshold=100 "$work/$name.out" 2>/dev/null |
        awk -v name="$name" -v n="$requests" '
        function add(key, f) { ir[key] += f[1]; branch[key] += f[2] + f[3]; d1[key] += f[4] + f[5] }
        function numbers(line, f,    i, fields) {  # "." is a zero
            split(line, fields, " ")
            for (i = 1; i <= 5; i++) { f[i] = fields[i]; gsub(",", "", f[i]); f[i] += 0 }
        }
        /PROGRAM TOTALS/ { numbers($0, f); add("all", f); next }
        ($1 ~ /^[0-9,]+$/ || $1 == ".") && /\[/ {
            numbers($0, f)
            lib = $0; sub(/.*\[/, "", lib); sub(/\].*/, "", lib); sub(/.*\//, "", lib)
            sub(/\.so.*/, "", lib); sub(/-[0-9.]+$/, "", lib); sub(/_(core|extra)$/, "", lib)
            if (lib !~ /^lib(c|event)$/) lib = "own"
            add(lib, f)
        }
        END {
            printf "| %s | instructions | %d | %d | %d | %d |\n", name, ir["all"] / n, ir["own"] / n, ir["libc"] / n, ir["libevent"] / n
            printf "| %s | branch mispredictions | %.1f | %.1f | %.1f | %.1f |\n", name, branch["all"] / n, branch["own"] / n, branch["libc"] / n, branch["libevent"] / n
            printf "| %s | L1d misses | %.1f | %.1f | %.1f | %.1f |\n", name, d1["all"] / n, d1["own"] / n, d1["libc"] / n, d1["libevent"] / n
        }'
}

# top NAME EVENT: the 8 functions of NAME's count with the most of EVENT (Bcm, D1mr...), per request.
top() {
    callgrind_annotate --show="$2" --sort="$2" --show-percs=no "$work/$1.out" 2>/dev/null |
        awk -v n="${served[$1]}" -v name="$1" -v event="$2" '
            /file:function/ { listing = 1; next }
            listing && $1 ~ /^[0-9,]+$/ && shown < 8 {
                x = $1; gsub(",", "", x); symbol = $2; sub(/^[^:]*:/, "", symbol)
                printf "| %s | %s | %.1f | `%s` |\n", name, event, x / n, symbol; shown++
            }'
}

if ((clients == 0)); then
    echo "Per GET /items?page=<1..500>&limit=20 (user space, callgrind with its cache and branch models), $requests" \
        "sequential requests on one connection after 500:"
else
    echo "Per GET /items?page=<1..500>&limit=20 (user space, callgrind with its cache and branch models), wrk -t2" \
        "-c$clients for $seconds s after 500 sequential requests, divided by the requests wrk completed:"
fi
echo
echo "| server | counter | in all | the server's own code (and the Swift runtime) | libc | libevent |"
echo "|---|---|---:|---:|---:|---:|"
port=$(free_port)
count ListServer "$port" "$work/ListServer" --host 127.0.0.1 --port "$port" --threads 2 --seed 42 --item-count 10000 \
    --default-limit 20 --max-limit 100 --no-access-log --data-path :memory:
port=$(free_port)
count evhttp-baseline "$port" "$work/evhttp-baseline" --host 127.0.0.1 --port "$port" --threads 2 --seed 42 \
    --item-count 10000 --max-limit 100
echo
echo "Where they are, per request (the functions with the most; Swift symbols mangled: swift demangle reads them):"
echo
echo "| server | event | per request | function |"
echo "|---|---|---:|---|"
for name in ListServer evhttp-baseline; do
    for event in Bcm D1mr; do top "$name" "$event"; done
done
