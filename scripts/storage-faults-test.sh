#!/usr/bin/env bash
# What the server does when its data file cannot be used: refuses to start, loudly; and when the disk fills up
# while it runs: refuses writes cleanly and keeps serving reads.
#
#   scripts/storage-faults-test.sh
#
# At start (each must exit non-zero within 10 s, without listening, with a message on standard error that names
# the data path):
#   - a file of random bytes; a file with SQLite's header and random pages after it; a database with damaged pages
#     (the file must fail `PRAGMA quick_check` first, or the check is not made); a folder at the data path;
#   - a database whose `PRAGMA user_version` is 999, above the server's schema version: the message names both;
#   - a read-only folder (a tmpfs remounted read-only): no database yet; a database in a subfolder that cannot be
#     created; a database written and stopped cleanly; a database left by kill -9 (its -wal and -shm beside it).
#     A server that opens a read-only file "successfully" fails the check: it could acknowledge no write. After
#     the mount is made writable again, the database left by kill -9 opens and holds its item.
# A full disk (a 3 MB tmpfs holding a 1 MB filler file and the database), while the server runs:
#   - POSTs with 500-character labels (some with an Idempotency-Key) until 20 writes have failed: every failure is
#     507 or 503 with Content-Type application/problem+json (a smaller write may still fit after a bigger one did
#     not; it must then really be there); PATCHes and DELETEs while full succeed or fail the same way;
#   - while full, GET /items/1, GET /items?page=2 and /healthz answer 200, every acknowledged item reads back with
#     its content, and the server stays up;
#   - kill -9 while still full, integrity_check, restart on the full disk: it starts, holds exactly the acknowledged
#     items, answers reads 200 and a write 507/503;
#   - once the filler is deleted, a POST succeeds, and refused keyed POSTs sent again are written fresh (a 507 is
#     not recorded as the key's answer);
#   - after another kill -9 and a restart: exactly the acknowledged items, with their content; integrity_check ok;
#     no refused write left a change in the feed.
# The mounts need root (CAP_SYS_ADMIN): without them those checks print SKIPPED with the reason and the script
# still runs the others and exits by their result. Bounded: about a minute; everything it mounts or starts is
# unmounted or stopped on exit. Traffic goes to 127.0.0.1 only. Environment: STORAGE_FAULTS_BINARY (a ListServer
# already built; default: build the release one).
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"

WORK=$(mktemp -d /tmp/storage-faults.XXXXXX)
mounts=()
failures=()
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
    local status=$? mount
    stop_launched
    for mount in ${mounts[@]+"${mounts[@]}"}; do
        umount "$mount" 2>/dev/null || umount -l "$mount" 2>/dev/null || echo "could not unmount $mount" >&2
    done
    if [[ $status -ne 0 ]]; then
        for log in "$WORK"/*.log; do [[ -f $log ]] && { echo "--- $log (end)"; tail -5 "$log"; }; done
        echo "storage-faults-test: FAILED" >&2
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
    failures+=("$*")
    echo "   FAIL: $*"
}

extra_packages=()
command -v python3 >/dev/null || extra_packages=(python3)
install_missing_packages "${build_packages[@]}" libsqlite3-dev "${extra_packages[@]}"
python3 -c 'import sqlite3' || die "python3 has no sqlite3 module (Debian: python3 ships it)"

if [[ -n ${STORAGE_FAULTS_BINARY:-} ]]; then
    binary=$STORAGE_FAULTS_BINARY
    [[ -x $binary ]] || die "$binary is not an executable"
else
    timeout 1500 swift build -c release --product ListServer
    binary="$(swift build -c release --show-bin-path)/ListServer"
fi
help=$("$binary" --help 2>&1) || true
for flag in --data-path --threads --latency-min-ms --latency-max-ms; do
    grep -q -- "$flag" <<<"$help" || die "$binary --help does not list $flag: this test needs it"
done
server_flags=(--threads 1 --latency-min-ms 0 --latency-max-ms 0)

# The HTTP and SQLite checks, in Python (standard library only), one mode per step.
cat >"$WORK/faults.py" <<'EOF'
import http.client, json, os, random, sqlite3, sys, time, traceback

mode = sys.argv[1]
failures = []

def fail(message):
    failures.append(message)
    print(f"   FAIL: {message}", flush=True)

def request(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()

def post(port, label, key=None):
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Idempotency-Key"] = key
    return request(port, "POST", "/items", json.dumps({"label": label, "likes": len(label)}).encode(), headers)

def is_refusal(status, fields, body, what):
    """A write refused for want of space: 507 or 503, as problem+json."""
    if status not in (507, 503):
        fail(f"{what}: answered {status} {body[:200]!r}; a full disk must be 507 or 503")
        return False
    if not fields.get("content-type", "").startswith("application/problem+json"):
        fail(f"{what}: {status} with Content-Type {fields.get('content-type')!r}, not application/problem+json")
    return True

def listing(port, item_count):
    items, after = {}, item_count - 1
    while True:
        status, _, body = request(port, "GET", f"/items?after={after}&limit=100")
        if status != 200:
            fail(f"GET /items?after={after}: {status} {body[:200]!r}")
            return items
        page = json.loads(body)
        items.update({item["id"]: item for item in page["items"]})
        if not page.get("has_more"):
            return items
        after = page["next_cursor"]

def save_state(path, acked, deleted, refused):
    with open(path, "w") as file:
        json.dump({"acked": {str(k): v for k, v in acked.items()}, "deleted": deleted, "refused": refused}, file)

def load_state(path):
    with open(path) as file:
        state = json.load(file)
    return ({int(k): v for k, v in state["acked"].items()}, state["deleted"],
            [tuple(pair) for pair in state["refused"]])

def compare_listing(port, acked, item_count, when):
    """The live created items are exactly the acknowledged ones, with their content."""
    listed = listing(port, item_count)
    missing = [i for i in acked if i not in listed]
    extra = [i for i in listed if i not in acked]
    wrong = [i for i in acked if i in listed and listed[i] != acked[i]]
    for i in missing[:5]:
        fail(f"{when}: acknowledged item {i} is missing")
    for i in extra[:5]:
        fail(f"{when}: item {i}, never acknowledged, is there: {str(listed[i])[:200]}")
    for i in wrong[:5]:
        fail(f"{when}: item {i} is {str(listed[i])[:200]}, acknowledged {str(acked[i])[:200]}")
    print(f"   {when}: {len(listed)} items listed, {len(acked)} acknowledged: {len(missing)} missing, "
          f"{len(extra)} extra, {len(wrong)} different")
    return listed

def main():
    if mode == "integrity":  # PATH: PRAGMA integrity_check, the file opened read-only
        connection = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
        rows = [row[0] for row in connection.execute("PRAGMA integrity_check")]
        connection.close()
        if rows != ["ok"]:
            fail(f"PRAGMA integrity_check of {sys.argv[2]}: {rows[:5]}")
        else:
            print(f"   ok: PRAGMA integrity_check of {os.path.basename(sys.argv[2])}: ok")

    elif mode == "populate":  # PORT COUNT: COUNT items, so the file has pages to damage
        port, count = int(sys.argv[2]), int(sys.argv[3])
        for n in range(count):
            status, _, body = post(port, f"populate-{n}-" + "p" * 200)
            if status != 201:
                fail(f"POST #{n}: {status} {body[:200]!r}")
                break

    elif mode == "damage":  # PATH: overwrites half the pages after the first with random bytes; quick_check must fail
        path = sys.argv[2]
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        connection.close()
        rng = random.Random(7)
        with open(path, "r+b") as file:
            for page in range(2, pages + 1, 2):
                file.seek((page - 1) * page_size)
                file.write(rng.randbytes(page_size))
        try:
            connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            result = [row[0] for row in connection.execute("PRAGMA quick_check")]
            connection.close()
        except sqlite3.Error as error:
            result = [str(error)]
        if result == ["ok"]:
            print(f"damage: quick_check still ok after overwriting {pages // 2} of {pages} pages", file=sys.stderr)
            sys.exit(2)
        print(f"   {pages // 2} of {pages} pages overwritten; quick_check says: {result[0][:100]}")

    elif mode == "user-version":  # PATH VERSION: prints the file's user_version, then sets VERSION
        connection = sqlite3.connect(sys.argv[2])
        print(connection.execute("PRAGMA user_version").fetchone()[0])
        connection.execute(f"PRAGMA user_version = {int(sys.argv[3])}")
        connection.commit()
        connection.close()

    elif mode == "post-one":  # PORT LABEL: one item, 201
        status, _, body = post(int(sys.argv[2]), sys.argv[3])
        if status != 201:
            fail(f"POST {sys.argv[3]}: {status} {body[:200]!r}")

    elif mode == "has-label":  # PORT ITEM_COUNT LABEL: exactly one live item has it
        found = [i for i in listing(int(sys.argv[2]), int(sys.argv[3])).values() if i["label"] == sys.argv[4]]
        if len(found) != 1:
            fail(f"{len(found)} items have the label {sys.argv[4]!r}, expected 1")
        else:
            print(f"   ok: the item written before is there: {found[0]}")

    elif mode == "fill":  # PORT STATE: fill the disk; writes refused cleanly, reads go on
        port, state_path = int(sys.argv[2]), sys.argv[3]
        acked, refused = {}, []  # id -> item; [(label, key)]
        started, n, fitted_after = time.monotonic(), 0, 0
        while len(refused) < 20 and time.monotonic() - started < 60 and n < 20000:
            n += 1
            label = f"full-{n:05d}-" + "x" * 489  # 500 characters
            key = f"fill-{n}" if n % 3 == 0 else None
            status, fields, body = post(port, label, key)
            if status == 201:
                # A smaller transaction (no idempotency record) may still fit after a bigger one did not: fine, as
                # long as it is really there after the restart (checked then).
                fitted_after += 1 if refused else 0
                item = json.loads(body)
                if item["label"] != label:
                    fail(f"POST #{n}: answered label {item['label'][:40]!r}...")
                acked[item["id"]] = item
            elif is_refusal(status, fields, body, f"POST #{n} on a full disk"):
                if not refused:
                    print(f"   the first refused write: POST #{n}, {status} {json.loads(body).get('title')!r}: "
                          f"{json.loads(body).get('detail', '')[:160]}")
                refused.append((label, key))
            else:
                break
        print(f"   {len(acked)} POSTs acknowledged ({fitted_after} of them after the first refusal), {len(refused)} "
              f"refused, in {time.monotonic() - started:.1f} s")
        if len(refused) < 20:
            fail(f"the disk never filled up: {len(refused)} refusals after {n} POSTs")
        # Other writes while full: applied in full, or refused as above and not applied.
        targets = list(acked)[:15]
        patched = 0
        for item_id in targets[:10]:
            patch = {"label": f"patched-{item_id}-" + "y" * 480, "likes": 7, "color": "#123456"}
            status, fields, body = request(port, "PATCH", f"/items/{item_id}", json.dumps(patch).encode(),
                                           {"Content-Type": "application/merge-patch+json"})
            if status == 200:
                acked[item_id] = json.loads(body)
                patched += 1
            elif is_refusal(status, fields, body, f"PATCH /items/{item_id} on a full disk"):
                refused.append((patch["label"], None))
        deleted = []
        for item_id in targets[10:]:
            status, fields, body = request(port, "DELETE", f"/items/{item_id}")
            if status == 204:
                deleted.append(item_id)
                acked.pop(item_id)
            else:
                is_refusal(status, fields, body, f"DELETE /items/{item_id} on a full disk")
        # Reads go on.
        for path in ("/items/1", "/items?page=2", "/healthz", "/items?page=1&limit=100"):
            status, _, body = request(port, "GET", path)
            if status != 200:
                fail(f"GET {path} while the disk is full: {status} {body[:200]!r}")
        wrong = 0
        for item_id, item in acked.items():
            status, _, body = request(port, "GET", f"/items/{item_id}")
            if status != 200 or json.loads(body) != item:
                wrong += 1
                if wrong <= 5:
                    fail(f"GET /items/{item_id} while full: {status} {body[:200]!r}, acknowledged {item}")
        for item_id in deleted:
            status, _, _ = request(port, "GET", f"/items/{item_id}")
            if status != 404:
                fail(f"GET /items/{item_id}, deleted while full: {status}")
        print(f"   while full: GET /items/1, /items?page=2, /healthz answered 200; {len(acked)} acknowledged items "
              f"read back ({wrong} wrong); PATCH: {patched} of 10 applied, the rest refused; DELETE: {len(deleted)} of "
              f"{len(targets[10:])} applied, the rest refused")
        save_state(state_path, acked, deleted, refused)

    elif mode == "full-restart":  # PORT STATE ITEM_COUNT: restarted after kill -9, the disk still full
        port, state_path, item_count = int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
        acked, deleted, refused = load_state(state_path)
        compare_listing(port, acked, item_count, "after kill -9 and a restart on the full disk")
        for path in ("/items/1", "/items?page=2", "/healthz"):
            status, _, body = request(port, "GET", path)
            if status != 200:
                fail(f"GET {path} after a restart on the full disk: {status} {body[:200]!r}")
        label = "full-after-restart-" + "z" * 480
        status, fields, body = post(port, label, "full-after-restart")
        if status == 201:
            acked[json.loads(body)["id"]] = json.loads(body)
            print("   a POST after the restart on the full disk fitted (201)")
        elif is_refusal(status, fields, body, "POST after a restart on the full disk"):
            refused.append((label, "full-after-restart"))
            print(f"   reads answer 200, a POST {status} (the disk is still full)")
        save_state(state_path, acked, deleted, refused)

    elif mode == "free":  # PORT FILLER STATE: the filler deleted, writes go through again
        port, filler, state_path = int(sys.argv[2]), sys.argv[3], sys.argv[4]
        acked, deleted, refused = load_state(state_path)
        os.remove(filler)
        status, fields, body = post(port, "after-space-freed")
        if status != 201:
            fail(f"POST after the filler was deleted: {status} {body[:300]!r}")
        else:
            item = json.loads(body)
            acked[item["id"]] = item
            print(f"   filler deleted: POST answered 201 (id {item['id']})")
        keyed = [(label, key) for label, key in refused if key]
        for label, key in keyed[:3]:
            status, fields, body = post(port, label, key)
            if status != 201 or fields.get("idempotent-replayed"):
                fail(f"the refused POST with Idempotency-Key {key}, sent again with space: {status} "
                     f"replayed={fields.get('idempotent-replayed')} {body[:200]!r}; expected a fresh 201")
            else:
                item = json.loads(body)
                acked[item["id"]] = item
        print(f"   {len(keyed[:3])} refused POSTs with an Idempotency-Key, sent again: fresh 201s, not replays")
        still_refused = [(label, key) for label, key in refused if (label, key) not in keyed[:3]]
        save_state(state_path, acked, deleted, still_refused)

    elif mode == "verify":  # PORT STATE ITEM_COUNT: after kill -9 and a restart
        port, state_path, item_count = int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
        acked, deleted, refused = load_state(state_path)
        listed = compare_listing(port, acked, item_count, "after kill -9 and a restart with space")
        refused = {label for label, _ in refused}
        status, _, body = request(port, "GET", "/items/changes?since=0&limit=1000")
        feed_refused = 0
        if status == 200:
            answer = json.loads(body)
            while True:
                feed_refused += sum(1 for c in answer["changes"] if c.get("item", {}).get("label") in refused
                                    or (c.get("kind") == "deleted" and c.get("id") not in deleted))
                if not answer["changes"]:
                    break
                status, _, body = request(port, "GET", f"/items/changes?since={answer['next_since']}&limit=1000")
                answer = json.loads(body)
            if feed_refused:
                fail(f"{feed_refused} refused writes left a change in the feed")
        else:
            fail(f"GET /items/changes: {status} {body[:200]!r}")
        print(f"   refused writes (POST, PATCH, DELETE) in the change feed: {feed_refused}")

try:
    main()
except Exception:  # a lost connection, an unreadable answer: a failure, with where
    fail(traceback.format_exc())
sys.exit(1 if failures else 0)
EOF
faults() { python3 "$WORK/faults.py" "$@" || failures+=("faults.py $1"); }

# expect_refusal NAME DATA_PATH [TEXT...]: the server, started on DATA_PATH, must exit non-zero within 10 s without
# listening, and its standard error must name DATA_PATH (and hold each TEXT, a word).
expect_refusal() {
    local name=$1 path=$2 out err pid status=0 attempt started text
    shift 2
    out="$WORK/$name.out" err="$WORK/$name.err"
    started=${EPOCHREALTIME/./}
    "$binary" --host 127.0.0.1 --port 0 --data-path "$path" "${server_flags[@]}" >"$out" 2>"$err" &
    pid=$!
    for ((attempt = 0; attempt < 100; attempt++)); do
        is_running "$pid" || break
        grep -q "listening on" "$out" "$err" && break
        sleep 0.1
    done
    if is_running "$pid"; then
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        if grep -q "listening on" "$out" "$err"; then
            fail "$name: the server started on $path instead of refusing it"
        else
            fail "$name: the server neither exited nor listened within 10 s"
        fi
        return
    fi
    wait "$pid" || status=$?
    local elapsed message
    elapsed=$(((${EPOCHREALTIME/./} - started) / 100000)) # tenths of a second
    message=$(tr '\n' ' ' <"$err" | cut -c1-300)
    if [[ $status -eq 0 ]]; then fail "$name: exited 0"; return; fi
    if ! grep -qF -- "$path" "$err"; then
        if grep -qF -- "$path" "$out"; then
            fail "$name: the message names $path on standard output, not standard error: $(head -c 300 "$out")"
        else
            fail "$name: standard error does not name $path: '$message'"
        fi
        return
    fi
    for text in "$@"; do
        grep -qw -- "$text" "$err" || { fail "$name: the message does not say '$text': '$message'"; return; }
    done
    echo "   ok: $name: exit $status after $((elapsed / 10)).$((elapsed % 10)) s: $message"
}

# A database the server wrote: COUNT items (SIGTERM afterwards: a clean file, WAL checkpointed).
make_database() { # PATH COUNT
    launch_server "$WORK/make-$(basename "$1").log" 0 "$binary" --data-path "$1" "${server_flags[@]}"
    faults populate "$launched_port" "$2"
    stop_process "$launched_pid" || fail "the server writing $1 exited $? on SIGTERM (expected 0)"
}

# kill_launched PID: SIGKILL to a server launch_server started, and reaps it (stop_process would wait its grace
# period on a process that is already gone).
kill_launched() {
    local pid=$1 kept=() other
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    for other in ${launched_pids[@]+"${launched_pids[@]}"}; do [[ $other == "$pid" ]] || kept+=("$other"); done
    launched_pids=(${kept[@]+"${kept[@]}"})
}

# mount_tmpfs DIR SIZE: a tmpfs at DIR (created); fails when mounting is not allowed.
mount_tmpfs() {
    mkdir -p "$1"
    mount -t tmpfs -o "size=$2,mode=0755" tmpfs "$1" 2>"$WORK/mount.err" || return 1
    mounts+=("$1")
}

echo "== files the server must refuse at start"
head -c 65536 /dev/urandom >"$WORK/random.db"
expect_refusal "random bytes" "$WORK/random.db"
{ printf 'SQLite format 3\0'; head -c 65520 /dev/urandom; } >"$WORK/header.db"
expect_refusal "SQLite's header, then random bytes" "$WORK/header.db"
make_database "$WORK/damaged.db" 300
if python3 "$WORK/faults.py" damage "$WORK/damaged.db"; then
    expect_refusal "damaged pages" "$WORK/damaged.db"
else
    fail "could not damage $WORK/damaged.db so that quick_check notices"
fi
mkdir "$WORK/folder.db"
expect_refusal "a folder at the data path" "$WORK/folder.db"
make_database "$WORK/newer.db" 1
schema_version=$(python3 "$WORK/faults.py" user-version "$WORK/newer.db" 999)
echo "   the server writes schema version $schema_version (PRAGMA user_version)"
expect_refusal "user_version 999 (newer than the server's $schema_version)" "$WORK/newer.db" 999 "$schema_version"

echo "== read-only folders"
if ! mount_tmpfs "$WORK/probe" 1m; then
    echo "storage-faults-test: SKIPPED read-only folder and full disk checks: cannot mount a tmpfs" \
        "($(tr '\n' ' ' <"$WORK/mount.err"); needs root with CAP_SYS_ADMIN). Not checked: start on a read-only" \
        "folder (no file, existing file, file left by kill -9), writes on a full disk (507/503, reads go on," \
        "nothing half-applied, recovery once space is freed)."
    mounts_ok=0
else
    mounts_ok=1
fi
if ((mounts_ok)); then
    mount_tmpfs "$WORK/ro-empty" 4m
    mount -o remount,ro "$WORK/ro-empty"
    expect_refusal "read-only folder, no database yet" "$WORK/ro-empty/list.db"
    expect_refusal "read-only folder, the database's subfolder missing" "$WORK/ro-empty/sub/list.db"

    mount_tmpfs "$WORK/ro-clean" 8m
    make_database "$WORK/ro-clean/list.db" 5
    mount -o remount,ro "$WORK/ro-clean"
    expect_refusal "read-only folder, a database stopped cleanly" "$WORK/ro-clean/list.db"

    mount_tmpfs "$WORK/ro-killed" 8m
    launch_server "$WORK/ro-killed.log" 0 "$binary" --data-path "$WORK/ro-killed/list.db" "${server_flags[@]}"
    faults post-one "$launched_port" "written before kill -9"
    kill_launched "$launched_pid"
    echo "   left by kill -9: $(cd "$WORK/ro-killed" && echo *)"
    mount -o remount,ro "$WORK/ro-killed"
    expect_refusal "read-only folder, a database left by kill -9" "$WORK/ro-killed/list.db"
    mount -o remount,rw "$WORK/ro-killed"
    faults integrity "$WORK/ro-killed/list.db"
    launch_server "$WORK/ro-killed-2.log" 0 "$binary" --data-path "$WORK/ro-killed/list.db" "${server_flags[@]}"
    faults has-label "$launched_port" 10000 "written before kill -9"
    stop_process "$launched_pid" || fail "the server on $WORK/ro-killed/list.db exited $? on SIGTERM"

    echo "== a full disk (3 MB tmpfs, 1 MB of it a filler file)"
    full="$WORK/full"
    mount_tmpfs "$full" 3m
    dd if=/dev/zero of="$full/filler" bs=1M count=1 status=none
    launch_server "$WORK/full.log" 0 "$binary" --data-path "$full/list.db" "${server_flags[@]}"
    faults fill "$launched_port" "$WORK/full-state.json"
    is_running "$launched_pid" || fail "the server died while the disk was full"
    if [[ -f $WORK/full-state.json ]]; then
        echo "   kill -9 while the disk is full ($(df -h --output=used,size "$full" | tail -1 | xargs) used), restart"
        kill_launched "$launched_pid"
        faults integrity "$full/list.db"
        launch_server "$WORK/full-2.log" 0 "$binary" --data-path "$full/list.db" "${server_flags[@]}"
        faults full-restart "$launched_port" "$WORK/full-state.json" 10000
        faults free "$launched_port" "$full/filler" "$WORK/full-state.json"
        kill_launched "$launched_pid"
        faults integrity "$full/list.db"
        launch_server "$WORK/full-3.log" 0 "$binary" --data-path "$full/list.db" "${server_flags[@]}"
        faults verify "$launched_port" "$WORK/full-state.json" 10000
        stop_process "$launched_pid" || fail "the restarted server exited $? on SIGTERM (expected 0)"
        faults integrity "$full/list.db"
    fi
    echo "   tmpfs use at the end: $(df -h --output=used,size "$full" | tail -1)"
fi

if ((${#failures[@]})); then
    echo "storage-faults-test: ${#failures[@]} check(s) failed"
    exit 1
fi
((mounts_ok)) && echo "storage-faults-test: PASSED" || echo "storage-faults-test: PASSED (the mount checks SKIPPED)"
