#!/usr/bin/env python3
"""The eight ways issue 30 found one client could hurt the others, probed against a ListServer binary.

    hostile_probe.py BINARY [POINT...]

Starts BINARY on 127.0.0.1 with its defaults (a fresh SQLite file in a temporary folder, one server per point),
plays the hostile client, and prints per point what it saw and whether the server held: so a build from before
the issue and one from after can be compared side by side with the same command. POINT is 1 to 8 (all by
default). Exits 1 when any point did not hold. Standard library only; every socket is to 127.0.0.1; every wait is
bounded (about two minutes in all against a server that holds).
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HOST = "127.0.0.1"


class Server:
    """BINARY on a free port with a fresh data file; stopped (SIGKILL after SIGTERM) on exit."""

    def __init__(self, binary, *flags):
        self.folder = tempfile.mkdtemp(prefix="hostile-probe.")
        probe = socket.socket()
        probe.bind((HOST, 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.process = subprocess.Popen(
            [binary, "--host", HOST, "--port", str(self.port), "--data-path", f"{self.folder}/lists.sqlite",
             "--threads", "2", *flags],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                status, _, _ = request(self.port, "GET", "/healthz")
                if status == 200:
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the server did not start within 20 s")

    def rss_kib(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def connect(port, receive_buffer=None, timeout=10):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(timeout)
    sock.connect((HOST, port))
    return sock


def read_response(sock):
    """Status, headers (lower-case names) and body of one Content-Length response; None if the server closed."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
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
    return int(lines[0].split(" ")[1]), headers, body[:length]


def request(port, method, target, body=b"", headers=(), timeout=10):
    sock = connect(port, timeout=timeout)
    try:
        lines = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(body)}", *headers]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        response = read_response(sock)
        if response is None:
            raise OSError("closed without an answer")
        return response
    finally:
        sock.close()


def post_json(port, value, dataset=None):
    headers = ["Content-Type: application/json"] + ([f"X-Dataset: {dataset}"] if dataset else [])
    return request(port, "POST", "/items", json.dumps(value, ensure_ascii=False).encode(), headers)


# Each point returns (held, what was seen).

def point1(binary):
    """A body that never completes is closed by a deadline (it stayed open past every timeout)."""
    with Server(binary) as server:
        sock = connect(server.port, timeout=20)
        sock.sendall(b"POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{\"label\":")
        started = time.monotonic()
        try:
            response = read_response(sock)
            seen = "closed without an answer" if response is None else f"{response[0]}"
        except socket.timeout:
            response, seen = None, "no answer"
        seconds = time.monotonic() - started
        held = response is not None and response[0] == 408
        return held, f"a stalled body: {seen} after {seconds:.1f} s"


def point2(binary):
    """Junk uploaded as JPEG does not break the image workers for the valid uploads after it."""
    with Server(binary, "--image-latency-distribution", "none") as server:
        status, _, valid = request(server.port, "GET", "/items/5/image.jpg?w=64")
        if status != 200:
            return False, f"no JPEG to upload ({status})"
        junk_statuses = []
        for index in range(8):
            junk = b"\xff\xd8\xff" + b"<html>" * 20
            status, _, _ = request(server.port, "PUT", f"/items/{10 + index}/image", junk,
                                   ["Content-Type: image/jpeg"])
            junk_statuses.append(status)
        statuses = []
        for index in range(4):
            status, _, _ = request(server.port, "PUT", f"/items/{30 + index}/image", valid,
                                   ["Content-Type: image/jpeg"])
            statuses.append(status)
        held = all(status in (200, 201) for status in statuses)
        return held, f"8 junk JPEGs got {sorted(set(junk_statuses))}; then 4 valid JPEG uploads got {statuses}"


def point3(binary):
    """A one-write dataset costs little memory (23 KB each, before)."""
    with Server(binary, "--no-access-log") as server:
        sock = connect(server.port)
        def write(name):
            body = b'{"label":"one message"}'
            sock.sendall(f"POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Dataset: {name}"
                         f"\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
            response = read_response(sock)
            if response is None or response[0] != 201:
                raise RuntimeError(f"a write to {name} failed")
        for index in range(300):
            write(f"warm-{index}")
        time.sleep(0.5)
        before = server.rss_kib()
        count = 3000
        for index in range(count):
            write(f"run-{index}")
        time.sleep(0.5)
        per = (server.rss_kib() - before) * 1024 / count
        sock.close()
        return per <= 2048, f"{count} one-write datasets: {per:.0f} bytes of RSS each"


def point4(binary):
    """Text limits count bytes: one grapheme of 30,000 combining marks is refused."""
    with Server(binary) as server:
        label = "e" + "\u0301" * 30_000
        status, _, body = post_json(server.port, {"label": label})
        return status == 400, f"a 60 KB one-grapheme label: {status} {body[:80].decode(errors='replace')}"


def point5(binary):
    """A page of another origin cannot reset the lists with a simple (no preflight) request."""
    with Server(binary) as server:
        post_json(server.port, {"label": "keep me"})
        status, _, _ = request(server.port, "POST", "/admin/reset", b"",
                               ["Origin: https://evil.example", "Content-Type: text/plain"])
        _, headers, _ = request(server.port, "GET", "/items?limit=1")
        count = headers.get("x-total-count")
        return status == 403 and count == "10001", f"a cross-site POST /admin/reset: {status}; items after: {count}"


def point6(binary):
    """An event stream with a query that does not decode is a 400, not the default list."""
    with Server(binary) as server:
        statuses = []
        for target in ("/items/events?dataset=%00", "/items/events?dataset=%zz"):
            sock = connect(server.port, timeout=5)
            sock.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            data = b""
            try:
                while b"\r\n" not in data:
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except socket.timeout:
                pass
            sock.close()
            statuses.append(int(data.split(b" ")[1]) if data.startswith(b"HTTP/") else None)
        return statuses == [400, 400], f"?dataset=%00 and %zz on /items/events: {statuses}"


def point7(binary):
    """evhttp's own HTML never reaches a client: an absolute-form target with a bad authority."""
    with Server(binary) as server:
        sock = connect(server.port, timeout=5)
        sock.sendall(b"GET http://[x/items HTTP/1.1\r\nHost: x\r\n\r\n")
        response = read_response(sock)
        sock.close()
        if response is None:
            return False, "closed without an answer"
        status, headers, _ = response
        kind = headers.get("content-type", "")
        return kind == "application/problem+json", f"GET http://[x/items: {status} {kind}"


def point8(binary):
    """Subscribers that never read hold a bounded amount of memory (1 MiB each, 1.5 GB for 1,000, before)."""
    with Server(binary, "--no-access-log") as server:
        subscribers = []
        for _ in range(400):
            sock = connect(server.port, receive_buffer=4096)
            sock.sendall(b"GET /items/events HTTP/1.1\r\nHost: x\r\n\r\n")
            subscribers.append(sock)
        time.sleep(1)
        before = server.rss_kib()
        writer = connect(server.port)
        label = "\U0001F389" * 480  # about 2 KB an event
        body = json.dumps({"label": label}).encode()
        peak = before
        for index in range(700):
            writer.sendall(b"POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            response = read_response(writer)
            if response is None or response[0] != 201:
                return False, f"write {index} failed"
            if index % 50 == 0:
                peak = max(peak, server.rss_kib())
        time.sleep(1)
        peak = max(peak, server.rss_kib())
        for sock in subscribers + [writer]:
            sock.close()
        grown = (peak - before) / 1024
        return grown <= 100, f"400 subscribers that never read, 700 events of 2 KB: RSS +{grown:.0f} MiB at its peak"


def main():
    binary = sys.argv[1]
    points = [int(point) for point in sys.argv[2:]] or list(range(1, 9))
    failures = 0
    for number in points:
        probe = globals()[f"point{number}"]
        try:
            held, seen = probe(binary)
        except (OSError, RuntimeError) as error:
            held, seen = False, f"the probe broke off: {error}"
        failures += 0 if held else 1
        print(f"point {number}: {'held' if held else 'DID NOT HOLD'}: {seen}", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
