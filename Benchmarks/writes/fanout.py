#!/usr/bin/env python3
"""Fan-out of the change feed: N idle SSE subscribers, then P POSTs, and when each subscriber sees each event.

    fanout.py --port PORT --pid SERVER_PID [--subscribers 5000] [--posts 100] [--gap-ms 20] --out RESULT.json

Part of Benchmarks/writes/run.sh. Talks only to 127.0.0.1:PORT. Steps:

1. VmRSS of the server (/proc/PID/status) before any subscriber.
2. N connections `GET /items/events`, opened in batches of 200 (so the listen backlog never overflows), each
   counted once its answer's head and the `retry:` line have arrived. Then 1 s of quiet and VmRSS again.
3. P times: one `POST /items` on a keep-alive connection of its own; the time its 201 is complete is t0. Each
   subscriber's socket is read until the event's `id:` line (the event's sequence number) appears; the time is
   taken when epoll reports the socket readable (the moment of the poll call's return, shared by every socket of
   that batch), so the client's own parsing of earlier sockets in the batch is not counted against the server.
   The next POST goes out GAP ms after the event reached every subscriber (bounded: 10 s per POST).
4. Writes RESULT.json: per POST, the delays from t0 to the event at the median and at the last subscriber (and
   the first), RSS before/after, the client's own CPU time during step 3, and counts.

One process, one thread, plain epoll on non-blocking sockets: asyncio's streams cost several times more per
readable socket, and with 5,000 sockets per event that cost lands on the same two cores as the server.
"""

import argparse
import json
import os
import resource
import select
import socket
import statistics
import sys
import time

HOST = "127.0.0.1"


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def own_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def connect_subscribers(port, count, deadline):
    """Opens count subscriptions; returns the sockets, each past its answer's head and the retry: line."""
    request = f"GET /items/events HTTP/1.1\r\nHost: {HOST}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode()
    sockets = []
    batch = 200
    while len(sockets) < count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {len(sockets)} of {count} subscribers connected in time")
        pending = {}
        poller = select.epoll()
        for _ in range(min(batch, count - len(sockets))):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.connect((HOST, port))  # blocking connect on loopback: immediate unless the backlog is full
            s.sendall(request)
            s.setblocking(False)
            pending[s.fileno()] = (s, bytearray())
            poller.register(s.fileno(), select.EPOLLIN)
        while pending:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{len(pending)} subscribers did not get their stream's start in time")
            for fd, _ in poller.poll(1.0):
                s, buffer = pending[fd]
                data = s.recv(65536)
                if not data:
                    raise RuntimeError(f"a subscription was closed at start: {bytes(buffer[:300])!r}")
                buffer += data
                if b"\r\n\r\n" in buffer:
                    head = bytes(buffer[: buffer.index(b"\r\n\r\n")])
                    if not head.startswith(b"HTTP/1.1 200"):
                        raise RuntimeError(f"subscription refused: {head[:200]!r}")
                    if b"retry:" in buffer:
                        poller.unregister(fd)
                        del pending[fd]
                        sockets.append(s)
        poller.close()
    return sockets


class Poster:
    """One keep-alive connection for the POSTs, read without blocking."""

    def __init__(self, port):
        self.sock = socket.create_connection((HOST, port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setblocking(False)
        self.buffer = bytearray()
        self.port = port
        self.count = 0

    def send(self):
        self.count += 1
        body = json.dumps({"label": f"fan-out {self.count}"}).encode()
        head = (f"POST /items HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        self.sock.setblocking(True)
        self.sock.sendall(head + body)
        self.sock.setblocking(False)

    def read(self):
        """Reads what is there; returns the status once a whole answer has arrived, else None."""
        try:
            data = self.sock.recv(65536)
        except BlockingIOError:
            return None
        if not data:
            raise RuntimeError("the POST connection was closed")
        self.buffer += data
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = bytes(self.buffer[:end]).decode("latin-1")
        length = 0
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if len(self.buffer) < end + 4 + length:
            return None
        status = int(head.split(" ", 2)[1])
        del self.buffer[: end + 4 + length]
        return status


def percentile(values, p):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(0, min(len(ordered) - 1, int(round(p / 100 * len(ordered) + 0.5)) - 1))
    return ordered[rank]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--subscribers", type=int, default=5000)
    parser.add_argument("--posts", type=int, default=100)
    parser.add_argument("--gap-ms", type=float, default=20)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = args.subscribers + 100
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(want, soft)), hard))

    rss_before = rss_kb(args.pid)
    started = time.monotonic()
    subscribers = connect_subscribers(args.port, args.subscribers, started + 120)
    connect_seconds = time.monotonic() - started
    time.sleep(1.0)
    rss_after = rss_kb(args.pid)

    poller = select.epoll(sizehint=args.subscribers + 1)
    index_of = {}
    for i, s in enumerate(subscribers):
        poller.register(s.fileno(), select.EPOLLIN)
        index_of[s.fileno()] = i
    poster = Poster(args.port)
    poller.register(poster.sock.fileno(), select.EPOLLIN)
    poster_fd = poster.sock.fileno()
    partial = [b""] * len(subscribers)  # an unfinished last line per subscriber
    last_id = [0] * len(subscribers)

    results = []
    statuses = {}
    cpu0 = own_cpu_seconds()
    wall0 = time.monotonic()
    for post in range(1, args.posts + 1):
        # Event ids are the list's sequence numbers; on a fresh server nothing else writes, so POST k is event k
        # (checked: a subscriber that sees another id than the one awaited makes the run fail).
        expected = post
        arrival = [None] * len(subscribers)
        remaining = len(subscribers)
        t_sent = time.monotonic()
        poster.send()
        t_201 = None
        limit = t_sent + 10
        while remaining or t_201 is None:
            now = time.monotonic()
            if now > limit:
                raise RuntimeError(f"POST {post}: {remaining} subscribers still waiting after 10 s "
                                   f"(201 {'seen' if t_201 else 'not seen'})")
            events = poller.poll(1.0, args.subscribers + 1)
            t_poll = time.monotonic()
            for fd, _ in events:
                if fd == poster_fd:
                    status = poster.read()
                    if status is not None:
                        statuses[status] = statuses.get(status, 0) + 1
                        if status != 201:
                            raise RuntimeError(f"POST {post} answered {status}")
                        t_201 = t_poll
                    continue
                i = index_of[fd]
                data = subscribers[i].recv(65536)
                if not data:
                    raise RuntimeError(f"subscriber {i} was closed by the server")
                lines = (partial[i] + data).split(b"\n")
                partial[i] = lines.pop()
                for line in lines:
                    if line.startswith(b"id:"):
                        seen = int(line[3:].strip())
                        if seen != expected:
                            raise RuntimeError(f"subscriber {i} saw event {seen}, expected {expected}")
                        last_id[i] = seen
                        if arrival[i] is None:
                            arrival[i] = t_poll
                            remaining -= 1
        delays = sorted(t - t_201 for t in arrival)
        results.append({
            "post": post,
            "post_ms": (t_201 - t_sent) * 1000,
            "first_ms": delays[0] * 1000,
            "median_ms": delays[len(delays) // 2] * 1000,
            "last_ms": delays[-1] * 1000,
        })
        time.sleep(args.gap_ms / 1000)
    wall = time.monotonic() - wall0
    cpu = own_cpu_seconds() - cpu0
    rss_end = rss_kb(args.pid)

    last = [r["last_ms"] for r in results]
    median = [r["median_ms"] for r in results]
    summary = {
        "subscribers": len(subscribers),
        "posts": len(results),
        "statuses": statuses,
        "connect_seconds": round(connect_seconds, 2),
        "rss_before_kb": rss_before,
        "rss_after_kb": rss_after,
        "rss_end_kb": rss_end,
        "rss_per_subscriber_kb": round((rss_after - rss_before) / len(subscribers), 2),
        "last_p50_ms": round(percentile(last, 50), 2),
        "last_p99_ms": round(percentile(last, 99), 2),
        "last_max_ms": round(max(last), 2),
        "median_p50_ms": round(percentile(median, 50), 2),
        "median_p99_ms": round(percentile(median, 99), 2),
        "median_max_ms": round(max(median), 2),
        "first_p50_ms": round(percentile([r["first_ms"] for r in results], 50), 2),
        # From the POST's send instead of its 201 (the event may go out before the answer does).
        "last_from_send_p50_ms": round(percentile([r["post_ms"] + r["last_ms"] for r in results], 50), 2),
        "last_from_send_p99_ms": round(percentile([r["post_ms"] + r["last_ms"] for r in results], 99), 2),
        "post_p50_ms": round(percentile([r["post_ms"] for r in results], 50), 2),
        "client_cpu_seconds": round(cpu, 3),
        "client_wall_seconds": round(wall, 3),
        "client_cpu_pct": round(100 * cpu / wall, 1),
        "per_post": results,
    }
    with open(args.out, "w") as out:
        json.dump(summary, out, indent=1)
    for s in subscribers:
        s.close()
    shown = {k: v for k, v in summary.items() if k != "per_post"}
    print(json.dumps(shown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
