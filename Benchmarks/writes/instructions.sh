#!/usr/bin/env bash
# Benchmarks/writes/instructions.sh: user-space instructions per durable write, ListServer against writes-server.c,
# counted exactly by valgrind's callgrind, so that a change to the write path can be judged by a number that does
# not move with the load of a shared machine (this VM's perf has no hardware counters; see BENCHMARKS.md).
#
#   Benchmarks/writes/instructions.sh [--listserver PATH] [--posts N] [--keep DIR]
#
# Each server runs under callgrind on a fresh SQLite file (synchronous=normal, 2 loops), gets 200 POSTs to warm up,
# then N (default 2,000) sequential POST /items on one keep-alive connection (a group of one each, so the count
# per write does not depend on how writes happen to group), counted with instrumentation switched on just for them.
# Prints instructions per write, in all and by library. The kernel's share is not counted (callgrind cannot).
# valgrind 3.19 cannot read the DWARF of Swift 6.3 binaries, so ListServer runs as a copy without debug info.
# --keep DIR leaves both callgrind outputs there (ListServer.out, writes-server.c.out) for callgrind_annotate.
# Installs valgrind, gcc, libsqlite3-dev, libevent-dev and python3 with apt when missing. Slow: about a minute.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
listserver="$root/.build/static/x86_64-unknown-linux-gnu/release/ListServer"
posts=2000
keep=""
while (($#)); do
    case $1 in
        --listserver) listserver=$2; shift 2 ;;
        --posts) posts=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        *) echo "usage: $0 [--listserver PATH] [--posts N] [--keep DIR]" >&2; exit 2 ;;
    esac
done
die() { echo "instructions.sh: $*" >&2; exit 1; }
[[ -x $listserver ]] || die "no ListServer at $listserver (build it as bench.sh does, or pass --listserver)"
missing=()
command -v valgrind > /dev/null || missing+=(valgrind)
command -v cc > /dev/null || missing+=(gcc)
command -v python3 > /dev/null || missing+=(python3)
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

# posts PORT N: N sequential POSTs on one connection; prints how many were answered 201.
cat > "$work/posts.py" <<'PY'
import socket, sys, time
port, count = int(sys.argv[1]), int(sys.argv[2])
deadline = time.monotonic() + 120  # servers start slowly under valgrind
while True:
    try:
        connection = socket.create_connection(("127.0.0.1", port))
        break
    except OSError:
        if time.monotonic() > deadline: sys.exit("no server on port %d" % port)
        time.sleep(0.1)
body = b'{"label":"posted by wrk 1 12345"}'  # writes.lua's shape: writes-server.c takes only a label
request = (b"POST /items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
           % len(body) + body)
created, buffer = 0, b""
for _ in range(count):
    connection.sendall(request)
    while True:
        end = buffer.find(b"\r\n\r\n")
        if end >= 0:
            head = buffer[:end].decode("latin-1")
            length = int(next(line.split(":", 1)[1] for line in head.split("\r\n")
                              if line.lower().startswith("content-length:")))
            if len(buffer) >= end + 4 + length:
                created += head.startswith("HTTP/1.1 201")
                buffer = buffer[end + 4 + length:]
                break
        data = connection.recv(65536)
        if not data: sys.exit("the server closed the connection")
        buffer += data
print(created)
PY

# count NAME PORT COMMAND...: callgrind over the measured POSTs; prints the per-write table rows.
count() {
    local name=$1 port=$2
    shift 2
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/$name.out" "$@" \
        > "$work/$name.log" 2>&1 &
    local pid=$!
    python3 "$work/posts.py" "$port" 200 > /dev/null || die "$name: the warm-up failed (see $work/$name.log)"
    callgrind_control -i on "$pid" > /dev/null 2>&1
    local created
    created=$(python3 "$work/posts.py" "$port" "$posts") || die "$name: the POSTs failed"
    callgrind_control -i off "$pid" > /dev/null 2>&1
    kill "$pid"
    wait "$pid" 2> /dev/null || true
    ((created == posts)) || die "$name: $created of $posts POSTs were answered 201"
    [[ -z $keep ]] || { mkdir -p "$keep" && cp "$work/$name.out" "$keep/"; }
    callgrind_annotate "$work/$name.out" 2> /dev/null | awk -v name="$name" -v n="$posts" '
        /PROGRAM TOTALS/ { x = $1; gsub(",", "", x); total = x }
        $1 ~ /^[0-9,]+$/ && /\[/ {
            x = $1; gsub(",", "", x); lib = $0; sub(/.*\[/, "", lib); sub(/\].*/, "", lib); sub(/.*\//, "", lib)
            sub(/\.so.*/, "", lib); sub(/-[0-9.]+$/, "", lib); sub(/_(core|extra)$/, "", lib)
            if (lib !~ /^lib(sqlite3|c|event)$/) lib = "the rest"
            by[lib] += x
        }
        END {
            printf "| %s | %d |", name, total / n
            split("the rest,libsqlite3,libc,libevent", order, ",")
            for (i = 1; i <= 4; i++) printf " %d |", by[order[i]] / n
            printf "\n"
        }'
}

echo "Instructions per POST /items (user space, callgrind), $posts sequential writes after 200, synchronous=normal:"
echo
echo "| server | in all | the server's own code (and the Swift runtime) | libsqlite3 | libc | libevent |"
echo "|---|---:|---:|---:|---:|---:|"
count ListServer 8791 "$work/ListServer" --port 8791 --threads 2 --no-access-log \
    --data-path "$work/listserver.sqlite" --data-synchronous normal
count writes-server.c 8792 "$work/writes-server" --port 8792 --threads 2 \
    --data-path "$work/writes-server.sqlite" --synchronous normal
