#!/usr/bin/env bash
# Soak: mixed load against a release ListServer on 127.0.0.1 for a bounded time, with clients that abandon slow
# requests, sampling the server's memory, descriptors and health every 10 s.
#
#   scripts/soak.sh [minutes]          (default 10)
#
# Load, all at once for the whole run:
# - wrk (SOAK_WRK_CONNECTIONS connections, default 48, on 2 threads): 50 % pages (random page and limit, some past
#   the end), 25 % items, 20 % details of ids 0-199 (cached after their first fetch), 5 % details with
#   `Cache-Control: no-cache` (a store fetch each: 0.5-2 s). Every request expects a 2xx.
# - SOAK_ABANDONERS (default 8) Python clients in a loop: 60 % send a `no-cache` detail request and close 100 ms
#   later, before the answer; 20 % ask for a 100-item page and close after its first 64 bytes; 20 % send error
#   requests (400, 404, 405) on one keep-alive connection and check each answer. Half of the closes are resets.
# - Every 10 s: VmRSS, VmHWM, threads and open descriptors from /proc, and one `GET /items` timed with curl.
#
# Fails (exit 1) when the server dies, a health check fails, wrk sees a connect/read/write error or a non-2xx, more
# than SOAK_MAX_TIMEOUTS (default 0) wrk requests get no answer within 5 s (a machine shared with other loads may
# need a few), a checked error request gets a wrong answer or an abandoning client an I/O error, the server's RSS
# grows by more than SOAK_RSS_GROWTH_MB (default 16) from the end of the warm-up (the first minute, or a tenth of a
# short run) to the end, or it does not exit 0 on SIGTERM. The time from SIGTERM to exit is reported.
# The bound: the detail cache legitimately grows until it holds all 10,000 items (a few MB); a 3-minute run grew
# 0.7 MB after warm-up, 0.25 MB/min and slowing. 16 MB is five times what a 10-minute run should need.
# Traffic goes to 127.0.0.1 only.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

minutes=${1:-10}
[[ $minutes =~ ^[0-9]+$ && $minutes -ge 1 ]] || { echo "usage: scripts/soak.sh [minutes >= 1]" >&2; exit 64; }
duration=$((minutes * 60))
warmup=$((duration / 10 < 60 ? duration / 10 : 60))
[[ $warmup -ge 10 ]] || warmup=10
connections=${SOAK_WRK_CONNECTIONS:-48}
abandoners=${SOAK_ABANDONERS:-8}
growth_bound_mb=${SOAK_RSS_GROWTH_MB:-16}
max_timeouts=${SOAK_MAX_TIMEOUTS:-0}
interval=10

command -v wrk >/dev/null || die "needs wrk (apt-get install wrk)"
command -v curl >/dev/null || die "needs curl"

swift build -c release --product ListServer
binary="$(swift build -c release --show-bin-path)/ListServer"

work=$(mktemp -d)
server_pid=
load_pids=()
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
    for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    stop_launched
    rm -rf "$work"
}
trap cleanup EXIT

launch_server "$work/server.log" 0 "$binary" --threads 2 --data-path :memory:
server_pid=$launched_pid port=$launched_port
url="http://127.0.0.1:$port"
echo "soak.sh: ListServer pid $server_pid on 127.0.0.1:$port; ${minutes} min, warm-up ${warmup} s," \
    "wrk $connections connections, $abandoners abandoning clients" >&2

cat >"$work/mix.lua" <<'LUA'
-- Mixed requests; counts statuses per thread and prints them once at the end.
local threads = {}
function setup(thread)
    thread:set("id", #threads + 1)
    table.insert(threads, thread)
end
function init(args)
    math.randomseed(id * 7919 + os.time())
    statuses = {}
end
function request()
    local r = math.random(100)
    if r <= 50 then
        return wrk.format("GET", "/items?page=" .. math.random(600) .. "&limit=" .. math.random(100))
    elseif r <= 75 then
        return wrk.format("GET", "/items/" .. math.random(0, 9999))
    elseif r <= 95 then
        return wrk.format("GET", "/items/" .. math.random(0, 199) .. "/detail")
    else
        return wrk.format("GET", "/items/" .. math.random(0, 9999) .. "/detail", {["Cache-Control"] = "no-cache"})
    end
end
function response(status, headers, body)
    statuses[status] = (statuses[status] or 0) + 1
end
function done(summary, latency, requests)
    local total = {}
    for _, thread in ipairs(threads) do
        for status, count in pairs(thread:get("statuses")) do total[status] = (total[status] or 0) + count end
    end
    local parts = {}
    for status, count in pairs(total) do table.insert(parts, status .. "=" .. count) end
    table.sort(parts)
    local errors = summary.errors
    io.write(string.format("WRK requests=%d seconds=%.1f rps=%.0f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f " ..
        "connect=%d read=%d write=%d timeout=%d status_errors=%d statuses=%s\n",
        summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
        errors.connect, errors.read, errors.write, errors.timeout, errors.status, table.concat(parts, ",")))
end
LUA

cat >"$work/abandon.py" <<'PY'
"""Clients that abandon requests: slow details closed after 100 ms, pages closed mid-response, checked errors."""
import json, random, socket, struct, sys, threading, time

host, port, duration, workers = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
lock = threading.Lock()
stats = {"abandoned_details": 0, "abandoned_pages": 0, "checked": 0, "wrong_answers": 0, "connect_errors": 0,
         "io_errors": 0, "resets": 0}
wrong = []
CHECKS = [("GET", "/items?page=0", 400), ("GET", "/items/99999", 404), ("GET", "/items/x/detail", 400),
          ("POST", "/items", 405), ("DELETE", "/items/1", 405), ("GET", "/nope", 404)]

def count(key, n=1):
    with lock:
        stats[key] += n

def read_response(sock):
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            raise OSError("closed before the response head ended")
        head += chunk
    head, _, rest = head.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    fields = {line.split(":", 1)[0].strip().lower(): line.split(":", 1)[1].strip() for line in lines[1:]}
    length = int(fields.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise OSError("closed before the body ended")
        rest += chunk
    return status, fields, rest[:length]

def worker(seed):
    rnd = random.Random(seed)
    end = time.monotonic() + duration
    while time.monotonic() < end:
        kind = rnd.random()
        try:
            sock = socket.create_connection((host, port), timeout=5)
        except OSError:
            count("connect_errors")
            time.sleep(0.05)
            continue
        try:
            if kind < 0.6:
                item = rnd.randrange(10000)
                sock.sendall(f"GET /items/{item}/detail HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             "Cache-Control: no-cache\r\n\r\n".encode())
                time.sleep(0.1)
                count("abandoned_details")
            elif kind < 0.8:
                sock.sendall(b"GET /items?page=7&limit=100 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                sock.recv(64)
                count("abandoned_pages")
            else:
                for method, target, expected in CHECKS:
                    body = "Content-Length: 0\r\n" if method in ("POST", "DELETE") else ""
                    sock.sendall(f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n{body}\r\n".encode())
                    status, fields, payload = read_response(sock)
                    problem = json.loads(payload)
                    ok = (status == expected and problem.get("status") == expected
                          and fields.get("content-type") == "application/problem+json"
                          and (expected != 405 or fields.get("allow") == "GET, HEAD, OPTIONS"))
                    count("checked")
                    if not ok:
                        count("wrong_answers")
                        with lock:
                            wrong.append(f"{method} {target}: {status} {fields} {payload[:200]!r}")
        except (OSError, ValueError) as error:
            count("io_errors")
            with lock:
                if len(wrong) < 20:
                    wrong.append(f"io: {error}")
        finally:
            if rnd.random() < 0.5:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                count("resets")
            sock.close()

threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("ABANDON " + " ".join(f"{key}={value}" for key, value in stats.items()))
for line in wrong[:20]:
    print("ABANDON-WRONG " + line)
PY

timeout --kill-after=30 $((duration + 60)) wrk -t2 -c"$connections" -d"${duration}s" --timeout 5s \
    -s "$work/mix.lua" "$url" >"$work/wrk.out" 2>&1 &
load_pids+=($!)
timeout --kill-after=30 $((duration + 60)) python3 "$work/abandon.py" 127.0.0.1 "$port" "$duration" "$abandoners" \
    >"$work/abandon.out" 2>&1 &
load_pids+=($!)

kib() { awk -v key="$1:" '$1 == key { print $2 }' "/proc/$server_pid/status"; }
printf '%6s %10s %10s %8s %6s %12s\n' "t(s)" "RSS(KiB)" "HWM(KiB)" "threads" "fds" "GET /items" >&2
failures=()
rss_start='' rss_warm='' rss_end='' hwm_end='' fds_start='' fds_end=''
start=$SECONDS
next=0
while true; do
    elapsed=$((SECONDS - start))
    if ! is_running "$server_pid"; then
        failures+=("the server died after ${elapsed} s")
        break
    fi
    if [[ $elapsed -ge $next ]]; then
        rss=$(kib VmRSS) hwm=$(kib VmHWM) threads=$(kib Threads)
        fds=$(find "/proc/$server_pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
        health=$(curl -s -o /dev/null --max-time 5 -w '%{http_code} %{time_total}' "$url/items?page=1" || true)
        printf '%6d %10s %10s %8s %6s %12s\n' "$elapsed" "$rss" "$hwm" "$threads" "$fds" "$health" >&2
        [[ $health == 200\ * ]] || failures+=("health check at ${elapsed} s: '${health}'")
        [[ -n $rss_start ]] || { rss_start=$rss; fds_start=$fds; }
        [[ -n $rss_warm || $elapsed -lt $warmup ]] || rss_warm=$rss
        rss_end=$rss hwm_end=$hwm fds_end=$fds
        next=$((next + interval))
    fi
    [[ $elapsed -ge $duration ]] && ! kill -0 "${load_pids[0]}" 2>/dev/null && ! kill -0 "${load_pids[1]}" 2>/dev/null && break
    [[ $elapsed -ge $((duration + 90)) ]] && { failures+=("the load did not stop"); break; }
    sleep 1
done
for pid in "${load_pids[@]}"; do wait "$pid" || true; done
load_pids=()

wrk_line=$(grep '^WRK ' "$work/wrk.out" || true)
abandon_line=$(grep '^ABANDON ' "$work/abandon.out" || true)
echo "soak.sh: wrk: ${wrk_line#WRK }" >&2
echo "soak.sh: abandoning clients: ${abandon_line#ABANDON }" >&2
grep '^ABANDON-WRONG ' "$work/abandon.out" >&2 || true
[[ -n $wrk_line ]] || { cat "$work/wrk.out" >&2; failures+=("wrk printed no summary"); }
[[ -n $abandon_line ]] || { cat "$work/abandon.out" >&2; failures+=("the abandoning clients printed no summary"); }
field() { grep -o "$1=[0-9]*" <<<"$2" | head -n 1 | cut -d= -f2; }
for key in connect read write status_errors; do
    value=$(field "$key" "$wrk_line")
    [[ ${value:-0} -eq 0 ]] || failures+=("wrk: $key=$value")
done
timeouts=$(field timeout "$wrk_line")
[[ ${timeouts:-0} -le $max_timeouts ]] || failures+=("wrk: timeout=$timeouts (more than $max_timeouts requests got no answer in 5 s)")
for key in wrong_answers io_errors connect_errors; do
    value=$(field "$key" "$abandon_line")
    [[ ${value:-0} -eq 0 ]] || failures+=("abandoning clients: $key=$value")
done

if [[ -n $rss_warm && -n $rss_end ]]; then
    growth_kib=$((rss_end - rss_warm))
    echo "soak.sh: RSS start ${rss_start} KiB, after warm-up ${rss_warm} KiB, end ${rss_end} KiB, peak (VmHWM)" \
        "${hwm_end} KiB; growth after warm-up ${growth_kib} KiB, $((growth_kib * 60 / (duration - warmup))) KiB/min" \
        "(bound $((growth_bound_mb * 1024)) KiB); descriptors ${fds_start} -> ${fds_end}" >&2
    [[ $growth_kib -le $((growth_bound_mb * 1024)) ]] || failures+=("RSS grew ${growth_kib} KiB after warm-up")
fi

if is_running "$server_pid"; then
    stop_start=$(date +%s%N)
    server_status=0
    stop_process "$server_pid" || server_status=$?
    server_pid=
    echo "soak.sh: SIGTERM to exit: $((($(date +%s%N) - stop_start) / 1000000)) ms, status $server_status" >&2
    [[ $server_status -eq 0 ]] || failures+=("the server exited $server_status on SIGTERM")
fi

if [[ ${#failures[@]} -gt 0 ]]; then
    printf 'soak.sh: FAILED: %s\n' "${failures[@]}" >&2
    tail -n 20 "$work/server.log" >&2
    exit 1
fi
echo "soak.sh: passed" >&2
