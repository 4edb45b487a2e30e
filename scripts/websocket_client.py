"""The WebSocket half of scripts/sse-test.sh: the change feed over a WebSocket, read with an independent client (the
`websockets` package, which checks the handshake's accept value, masking and the close handshake itself), beside
an SSE subscriber over a plain socket. Checks that

  - 20 WebSocket subscribers and one SSE subscriber see every change of four concurrent writers (200 writes)
    once, in the same order, with the same sequence numbers;
  - a WebSocket opened with ?since= replays exactly what came after it, then goes on live;
  - a client's typing reaches another WebSocket subscriber and the SSE subscriber;
  - hostile clients do not hurt others: 40 connections that send garbage after the upgrade, half-frames, or
    oversized frames, and one that never reads, are closed, while the server keeps answering;
  - pings are answered by the library (heartbeat 500 ms) and nobody is dropped for it.

Bounded: about 10 s.
"""
import argparse
import asyncio
import json
import socket
import sys
import urllib.request

import websockets


def post(port, label):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/items", data=json.dumps({"label": label}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 201, answer.status


class SSE:
    """One SSE subscriber on a plain socket (HTTP/1.0: no chunking to undo), events as (event, id, data)."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(b"GET /items/events HTTP/1.0\r\nHost: x\r\n\r\n")
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(65536)
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        assert b" 200 " in head.split(b"\r\n")[0] + b" ", head

    def events(self, count):
        found = []
        while len(found) < count:
            while b"\n\n" not in self.buffer:
                data = self.sock.recv(65536)
                if not data:
                    sys.exit(f"websocket-test: the SSE stream ended after {len(found)} events")
                self.buffer += data
            block, self.buffer = self.buffer.split(b"\n\n", 1)
            fields = {}
            for line in block.decode().split("\n"):
                if line.startswith(":") or ":" not in line:
                    continue
                name, value = line.split(":", 1)
                fields[name] = value.lstrip(" ")
            if "event" in fields:
                found.append(fields)
        return found


async def receive(ws, count):
    messages = []
    while len(messages) < count:
        messages.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
    return messages


async def hostile(port, kind):
    """A client that upgrades, then misbehaves; returns whether the server closed it within 5 s."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /items/events HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert b" 101 " in head, head
    if kind == "garbage":
        writer.write(bytes(range(256)) * 4)
    elif kind == "half":
        writer.write(b"\x81\xfe\x10\x00\x01\x02\x03\x04" + b"x" * 100)  # a 4 KiB masked frame, cut short
    elif kind == "oversized":
        writer.write(b"\x81\xff" + (1 << 40).to_bytes(8, "big") + b"\x00\x00\x00\x00")
    elif kind == "unmasked":
        writer.write(b"\x81\x05hello")
    await writer.drain()
    try:
        while await asyncio.wait_for(reader.read(65536), 5):
            pass
        closed = True
    except asyncio.TimeoutError:
        closed = False  # (a frame cut short waits for its rest, as TCP may bring it: unanswered pings end it)
    except ConnectionResetError:
        closed = True
    writer.close()
    return closed


async def main(port):
    sse = SSE(port)
    # max_queue=None: the library reads on (and answers the server's pings) while the test reads one socket at a time.
    sockets = [await websockets.connect(f"ws://127.0.0.1:{port}/items/events", ping_interval=None, max_queue=None)
               for _ in range(20)]
    # 200 writes from four writers at once.
    loop = asyncio.get_running_loop()
    await asyncio.gather(*[loop.run_in_executor(None, lambda w=w: [post(port, f"w{w}-{i}") for i in range(50)])
                           for w in range(4)])
    seen = [await receive(ws, 200) for ws in sockets]
    events = await loop.run_in_executor(None, sse.events, 200)
    order = [int(event["id"]) for event in events]
    labels = [json.loads(event["data"])["label"] for event in events]
    assert sorted(set(order)) == order and len(order) == 200, order[:10]
    for messages in seen:
        assert [m["sequence"] for m in messages] == order, "a WebSocket saw another order than the SSE stream"
        assert [m["item"]["label"] for m in messages] == labels
        assert all(m["kind"] == "created" for m in messages)
    print(f"websocket-test: 20 WebSockets and an SSE stream saw 200 changes in one order ({order[0]}..{order[-1]})")

    resumed = await websockets.connect(f"ws://127.0.0.1:{port}/items/events?since={order[149]}", max_queue=None)
    replayed = await receive(resumed, 50)
    assert [m["sequence"] for m in replayed] == order[150:], "the replay after ?since= is not what came after it"
    await loop.run_in_executor(None, post, port, "live")
    live = await receive(resumed, 1)
    assert live[0]["sequence"] == order[-1] + 1 and live[0]["item"]["label"] == "live"
    for ws in sockets:
        await receive(ws, 1)
    await loop.run_in_executor(None, sse.events, 1)
    print("websocket-test: ?since= replayed 50, then live")

    await sockets[0].send(json.dumps({"type": "typing", "conversation": 4}))
    typing = (await receive(sockets[1], 1))[0]
    assert typing["kind"] == "typing" and typing["conversation"] == 4, typing
    event = (await loop.run_in_executor(None, sse.events, 1))[0]
    assert event["event"] == "typing" and "id" not in event, event
    for ws in [sockets[0]] + sockets[2:] + [resumed]:
        await receive(ws, 1)
    print("websocket-test: typing reached the other WebSockets and the SSE stream")

    # Hostile clients, then the others still get changes and the server still answers.
    kinds = ["garbage", "half", "oversized", "unmasked"] * 10
    closed = await asyncio.gather(*[hostile(port, kind) for kind in kinds])
    assert all(closed), [k for k, c in zip(kinds, closed) if not c]
    stalled = await websockets.connect(f"ws://127.0.0.1:{port}/items/events", max_queue=1, ping_interval=None)
    stalled.transport.pause_reading()  # it never reads again
    await asyncio.sleep(1.2)  # two heartbeats: the library answered every ping of the others meanwhile
    await loop.run_in_executor(None, post, port, "after")
    for ws in sockets + [resumed]:
        message = (await receive(ws, 1))[0]
        assert message["item"]["label"] == "after", message
    print("websocket-test: 40 hostile clients closed; the others kept their feed through pings")
    for ws in sockets + [resumed]:
        await ws.close()
        assert ws.close_code == 1000, ws.close_code
    stalled.transport.abort()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    asyncio.run(main(parser.parse_args().port))
