#!/usr/bin/env python3
"""Hostile clients against one ListServer, and the clients that share it: scripts/stall-test.sh runs this.

    stall_test.py bodies PORT   200 bodies and 200 heads that stall, 8 upload heads declaring 10 MiB; meanwhile
                                /healthz, a page and a 200 KB upload each answer within 1 s; the stalled ones are
                                closed by their deadlines (body, head, minimum rate)
    stall_test.py reserve PORT  (a server with --max-connections 40 --min-body-rate 0) 40 stalled bodies hold
                                every connection; /healthz and /metrics still answer within 1 s, a page gets 503
                                server-busy, and once the bodies' deadline closes them, pages are served again
    stall_test.py readers PORT PID  (a server with events.max_buffered_bytes 8 MiB) 300 event-stream subscribers
                                that never read while 1,500 changes of ~2 KB are written: the server's memory grows
                                by less than the budget allows, the subscribers are dropped, a reader gets every change

Standard library only; every socket is to 127.0.0.1; every wait is bounded. Prints what it measured; exits 1 on
the first broken promise.
"""
import json
import os
import select
import socket
import struct
import sys
import time
import zlib

HOST = "127.0.0.1"


def fail(message):
    print(f"stall_test: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def connect(port, receive_buffer=None):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(10)
    sock.connect((HOST, port))
    return sock


def read_response(sock, timeout=10.0):
    """The status, headers and body of one response (Content-Length framing), or None if the server closed."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body[:length]


def timed(port, raw, timeout=5.0):
    """Sends `raw` on a new connection; the response and the seconds it took."""
    start = time.monotonic()
    sock = connect(port)
    try:
        sock.sendall(raw)
        response = read_response(sock, timeout)
    finally:
        sock.close()
    return response, time.monotonic() - start


def noise_png(width, height, seed=7):
    """A PNG of noise (it does not compress): about 3 bytes a pixel, made with zlib only."""
    state = seed
    rows = bytearray()
    for _ in range(height):
        rows.append(0)
        for _ in range(width * 3):
            state = (state * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
            rows.append(state >> 56)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 0)) + chunk(
        b"IEND", b"")


def closed_by(sock, deadline):
    """Waits until the server closes `sock` (or `deadline`); what it said last (a status), 0 for nothing, None if
    it was still open."""
    data = b""
    while time.monotonic() < deadline:
        readable, _, _ = select.select([sock], [], [], max(0.0, deadline - time.monotonic()))
        if not readable:
            return None
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            if data.startswith(b"HTTP/1.1 "):
                return int(data[9:12])
            return 0
        data += chunk
    return None


def check_answers(port, label, item):
    """/healthz, a page and a 200 KB upload to `item` (which has none yet), each on a new connection, each within
    1 s."""
    png = noise_png(256, 256)
    if not 190_000 < len(png) < 230_000:
        fail(f"the upload is {len(png)} bytes, not about 200 KB")
    probes = [
        ("GET /healthz", b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 200),
        ("GET /items?limit=20", b"GET /items?limit=20 HTTP/1.1\r\nHost: x\r\n\r\n", 200),
        ("PUT a 200 KB PNG", f"PUT /items/{item}/image HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\n".encode()
         + f"Content-Length: {len(png)}\r\n\r\n".encode() + png, 201),
    ]
    for name, raw, status in probes:
        response, seconds = timed(port, raw)
        if response is None or response[0] != status:
            fail(f"{label}: {name} got {response and response[0]}, not {status}")
        if seconds >= 1.0:
            fail(f"{label}: {name} took {seconds:.3f} s")
        print(f"stall_test: {label}: {name} -> {response[0]} in {seconds * 1000:.1f} ms")


def bodies(port):
    stalled_bodies, stalled_heads, upload_heads = [], [], []
    start = time.monotonic()
    for _ in range(200):
        sock = connect(port)
        sock.sendall(b"POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{\"label\":")
        stalled_bodies.append(sock)
    for _ in range(200):
        sock = connect(port)
        sock.sendall(b"GET /items?limit=5 HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        stalled_heads.append(sock)
    for index in range(8):
        sock = connect(port)
        sock.sendall(f"PUT /items/{10 + index}/image HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\n"
                     "Content-Length: 10485760\r\n\r\n".encode())
        upload_heads.append(sock)
    print(f"stall_test: bodies: 200 stalled bodies, 200 stalled heads, 8 upload heads of 10 MiB open in "
          f"{time.monotonic() - start:.2f} s")
    time.sleep(0.3)
    check_answers(port, "bodies", 3)
    # The stalled ones go by their deadlines: bodies and uploads at the minimum rate (after about a second), heads
    # at http.header_timeout_ms (10 s). 15 s is the bound.
    deadline = time.monotonic() + 15
    for name, group, expected in [("stalled body", stalled_bodies, 408), ("upload head", upload_heads, 408),
                                  ("stalled head", stalled_heads, 408)]:
        statuses = [closed_by(sock, deadline) for sock in group]
        if any(status is None for status in statuses):
            fail(f"bodies: {statuses.count(None)} {name}s still open after 15 s")
        if any(status != expected for status in statuses):
            fail(f"bodies: {name}s were answered {sorted(set(statuses))}, not {expected}")
        print(f"stall_test: bodies: every {name} closed with {expected} after "
              f"{time.monotonic() - start:.1f} s at most")
        for sock in group:
            sock.close()
    check_answers(port, "bodies, after", 4)


def reserve(port):
    stalled = []
    for _ in range(40):
        sock = connect(port)
        sock.sendall(b"POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{\"label\":")
        stalled.append(sock)
    time.sleep(0.3)
    for target in ["/healthz", "/readyz", "/metrics"]:
        response, seconds = timed(port, f"GET {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        if response is None or response[0] != 200 or seconds >= 1.0:
            fail(f"reserve: {target} got {response and response[0]} in {seconds:.3f} s")
        print(f"stall_test: reserve: 40 of 40 connections held; {target} -> 200 in {seconds * 1000:.1f} ms")
    response, seconds = timed(port, b"GET /items?limit=5 HTTP/1.1\r\nHost: x\r\n\r\n")
    if response is None or response[0] != 503 or b"server-busy" not in response[2] or seconds >= 1.0:
        fail(f"reserve: a page while every connection is held got {response and response[0]}")
    print(f"stall_test: reserve: a page meanwhile -> 503 server-busy (Retry-After {response[1].get('retry-after')}) "
          f"in {seconds * 1000:.1f} ms")
    deadline = time.monotonic() + 15
    statuses = [closed_by(sock, deadline) for sock in stalled]
    if any(status != 408 for status in statuses):
        fail(f"reserve: the stalled bodies ended with {sorted(set(map(str, statuses)))}, not 408")
    for sock in stalled:
        sock.close()
    time.sleep(0.3)
    response, _ = timed(port, b"GET /items?limit=5 HTTP/1.1\r\nHost: x\r\n\r\n")
    if response is None or response[0] != 200:
        fail(f"reserve: after the deadline a page got {response and response[0]}")
    print("stall_test: reserve: the stalled bodies got 408 at their deadline; pages are served again")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def readers(port, pid):
    reader = connect(port)
    reader.sendall(b"GET /items/events HTTP/1.1\r\nHost: x\r\n\r\n")
    subscribers = []
    for _ in range(300):
        sock = connect(port, receive_buffer=4096)
        sock.sendall(b"GET /items/events HTTP/1.1\r\nHost: x\r\n\r\n")
        subscribers.append(sock)
    time.sleep(0.5)
    before = rss_kib(pid)
    writer = connect(port)
    label = "🎉" * 480  # 1,920 bytes: an event of about 2 KB
    body = json.dumps({"label": label}).encode()
    received = b""
    reader.setblocking(False)
    count = 1500
    peak = before
    for index in range(count):
        writer.sendall(b"POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        response = read_response(writer)
        if response is None or response[0] != 201:
            fail(f"readers: write {index} got {response and response[0]}")
        try:
            while True:
                chunk = reader.recv(1 << 20)
                if not chunk:
                    fail("readers: the reading subscriber was dropped")
                received += chunk
        except BlockingIOError:
            pass
        if index % 100 == 0:
            peak = max(peak, rss_kib(pid))
    reader.setblocking(True)
    reader.settimeout(10)
    while received.count(b"\nid: ") < count:
        chunk = reader.recv(1 << 20)
        if not chunk:
            fail("readers: the reading subscriber was dropped")
        received += chunk
    peak = max(peak, rss_kib(pid))
    deadline = time.monotonic() + 10
    dropped = sum(1 for sock in subscribers if closed_by(sock, deadline) is not None)
    growth_mib = (peak - before) / 1024
    unbounded_mib = 300 * count * 2 / 1024  # what 300 subscribers would hold with no bound at all
    print(f"stall_test: readers: 300 subscribers that never read, {count} events of ~2 KB: RSS {before // 1024} MiB "
          f"before, {peak // 1024} MiB at most (+{growth_mib:.1f} MiB; unbounded it would be ~{unbounded_mib:.0f} MiB); "
          f"{dropped} of 300 dropped; the reader got all {count}")
    # The 1,500 items of ~2 KB themselves take some 20 MiB (two copies in memory, the :memory: store, the feed's
    # window), and the allocator keeps what it freed a while: the bound is the 8 MiB budget plus that, far below the
    # unbounded figure.
    if growth_mib > 64:
        fail(f"readers: the server grew by {growth_mib:.1f} MiB with events.max_buffered_bytes at 8 MiB")
    if dropped < 250:
        fail(f"readers: only {dropped} of the 300 stalled subscribers were dropped")


def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "bodies":
        bodies(port)
    elif mode == "reserve":
        reserve(port)
    elif mode == "readers":
        readers(port, int(sys.argv[3]))
    else:
        fail(f"unknown mode {mode}")
    print(f"stall_test: {mode}: PASSED")


if __name__ == "__main__":
    main()
