"""Chat writes in the crash test (scripts/crash_test.py runs these clients beside its writers; issue 36).

Each chat client owns one conversation of the dataset "crash-chat" and, until the kill, sends a message to it (with
an Idempotency-Key), edits or deletes one it sent, or sets its read marker. It remembers what the server
acknowledged for every message it wrote (its text, or that it was deleted) and the one request that was unanswered at
the kill. After the restart the conversation must hold exactly that: every acknowledged message with its last
acknowledged text, deleted ones as tombstones, no message sent twice or lost, the read marker's unread count, and the
unanswered request's result in full or not at all. Python 3 standard library only; traffic to 127.0.0.1 only.
"""
import json
import random
import threading

DATASET = "crash-chat"


class ChatClient(threading.Thread):
    def __init__(self, index, port, killed, connection_class, failures, seed, carried=None):
        super().__init__(daemon=True)
        self.index, self.port, self.killed = index, port, killed
        self.connection_class, self.failures = connection_class, failures
        self.conversation = index
        if carried is None:
            self.rng = random.Random(seed * 1000 + 500 + index)
            self.texts = {}  # message id -> acknowledged text ("" once deleted)
            self.deleted = set()
            self.end = None  # the conversation's message count, once known
            self.marker = None
            self.counter = 0
            self.acked = 0
        else:
            for name in ("rng", "texts", "deleted", "end", "marker", "counter", "acked"):
                setattr(self, name, getattr(carried, name))
        self.inflight = None  # (kind, message id or None, text) of the request sent and not answered

    def fail(self, message):
        self.failures.add(f"chat client {self.index}: {message}")

    def headers(self, json_body=True):
        fields = {"X-Dataset": DATASET, "X-Client-Id": f"crash-chat-{self.index}"}
        if json_body:
            fields["Content-Type"] = "application/json"
        return fields

    def path(self, suffix=""):
        return f"/conversations/{self.conversation}{suffix}"

    def run(self):
        connection = self.connection_class(self.port)
        while not self.killed.is_set():
            self.counter += 1
            live = [mid for mid in self.texts if mid not in self.deleted]
            roll = self.rng.random()
            if roll < 0.6 or not live:
                text = f"c{self.index}-{self.counter} ✓"
                op, method, path = ("send", None, text), "POST", self.path("/messages")
                body = {"text": text}
                headers = {**self.headers(), "Idempotency-Key": f"chat-{self.index}-{self.counter}"}
            elif roll < 0.8:
                mid = self.rng.choice(live)
                text = f"c{self.index}-{self.counter} edited"
                op, method, path, body = ("edit", mid, text), "PATCH", self.path(f"/messages/{mid}"), {"text": text}
                headers = self.headers()
            elif roll < 0.9:
                mid = self.rng.choice(live)
                op, method, path, body = ("delete", mid, ""), "DELETE", self.path(f"/messages/{mid}"), None
                headers = self.headers(json_body=False)
            else:
                mid = self.rng.choice(live)
                op, method, path, body = ("read", mid, None), "POST", self.path("/read"), {"up_to": mid}
                headers = self.headers()
            self.inflight = op
            payload = None if body is None else json.dumps(body).encode()
            try:
                status, _, data = connection.request(method, path, payload, headers)
            except Exception:  # the kill: the request stays in flight
                return
            if status in (200, 201, 204):
                self.apply(op, data)
                self.acked += 1
                self.inflight = None
            elif status == 503 and self.killed.is_set():
                return  # refused while draining (a SIGTERM round): nothing written, may still be in flight
            else:
                self.fail(f"{method} {path} answered {status}: {data[:200]!r}")
                self.inflight = None

    def apply(self, op, data):
        kind, mid, text = op
        if kind == "send":
            sent = json.loads(data)
            mid = sent["id"]
            if self.end is not None and mid != self.end:
                self.fail(f"a sent message got id {mid}, not the next one ({self.end})")
            if mid in self.texts:
                self.fail(f"message id {mid} handed out twice")
            self.texts[mid] = text
            self.end = mid + 1
        elif kind == "edit":
            self.texts[mid] = text
        elif kind == "delete":
            self.texts[mid] = ""
            self.deleted.add(mid)
        else:
            self.marker = mid

    def verify(self, connection, stats):
        """After the restart: the conversation holds what was acknowledged, or the unanswered request's result."""
        status, _, data = connection.request("GET", self.path(), None, self.headers(json_body=False))
        stats["chat GETs"] += 1
        if status != 200:
            self.fail(f"GET {self.path()} after the restart: {status} {data[:200]!r}")
            return
        conversation = json.loads(data)
        count = conversation["message_count"]
        if self.inflight is not None:
            stats["chat in flight"] += 1
        if self.inflight is not None and self.inflight[0] == "send" and self.end is not None and count == self.end + 1:
            # The unanswered send was committed: its message is the last, whole.
            self.texts[self.end] = self.inflight[2]
            self.end += 1
            self.inflight = None
            stats["chat applied"] += 1
        if self.end is not None and count != self.end:
            self.fail(f"the conversation has {count} messages after the restart; {self.end} were acknowledged")
        for mid, text in sorted(self.texts.items()):
            status, _, data = connection.request(
                "GET", self.path(f"/messages/{mid}"), None, self.headers(json_body=False))
            stats["chat GETs"] += 1
            if status != 200:
                self.fail(f"message {mid} after the restart: {status} {data[:200]!r}")
                continue
            message = json.loads(data)
            served = "" if message.get("deleted") else message["text"]
            allowed = [text]
            if self.inflight is not None and self.inflight[1] == mid and self.inflight[0] in ("edit", "delete"):
                allowed.append(self.inflight[2])
            if served not in allowed:
                self.fail(f"message {mid} reads {served!r}; the last acknowledged write left {text!r}"
                          f"{'' if len(allowed) == 1 else f' (or the unanswered one, {allowed[1]!r})'}")
                continue
            if served != text:  # the unanswered edit or deletion was committed
                stats["chat applied"] += 1
                self.texts[mid] = served
                if served == "":
                    self.deleted.add(mid)
            stats["messages checked"] += 1
        if self.marker is not None and not (self.inflight and self.inflight[0] == "read"):
            # Every message after the marker is this client's own: nothing unread.
            if conversation["unread"] != 0:
                self.fail(f"unread is {conversation['unread']} after the restart with the marker at {self.marker}")
        self.inflight = None
