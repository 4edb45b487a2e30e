#!/usr/bin/env python3
"""The crash test's rounds (scripts/crash-test.sh builds the server and runs this).

One SQLite file, kept across all rounds. Each round: 32 clients write as fast as they can (POST, PATCH, DELETE,
each client only on items it created, so the expected state is exact), the server gets SIGKILL at a random moment,
the file must pass `PRAGMA integrity_check` (opened read-only, straight after the kill), and the restarted server
must hold every acknowledged write with its content, at most the one unacknowledged write per client in full or
not at all, no id twice. Beside them, upload clients store and remove images (scripts/crash_uploads.py): every
acknowledged file must be served byte for byte after the restart. And chat clients send, edit and delete messages
and set read markers (scripts/crash_chat.py): every acknowledged one must be there after the restart. Python 3 standard library only; traffic to 127.0.0.1 only; bounded by --deadline.
"""
import argparse
import http.client
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import traceback

import crash_chat
import crash_uploads

FIELDS = ("label", "author", "width", "height", "color", "likes")
AUTHORS = ["Ada Lovelace", "Zoë Ångström", "Linh Nguyễn", "Søren \"Q\" Kierkegaard", "O'Brien \\ back", "李小龙",
           "A"]
DATASETS = [None, "crash-b"]  # None: the default list (no X-Dataset)
LISTENING = re.compile(rb"listening on [^ ]*:([0-9]+)")


class Failures:
    def __init__(self):
        self.lock = threading.Lock()
        self.messages = []

    def add(self, message):
        with self.lock:
            self.messages.append(message)
            if len(self.messages) <= 40:
                print(f"   FAIL: {message}", flush=True)
            elif len(self.messages) == 41:
                print("   FAIL: (more failures; only the first 40 are printed)", flush=True)

    def __len__(self):
        with self.lock:
            return len(self.messages)


failures = Failures()


def ds_name(dataset):
    return dataset or "default"


# ---------------------------------------------------------------- the server


class Server:
    def __init__(self, binary, data_path, workdir, extra):
        self.binary, self.data_path, self.workdir, self.extra = binary, data_path, workdir, extra
        self.proc = None
        self.port = None
        self.starts = 0

    def start(self, synchronous):
        self.starts += 1
        log_path = os.path.join(self.workdir, f"server-{self.starts:03d}.log")
        command = [self.binary, "--host", "127.0.0.1", "--port", "0", "--data-path", self.data_path,
                   "--data-synchronous", synchronous, *self.extra]
        with open(log_path, "wb") as log:
            self.proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        with open(os.path.join(self.workdir, "server.pid"), "w") as pid_file:
            pid_file.write(str(self.proc.pid))
        started = time.monotonic()
        while time.monotonic() - started < 15:
            with open(log_path, "rb") as log:
                match = LISTENING.search(log.read())
            if match:
                self.port = int(match.group(1))
                return time.monotonic() - started
            if self.proc.poll() is not None:
                raise SystemExit(f"the server exited at start ({self.proc.returncode}); its log:\n{tail(log_path)}")
            time.sleep(0.02)
        raise SystemExit(f"the server did not say 'listening on' within 15 s; its log:\n{tail(log_path)}")

    def kill9(self):
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def terminate(self):
        """SIGTERM under load: the exit status, or a description when it takes over 20 s (then SIGKILL)."""
        os.kill(self.proc.pid, signal.SIGTERM)
        try:
            return self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return "still running 20 s after SIGTERM"

    def start_and_kill(self, synchronous, delay):
        """Starts the server and SIGKILLs it `delay` seconds later, while it opens the file: whether it was
        already listening."""
        self.starts += 1
        command = [self.binary, "--host", "127.0.0.1", "--port", "0", "--data-path", self.data_path,
                   "--data-synchronous", synchronous, *self.extra]
        with open(self.log_path(), "wb") as log:
            self.proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        with open(os.path.join(self.workdir, "server.pid"), "w") as pid_file:
            pid_file.write(str(self.proc.pid))
        time.sleep(delay)
        exited = self.proc.poll()
        if exited is not None:
            raise SystemExit(f"the server exited {exited} at start; its log:\n{tail(self.log_path())}")
        self.kill9()
        with open(self.log_path(), "rb") as log:
            return LISTENING.search(log.read()) is not None

    def stop(self):
        """SIGTERM; returns the exit status (SIGKILL after 15 s)."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.terminate()
        try:
            return self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return "killed after 15 s"

    def log_path(self):
        return os.path.join(self.workdir, f"server-{self.starts:03d}.log")


def tail(path, lines=15):
    try:
        with open(path, "rb") as file:
            return b"\n".join(file.read().splitlines()[-lines:]).decode(errors="replace")
    except OSError as error:
        return f"(no log: {error})"


# ---------------------------------------------------------------- HTTP


class Connection:
    """One persistent HTTP/1.1 connection to the server, reopened after an error or a `Connection: close`."""

    def __init__(self, port):
        self.port = port
        self.http = None

    def request(self, method, path, body=None, headers=None):
        """(status, {lowercase name: value}, body bytes); raises OSError / HTTPException on a broken connection."""
        if self.http is None:
            self.http = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            self.http.request(method, path, body=body, headers=headers or {})
            response = self.http.getresponse()
            data = response.read()
        except BaseException:
            self.close()
            raise
        fields = {name.lower(): value for name, value in response.getheaders()}
        if response.will_close:
            self.close()
        return response.status, fields, data

    def close(self):
        if self.http is not None:
            self.http.close()
            self.http = None


def dataset_headers(dataset):
    return {"X-Dataset": dataset} if dataset else {}


PLACEHOLDER = re.compile(r"[0-9A-Za-z#$%*+,.:;=?@\[\]^_{|}~-]{28}")


def without_placeholder(value):
    """An item as the model keeps it: its `blur_hash` checked (28 BlurHash characters) and left out. The model cannot
    predict it (a written colour makes another photo, so another hash); the tests of placeholders check it."""
    if "blur_hash" in value:
        placeholder = value.pop("blur_hash")
        if not isinstance(placeholder, str) or not PLACEHOLDER.fullmatch(placeholder):
            failures.add(f"item {value.get('id')}: blur_hash {placeholder!r} is not a BlurHash")
    return value


def loads(data):
    """A body the server sent, its items' placeholders checked and left out (``without_placeholder``)."""
    return json.loads(data, object_hook=without_placeholder)


def parse_json(data, what):
    try:
        return loads(data)
    except ValueError:
        failures.add(f"{what}: the body is not JSON: {data[:200]!r}")
        return None


# ---------------------------------------------------------------- the model


class Op:
    """One write a client sends: what it asks and what the item must be after it."""

    def __init__(self, kind, client, item_id, body, key, content_type, after, label=None):
        self.kind, self.client, self.item_id, self.body = kind, client, item_id, body
        self.key, self.content_type, self.after, self.label = key, content_type, after, label
        self.refused = False  # answered 503 shutting-down (SIGTERM rounds): must not have been applied
        # create: `after` holds the fields sent (the others are generated); update: the whole item after the patch;
        # delete: None.

    def method_and_path(self):
        if self.kind == "create":
            return "POST", "/items"
        return ("PATCH" if self.kind == "update" else "DELETE"), f"/items/{self.item_id}"

    def headers(self, dataset):
        headers = dict(dataset_headers(dataset))
        if self.body is not None:
            headers["Content-Type"] = self.content_type
        if self.key:
            headers["Idempotency-Key"] = self.key
        return headers

    def describe(self):
        method, path = self.method_and_path()
        key = f" Idempotency-Key {self.key}" if self.key else ""
        body = f" {self.body.decode()}" if self.body else ""
        return f"{method} {path}{key}{body}"


class DatasetState:
    """What the test knows about one list: every id it has seen and the highest."""

    def __init__(self):
        self.ids = set()
        self.max_id = -1
        self.round_floor = -1  # the highest id seen before this round: every new id must be above it
        self.feed_position = 0
        self.probes = {}  # id -> item: the fresh POSTs after each restart


class Client(threading.Thread):
    def __init__(self, index, dataset, state, seed, port, killed):
        super().__init__(name=f"client-{index}", daemon=True)
        self.index, self.dataset, self.state, self.killed = index, dataset, state, killed
        self.rng = random.Random(seed * 1009 + index)
        self.counter = 0
        self.items = {}  # id -> the item as last acknowledged (or resolved after a crash)
        self.etags = {}  # id -> the ETag of its last acknowledged write (dropped when unknown)
        self.generated = {}  # id -> {field: the generated value}, learned from answers
        self.deleted = set()  # acknowledged deletions, all rounds
        self.keyed = []  # (Op, status, fields, body) of acknowledged writes with a key: replayed after restarts
        self.port = port
        self.connection = None
        self.inflight = None
        self.round_log = []  # ("create"|"update"|"delete", id, item): acknowledged writes this round, in order
        self.round_touched = set()
        self.round_deleted = set()
        self.acked = 0
        self.replays_checked = 0

    def fail(self, message):
        failures.add(f"client {self.index} ({ds_name(self.dataset)}): {message}")

    def new_label(self, kind):
        self.counter += 1
        label = f"c{self.index}-{self.counter}"
        roll = self.rng.random()
        if roll < 0.1:
            label += ' ünï "q" \\ ✓ 🙂'
        elif roll < 0.15:
            label += "-" + "x" * self.rng.randint(100, 400)
        if kind == "update":
            label += "-p"
        return label

    def random_value(self, field):
        if field == "author":
            return self.rng.choice(AUTHORS)
        if field in ("width", "height"):
            return self.rng.randint(1, 100_000)
        if field == "color":
            return f"#{self.rng.randrange(1 << 24):06x}"
        return self.rng.randint(0, 1_000_000_000)

    def next_op(self):
        live = [item_id for item_id in self.items if item_id not in self.deleted]
        roll = self.rng.random()
        key = f"k-c{self.index}-{self.counter + 1}-{self.rng.randrange(1 << 30)}" if self.rng.random() < 0.3 else None
        if not live or roll < 0.4:
            label = self.new_label("create")
            fields = {"label": label}
            for field in FIELDS[1:]:
                if self.rng.random() < 0.5:
                    fields[field] = self.random_value(field)
            return Op("create", self.index, None, json.dumps(fields).encode(), key, "application/json", fields, label)
        item_id = self.rng.choice(live)
        if roll < 0.85:
            before = self.items[item_id]
            # Several fields at once, always a new label: a half-applied patch shows, and so does whether it was.
            patch = {"label": self.new_label("update"), "likes": self.random_value("likes"),
                     "color": self.random_value("color")}
            for field in ("author", "width", "height"):
                known = self.generated.get(item_id, {})
                choice = self.rng.random()
                if choice < 0.3:
                    patch[field] = self.random_value(field)
                elif choice < 0.45 and field in known:
                    patch[field] = None  # merge patch: back to the generated value
            after = dict(before)
            for field, value in patch.items():
                after[field] = self.generated[item_id][field] if value is None else value
            content_type = self.rng.choice(["application/json", "application/merge-patch+json"])
            return Op("update", self.index, item_id, json.dumps(patch).encode(), key, content_type, after)
        return Op("delete", self.index, item_id, None, key, None, None)

    def send(self, op, connection=None):
        method, path = op.method_and_path()
        return (connection or self.connection).request(method, path, op.body, op.headers(self.dataset))

    def run(self):
        self.connection = Connection(self.port)
        try:
            while not self.killed.is_set():
                op = self.next_op()
                self.inflight = op
                try:
                    status, fields, body = self.send(op)
                except (OSError, http.client.HTTPException) as error:
                    if not self.killed.is_set():
                        self.fail(f"{op.describe()}: connection failed before the kill: {error!r}")
                    return  # the op stays in flight: acknowledged or not is what the restart shows
                if self.killed.is_set() and status == 503 and b"shutting-down" in body:
                    op.refused = True  # SIGTERM: refused while draining, so it must not be in the list
                    return
                if not self.acknowledge(op, status, fields, body, replay=False):
                    return
                if op.key and self.rng.random() < 0.08 and not self.killed.is_set():
                    # A retry right away: the same answer again, marked replayed, and no second write.
                    try:
                        again = self.send(op)
                    except (OSError, http.client.HTTPException) as error:
                        if not self.killed.is_set():
                            self.fail(f"retry of {op.describe()}: connection failed before the kill: {error!r}")
                        return
                    if self.killed.is_set() and again[0] == 503:
                        return  # draining after SIGTERM
                    self.check_replay(op, (status, fields, body), again, "a retry during the load")
        finally:
            self.connection.close()

    def check_replay(self, op, first, again, when):
        status, fields, body = first
        status2, fields2, body2 = again
        self.replays_checked += 1
        if fields2.get("idempotent-replayed") != "true":
            self.fail(f"{when}: {op.describe()} answered {status2} without Idempotent-Replayed: true")
        if status2 != status or body2 != body:
            self.fail(f"{when}: {op.describe()} answered {status2} {body2[:200]!r}, the first answer was "
                      f"{status} {body[:200]!r}")
        for name in ("location", "etag"):
            if fields2.get(name) != fields.get(name):
                self.fail(f"{when}: {op.describe()}: {name} {fields2.get(name)!r}, first {fields.get(name)!r}")

    def acknowledge(self, op, status, fields, body, replay):
        """Applies an answered write to the model, checking the answer; False after a wrong status."""
        self.inflight = None
        what = f"{op.describe()}"
        if fields.get("idempotent-replayed") and not replay:
            self.fail(f"{what}: a first request with a new key was answered as a replay")
        expected = {"create": 201, "update": 200, "delete": 204}[op.kind]
        if status != expected:
            self.fail(f"{what}: expected {expected}, got {status} {body[:300]!r}")
            return False
        self.acked += 1
        if op.key:
            self.keyed.append((op, status, fields, body))
        if op.kind == "delete":
            self.deleted.add(op.item_id)
            self.items.pop(op.item_id, None)
            self.etags.pop(op.item_id, None)
            self.round_log.append(("delete", op.item_id, None))
            self.round_deleted.add(op.item_id)
            self.round_touched.add(op.item_id)
            return True
        item = parse_json(body, what)
        if not isinstance(item, dict) or not isinstance(item.get("id"), int):
            self.fail(f"{what}: the answer is not an item with an id: {body[:200]!r}")
            return False
        item_id = item["id"]
        if op.kind == "create":
            if fields.get("location") != f"/items/{item_id}":
                self.fail(f"{what}: Location {fields.get('location')!r} for id {item_id}")
            self.register_new_id(item_id, what)
            for field, value in op.after.items():
                if item.get(field) != value:
                    self.fail(f"{what}: answered {field} {item.get(field)!r}, sent {value!r}")
            self.generated[item_id] = {field: item.get(field) for field in FIELDS if field not in op.after}
        else:
            if item_id != op.item_id:
                self.fail(f"{what}: answered the item {item_id}")
            if item != op.after:
                self.fail(f"{what}: answered {item}, expected {op.after}")
            learned = self.generated.setdefault(item_id, {})
            for field, value in json.loads(op.body).items():
                if value is None:
                    learned[field] = item.get(field)
        if set(item) != {"id", "image_url", *FIELDS}:
            self.fail(f"{what}: the item's fields are {sorted(item)}")
        elif item["image_url"] != f"/items/{item_id}/image":
            self.fail(f"{what}: image_url {item['image_url']!r}")
        self.items[item_id] = item
        if fields.get("etag"):
            self.etags[item_id] = fields["etag"]
        else:
            self.fail(f"{what}: no ETag")
            self.etags.pop(item_id, None)
        self.round_log.append((op.kind, item_id, item))
        self.round_touched.add(item_id)
        return True

    def register_new_id(self, item_id, what):
        state = self.state
        with STATE_LOCK:
            if item_id in state.ids:
                self.fail(f"{what}: id {item_id} was used before")
            if item_id <= state.round_floor:
                self.fail(f"{what}: id {item_id} is not above {state.round_floor}, the highest id before this round")
            state.ids.add(item_id)
            state.max_id = max(state.max_id, item_id)


STATE_LOCK = threading.Lock()


# ---------------------------------------------------------------- checks after a restart


def list_created(connection, dataset, item_count):
    """Every live item with an id >= item_count, by cursor pages of 100: {id: item}."""
    items, after = {}, item_count - 1
    for _ in range(100_000):
        path = f"/items?after={after}&limit=100" if after >= 0 else "/items?order=asc&limit=100"
        status, _, body = connection.request("GET", path, headers=dataset_headers(dataset))
        if status != 200:
            failures.add(f"{ds_name(dataset)}: GET {path} answered {status} {body[:200]!r}")
            return items
        page = loads(body)
        for item in page["items"]:
            if item["id"] in items:
                failures.add(f"{ds_name(dataset)}: the listing holds id {item['id']} twice")
            items[item["id"]] = item
        if not page.get("has_more"):
            return items
        after = page["next_cursor"]
    failures.add(f"{ds_name(dataset)}: the listing did not end")
    return items


def read_feed(connection, dataset, since):
    """The changes after `since` to the end: (changes, next_since)."""
    changes = []
    for _ in range(10_000):
        path = f"/items/changes?since={since}&limit=1000"
        status, _, body = connection.request("GET", path, headers=dataset_headers(dataset))
        if status != 200:
            failures.add(f"{ds_name(dataset)}: GET {path} answered {status} {body[:300]!r}")
            return changes, since
        answer = loads(body)
        changes += answer["changes"]
        if not answer["changes"]:
            return changes, answer.get("next_since", since)
        since = answer["next_since"]
    failures.add(f"{ds_name(dataset)}: the change feed did not end")
    return changes, since


def integrity_check(data_path):
    """`PRAGMA integrity_check` on the file, opened read-only (the WAL as the kill left it): its rows."""
    connection = sqlite3.connect(f"file:{data_path}?mode=ro", uri=True, timeout=5)
    try:
        return [row[0] for row in connection.execute("PRAGMA integrity_check")]
    finally:
        connection.close()


def live_rows_in_file(data_path, item_count):
    """{list name: number of live written items with id >= item_count}, read from the file; None when the tables
    are not as this test expects (the check is then skipped, and says so)."""
    try:
        connection = sqlite3.connect(f"file:{data_path}?mode=ro", uri=True, timeout=5)
        try:
            rows = connection.execute(
                "SELECT list, count(*) FROM items WHERE deleted = 0 AND id >= ? GROUP BY list", (item_count,))
            return {name: count for name, count in rows}
        finally:
            connection.close()
    except sqlite3.Error as error:
        return f"{error}"


def resolve_inflight(client, listed, stats):
    """After the restart, before anything is retried: the write a client had in flight at the kill is in the list in
    full or not at all. Applied, it joins the model as if acknowledged. Returns whether it was applied (None after a
    failure)."""
    op = client.inflight
    stats["inflight"] += 1
    what = f"in flight at the kill: {op.describe()}"
    if op.kind == "create":
        found = [item for item in listed.values() if item["label"] == op.label]
        if len(found) > 1:
            client.fail(f"{what}: {len(found)} items have its label: {sorted(item['id'] for item in found)}")
            return None
        if not found:
            return False
        item = found[0]
        for field, value in op.after.items():
            if item.get(field) != value:
                client.fail(f"{what}: committed with {field} {item.get(field)!r}, sent {value!r} (half-applied)")
                return None
        client.register_new_id(item["id"], what)
        client.items[item["id"]] = item
        client.etags.pop(item["id"], None)
        client.generated[item["id"]] = {field: item.get(field) for field in FIELDS if field not in op.after}
        client.round_log.append(("create", item["id"], item))
        client.round_touched.add(item["id"])
        return True
    before = client.items[op.item_id]
    now = listed.get(op.item_id)
    client.round_touched.add(op.item_id)
    if op.kind == "update":
        if now != before and now != op.after:
            client.fail(f"{what}: the item is {now}; it must be as acknowledged {before} or as patched {op.after} "
                        "(half-applied?)")
            if now is not None:
                client.items[op.item_id] = now
            client.etags.pop(op.item_id, None)
            return None
        if now == before:  # every patch sets a new label, so "as patched" and "as acknowledged" differ
            return False
        client.items[op.item_id] = now
    else:
        if now is not None:
            if now != before:
                client.fail(f"{what}: the item is {now}; it must be as acknowledged {before} or deleted")
                client.items[op.item_id] = now
                client.etags.pop(op.item_id, None)
                return None
            return False
        client.items.pop(op.item_id, None)
        client.deleted.add(op.item_id)
        client.round_deleted.add(op.item_id)
    client.etags.pop(op.item_id, None)
    client.round_log.append((op.kind, op.item_id, now))
    return True


def retry_inflight(client, op, applied, connection, stats):
    """Sends an in-flight write with an Idempotency-Key again: a replay of the first answer exactly when the first was
    committed (`applied`), else a fresh write, answered and applied as any."""
    what = f"the retry of a write in flight at the kill, {op.describe()}"
    method, path = op.method_and_path()
    status, fields, body = connection.request(method, path, op.body, op.headers(client.dataset))
    replayed = fields.get("idempotent-replayed") == "true"
    if not applied:
        if replayed:
            client.fail(f"{what}: answered {status} as a replay, but the first was not committed")
            return
        stats["retried fresh"] += 1
        client.acknowledge(op, status, fields, body, replay=False)
        return
    stats["replayed"] += 1
    expected_status = {"create": 201, "update": 200, "delete": 204}[op.kind]
    if not replayed or status != expected_status:
        client.fail(f"{what}: answered {status} {body[:200]!r}, replayed: {replayed}; it was committed, so "
                    f"{expected_status} replayed" + (" (its key's record was not committed with it?)"
                                                     if status in (201, 200, 404) else ""))
        return
    if op.kind != "delete":
        answer = parse_json(body, what)
        expected = client.items.get(answer.get("id") if isinstance(answer, dict) else None)
        if answer != expected:
            client.fail(f"{what}: replayed {answer}, the list holds {expected}")
            return
        client.etags[answer["id"]] = fields.get("etag")
    client.keyed.append((op, status, fields, body))


def check_feed(dataset, clients, changes, probe_labels):
    """The round's changes, per client, are exactly its writes that the list holds, in order."""
    by_label, by_id = {}, {}
    for client in clients:
        for kind, item_id, item in client.round_log:
            by_id.setdefault(item_id, client)
            if kind == "create":
                by_label[item["label"]] = client
        for item_id in client.items:
            by_id.setdefault(item_id, client)
    seen = {client.index: [] for client in clients}
    last_sequence = None
    for change in changes:
        sequence = change.get("sequence")
        if last_sequence is not None and not (isinstance(sequence, int) and sequence > last_sequence):
            failures.add(f"{ds_name(dataset)} feed: sequence {sequence} after {last_sequence}")
        last_sequence = sequence
        kind = change.get("kind")
        if kind == "created":
            label = change["item"]["label"]
            if label in probe_labels:
                continue
            owner = by_label.get(label)
        elif kind in ("updated", "deleted"):
            item_id = change["item"]["id"] if kind == "updated" else change.get("id")
            owner = by_id.get(item_id)
        else:
            failures.add(f"{ds_name(dataset)} feed: unexpected change {change}")
            continue
        if owner is None:
            failures.add(f"{ds_name(dataset)} feed: a change nobody made: {json.dumps(change)[:300]}")
            continue
        entry = ("create" if kind == "created" else "update" if kind == "updated" else "delete",
                 change["item"]["id"] if "item" in change else change.get("id"),
                 change.get("item"))
        seen[owner.index].append(entry)
    mismatched = 0
    for client in clients:
        if seen[client.index] != client.round_log:
            mismatched += 1
            if mismatched <= 3:
                got, want = seen[client.index], client.round_log
                first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
                client.fail(f"the change feed holds {len(got)} of its changes this round, its writes are "
                            f"{len(want)}; first difference at #{first}: feed "
                            f"{got[first] if first < len(got) else None}, writes "
                            f"{want[first] if first < len(want) else None}")
    if mismatched > 3:
        failures.add(f"{ds_name(dataset)} feed: {mismatched} clients' changes differ from their writes")
    return len(changes)


def verify_round(clients, states, server, item_count, stats, rng):
    """The checks after a restart; returns the listing as the server first showed it."""
    connection = Connection(server.port)
    # 1. The lists as the restarted server shows them, before anything is written; the in-flight writes resolved
    #    against them: applied in full or not at all.
    first_listing = {dataset: list_created(connection, dataset, item_count) for dataset in DATASETS}
    resolved = []
    for client in clients:
        op = client.inflight
        if op is not None:
            applied = resolve_inflight(client, first_listing[client.dataset], stats)
            client.inflight = None
            if op.refused:
                stats["refused at shutdown"] += 1
                if applied:
                    client.fail(f"{op.describe()} was answered 503 shutting-down, yet the list holds it")
            if applied is not None:
                stats["applied" if applied else "not applied"] += 1
                resolved.append((client, op, applied))
    # 2. Those with an Idempotency-Key are sent again: replayed exactly when they were committed.
    for client, op, applied in resolved:
        if op.key:
            retry_inflight(client, op, applied, connection, stats)
    # 3. Older keyed writes, from any round, replay their first answer (the records outlived the restarts).
    for client in rng.sample(clients, min(6, len(clients))):
        for op, status, fields, body in rng.sample(client.keyed, min(2, len(client.keyed))):
            method, path = op.method_and_path()
            again = connection.request(method, path, op.body, op.headers(client.dataset))
            client.check_replay(op, (status, fields, body), again, "a retry after the restart")
    listed = {dataset: list_created(connection, dataset, item_count) for dataset in DATASETS}
    # 4. Every item is exactly as the model says; nothing else is there; deletions stay deleted.
    for dataset in DATASETS:
        mine = [client for client in clients if client.dataset == dataset]
        expected = dict(states[dataset].probes)
        for client in mine:
            expected.update(client.items)
        got = listed[dataset]
        missing = [item_id for item_id in expected if item_id not in got]
        extra = [item_id for item_id in got if item_id not in expected]
        wrong = [item_id for item_id in expected if item_id in got and got[item_id] != expected[item_id]]
        for item_id in missing[:5]:
            failures.add(f"{ds_name(dataset)}: acknowledged item {item_id} is missing: {expected[item_id]}")
        for item_id in extra[:5]:
            failures.add(f"{ds_name(dataset)}: item {item_id} nobody acknowledged is there: {got[item_id]}")
        for item_id in wrong[:5]:
            failures.add(f"{ds_name(dataset)}: item {item_id} is {got[item_id]}, acknowledged {expected[item_id]}")
        if len(missing) + len(extra) + len(wrong) > 15:
            failures.add(f"{ds_name(dataset)}: {len(missing)} missing, {len(extra)} extra, {len(wrong)} wrong items")
        labels = {}
        for item in got.values():
            labels.setdefault(item["label"], []).append(item["id"])
        for label, ids in labels.items():
            if len(ids) > 1:
                failures.add(f"{ds_name(dataset)}: label {label!r} is on {len(ids)} items {ids}")
        stats["items checked"] += len(expected)
        for client in mine:
            for item_id in sorted(client.round_touched):
                status, fields, body = connection.request("GET", f"/items/{item_id}",
                                                          headers=dataset_headers(dataset))
                stats["GETs"] += 1
                if item_id in client.deleted:
                    if status != 404:
                        client.fail(f"deleted item {item_id}: GET answered {status} {body[:200]!r}")
                    continue
                if status != 200 or loads(body) != client.items.get(item_id):
                    client.fail(f"GET /items/{item_id} answered {status} {body[:300]!r}, expected "
                                f"{client.items.get(item_id)}")
                elif client.etags.get(item_id) and fields.get("etag") != client.etags[item_id]:
                    client.fail(f"GET /items/{item_id}: ETag {fields.get('etag')}, its last write answered "
                                f"{client.etags[item_id]}")
            for item_id in rng.sample(sorted(client.deleted), min(3, len(client.deleted))):
                status, _, body = connection.request("GET", f"/items/{item_id}", headers=dataset_headers(dataset))
                if status != 404:
                    client.fail(f"item {item_id}, deleted in an earlier round: GET answered {status} {body[:200]!r}")
    # 5. The change feed since the round began: each client's writes, once each, in its order.
    for dataset in DATASETS:
        state = states[dataset]
        changes, state.feed_position = read_feed(connection, dataset, state.feed_position)
        stats["changes"] += check_feed(dataset, [c for c in clients if c.dataset == dataset], changes,
                                       {item["label"] for item in state.probes.values()})
    # 6. A fresh POST gets an id above every id ever seen (ids of deleted items included).
    for dataset in DATASETS:
        state = states[dataset]
        label = f"probe-{ds_name(dataset)}-{server.starts}"
        status, fields, body = connection.request(
            "POST", "/items", json.dumps({"label": label}).encode(),
            {**dataset_headers(dataset), "Content-Type": "application/json"})
        if status != 201:
            failures.add(f"{ds_name(dataset)}: the POST after the restart answered {status} {body[:200]!r}")
            continue
        item = loads(body)
        if item["id"] <= state.max_id or item["id"] in state.ids:
            failures.add(f"{ds_name(dataset)}: the POST after the restart got id {item['id']}, not above "
                         f"{state.max_id}, the highest id seen")
        state.ids.add(item["id"])
        state.max_id = max(state.max_id, item["id"])
        state.probes[item["id"]] = item
        _, state.feed_position = read_feed(connection, dataset, state.feed_position)
    connection.close()
    return first_listing


# ---------------------------------------------------------------- main


def run_round(number, synchronous, how, server, clients, states, args, seed, rng, data_path, totals, uploaders,
              chatters):
    """One round: load, then SIGKILL (`how` "kill") or SIGTERM ("term"), integrity_check, restart, verify.
    Returns the clients, the upload clients and the chat clients (new threads)."""
    failures_before = len(failures)
    killed = threading.Event()
    if not clients:
        # Every fourth client writes to the dataset "crash-b": commits hold writes to two lists.
        clients = [Client(i, DATASETS[1] if i % 4 == 3 else DATASETS[0], None, seed, server.port, killed)
                   for i in range(args.clients)]
        for client in clients:
            client.state = states[client.dataset]
    else:  # a thread runs once: each client's model goes on in a new one
        clients = [carry_over(client, server.port, killed) for client in clients]
    for state in states.values():
        state.round_floor = state.max_id
    uploaders = [crash_uploads.UploadClient(i, server.port, killed, Connection, failures, seed,
                                            uploaders[i] if uploaders else None)
                 for i in range(args.upload_clients)]
    chatters = [crash_chat.ChatClient(i, server.port, killed, Connection, failures, seed,
                                      chatters[i] if chatters else None)
                for i in range(args.chat_clients)]
    chat_before = sum(chatter.acked for chatter in chatters)
    acked_before = sum(client.acked for client in clients)
    uploads_before = sum(uploader.acked for uploader in uploaders)
    kill_after = rng.uniform(0.3, 2.0)
    load_started = time.monotonic()
    for client in clients + uploaders + chatters:
        client.start()
    time.sleep(kill_after)
    killed.set()
    if how == "kill":
        server.kill9()
    else:
        status = server.terminate()
        if status != 0:
            failures.add(f"round {number}: the server exited {status} on SIGTERM under load (expected 0)")
    load_time = time.monotonic() - load_started
    for client in clients + uploaders + chatters:
        client.join(timeout=20)
        if client.is_alive():
            failures.add(f"client {client.index} still waits 20 s after the kill")
    acked = sum(client.acked for client in clients) - acked_before
    uploads = sum(uploader.acked for uploader in uploaders) - uploads_before
    totals["uploads"] += uploads
    chats = sum(chatter.acked for chatter in chatters) - chat_before
    totals["chat writes"] += chats
    totals["acked"] += acked
    totals["load seconds"] += load_time

    rows = integrity_check(data_path)
    if rows != ["ok"]:
        failures.add(f"round {number}: PRAGMA integrity_check after the kill: {rows[:10]}")
    in_file = live_rows_in_file(data_path, args.item_count)
    startup_note = ""
    if rng.random() < 0.3:
        # A kill while the server opens the file (journal mode, migration, quick_check, loading the lists).
        delay = rng.uniform(0.0, 0.08)
        listening = server.start_and_kill(synchronous, delay)
        totals["startup kills"] += 1
        startup_note = f"; killed again {delay * 1000:.0f} ms into a start ({'listening' if listening else 'opening'})"
        startup_rows = integrity_check(data_path)
        if startup_rows != ["ok"]:
            failures.add(f"round {number}: PRAGMA integrity_check after a kill during start: {startup_rows[:10]}")
    restart_time = server.start(synchronous)
    stats = {key: 0 for key in ("inflight", "applied", "not applied", "replayed", "retried fresh",
                                "refused at shutdown", "items checked", "GETs", "changes", "upload GETs",
                                "uploads in flight", "uploads applied", "chat GETs", "chat in flight",
                                "chat applied", "messages checked")}
    checks_started = time.monotonic()
    listed = verify_round(clients, states, server, args.item_count, stats, rng)
    upload_connection = Connection(server.port)
    for uploader in uploaders:
        uploader.verify(upload_connection, stats)
    for chatter in chatters:
        chatter.verify(upload_connection, stats)
    upload_connection.close()
    checks_time = time.monotonic() - checks_started
    if isinstance(in_file, dict):
        for dataset in DATASETS:
            if in_file.get(dataset or "", 0) != len(listed[dataset]):
                failures.add(f"round {number}: the file held {in_file.get(dataset or '', 0)} live written items of "
                             f"{ds_name(dataset)} after the kill; the restarted server lists {len(listed[dataset])}")
        file_note = "file rows = listing"
    else:
        file_note = f"file rows not compared ({in_file})"
    for key, value in stats.items():
        totals[key] = totals.get(key, 0) + value
    for client in clients:
        client.round_log, client.round_touched, client.round_deleted = [], set(), set()
    new_failures = len(failures) - failures_before
    signal_name = "SIGKILL" if how == "kill" else "SIGTERM"
    refused = f", {stats['refused at shutdown']} refused 503 while draining" if how == "term" else ""
    print(f"round {number:2d} [{synchronous}]: {signal_name} at {kill_after:.2f} s, {acked} writes acknowledged "
          f"({acked / load_time:.0f}/s), {stats['inflight']} unanswered (applied {stats['applied']}, not "
          f"{stats['not applied']}{refused}; with a key, retried: {stats['replayed']} replayed, "
          f"{stats['retried fresh']} fresh); integrity_check {'ok' if rows == ['ok'] else 'FAILED'}"
          f"{startup_note}; {stats['items checked']} items, {stats['GETs']} GETs, {stats['changes']} changes "
          f"checked, {file_note}; {uploads} uploads acknowledged, {stats['upload GETs']} images checked "
          f"({stats['uploads in flight']} unanswered, {stats['uploads applied']} applied); {chats} chat writes "
          f"acknowledged, {stats['messages checked']} messages checked ({stats['chat in flight']} unanswered, "
          f"{stats['chat applied']} applied); "
          f"restart {restart_time:.2f} s, checks {checks_time:.1f} s: "
          f"{'ok' if new_failures == 0 else f'{new_failures} FAILURES'}", flush=True)
    return clients, uploaders, chatters


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--normal-rounds", type=int, default=1, help="extra rounds with --data-synchronous normal")
    parser.add_argument("--term-rounds", type=int, default=2, help="extra rounds ended by SIGTERM, not SIGKILL")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--upload-clients", type=int, default=4, help="clients storing images beside the writers")
    parser.add_argument("--chat-clients", type=int, default=4, help="clients writing to a chat beside the writers")
    parser.add_argument("--item-count", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--deadline", type=float, default=240, help="seconds for all rounds")
    parser.add_argument("--server-flag", action="append", default=[], help="an extra server flag (repeatable)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    rng = random.Random(seed)
    data_path = os.path.join(args.workdir, "data", "list.db")
    if os.path.exists(data_path):
        raise SystemExit(f"{data_path} exists: the model starts from an empty file; give a new --workdir")
    os.makedirs(os.path.dirname(data_path), exist_ok=True)
    print(f"crash test: {args.rounds} rounds (+{args.normal_rounds} with synchronous=normal, +{args.term_rounds} "
          f"ended by SIGTERM), {args.clients} clients, seed {seed} (--seed {seed} repeats the choices), file "
          f"{data_path}", flush=True)

    extra = ["--threads", "2", "--latency-min-ms", "0", "--latency-max-ms", "0", "--image-latency-min-ms", "0",
             "--image-latency-max-ms", "0", "--item-count", str(args.item_count), *args.server_flag]
    server = Server(args.binary, data_path, args.workdir, extra)
    states = {dataset: DatasetState() for dataset in DATASETS}
    clients = []
    started = time.monotonic()
    totals = {"acked": 0, "load seconds": 0.0, "startup kills": 0, "uploads": 0, "chat writes": 0}
    uploaders = []
    chatters = []
    plan = ["full kill"] * args.rounds + ["normal kill"] * args.normal_rounds + ["full term"] * args.term_rounds
    rounds = [(number, *kind.split()) for number, kind in enumerate(plan, 1)]
    completed = 0
    running = "full"
    server.start(running)
    try:
        for number, synchronous, how in rounds:
            if time.monotonic() - started > args.deadline:
                failures.add(f"the deadline ({args.deadline:.0f} s) passed after {completed} of {len(rounds)} rounds")
                break
            if synchronous != running:
                status = server.stop()
                if status != 0:
                    failures.add(f"the server exited {status} on SIGTERM (expected 0)")
                running = synchronous
                server.start(running)
            try:
                clients, uploaders, chatters = run_round(number, synchronous, how, server, clients, states, args,
                                                         seed, rng, data_path, totals, uploaders, chatters)
            except Exception:  # a broken answer, a lost connection after the restart: loud, with where
                failures.add(f"round {number}: {traceback.format_exc()}")
                break
            completed += 1
    finally:
        status = server.stop()
    if status not in (0, None):
        failures.add(f"the server exited {status} on the final SIGTERM (expected 0); log {server.log_path()}")
    rows = integrity_check(data_path)
    if rows != ["ok"]:
        failures.add(f"PRAGMA integrity_check after the final stop: {rows[:10]}")
    live = sum(len(client.items) for client in clients)
    replays = sum(client.replays_checked for client in clients)
    print(f"crash test: {completed} of {len(rounds)} rounds, {totals['acked']} writes acknowledged "
          f"(~{totals['acked'] / max(totals['load seconds'], 0.001):.0f}/s under load), {totals.get('inflight', 0)} "
          f"unanswered at the kills ({totals.get('applied', 0)} applied, {totals.get('not applied', 0)} not, "
          f"{totals.get('refused at shutdown', 0)} of them answered 503 while draining; "
          f"{totals.get('replayed', 0)} replayed and {totals.get('retried fresh', 0)} fresh on a retry with their "
          f"key), {totals['startup kills']} more kills during a start, {replays} idempotent replays checked, "
          f"{totals.get('changes', 0)} changes checked, {totals['uploads']} uploads acknowledged and "
          f"{totals.get('upload GETs', 0)} images checked ({totals.get('uploads in flight', 0)} unanswered at the "
          f"kills, {totals.get('uploads applied', 0)} applied), {totals['chat writes']} chat writes acknowledged "
          f"and {totals.get('messages checked', 0)} messages checked ({totals.get('chat in flight', 0)} unanswered, "
          f"{totals.get('chat applied', 0)} applied), {live} live "
          f"items at the end, {sum(len(s.ids) for s in states.values())} ids issued, "
          f"{time.monotonic() - started:.0f} s")
    if len(failures) or completed < len(rounds):
        print(f"crash test: FAILED ({len(failures)} failures; seed {seed})")
        return 1
    print("crash test: PASSED")
    return 0


def carry_over(old, port, killed):
    client = Client(old.index, old.dataset, old.state, 0, port, killed)
    for name in ("rng", "counter", "items", "etags", "generated", "deleted", "keyed", "acked", "replays_checked"):
        setattr(client, name, getattr(old, name))
    return client


if __name__ == "__main__":
    sys.exit(main())
