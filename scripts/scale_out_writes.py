"""Writes across three replicas that share one PostgreSQL store (scripts/scale-out-test.sh runs this).

    scale_out_writes.py NGINX_PORT REPLICA_PORT... -- PG_CTL_COMMAND...

PG_CTL_COMMAND is pg_ctl with its -D (and runuser when root); "stop -m fast" and "start" are appended to it.
Checks, on 127.0.0.1 only, bounded in time:
  - each write through nginx is served by every replica directly within moments (measured: the worst delay);
    ids are never handed out twice;
  - one event-stream subscriber per replica sees every change exactly once, in one order (the same on all three);
  - a reset through one replica is seen by all;
  - PostgreSQL stopped: writes get 503 store-unavailable with Retry-After, pages and items still 200, /readyz says
    "store":"unreachable"; PostgreSQL started again: writes resume, and every write acknowledged (201) before,
    during or after the outage is on every replica with its label.
Exit status 1 when a check fails.
"""
import http.client
import json
import subprocess
import sys
import threading
import time

separator = sys.argv.index("--")
nginx = int(sys.argv[1])
replicas = [int(port) for port in sys.argv[2:separator]]
pg_ctl = sys.argv[separator + 1:]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("   FAIL:", message)


def request(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    data = json.dumps(body).encode() if body is not None else None
    fields = dict(headers or {})
    if data is not None:
        fields["Content-Type"] = "application/json"
    connection.request(method, path, body=data, headers=fields)
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    return response.status, {name.lower(): value for name, value in response.getheaders()}, payload


def wait_for(what, probe, timeout=10.0, interval=0.01):
    """Polls probe() until it returns a true value; returns (value, seconds waited), or fails the check."""
    start = time.monotonic()
    while True:
        value = probe()
        if value:
            return value, time.monotonic() - start
        if time.monotonic() - start > timeout:
            check(False, f"gave up after {timeout} s waiting for {what}")
            return None, timeout
        time.sleep(interval)


class Subscriber(threading.Thread):
    """An event-stream client on one replica: every (id, event) it is sent, in order."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port = port
        self.events = []
        self.ready = threading.Event()

    def run(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        connection.request("GET", "/items/events", headers={"Accept": "text/event-stream"})
        response = connection.getresponse()
        self.ready.set()
        event, sequence = None, None
        while True:
            line = response.fp.readline()
            if not line:
                return
            line = line.decode().rstrip("\r\n")
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("id:"):
                sequence = int(line[3:].strip())
            elif line == "" and event is not None:
                self.events.append((sequence, event))
                event, sequence = None, None


print(f"== writes through nginx ({nginx}), read back from each replica directly ({replicas})")
subscribers = [Subscriber(port) for port in replicas]
for subscriber in subscribers:
    subscriber.start()
    subscriber.ready.wait(10)
time.sleep(0.2)  # the streams' first bytes are out; the next change is theirs

acknowledged = {}  # location -> label
worst = 0.0
first_try_stale = 0
for number in range(30):
    label = f"write {number}"
    status, fields, _ = request(nginx, "POST", "/items", {"label": label})
    check(status == 201, f"POST {number} through nginx: {status}")
    location = fields.get("location")
    check(location not in acknowledged, f"id handed out twice: {location}")
    acknowledged[location] = label
    for port in replicas:
        status, _, body = request(port, "GET", location)
        if status != 200:
            first_try_stale += 1

            def visible(port=port, location=location):
                return request(port, "GET", location)[0] == 200

            _, waited = wait_for(f"{location} on replica {port}", visible, timeout=2, interval=0.001)
            worst = max(worst, waited)
print(f"   30 writes: every one served by all three replicas; {first_try_stale} of 90 first reads came before "
      f"the replica had heard of the write, the longest wait {worst * 1000:.1f} ms")
check(worst < 1.0, f"a replica took {worst:.3f} s to serve a write")

ids = sorted(int(location.rsplit("/", 1)[1]) for location in acknowledged)
check(ids == list(range(10000, 10030)), f"ids are not 10000...10029: {ids[:5]}…")
status, _, _ = request(replicas[1], "PATCH", "/items/10003", {"label": "edited on B"})
check(status == 200, f"PATCH on replica B: {status}")
acknowledged["/items/10003"] = "edited on B"
status, _, _ = request(replicas[2], "DELETE", "/items/10004")
check(status == 204, f"DELETE on replica C: {status}")
del acknowledged["/items/10004"]

print("== a reset through replica B is seen by all")
status, _, body = request(replicas[1], "POST", "/admin/reset")
check(status == 200, f"reset on B: {status} {body[:100]}")
acknowledged = {}
for port in replicas:
    def reset_seen(port=port):
        page = json.loads(request(port, "GET", "/items?limit=1")[2])
        return page.get("version") == 2 and page.get("total") == 10000
    _, waited = wait_for(f"replica {port} to see the reset", reset_seen, timeout=2, interval=0.001)
    print(f"   replica {port}: version 2, 10000 items after {waited * 1000:.1f} ms")

expected_changes = 30 + 1 + 1 + 1  # the creates, the edit, the delete, the reset
for subscriber in subscribers:
    wait_for(f"the subscriber on {subscriber.port} to get {expected_changes} events",
             lambda subscriber=subscriber: len(subscriber.events) >= expected_changes, timeout=5)
orders = [list(subscriber.events) for subscriber in subscribers]
print(f"   event streams: {[len(order) for order in orders]} events each; "
      f"last {orders[0][-1] if orders[0] else None}")
check(all(order == orders[0] for order in orders), "the replicas' event streams differ")
sequences = [sequence for sequence, _ in orders[0]]
check(sequences == list(range(1, len(sequences) + 1)), f"sequence numbers not 1...n once each: {sequences[:8]}…")
check([event for _, event in orders[0]] == ["created"] * 30 + ["updated", "deleted", "reset"],
      f"events: {[event for _, event in orders[0]]}")

print("== PostgreSQL stopped: writes 503, reads go on")
for number in range(3):
    status, fields, _ = request(nginx, "POST", "/items", {"label": f"before {number}"})
    check(status == 201, f"POST before the outage: {status}")
    if status == 201:
        acknowledged[fields.get("location")] = f"before {number}"
subprocess.run(pg_ctl + ["stop", "-m", "fast"], check=True, stdout=subprocess.DEVNULL)


def refused():
    status, fields, body = request(nginx, "POST", "/items", {"label": "during"})
    if status == 201:  # committed before PostgreSQL went: acknowledged, so it must survive
        acknowledged[fields.get("location")] = "during"
        return None
    return (status, fields, body)


(status, fields, body), waited = wait_for("a write to be refused", refused, timeout=10)
check(status == 503, f"a write with PostgreSQL down: {status}")
check(b"store-unavailable" in body, f"problem type: {body[:120]}")
check("retry-after" in fields, "no Retry-After on the 503")
print(f"   writes refused {waited * 1000:.0f} ms after the stop: {status} {json.loads(body).get('type')}, "
      f"Retry-After {fields.get('retry-after')}")
refusals = [request(port, "POST", "/items", {"label": "during"})[0] for port in replicas for _ in range(3)]
check(all(status == 503 for status in refusals), f"writes on the replicas during the outage: {refusals}")
for port in replicas:
    for path in ("/items?page=3", "/items/17", "/items/10001", "/items?after=9990&limit=5"):
        status = request(port, "GET", path)[0]
        check(status == 200, f"GET {path} on {port} during the outage: {status}")

    def unreachable(port=port):
        return b'"store":"unreachable"' in request(port, "GET", "/readyz")[2]
    wait_for(f"/readyz on {port} to say the store is unreachable", unreachable, timeout=2)
print("   pages and items answered 200 on every replica; /readyz: 200 with \"store\":\"unreachable\"")

print("== PostgreSQL started again: writes resume, nothing acknowledged is lost")
subprocess.run(pg_ctl + ["start"], check=True, stdout=subprocess.DEVNULL)


def accepted():
    status, fields, _ = request(nginx, "POST", "/items", {"label": "after"})
    if status == 201:
        acknowledged[fields.get("location")] = "after"
        return True
    return False


_, waited = wait_for("a write to be accepted again", accepted, timeout=20, interval=0.1)
print(f"   writes accepted again {waited * 1000:.0f} ms after the start")
for number in range(5):
    status, fields, _ = request(nginx, "POST", "/items", {"label": f"after {number}"})
    check(status == 201, f"POST after the outage: {status}")
    if status == 201:
        acknowledged[fields.get("location")] = f"after {number}"
for port in replicas:
    def all_there(port=port):
        return all(
            json.loads(request(port, "GET", location)[2] or b"{}").get("label") == label
            for location, label in acknowledged.items())
    wait_for(f"every acknowledged write on replica {port}", all_there, timeout=5, interval=0.1)
    ready = request(port, "GET", "/readyz")[2]
    check(b'"store":"ok"' in ready, f"/readyz on {port} after the outage: {ready}")
print(f"   {len(acknowledged)} writes acknowledged since the reset, every one on all three replicas")

if failures:
    print(f"scale_out_writes: {len(failures)} check(s) failed")
    sys.exit(1)
print("scale_out_writes: PASSED")
