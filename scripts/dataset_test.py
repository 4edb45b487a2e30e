#!/usr/bin/env python3
"""Datasets by the ten thousand against a release ListServer: scripts/dataset-test.sh runs this.

    dataset_test.py create PORT PID COUNT WARMUP   WARMUP datasets, then COUNT more, one write each: prints the
                                                   server's RSS growth per dataset over the COUNT (at most 2 KiB)
    dataset_test.py first PORT PID                 waits for the first page (the caller times it from the
                                                   server's start), then prints the server's RSS: `rss=<KiB>`
    dataset_test.py cap PORT                       a write to a new dataset is 507 dataset-limit, to an old one 201
    dataset_test.py expiry PORT BUSY SECONDS       reading BUSY all along, every other dataset expires within
                                                   SECONDS; BUSY stays with its item
    dataset_test.py memory PORT PID COUNT BUDGET   COUNT datasets filled with 1,900-byte labels until 507
                                                   dataset-full: one full dataset holds at most twice what it
                                                   counts (data.max_dataset_bytes, BUDGET / 4), the memory held
                                                   grows by at most 2 x BUDGET (data.max_memory_bytes) over all
                                                   of them, and every dataset reads back whole

Standard library only; every socket is to 127.0.0.1; every wait is bounded. Exits 1 on the first broken promise.
"""
import json
import socket
import sys
import time

HOST = "127.0.0.1"


def fail(message):
    print(f"dataset_test: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


class Client:
    """One keep-alive connection, Content-Length framing only."""

    def __init__(self, port):
        self.sock = socket.create_connection((HOST, port), timeout=10)
        self.buffer = b""

    def request(self, method, target, body=b"", headers=()):
        lines = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(body)}"] + list(headers)
        if body:
            lines.append("Content-Type: application/json")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                fail(f"{method} {target}: the connection closed")
            self.buffer += chunk
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        status = int(head.split(b" ")[1])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(rest) < length:
            chunk = self.sock.recv(65536)
            if not chunk:
                fail(f"{method} {target}: the connection closed mid-body")
            rest += chunk
        self.buffer = rest[length:]
        return status, rest[:length]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def create(client, first, count):
    body = json.dumps({"label": "one message"}).encode()
    for index in range(first, first + count):
        status, _ = client.request("POST", "/items", body, [f"X-Dataset: run-{index}"])
        if status != 201:
            fail(f"the write to run-{index} got {status}")


def fill(client, dataset):
    """Writes 1,900-byte labels to DATASET until 507 dataset-full: how many it took."""
    written = 0
    while True:
        label = f"{written} " + "\U0001F600" * 475  # 1,900 bytes of UTF-8 in 475 characters
        status, body = client.request("POST", "/items", json.dumps({"label": label}).encode(),
                                      [f"X-Dataset: {dataset}"])
        if status == 507:
            if b"dataset-full" not in body:
                fail(f"{dataset}: a 507 that is not dataset-full: {body[:200]!r}")
            return written
        if status != 201:
            fail(f"{dataset}: a write got {status}: {body[:200]!r}")
        written += 1
        if written > 1_000_000:
            fail(f"{dataset} never filled up")


def metrics(client):
    """The unlabelled series of /metrics: {name: value}."""
    status, body = client.request("GET", "/metrics")
    if status != 200:
        fail(f"/metrics got {status}")
    values = {}
    for line in body.decode().splitlines():
        if line and not line.startswith("#") and "{" not in line:
            name, _, value = line.partition(" ")
            values[name] = float(value)
    return values


def memory(port, pid, count, budget):
    """Fills COUNT datasets; the memory held (jemalloc's allocated bytes: freed pages go back to the system over
    jemalloc's 10 s decay, so the RSS lags) must stay within 2 x the budget, where without one it is COUNT times
    what one full dataset holds."""
    client = Client(port)
    fill(client, "warm-up")
    time.sleep(0.5)
    before = metrics(client)["listserver_allocator_allocated_bytes"]
    items = [fill(client, "full-0")]
    one = metrics(client)["listserver_allocator_allocated_bytes"] - before
    print(f"dataset_test: memory: one dataset full after {items[0]} writes of 1,900-byte labels holds "
          f"{one / 2**20:.1f} MiB ({budget // 4 / 2**20:.1f} MiB counted)")
    started = time.monotonic()
    for index in range(1, count):
        items.append(fill(client, f"full-{index}"))
    seconds = time.monotonic() - started
    after = metrics(client)
    grown = after["listserver_allocator_allocated_bytes"] - before
    print(f"dataset_test: memory: {count} full datasets ({sum(items)} writes in {seconds:.1f} s) against a budget "
          f"of {budget >> 20} MiB: {grown / 2**20:.1f} MiB more held ({count * one / 2**20:.0f} MiB without a "
          f"budget); {after['listserver_datasets_memory_bytes'] / 2**20:.1f} MiB counted in memory, "
          f"{after['listserver_datasets_evictions_total']:.0f} evictions, RSS {rss_kib(pid) >> 10} MiB")
    if after["listserver_datasets_evictions_total"] < count / 2:
        fail("fewer than half the datasets left memory")
    for index in range(count):
        status, body = client.request("GET", "/items?after=9999&limit=1", headers=[f"X-Dataset: full-{index}"])
        total = None
        if status == 200:
            total = json.loads(body).get("total")
        if status != 200 or total != 10_000 + items[index]:
            fail(f"full-{index} reads back {status} with {total} items, not {10_000 + items[index]}")
        status, body = client.request("GET", f"/items/{10_000 + items[index] - 1}",
                                      headers=[f"X-Dataset: full-{index}"])
        if status != 200 or not json.loads(body)["label"].startswith(f"{items[index] - 1} "):
            fail(f"full-{index}'s last item reads back {status}: {body[:80]!r}")
    print(f"dataset_test: memory: all {count} datasets read back whole (those out of memory read again)")
    if one > 2 * (budget // 4):
        fail(f"a full dataset holds {one:.0f} bytes, over twice the {budget // 4} it counts")
    if grown > 2 * budget:
        fail(f"the memory held grew by {grown:.0f} bytes, over 2 x data.max_memory_bytes")


def main():
    mode = sys.argv[1]
    port = int(sys.argv[2])
    if mode == "create":
        pid, count, warmup = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
        client = Client(port)
        create(client, 0, warmup)
        time.sleep(0.5)
        before = rss_kib(pid)
        started = time.monotonic()
        create(client, warmup, count)
        seconds = time.monotonic() - started
        time.sleep(0.5)
        after = rss_kib(pid)
        per = (after - before) * 1024 / count
        print(f"dataset_test: create: {count} datasets (after {warmup} to warm up) in {seconds:.1f} s: RSS "
              f"{before} KiB -> {after} KiB, {per:.0f} bytes a dataset")
        if per > 2048:
            fail(f"a dataset costs {per:.0f} bytes of RSS, over 2 KiB")
    elif mode == "first":
        # The caller starts the server and runs this at once; what counts is how soon the first answer comes.
        pid = int(sys.argv[3])
        started = time.monotonic()
        deadline = started + 10
        while True:
            try:
                status, _ = Client(port).request("GET", "/items?limit=5")
                if status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                fail("no answer within 10 s of the start")
            time.sleep(0.01)
        time.sleep(0.2)
        print(f"rss={rss_kib(pid)}")
    elif mode == "cap":
        client = Client(port)
        status, body = client.request("POST", "/items", b'{"label":"one too many"}', ["X-Dataset: brand-new"])
        if status != 507 or b"dataset-limit" not in body:
            fail(f"a write to a new dataset past data.max_datasets got {status}: {body[:200]!r}")
        status, _ = client.request("POST", "/items", b'{"label":"still fits"}', ["X-Dataset: run-7"])
        if status != 201:
            fail(f"a write to an existing dataset at the cap got {status}")
        print("dataset_test: cap: a new dataset past data.max_datasets -> 507 dataset-limit; an old one -> 201")
    elif mode == "expiry":
        busy, seconds = sys.argv[3], float(sys.argv[4])
        client = Client(port)
        started = time.monotonic()
        count = None
        while time.monotonic() - started < seconds:
            status, body = client.request("GET", "/items?after=9999", headers=[f"X-Dataset: {busy}"])
            if status != 200 or not json.loads(body)["items"]:
                fail(f"the busy dataset {busy} lost its item ({status})")
            status, body = client.request("GET", "/admin/datasets?limit=2")
            count = json.loads(body)["count"]
            if count == 1:
                break
            time.sleep(0.25)
        if count != 1:
            fail(f"{count} datasets still there after {seconds} s")
        status, body = client.request("GET", "/admin/datasets")
        names = [dataset["name"] for dataset in json.loads(body)["datasets"]]
        if names != [busy]:
            fail(f"the datasets left are {names[:5]}")
        print(f"dataset_test: expiry: every idle dataset gone {time.monotonic() - started:.1f} s after the start; "
              f"{busy}, read all along, stays")
    elif mode == "memory":
        memory(port, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        fail(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
