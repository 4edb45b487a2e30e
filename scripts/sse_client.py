"""The Python half of scripts/sse-test.sh: SSE subscribers over plain sockets, and the writes they should see.

The stream is parsed as the WHATWG SSE rules say: fields `event`, `id`, `data`; a blank line ends an event; lines
starting with ":" are comments (heartbeats); `retry` is remembered. Chunked transfer coding is decoded here.
"""
import argparse
import http.client
import json
import socket
import sys
import threading
import time


class Subscriber:
    """One GET /items/events, read on its own thread; events land in `events` as dicts."""

    def __init__(self, port, last_event_id=None):
        self.events, self.retry, self.closed = [], None, False
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        extra = f"Last-Event-ID: {last_event_id}\r\n" if last_event_id is not None else ""
        self.sock.sendall(f"GET /items/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n{extra}\r\n".encode())
        self.buffer = b""
        head = self._read_until(b"\r\n\r\n")
        status = head.split(b"\r\n", 1)[0]
        if b" 200 " not in status + b" " or b"text/event-stream" not in head:
            sys.exit(f"sse-test: the stream answered {head!r}")
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _read_until(self, marker):
        while marker not in self.buffer:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError
            self.buffer += data
        head, self.buffer = self.buffer.split(marker, 1)
        return head

    def _run(self):
        text = ""
        try:
            while True:
                size = int(self._read_until(b"\r\n"), 16)
                while len(self.buffer) < size + 2:
                    data = self.sock.recv(65536)
                    if not data:
                        raise EOFError
                    self.buffer += data
                text += self.buffer[:size].decode()
                self.buffer = self.buffer[size + 2:]
                if size == 0:
                    break
                while "\n\n" in text:
                    block, text = text.split("\n\n", 1)
                    fields = {}
                    for line in block.split("\n"):
                        if line.startswith(":"):
                            continue
                        name, _, value = line.partition(":")
                        fields[name] = value[1:] if value.startswith(" ") else value
                    if "retry" in fields:
                        self.retry = int(fields["retry"])
                    if "data" in fields or "event" in fields:
                        self.events.append(fields)
        except (EOFError, OSError, ValueError):
            pass
        self.closed = True

    def wait_for(self, count, seconds=10):
        deadline = time.time() + seconds
        while len(self.events) < count and time.time() < deadline and not self.closed:
            time.sleep(0.01)
        if len(self.events) < count:
            sys.exit(f"sse-test: waited for {count} events, got {len(self.events)}: {self.events[-3:]}")
        return self.events[:count]

    def close(self):
        self.sock.close()


def request(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    payload = json.dumps(body) if body is not None else None
    all_headers = {"Content-Type": "application/json"} if payload else {}
    all_headers.update(headers or {})
    connection.request(method, path, body=payload, headers=all_headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def write(port, n, expected):
    """The n-th write: POST, PATCH or DELETE in turn; appends (kind, check) for the event it must cause."""
    kind = ("created", "updated", "deleted")[n % 3]
    if kind == "created":
        status, data = request(port, "POST", "/items", {"label": f"message {n}"})
        assert status == 201, (status, data)
        expected.append((kind, json.loads(data)))
    elif kind == "updated":
        status, data = request(port, "PATCH", f"/items/{n}", {"label": f"edited {n}"})
        assert status == 200, (status, data)
        expected.append((kind, json.loads(data)))
    else:
        status, data = request(port, "DELETE", f"/items/{n}")
        assert status == 204, (status, data)
        expected.append((kind, {"id": n}))


def check(name, events, expected, first_sequence):
    for offset, (event, (kind, body)) in enumerate(zip(events, expected)):
        sequence = first_sequence + offset
        if event.get("event") != kind or event.get("id") != str(sequence) or json.loads(event["data"]) != body:
            sys.exit(f"sse-test: {name}: event {offset} is {event}, expected {kind} #{sequence} {body}")
    if len(events) != len(expected):
        sys.exit(f"sse-test: {name}: {len(events)} events, expected {len(expected)}")
    print(f"sse-test: {name}: {len(events)} events in order, ids {first_sequence}...{first_sequence + len(events) - 1}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--curl-output", required=True)
    arguments = parser.parse_args()
    port, expected = arguments.port, []

    steady, leaving = Subscriber(port), Subscriber(port)
    time.sleep(0.2)  # curl too has connected by now (it started before this script)
    for n in range(1, 41):
        write(port, n, expected)
    leaving.wait_for(20)
    leaving.close()  # gone after change 20 (or a few later: it reads ahead of what it looks at)
    last_seen = 20
    for n in range(41, 81):  # 40 more while it is away
        write(port, n, expected)
    back = Subscriber(port, last_event_id=last_seen)
    for n in range(81, 91):  # and live ones after it is back
        write(port, n, expected)

    check("steady subscriber", steady.wait_for(90), expected, 1)
    check("reconnected with Last-Event-ID: 20", back.wait_for(70), expected[20:], 21)
    time.sleep(0.5)
    if len(back.events) != 70 or len(steady.events) != 90:
        sys.exit(f"sse-test: extra events: steady {len(steady.events)}, reconnected {len(back.events)}")
    if steady.retry is None:
        sys.exit("sse-test: no retry: field at the start of the stream")

    # curl -N saw the same stream.
    with open(arguments.curl_output, encoding="utf-8") as output:
        blocks = [b for b in output.read().split("\n\n") if b and not b.startswith(":") and "event:" in b]
    curl_events = [dict((l.split(": ", 1) + [""])[:2] for l in b.split("\n") if not l.startswith(":")) for b in blocks]
    check("curl -N", curl_events[:90], expected, 1)

    # Older than what is kept (data.changes_kept 100, 90 changes so far: 110 more push 1...10 out).
    for n in range(91, 201):
        status, _ = request(port, "POST", "/items", {"label": f"filler {n}"})
        assert status == 201
    late = Subscriber(port, last_event_id=5)
    first = late.wait_for(1)[0]
    if first.get("event") != "expired" or json.loads(first["data"]) != {"last_sequence": 200}:
        sys.exit(f"sse-test: a Last-Event-ID older than what is kept got {first}, expected one expired event")
    print("sse-test: a Last-Event-ID older than what is kept gets one expired event")


main()
