#!/usr/bin/env bash
# Scale-out on loopback, without Docker: three release ListServer processes sharing one PostgreSQL store (a
# throwaway cluster from Debian's postgresql, scripts/lib/postgres.sh) behind Debian's nginx, configured from
# deploy/nginx.conf (the file deploy/compose.scale.yaml uses; only its "@listen" and "@upstream-servers" lines are
# replaced here). Checks that
#   - a write through nginx is served by every replica directly within moments (read-your-writes everywhere), ids
#     are never handed out twice, and one event-stream subscriber per replica sees every change exactly once, in
#     one order; a reset through one replica is seen by all;
#   - with PostgreSQL stopped, writes get 503 store-unavailable with Retry-After while pages and items go on and
#     /readyz says the store is unreachable; with it back, writes resume and every acknowledged write is there;
#   - every answer for a URL is byte-identical whichever replica gives it, through nginx and directly from each;
#   - details agree in value across replicas while X-Cache differs: each replica has its own cache (round-robin:
#     one MISS per replica, then HITs), and with the sticky `hash $http_x_client_id consistent` line enabled a
#     client stays on one replica (one MISS, then HITs);
#   - a replica that stops (SIGTERM) is skipped by nginx: every request still gets the same 200.
# Bounded (about a minute once built); everything it starts is stopped on exit. Sends traffic only to 127.0.0.1.
# Usage: scripts/scale-out-test.sh   (root, or nginx and libevent-dev already installed)
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source=SCRIPTDIR/lib/postgres.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/postgres.sh"
cd "$root"

WORK=$(mktemp -d /tmp/scale-out.XXXXXX)
pids=() # nginx; the replicas are launch_server's
cleanup() {
    local status=$?
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    stop_launched
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ "$status" -ne 0 ]; then
        for log in "$WORK"/*.log; do [ -f "$log" ] && { echo "--- $log"; tail -5 "$log"; }; done
        echo "scale-out-test: FAILED" >&2
    fi
    rm -rf "$WORK"
    stop_postgres
}
trap cleanup EXIT

extra_packages=()
command -v nginx >/dev/null || extra_packages=(nginx)
install_missing_packages "${build_packages[@]}" "${extra_packages[@]}"
timeout 1500 swift build -c release --product ListServer
binary="$(swift build -c release --show-bin-path)/ListServer"

# Starts a replica on a port the kernel picks; appends that port (read from its start-up line) to `ports`.
start_replica() {
    local name=$1
    launch_server "$WORK/$name.log" 0 "$binary" --threads 1 --seed 42 --latency-min-ms 300 --latency-max-ms 300 \
        --data-url "$postgres_url"
    echo "$launched_pid" >"$WORK/$name.pid"
    ports+=("$launched_port")
}

# Writes an nginx configuration from deploy/nginx.conf: listen on $2, upstream = the replica ports; "sticky" enables
# the commented `hash $http_x_client_id consistent;` line.
make_nginx_conf() { # $1 dir, $2 listen port, $3 mode (round-robin|sticky), rest: replica ports
    local dir=$1 listen=$2 mode=$3
    shift 3
    mkdir -p "$dir"
    python3 - deploy/nginx.conf "$dir/nginx.conf" "$listen" "$mode" "$@" <<'EOF'
import re, sys
template, output, listen, mode, ports = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
lines, found = [], {"@listen": 0, "@upstream-servers": 0, "hash": 0}
for line in open(template):
    indent = line[: len(line) - len(line.lstrip())]
    if "# @listen" in line:
        found["@listen"] += 1
        line = f"{indent}listen 127.0.0.1:{listen};\n"
    elif "# @upstream-servers" in line:
        found["@upstream-servers"] += 1
        line = "".join(f"{indent}server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;\n" for port in ports)
    elif re.match(r"\s*# hash \$http_x_client_id consistent;", line):
        found["hash"] += 1
        if mode == "sticky":
            line = line.replace("# hash", "hash", 1)
    lines.append(line)
assert all(count == 1 for count in found.values()), f"markers in {template}: {found}"
open(output, "w").writelines(lines)
EOF
}

start_nginx() { # $1 dir, $2 port
    local options="daemon off; pid $1/nginx.pid;"
    # Debian's nginx keeps its proxy buffers in /var/lib/nginx, owned by www-data.
    [ "$(id -u)" -eq 0 ] && options+=" user www-data;"
    nginx -t -q -p "$1" -c "$1/nginx.conf" -g "$options"
    nginx -p "$1" -c "$1/nginx.conf" -g "$options" >"$WORK/$(basename "$1")-access.log" 2>"$WORK/$(basename "$1").log" &
    pids+=($!)
    wait_for_url "http://127.0.0.1:$2/healthz" && return
    echo "nginx in $1 did not start" >&2
    return 1
}

start_postgres lists  # chained after cleanup on EXIT (cleanup stops it too, after the replicas)
echo "== three replicas (seed 42, store latency 300 ms, one loop each) on PostgreSQL at $postgres_url"
ports=()
for name in replica-a replica-b replica-c; do start_replica "$name"; done
echo "replicas on 127.0.0.1: ${ports[*]}"

echo "== nginx from deploy/nginx.conf: round-robin and sticky"
round_robin_port=$(free_port)
make_nginx_conf "$WORK/nginx-rr" "$round_robin_port" round-robin "${ports[@]}"
start_nginx "$WORK/nginx-rr" "$round_robin_port"
sticky_port=$(free_port)
make_nginx_conf "$WORK/nginx-sticky" "$sticky_port" sticky "${ports[@]}"
start_nginx "$WORK/nginx-sticky" "$sticky_port"
nginx -v 2>&1
echo "round-robin nginx on 127.0.0.1:$round_robin_port, sticky nginx on 127.0.0.1:$sticky_port"

# Writes shared through PostgreSQL, the feeds, a reset, and PostgreSQL stopped and started again.
pg_ctl_command=("$(postgres_bin)/pg_ctl" -D "$postgres_folder/data" -l "$postgres_folder/server.log" -w -t 60)
((EUID == 0)) && pg_ctl_command=(runuser -u postgres -- "${pg_ctl_command[@]}")
timeout 300 python3 scripts/scale_out_writes.py "$round_robin_port" "${ports[@]}" -- "${pg_ctl_command[@]}"

# The checks; a replica is stopped half-way through, so the script hands over its pid.
timeout 300 python3 - "$round_robin_port" "$sticky_port" "$(cat "$WORK/replica-c.pid")" "$WORK/nginx-rr-access.log" \
    "${ports[@]}" <<'EOF'
import collections, http.client, os, re, signal, sys, threading, time

rr_port, sticky_port, stop_pid, access_log = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
replicas = [int(port) for port in sys.argv[5:]]
upstream_name = {f"127.0.0.1:{port}": name for port, name in zip(replicas, "ABC")}
failures = []

def who(fields):
    """The replica(s) that answered, from X-Upstream: "A", or "C>A" when nginx tried C first."""
    return ">".join(upstream_name.get(part.strip(), part.strip()) for part in fields.get("x-upstream", "?").split(","))

def check(condition, message):
    if not condition:
        failures.append(message)
        print("   FAIL:", message)

def get(port, path, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers=headers or {})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    fields = {name.lower(): value for name, value in response.getheaders()}
    return response.status, fields, body

# What must be identical whichever replica answers (Date and nginx's own headers excluded).
COMPARED = ("content-type", "content-length", "x-total-count", "link", "allow", "cache-control")
def signature(status, fields, body):
    return (status, tuple(fields.get(name) for name in COMPARED), body)

paths = [
    "/items", "/items?page=2", "/items?page=3&limit=50", "/items?page=77&limit=100", "/items?page=500",
    "/items?page=501", "/items?page=1&limit=1", "/items/0", "/items/42", "/items/9999", "/items/10000",
    "/items/abc", "/items?page=0", "/items?limit=101", "/nope", "/healthz", "/readyz",
]
ROUNDS = 9

print(f"== pages: {len(paths)} URLs, directly from each replica and {ROUNDS} times each through nginx")
expected = {}
for path in paths:
    direct = {signature(*get(port, path)) for port in replicas}
    check(len(direct) == 1, f"{path}: the replicas answer differently")
    expected[path] = next(iter(direct))
served_by = collections.Counter()
for _ in range(ROUNDS):
    for path in paths:
        status, fields, body = get(rr_port, path)
        served_by[who(fields)] += 1
        check(signature(status, fields, body) == expected[path], f"{path} via nginx differs from the replicas")
total = sum(served_by.values())
print(f"   {total} answers through nginx, identical to the replicas' own; served by {dict(sorted(served_by.items()))}")
check(set(served_by) == {"A", "B", "C"}, f"round-robin used {set(served_by)}")
check(all(count >= total // 3 - 2 for count in served_by.values()), f"round-robin is uneven: {served_by}")
statuses = collections.Counter(expected[path][0] for path in paths)
print(f"   statuses compared: {dict(sorted(statuses.items()))}")

print("== details: same value everywhere, one cache per replica")
seen = []
for label, port in zip("ABC", replicas):
    status, fields, body = get(port, "/items/7/detail")
    seen.append((label, fields.get("x-cache"), body))
status, fields, body = get(replicas[0], "/items/7/detail")
seen.append(("A again", fields.get("x-cache"), body))
for label, cache, body in seen:
    print(f"   replica {label}: /items/7/detail X-Cache={cache} {body.decode()}")
check([cache for _, cache, _ in seen] == ["MISS", "MISS", "MISS", "HIT"], f"direct X-Cache: {seen}")
check(len({body for _, _, body in seen}) == 1, "replicas disagree on the detail of item 7")

answers = []
for _ in range(6):
    status, fields, body = get(rr_port, "/items/11/detail")
    answers.append((who(fields), fields.get("x-cache"), body))
print("   round-robin, /items/11/detail x6:", " ".join(f"{u}:{c}" for u, c, _ in answers))
first_visit = []
for index, (upstream, cache, _) in enumerate(answers):
    first_visit.append(upstream not in [u for u, _, _ in answers[:index]])
check([cache == "MISS" for _, cache, _ in answers] == first_visit,
      "round-robin: expected a MISS on each replica's first visit and HITs after")
check(len({u for u, _, _ in answers}) == 3, "round-robin did not reach all three replicas")
check(len({body for _, _, body in answers}) == 1, "round-robin: detail values differ")
direct_value = get(replicas[1], "/items/11/detail")[2]
check({body for _, _, body in answers} == {direct_value}, "detail via nginx differs from a replica's")

print("== sticky (hash $http_x_client_id consistent): a client stays on one replica")
homes = {}
for number in range(12):
    client = f"client-{number}"
    visits = [get(sticky_port, f"/items/{100 + number}/detail", {"X-Client-Id": client}) for _ in range(3)]
    upstreams = {who(fields) for _, fields, _ in visits}
    caches = [fields.get("x-cache") for _, fields, _ in visits]
    check(len(upstreams) == 1, f"{client} moved between replicas: {upstreams}")
    check(caches == ["MISS", "HIT", "HIT"], f"{client}: X-Cache {caches}")
    homes[client] = upstreams.pop()
print(f"   12 clients x 3 detail requests: one MISS then HITs each; clients per replica "
      f"{dict(sorted(collections.Counter(homes.values()).items()))}")
check(len(set(homes.values())) >= 2, "every client hashed to one replica")

print("== a replica drains (SIGTERM, a slow request in flight) and stops: nginx retries elsewhere")
slow = {}
thread = threading.Thread(
    target=lambda: slow.update(answer=get(replicas[2], "/items/555/detail", {"Cache-Control": "no-cache"})))
thread.start()
time.sleep(0.05)  # the slow request is waiting on C's store (300 ms)
os.kill(stop_pid, signal.SIGTERM)
during, after = collections.Counter(), collections.Counter()
for path in paths[:9] * 2:  # while C drains: C answers 503 + Connection: close on nginx's kept-alive connections
    status, fields, body = get(rr_port, path)
    during[who(fields)] += 1
    check(signature(status, fields, body) == expected[path], f"{path} while C drains: differs or failed ({status})")
thread.join()
check(slow.get("answer", (0,))[0] == 200, "the request in flight on the draining replica was not answered 200")
for _ in range(100):  # C exits once the slow request is answered
    try:
        os.kill(stop_pid, 0)
        time.sleep(0.05)
    except ProcessLookupError:
        break
for path in paths[:9] * 2:  # after C has exited: connection refused
    status, fields, body = get(rr_port, path)
    after[who(fields)] += 1
    check(signature(status, fields, body) == expected[path], f"{path} after C stopped: differs or failed ({status})")
print(f"   while C drained: {dict(sorted(during.items()))}; after it exited: {dict(sorted(after.items()))}")
print(f"   the request in flight on C: {slow.get('answer', (0,))[0]}")
log = open(access_log).read()
retried_503 = len(re.findall(r"upstream_status=503, 200", log))
retried_refused = len(re.findall(r"upstream_status=502, 200", log))
print(f"   nginx access log: {retried_503} retried after a 503 from C, {retried_refused} after C refused the connection")
check(retried_503 + retried_refused >= 1, "no request was retried: replica C was never tried after SIGTERM")
check(all(count == 0 for name, count in after.items() if name == "C"), "C answered after it stopped")

if failures:
    print(f"scale-out-test: {len(failures)} check(s) failed")
    sys.exit(1)
print("scale-out-test: PASSED")
EOF
