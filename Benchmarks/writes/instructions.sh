#!/usr/bin/env bash
# Benchmarks/writes/instructions.sh: user-space instructions per durable write, ListServer against writes-server.c,
# counted exactly by valgrind's callgrind, so that a change to the write path can be judged by a number that does
# not move with the load of a shared machine (this VM's perf has no hardware counters; see BENCHMARKS.md).
#
#   Benchmarks/writes/instructions.sh [--listserver PATH] [--posts N] [--keep DIR]
#   Benchmarks/writes/instructions.sh --clients C [--seconds S] [--listserver PATH] [--keep DIR]
#
# Each server runs under callgrind on a fresh SQLite file (synchronous=normal, 2 loops), gets 200 POSTs to warm up,
# then N (default 2,000) sequential POST /items on one keep-alive connection (a group of one each, so the count
# per write does not depend on how writes happen to group), counted with instrumentation switched on just for them.
# Prints instructions per write, in all and by library. The kernel's share is not counted (callgrind cannot).
# valgrind 3.19 cannot read the DWARF of Swift 6.3 binaries, so ListServer runs as a copy without debug info.
# --keep DIR leaves both callgrind outputs there (ListServer.out, writes-server.c.out) for callgrind_annotate.
#
# With --clients C, the writes come from wrk (writes.lua, C connections, for S seconds, default 15) instead, as in
# the writes step of run.sh: each server groups them as it does under load, and the count is divided by the 201s
# wrk saw. Groups then depend on how valgrind, which runs one thread at a time, interleaves the server's threads,
# so the per-write count moves by a few per cent between runs (the sequential count does not); it is the number
# that matters where many clients write, because per-group costs shrink and per-request costs stay. The outputs
# are per thread (callgrind --separate-threads), and the report splits the server's count by thread too: at one
# sequential client every thread's count is on the write's path, so the split says where its latency goes.
# Installs valgrind, gcc, libsqlite3-dev, libevent-dev and python3 with apt when missing. Slow: about a minute.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
listserver="$root/.build/static/x86_64-unknown-linux-gnu/release/ListServer"
posts=2000
keep=""
clients=0
seconds=15
while (($#)); do
    case $1 in
        --listserver) listserver=$2; shift 2 ;;
        --posts) posts=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        --clients) clients=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        *) echo "usage: $0 [--listserver PATH] [--posts N | --clients C [--seconds S]] [--keep DIR]" >&2; exit 2 ;;
    esac
done
die() { echo "instructions.sh: $*" >&2; exit 1; }
[[ -x $listserver ]] || die "no ListServer at $listserver (build it as bench.sh does, or pass --listserver)"
missing=()
command -v valgrind > /dev/null || missing+=(valgrind)
command -v cc > /dev/null || missing+=(gcc)
command -v python3 > /dev/null || missing+=(python3)
((clients == 0)) || command -v wrk > /dev/null || missing+=(wrk)
[[ -e /usr/include/sqlite3.h ]] || missing+=(libsqlite3-dev)
[[ -e /usr/include/event2/http.h ]] || missing+=(libevent-dev)
if ((${#missing[@]})); then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" > /dev/null ||
        die "cannot install ${missing[*]}"
fi

work=$(mktemp -d /tmp/instructions.XXXXXX)
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -Wextra -o "$work/writes-server" "$root/Benchmarks/sqlite/writes-server.c" -levent -lsqlite3 -lpthread ||
    die "cannot build writes-server.c"
cp "$listserver" "$work/ListServer"
strip --strip-debug "$work/ListServer"
# N sequential requests on one keep-alive connection; prints how many got the expected status.
keepalive="$root/Benchmarks/load/keepalive.py"

# count NAME PORT COMMAND...: callgrind over the measured POSTs; prints the per-write table rows (and, with
# --clients, the per-thread rows after the table, in threads.md).
count() {
    local name=$1 port=$2
    shift 2
    valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes --callgrind-out-file="$work/$name.out" "$@" \
        > "$work/$name.log" 2>&1 &
    local pid=$!
    python3 "$keepalive" posts "$port" 200 > /dev/null || die "$name: the warm-up failed (see $work/$name.log)"
    callgrind_control -i on "$pid" > /dev/null 2>&1
    local created
    if ((clients == 0)); then
        created=$(python3 "$keepalive" posts "$port" "$posts") || die "$name: the POSTs failed"
    else
        WRK_THREADS=2 timeout $((seconds + 60)) wrk -t2 -c"$clients" -d"${seconds}s" --timeout 30s \
            -s "$root/Benchmarks/writes/writes.lua" "http://127.0.0.1:$port" -- post > "$work/$name.wrk" 2>&1 ||
            die "$name: wrk failed (see $work/$name.wrk)"
        created=$(sed -n 's/^BENCH //p' "$work/$name.wrk" | python3 -c 'import json, sys; print(json.load(sys.stdin)["s201"])')
    fi
    callgrind_control -i off "$pid" > /dev/null 2>&1
    kill "$pid"
    wait "$pid" 2> /dev/null || true
    if ((clients == 0)); then
        ((created == posts)) || die "$name: $created of $posts POSTs were answered 201"
    else
        ((created > 0)) || die "$name: no POST was answered 201"
    fi
    local outputs=("$work/$name".out*)
    [[ -z $keep ]] || { mkdir -p "$keep" && cp "${outputs[@]}" "$keep/"; }
    local output
    for output in "${outputs[@]}"; do
        [[ -s $output ]] || continue  # with --separate-threads, callgrind leaves the unsuffixed file empty
        echo "=== ${output##*.out}"
        callgrind_annotate "$output" 2> /dev/null || true
    done | awk -v name="$name" -v n="$created" -v threads="$work/threads.md" '
        /^=== / { thread = substr($0, 6); sub(/^-/, "", thread); next }
        /PROGRAM TOTALS/ { x = $1; gsub(",", "", x); total += x; per[thread] += x }
        $1 ~ /^[0-9,]+$/ && /\[/ {
            x = $1; gsub(",", "", x); lib = $0; sub(/.*\[/, "", lib); sub(/\].*/, "", lib); sub(/.*\//, "", lib)
            sub(/\.so.*/, "", lib); sub(/-[0-9.]+$/, "", lib); sub(/_(core|extra)$/, "", lib)
            if (lib !~ /^lib(sqlite3|c|event)$/) lib = "the rest"
            by[lib] += x
            thread_by[thread, lib] += x
        }
        END {
            printf "| %s | %d |", name, total / n
            split("the rest,libsqlite3,libc,libevent", order, ",")
            for (i = 1; i <= 4; i++) printf " %d |", by[order[i]] / n
            printf "\n"
            for (t in per) {
                if (t == "" || per[t] / n < 100) continue
                line = sprintf("| %s, thread %s | %d |", name, t, per[t] / n)
                for (i = 1; i <= 4; i++) line = line sprintf(" %d |", thread_by[t, order[i]] / n)
                print line >> threads
            }
        }'
}

if ((clients == 0)); then
    echo "Instructions per POST /items (user space, callgrind), $posts sequential writes after 200, synchronous=normal:"
else
    echo "Instructions per POST /items (user space, callgrind), wrk -c$clients for ${seconds} s after 200 sequential" \
        "writes, synchronous=normal, divided by the 201s wrk saw:"
fi
echo
echo "| server | in all | the server's own code (and the Swift runtime) | libsqlite3 | libc | libevent |"
echo "|---|---:|---:|---:|---:|---:|"
count ListServer 8791 "$work/ListServer" --port 8791 --threads 2 --no-access-log \
    --data-path "$work/listserver.sqlite" --data-synchronous normal
count writes-server.c 8792 "$work/writes-server" --port 8792 --threads 2 \
    --data-path "$work/writes-server.sqlite" --synchronous normal
if [[ -s $work/threads.md ]]; then
    echo
    echo "By thread (callgrind's numbering, the busy ones; ListServer's: two loops and the SQLite thread):"
    echo
    echo "| server, thread | in all | own code | libsqlite3 | libc | libevent |"
    echo "|---|---:|---:|---:|---:|---:|"
    sort "$work/threads.md"
fi
