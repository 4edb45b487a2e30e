"""Image uploads in the crash test (scripts/crash_test.py runs these clients beside its writers).

Each upload client owns a few generated items of the dataset "crash-uploads" and, until the kill, stores a new
PNG for one of them (`PUT /items/<id>/image`, noise of a random size, up to about 200 kB so files span SQLite's
overflow pages) or removes its upload (`DELETE`). It remembers, per item, the digest of the last file the server
acknowledged (or that it has none), and the one request that was unanswered at the kill. After the restart every
item must serve exactly what was acknowledged last, byte for byte, or the unanswered request's result in full:
never an older file, a mix, or nothing. Python 3 standard library only; traffic to 127.0.0.1 only.
"""
import hashlib
import random
import struct
import threading
import zlib

DATASET = "crash-uploads"
ITEMS_PER_CLIENT = 6


def png(width, height, rng):
    """A PNG of `width`x`height` pixels of noise (it does not compress)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + rng.randbytes(width * 3) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 1))
            + chunk(b"IEND", b""))


class UploadClient(threading.Thread):
    def __init__(self, index, port, killed, connection_class, failures, seed, carried=None):
        super().__init__(daemon=True)
        self.index, self.port, self.killed = index, port, killed
        self.connection_class, self.failures = connection_class, failures
        first = index * ITEMS_PER_CLIENT
        self.items = list(range(first, first + ITEMS_PER_CLIENT))
        if carried is None:
            self.rng = random.Random(seed * 1000 + index)
            self.expected = {item: None for item in self.items}  # digest of the acknowledged file, or None
            self.acked = 0
        else:
            self.rng, self.expected, self.acked = carried.rng, carried.expected, carried.acked
        self.inflight = None  # (item, digest or None) of the request sent and not answered

    def fail(self, message):
        self.failures.add(f"upload client {self.index}: {message}")

    def run(self):
        connection = self.connection_class(self.port)
        headers = {"X-Dataset": DATASET}
        while not self.killed.is_set():
            item = self.rng.choice(self.items)
            if self.rng.random() < 0.8:
                side = self.rng.choice([8, 40, 120, 250])
                body = png(side, max(1, side * 2 // 3), self.rng)
                op = (item, hashlib.sha256(body).hexdigest())
                method, request_headers = "PUT", {**headers, "Content-Type": "image/png"}
            else:
                body, op, method, request_headers = None, (item, None), "DELETE", headers
            self.inflight = op
            try:
                status, _, data = connection.request(method, f"/items/{item}/image", body, request_headers)
            except Exception:  # the kill: the request stays in flight
                return
            if status in (200, 201, 204):
                self.expected[item] = op[1]
                self.acked += 1
                self.inflight = None
            elif status == 503 and self.killed.is_set():
                return  # refused while draining (a SIGTERM round): nothing written, may still be in flight
            else:
                self.fail(f"{method} /items/{item}/image answered {status}: {data[:200]!r}")
                self.inflight = None

    def verify(self, connection, stats):
        """After the restart: each item serves what was acknowledged last (or the unanswered request's result)."""
        for item in self.items:
            status, fields, data = connection.request(
                "GET", f"/items/{item}/image", None, {"X-Dataset": DATASET})
            stats["upload GETs"] += 1
            if status != 200:
                self.fail(f"GET /items/{item}/image after the restart: {status} {data[:200]!r}")
                continue
            served = hashlib.sha256(data).hexdigest() if fields.get("content-type") == "image/png" else None
            allowed = [self.expected[item]]
            if self.inflight is not None and self.inflight[0] == item:
                allowed.append(self.inflight[1])
            if served not in allowed:
                what = "the generated image" if served is None else f"a file with digest {served[:12]}"
                self.fail(f"item {item} serves {what}; the last acknowledged write left "
                          f"{self.expected[item] and self.expected[item][:12]}"
                          f"{'' if len(allowed) == 1 else f' (or the unanswered one, {allowed[1] and allowed[1][:12]})'}")
                continue
            if self.inflight is not None and self.inflight[0] == item:
                stats["uploads in flight"] += 1
                if served == self.inflight[1] and served != self.expected[item]:
                    stats["uploads applied"] += 1
            self.expected[item] = served
        self.inflight = None
