#!/usr/bin/env python3
"""The browser test's flows (scripts/browser-test.sh starts the server and runs this).

Headless Chromium from Debian, driven by Playwright for Python (its own browser download cannot work here, so the
Debian binary is launched by path). Every flow runs on a fresh dataset of its own. Asserted: the List view loads
pages as it is scrolled and every row ends with its value; with a fault rate the failed rows show Retry and Retry
turns them into values; Reset starts the list over (a new version); the Photos view's pictures decode; a message
sent in one page appears in a second page within a second, and after the second page has been offline it shows the
messages it missed exactly once; scrolling up in the chat loads older messages while the message at the top stays
where it was; in a conversation, tapping a reply whose origin is 5,000 messages up loads the window around it in one
request and highlights it on screen, the other page's typing shows, an edit reaches the other page, the open
conversation is marked read, and the feed is a WebSocket. No page may log a console error or see a failed request other than the injected ones. Screenshots of
each view go to --screenshots. The Scenario panel's presets set the dataset's profile: an outage fails the list's
next load until Clear, and a profile that asks for a bearer token is met by the app fetching one after the first 401.
The Journal view follows a dataset's request journal live (rows appear as a second page scrolls the List), and the
report card of every flow whose client is the app as it is (List, Photos, the base path, the Journal's list) has no
finding but `aborted`. A Retry after a 503 with Retry-After is disabled and counts down until then, and the flows that
retry failures (faults, scenario) never retry before a Retry-After (`retry_before_retry_after`). Traffic to
127.0.0.1 only; every wait is bounded.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
import uuid

from playwright.sync_api import sync_playwright

failures = []
LISTENING = re.compile(rb"listening on [^ ]*:([0-9]+)")


class Server:
    """The server under test, on a file, so that it can be stopped and started again on the same port: what a
    page's lost connection is in the chat flow (Chromium's offline mode leaves an open stream alone)."""

    def __init__(self, binary, workdir):
        self.binary, self.workdir = binary, workdir
        self.port = 0
        self.proc = None
        self.starts = 0

    def start(self):
        self.starts += 1
        log_path = os.path.join(self.workdir, f"server-{self.starts}.log")
        command = [self.binary, "--host", "127.0.0.1", "--port", str(self.port), "--threads", "2",
                   "--data-path", os.path.join(self.workdir, "list.sqlite"), "--latency-min-ms", "50",
                   "--latency-max-ms", "150", "--image-latency-min-ms", "20", "--image-latency-max-ms", "80"]
        with open(log_path, "wb") as log:
            self.proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with open(log_path, "rb") as log:
                match = LISTENING.search(log.read())
            if match:
                self.port = int(match.group(1))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise SystemExit(f"the server did not start; see {log_path}")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"


def check(condition, message):
    if not condition:
        failures.append(message)
        print(f"   FAIL: {message}", flush=True)
    return condition


class Watched:
    """A page whose console errors and unexpected failed requests are collected."""

    def __init__(self, context, base, name):
        self.page = context.new_page()
        self.name = name
        self.problems = []
        self.page.on("console", self.console)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("requestfailed", self.request_failed)
        self.page.on("response", self.response)
        self.base = base
        self.expected = set()  # statuses the flow causes on purpose (a profile's outage, a token challenge)

    @staticmethod
    def injected(url):
        return "fail_rate=" in url or "fail_first=" in url

    def console(self, message):
        # A failed fetch the app shows as a failure view is logged by Chromium as "Failed to load resource"; those
        # are judged by their requests (below), not twice.
        if message.type == "error" and "WebSocket connection to" in message.text and self.offline:
            return  # the chat's feed trying to come back while the page is offline (logged by Chromium itself)
        if message.type == "error" and "Failed to load resource" not in message.text:
            self.problems.append(f"console error: {message.text}")

    def request_failed(self, request):
        failure = request.failure or ""
        # Requests the page itself cancels (a view left, EventSource closed) are not failures.
        if self.injected(request.url) or "ERR_ABORTED" in failure:
            return
        if "/events" in request.url and self.offline:
            return
        # While the flow has the server down on purpose, what the app sends on its own (a read marker) may fail.
        if self.offline and ("ERR_CONNECTION" in failure or "ERR_INTERNET_DISCONNECTED" in failure):
            return
        self.problems.append(f"request failed: {request.method} {request.url} ({failure})")

    def response(self, response):
        if response.status >= 400 and response.status not in self.expected and not self.injected(response.url):
            self.problems.append(f"{response.status} for {response.request.method} {response.url}")

    offline = False

    def open(self, view, dataset):
        self.page.goto(f"{self.base}/#{view}")
        set_dataset(self.page, dataset)

    def report(self):
        for problem in self.problems:
            check(False, f"{self.name}: {problem}")


def wait_for(page, expression, what, timeout=10):
    """Polls a JavaScript expression until it is truthy; fails (and returns False) after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if page.evaluate(expression):
            return True
        time.sleep(0.05)
    return check(False, f"gave up after {timeout} s waiting for {what}")


def set_dataset(page, name):
    """Sets the dataset's name and fires the field's change (which starts the view over) in one turn of the page's
    event loop. Typed, then left, the field holds the new name before its change: a request the old view sends in
    between names the new dataset (a page 2 that was on its way when the new view asked for page 2 again was the
    report card's duplicate_page, now and then)."""
    page.eval_on_selector("#controls input[name=dataset]", """(field, name) => {
        field.value = name;
        field.dispatchEvent(new Event("change"));
    }""", name)


datasets = {}  # flow -> the dataset it ran on, for the report cards (report_cards)


def dataset(flow):
    name = f"bt-{flow}-{uuid.uuid4().hex[:8]}"
    datasets[flow] = name
    return name


def list_scrolls_to_200(context, base, shots):
    watched = Watched(context, base, "list")
    page = watched.page
    watched.open("list", dataset("list"))
    wait_for(page, "document.querySelectorAll('#rows .row').length >= 20", "the first page")
    # Down by half a screen at a time until row 199 (the 200th) is in view: every row passes through the view.
    for _ in range(300):
        if page.evaluate("""(() => { const row = document.querySelector('#rows .row[data-id="199"]');
            return row !== null && row.getBoundingClientRect().bottom <= innerHeight; })()"""):
            break
        page.mouse.wheel(0, 400)
        time.sleep(0.06)
    rows = page.evaluate("document.querySelectorAll('#rows .row').length")
    check(rows >= 200, f"list: {rows} rows after scrolling, want 200")
    # Every row was in view on the way down: each ends with its value.
    done = wait_for(page, """[...document.querySelectorAll('#rows .row')].slice(0, 200)
        .every(row => row.dataset.state === 'done' && /^0\\.\\d{4}$/.test(row.querySelector('.detail').textContent))""",
                    "every one of the first 200 rows to show its value", timeout=20)
    if not done:
        print("   rows not done:", page.evaluate("""[...document.querySelectorAll('#rows .row')].slice(0, 200)
            .filter(row => row.dataset.state !== 'done')
            .map(row => `${row.dataset.id}:${row.dataset.state}:${row.querySelector('.detail').textContent}`)
            .slice(0, 20).join(' ')"""))
    page.screenshot(path=os.path.join(shots, "list.png"))
    watched.report()
    page.close()


def faults_then_retry(context, base):
    watched = Watched(context, base, "faults")
    page = watched.page
    page.goto(f"{base}/#list")
    page.fill("#controls input[name=fail_rate]", "0.3")
    page.fill("#controls input[name=fail]", "503")
    set_dataset(page, dataset("faults"))
    wait_for(page, """document.querySelectorAll('#rows .row').length >= 20
        || document.querySelector('#more .retry')""", "the first page (or its Retry)")
    # A page may fail too: its Retry, clicked once it is enabled (a 503's Retry-After, 1 s, keeps it disabled).
    # Each failure costs at least that second; 20 s is many rounds at a fault rate of 0.3.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if page.evaluate("document.querySelectorAll('#rows .row').length >= 20"):
            break
        page.evaluate("document.querySelector('#more .retry:enabled')?.click()")
        time.sleep(0.2)
    wait_for(page, """[...document.querySelectorAll('#rows .row')].slice(0, 8)
        .every(row => row.dataset.state === 'done' || row.dataset.state === 'failed')""", "the visible rows to settle")
    failed = page.evaluate("document.querySelectorAll('#rows .row[data-state=failed]').length")
    check(failed > 0, "faults: with a fault rate of 0.3 no row failed (the rate did not reach the requests?)")
    check(page.evaluate("document.querySelectorAll('#rows .row[data-state=failed] .retry').length") == failed,
          "faults: a failed row without its Retry button")
    # Each failed row's Retry, clicked once it is enabled, until no row is failed or loading: every attempt waits out
    # its 503's Retry-After (1 s), so 30 s leaves each row some twenty attempts.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        unsettled = page.evaluate("""(() => {
            for (const button of document.querySelectorAll('#rows .row[data-state=failed] .retry:enabled')) {
                button.click();
            }
            return document.querySelectorAll('#rows .row[data-state=failed], #rows .row[data-state=loading]').length;
        })()""")
        if unsettled == 0:
            break
        time.sleep(0.2)
    left = page.evaluate("document.querySelectorAll('#rows .row[data-state=failed]').length")
    check(left == 0, f"faults: {left} rows still failed after 30 s of Retry")
    watched.report()
    page.close()


def reset_starts_over(context, base):
    watched = Watched(context, base, "reset")
    page = watched.page
    watched.open("list", dataset("reset"))
    wait_for(page, "document.getElementById('version').textContent === 'version 1'", "version 1")
    default_version = "fetch('/items?limit=1').then(r => r.json()).then(j => j.version)"
    before = page.evaluate(default_version)
    page.click("#reset")
    wait_for(page, "document.getElementById('version').textContent === 'version 2'", "version 2 after Reset")
    wait_for(page, "document.querySelectorAll('#rows .row').length >= 20", "the list after Reset")
    check(page.evaluate(default_version) == before, "reset: the default list was reset too (only the dataset should)")
    watched.report()
    page.close()


def photos_decode(context, base, shots):
    watched = Watched(context, base, "photos")
    page = watched.page
    watched.open("photos", dataset("photos"))
    wait_for(page, "document.querySelectorAll('#photos img').length >= 5", "five photo rows")
    # Each row's placeholder is its blur_hash, decoded and drawn by the app (Web/blurhash.js): an image in the
    # frame's background whose average is the item's colour.
    placeholders = page.evaluate("""async () => {
        const { decodeBlurHash } = await import('./app/blurhash.js');
        // The same items from a dataset of their own (same seed), so the judged dataset's journal stays the app's.
        const items = (await (await fetch('/items?limit=5', { headers: { 'X-Dataset': '%s' } })).json()).items;
        const frames = [...document.querySelectorAll('#photos .frame')].slice(0, 5);
        return items.map((item, index) => {
            const pixels = decodeBlurHash(item.blur_hash, 32, 32);
            const sums = [0, 0, 0];
            for (let at = 0; at < pixels.length; at += 4) for (let c = 0; c < 3; c += 1) sums[c] += pixels[at + c];
            const hex = item.color.slice(1).match(/../g).map((h) => parseInt(h, 16));
            const off = Math.max(...sums.map((sum, c) => Math.abs(sum / 1024 - hex[c])));
            return { off, drawn: getComputedStyle(frames[index]).backgroundImage.startsWith('url("data:image/png') };
        });
    }""" % dataset("placeholders"))
    assert all(p["drawn"] for p in placeholders), f"placeholders not drawn from blur_hash: {placeholders}"
    assert all(p["off"] <= 16 for p in placeholders), f"a placeholder's average is not the item's colour: {placeholders}"
    wait_for(page, "[...document.querySelectorAll('#photos img')].slice(0, 3).every(i => i.complete && i.naturalWidth > 0)",
             "the first three pictures to decode", timeout=15)
    page.screenshot(path=os.path.join(shots, "photos.png"))
    watched.report()
    page.close()


def app_under_base_path(context, base, shots):
    """The app opened at /d/<name> (a dataset as a base URL): redirected to /d/<name>/, its dataset field fixed to
    the name, and every request it makes (pages, details, pictures, the event stream) under the prefix, with no
    X-Dataset of its own; what it shows is that dataset's list."""
    name = dataset("base")
    watched = Watched(context, base, "base path")
    page = watched.page
    requests = []
    page.on("request", lambda request: requests.append(request))
    sockets = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    page.goto(f"{base}/d/{name}")
    check(page.url.startswith(f"{base}/d/{name}/"), f"base path: the bare base led to {page.url}")
    field = page.eval_on_selector("#controls input[name=dataset]", "field => [field.value, field.readOnly]")
    check(field == [name, True], f"base path: the dataset field is {field}, want [{name!r}, True]")
    # The view is opened again at once, while its first page may still be arriving: the new view joins the GET on
    # its way (api.js) rather than asking again without the tag it has not read (the report card's duplicate_page,
    # which the report cards below would show).
    page.goto(f"{base}/d/{name}/#list")
    wait_for(page, "document.querySelectorAll('#rows .row .detail').length >= 5 && "
             "[...document.querySelectorAll('#rows .row')].slice(0, 5).every(row => row.dataset.state === 'done')",
             "five rows with their values under the base path", timeout=20)
    page.goto(f"{base}/d/{name}/#photos")
    # At least three pictures: `every` over none would be true before the view has drawn a row.
    wait_for(page, "document.querySelectorAll('#photos img').length >= 3 && "
             "[...document.querySelectorAll('#photos img')].slice(0, 3).every(i => i.complete && i.naturalWidth > 0)",
             "three pictures under the base path", timeout=15)
    page.goto(f"{base}/d/{name}/#chat")
    wait_for(page, "document.getElementById('live')?.textContent === 'live'", "the chat's event stream under the base path")
    page.screenshot(path=os.path.join(shots, "base-path.png"))
    data = [r for r in requests if r.url.startswith(base) and
            any(part in r.url for part in ("/items", "/admin/"))]
    check(len(data) >= 10, f"base path: only {len(data)} data requests seen")
    outside = [r.url for r in data if not r.url.startswith(f"{base}/d/{name}/") or "/d/" in r.url[len(base) + 3:]]
    check(not outside, f"base path: requests outside /d/{name}/ (or under it twice): {outside[:5]}")
    named = [r.url for r in data if "x-dataset" in r.headers]
    check(not named, f"base path: requests that sent X-Dataset: {named[:5]}")
    # The chat's feed is a WebSocket (not a request Playwright reports as one), under the base path too.
    ws_base = "ws" + base[len("http"):]
    check(any(url.startswith(f"{ws_base}/d/{name}/conversations/events") for url in sockets),
          f"base path: no WebSocket to /d/{name}/conversations/events seen: {sockets}")
    check(any("/image" in r.url for r in data), "base path: no picture request seen")
    watched.report()
    page.close()


def scenario_panel(context, base):
    """The Scenario panel sets the dataset's profile: "Offline 10 s" makes the list's next load fail (503, with a
    Retry that counts down the outage's Retry-After, the seconds it has left), "Clear" ends it and Retry, once
    enabled (Clear does not shorten a Retry-After the server gave), loads the rows; "Token expires in 30 s" makes the
    dataset ask for a bearer token, which the app fetches after the first 401 and sends from then on (and never
    before); the server's profile then says `auth.token_ttl_s` 30."""
    name = dataset("scenario")
    watched = Watched(context, base, "scenario")
    page = watched.page
    requests = []
    page.on("request", lambda request: requests.append(request))
    watched.open("list", name)
    wait_for(page, "document.querySelectorAll('#rows .row').length >= 20", "the first page")
    page.click("#scenario > summary")
    wait_for(page, "document.querySelector('#scenario textarea').value.trim().startsWith('{')",
             "the panel to show the dataset's profile")
    check(page.text_content("#scenario .dataset-name") == name,
          f"scenario: the panel names {page.text_content('#scenario .dataset-name')!r}, want {name!r}")

    def authorization(request):  # all_headers: `headers` may leave out what is security-related
        try:
            return request.all_headers().get("authorization", "")
        except Exception:  # a request the page cancelled before it was sent
            return request.headers.get("authorization", "")

    def preset(label, status="applied"):
        page.evaluate("document.querySelector('#scenario .status').textContent = ''")
        page.get_by_role("button", name=label, exact=True).click()
        wait_for(page, f"document.querySelector('#scenario .status').textContent === {status!r}",
                 f"{status!r} after {label!r}")

    def reload_list():  # Reset starts the view over: the list's next load
        page.evaluate("document.getElementById('rows').dataset.old = 'yes'")
        page.click("#reset")
        wait_for(page, "document.getElementById('rows') && !document.getElementById('rows').dataset.old",
                 "the list to start over")

    watched.expected = {503}
    preset("Offline 10 s")
    reload_list()
    wait_for(page, "document.querySelector('#more .failure') && document.querySelector('#more .retry')",
             "the list's failure with Retry during the outage")
    check(page.evaluate("document.querySelectorAll('#rows .row').length") == 0,
          "scenario: rows shown during the outage")
    check("503" in (page.text_content("#more .failure") or ""),
          f"scenario: the failure says {page.text_content('#more .failure')!r}, want a 503")
    retry = page.eval_on_selector("#more .retry", "button => [button.disabled, button.textContent]")
    check(retry[0] and re.fullmatch(r"Retry in \d+ s", retry[1]),
          f"scenario: during the outage Retry is {retry}, want disabled and counting down its Retry-After")
    preset("Clear", "cleared")
    check(page.evaluate("JSON.parse(document.querySelector('#scenario textarea').value).outage === undefined"),
          "scenario: the profile still has an outage after Clear")
    # The outage's 503 asked for up to 10 s: Retry is enabled when they have passed, Clear or not.
    wait_for(page, "document.querySelector('#more .retry')?.disabled === false",
             "Retry to be enabled once the outage's Retry-After has passed", timeout=15)
    page.click("#more .retry")
    wait_for(page, "document.querySelectorAll('#rows .row').length >= 20", "the rows after Clear and Retry")
    watched.expected = set()
    carried = [r.url for r in requests if "/items" in r.url and authorization(r)]
    check(not carried, f"scenario: requests carried Authorization before any token: {carried[:3]}")

    watched.expected = {401}
    preset("Token expires in 30 s")
    requests.clear()
    reload_list()
    wait_for(page, "document.querySelectorAll('#rows .row').length >= 20 && "
             "[...document.querySelectorAll('#rows .row')].slice(0, 5).every(row => row.dataset.state === 'done')",
             "the rows (and five values) with a token", timeout=15)
    check(any(r.method == "POST" and r.url.split("?")[0].endswith("/auth/token") for r in requests),
          "scenario: no POST /auth/token seen")
    bearer = [r for r in requests if "/items" in r.url and authorization(r).startswith("Bearer ")]
    check(bearer, "scenario: no data request carried Authorization: Bearer after the token")
    answer = page.request.get(f"{base}/admin/datasets/{name}/profile")
    profile = answer.json() if answer.ok else {}
    check(answer.ok and (profile.get("auth") or {}).get("token_ttl_s") == 30,
          f"scenario: GET profile answered {answer.status} {profile}, want auth.token_ttl_s 30")
    check(page.evaluate("JSON.parse(document.querySelector('#scenario textarea').value).auth?.token_ttl_s") == 30,
          "scenario: the panel's text area does not show auth.token_ttl_s 30")
    page.request.delete(f"{base}/admin/datasets/{name}/profile")
    watched.report()
    page.close()


def journal_follows_live(context, base, shots):
    """The Journal view of a fresh dataset follows its journal live: page A shows it, page B scrolls the List of the
    same dataset, and page A (never reloaded) shows a row per request as they are answered, pages (`/items`) and
    details (`/items/{id}/detail`), in seq order, each with its hooks; the client filter lists page B's client; the
    report card (the server's, and the view's) has no finding but `aborted`: the List view is a well-behaved client."""
    name = dataset("journal")
    viewer = Watched(context, base, "journal")
    page = viewer.page
    viewer.open("journal", name)
    wait_for(page, "document.getElementById('journal-status')?.textContent === 'live'", "the journal's stream")
    wait_for(page, "document.querySelector('#journal .journal-report .journal-none, #journal .journal-finding')",
             "the report card of the empty journal")
    check(page.evaluate("document.querySelectorAll('#journal .journal-row').length") == 0,
          "journal: rows shown for a dataset nobody has asked anything yet")
    page.evaluate("window.__notReloaded = true")

    # Page B in a context of its own, with nothing in its HTTP cache, and opened on the Journal (which asks nothing of
    # the list) until the dataset is chosen: its pages and details are all answered (200, with the server's latency),
    # none revalidated from another dataset's (304 at once; the earlier flows', or the default list's it would load
    # first if opened on the List).
    list_context = context.browser.new_context(viewport={"width": 900, "height": 800})
    lister = Watched(list_context, base, "journal's list")
    other = lister.page
    lister.open("journal", name)
    other.evaluate("location.hash = '#list'")
    wait_for(other, "document.querySelectorAll('#rows .row').length >= 20", "the list's first page")
    # Down a third of a screen at a time, slowly enough that the details in view load as a person scrolls.
    for _ in range(14):
        other.mouse.wheel(0, 300)
        time.sleep(0.25)
    wait_for(other, "document.querySelectorAll('#rows .row').length >= 60", "three pages of the list")

    wait_for(page, "document.querySelectorAll('#journal .journal-row').length >= 5", "five rows in the journal")
    wait_for(page, """(() => {
        const routes = new Set([...document.querySelectorAll('#journal .journal-row')].map(row => row.dataset.route));
        return routes.has('/items') && routes.has('/items/{id}/detail');
    })()""", "rows of /items and of /items/{id}/detail in the journal")
    check(page.evaluate("window.__notReloaded === true"), "journal: the page was reloaded")
    rows = page.evaluate("""[...document.querySelectorAll('#journal .journal-row')].map(row => ({
        seq: Number(row.dataset.seq), status: row.dataset.status, route: row.dataset.route,
        aborted: row.dataset.aborted, id: row.id, bar: Boolean(row.querySelector('.span-bar')),
        width: row.querySelector('.span-bar')?.getBoundingClientRect().width ?? 0 }))""")
    seqs = [row["seq"] for row in rows]
    check(seqs == sorted(seqs) and len(set(seqs)) == len(seqs), f"journal: rows not in seq order: {seqs[:20]}")
    odd = [row for row in rows if row["id"] != f"journal-row-{row['seq']}" or row["aborted"] not in ("true", "false")
           or not row["status"].isdigit() or not row["bar"] or row["width"] <= 0]
    check(not odd, f"journal: rows without their hooks or bar: {odd[:3]}")
    pages = [row for row in rows if row["route"] == "/items"]
    check(all(row["status"] in ("200", "304") for row in pages), f"journal: a page not answered 200 or 304: {pages[:3]}")
    # The filter lists the list's client, and keeps its rows when chosen.
    chosen = page.evaluate("""(() => {
        const select = document.getElementById('journal-client');
        if (select.options.length < 2) return null;
        select.value = select.options[1].value;
        select.dispatchEvent(new Event('change'));
        return select.value;
    })()""")
    if check(chosen, "journal: the client filter lists no client"):
        hidden = page.evaluate(f"""[...document.querySelectorAll('#journal .journal-row')]
            .filter(row => row.hidden !== (row.dataset.client !== {json.dumps(chosen)})).length""")
        check(hidden == 0, f"journal: {hidden} rows shown or hidden against the filter")
        page.select_option("#journal-client", "")
    wait_for(page, "document.querySelector('#journal .journal-report:not([aria-busy]) .journal-findings > li')",
             "the report card in the view")
    shown = page.evaluate("[...document.querySelectorAll('#journal .journal-finding')].map(f => f.dataset.kind)")
    check(set(shown) <= {"aborted"}, f"journal: the view's report card shows {shown}")
    example = page.query_selector("#journal .journal-finding .journal-example")
    if example:  # a finding's example leads to its row
        seq = example.get_attribute("data-seq")
        example.click()
        check(page.evaluate(f"document.getElementById('journal-row-{seq}')?.classList.contains('highlight')"),
              f"journal: the example #{seq} did not highlight its row")
    page.bring_to_front()
    page.screenshot(path=os.path.join(shots, "journal.png"))

    answer = page.request.get(f"{base}/admin/report?dataset={name}")
    card = answer.json() if answer.ok else {}
    kinds = {finding["kind"] for finding in card.get("findings", [])}
    if not check(answer.ok and kinds <= {"aborted"},
                 f"journal: the report card answered {answer.status} with findings {sorted(kinds)}, want only aborted"):
        print(json.dumps(card.get("findings"), indent=1), flush=True)
    lister.report()
    viewer.report()
    list_context.close()
    page.close()


# The report cards read at the end (report_cards), by the flow that ran on the dataset. The first are the app as it
# is, a client that must do nothing a good list client does not: `aborted` (requests it gave up on) is information.
# The others meet failures on purpose and click Retry as soon as it is enabled: they must never retry before a
# Retry-After; the rest of their cards is printed, not judged (a row that failed five times running is a retry storm).
JUDGED = ("list", "reset", "photos", "base")
RETRYING = ("faults", "scenario")


def report_cards(context, base):
    for flow in JUDGED + RETRYING:
        name = datasets.get(flow)
        if name is None:
            continue
        answer = context.request.get(f"{base}/admin/report?dataset={name}")
        if not check(answer.ok, f"report card of {flow} ({name}): status {answer.status}"):
            continue
        card = answer.json()
        findings = card["findings"]
        summary = "; ".join(f"{f['kind']} x{f['count']} (e.g. {f['examples'][:5]})" for f in findings)
        print(f"   report card of {flow} ({card['entries']} requests): {summary or 'no findings'}", flush=True)
        kinds = {f["kind"] for f in findings}
        if flow in JUDGED:
            wrong, want = sorted(kinds - {"aborted"}), "none but aborted"
        else:
            wrong, want = sorted(kinds & {"retry_before_retry_after"}), "no retry_before_retry_after"
        if not check(not wrong, f"report card of {flow} ({name}): findings {wrong}, want {want}"):
            print(json.dumps(findings, indent=1), flush=True)
            print_examples(context, base, name, findings)


def print_examples(context, base, name, findings):
    """What the first requests of each finding were, with the list pages (when each started and ended): to tell a
    client's mistake from a rule's."""
    answer = context.request.get(f"{base}/admin/journal?dataset={name}&limit=10000")
    if not answer.ok:
        return
    entries = {entry["seq"]: entry for entry in answer.json()["entries"]}

    def line(entry):
        return (f"#{entry['seq']} {entry['method']} {entry['target']} {entry['status']} t={entry['t_ms']:.1f} "
                f"end={entry['t_ms'] + entry['duration_ms']:.1f} ms client={entry['client'][:8]}"
                f"{' aborted' if entry['aborted'] else ''}{' fault=' + entry['fault'] if entry['fault'] else ''}")

    for finding in findings:
        if finding["kind"] == "aborted":
            continue
        for seq in finding["examples"][:3]:
            if seq in entries:
                print(f"   {finding['kind']}: {line(entries[seq])}", flush=True)
    for entry in entries.values():
        if entry["route"] == "/items":
            print(f"   page: {line(entry)}", flush=True)


def api(base, method, path, dataset, body=None):
    """A request of the test's own (not the page's), as another client of the dataset would send it."""
    headers = {"X-Dataset": dataset, "X-Client-Id": "browser-test"}
    data = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read() or b"null")


def chat_replies_typing_and_reads(browser, base, shots):
    """The Chat view over conversations: a reply whose origin is 5,000 messages up and not loaded is tapped, and
    the origin is loaded in one `around=` request and highlighted on screen; the other page's typing shows; an edit
    reaches the other page; the open conversation is marked read; the feed is a WebSocket."""
    name = dataset("chat-replies")
    contexts = [browser.new_context(viewport={"width": 900, "height": 800}) for _ in range(2)]
    reader = Watched(contexts[0], base, "chat replies")
    typist = Watched(contexts[1], base, "chat typist")
    around = []
    reads = []
    reader.page.on("request", lambda r: around.append(r.url) if "around=" in r.url else None)
    reader.page.on("response", lambda r: reads.append(r.status) if r.url.endswith("/read") else None)
    for watched in (reader, typist):
        watched.open("chat", name)
        wait_for(watched.page, "document.querySelectorAll('#thread .message').length >= 20", "the newest messages")
        wait_for(watched.page, "document.getElementById('live').textContent === 'live'", "the live feed")
    check(reader.page.eval_on_selector("#live", "e => e.dataset.transport") == "websocket",
          "chat: the live feed is not a WebSocket")
    current = reader.page.evaluate("Number(document.querySelector('#conversations .current').dataset.id)")
    count = api(base, "GET", f"/conversations/{current}", name)["message_count"]
    origin = count - 5000
    api(base, "POST", f"/conversations/{current}/messages", name, {"text": "see the plan up there", "reply_to": origin})
    wait_for(reader.page, "document.querySelector('#thread .message:last-child .text')?.textContent === "
             "'see the plan up there' && document.querySelector('#thread .message:last-child .quote')"
             "?.textContent.length > 4", "the reply, with its quote")
    check(reader.page.evaluate(f"!document.querySelector('#thread .message[data-id=\"{origin}\"]')"),
          "chat: the origin was loaded before the jump")
    reader.page.click("#thread .message:last-child .quote")
    wait_for(reader.page, f"document.querySelector('#thread .message.highlight')?.dataset.id === '{origin}'",
             "the origin highlighted")
    inside = reader.page.evaluate(f"""(() => {{
        const box = document.querySelector('#thread .message[data-id="{origin}"]').getBoundingClientRect();
        const view = document.getElementById('messages').getBoundingClientRect();
        return box.top >= view.top && box.bottom <= view.bottom;
    }})()""")
    check(inside, "chat: the highlighted origin is not on screen")
    check(len(around) == 1, f"chat: the jump took {len(around)} around= requests, want 1")
    reader.page.screenshot(path=os.path.join(shots, "chat-jump.png"))
    # Back to the newest, where the read marker is set.
    reader.page.click("#latest")
    wait_for(reader.page, "document.querySelector('#thread .message:last-child .text')?.textContent === "
             "'see the plan up there'", "the newest messages again")
    deadline = time.monotonic() + 10
    while not reads and time.monotonic() < deadline:
        reader.page.wait_for_timeout(50)
    check(reads and all(status == 200 for status in reads), f"chat: the read markers answered {reads}")

    # The other page types: this one shows who.
    typist.page.type("#text", "on my way", delay=30)
    wait_for(reader.page, "document.getElementById('typing').textContent.includes('is typing')", "the typing line")
    typist.page.press("#text", "Enter")
    wait_for(reader.page, "[...document.querySelectorAll('#thread .text')].some(e => e.textContent === 'on my way')",
             "the typist's message")
    # The typist edits it (If-Match); the reader sees the new text.
    typist.page.click("#thread .message.own:last-child .edit")
    typist.page.wait_for_selector("#thread input.editing")
    typist.page.fill("#thread input.editing", "on my way, 5 min")
    typist.page.press("#thread input.editing", "Enter")
    wait_for(reader.page, "[...document.querySelectorAll('#thread .text')].some(e => e.textContent === "
             "'on my way, 5 min')", "the edited message in the other page")
    for watched in (reader, typist):
        watched.report()
    for context in contexts:
        context.close()


def chat_live_and_offline(browser, base, shots, server):
    name = dataset("chat")
    sender_context = browser.new_context()
    reader_context = browser.new_context()
    sender = Watched(sender_context, base, "chat sender")
    reader = Watched(reader_context, base, "chat reader")
    for watched in (sender, reader):
        watched.open("chat", name)
        wait_for(watched.page, "document.querySelectorAll('#thread .message').length >= 20", "the newest messages")
        wait_for(watched.page, "document.getElementById('live').textContent === 'live'", "the live feed")

    def send(text):
        sender.page.fill("#text", text)
        sender.page.press("#text", "Enter")

    def count(page, text):
        return page.evaluate(f"[...document.querySelectorAll('#thread .message .text')]"
                             f".filter(e => e.textContent === {text!r}).length")

    # Timed in the pages (one browser, one clock): when the sender submits, when the text appears in the reader.
    # (A function returning nothing: evaluating the promise itself would wait for it, before the message is sent.)
    reader.page.evaluate("""() => {
        window.__arrived = new Promise(resolve => new MutationObserver((_, observer) => {
            if ([...document.querySelectorAll('#thread .text')].some(e => e.textContent === 'hello from the sender')) {
                observer.disconnect();
                resolve(performance.timeOrigin + performance.now());
            }
        }).observe(document.getElementById('thread'), { childList: true, subtree: true }));
    }""")
    sender.page.fill("#text", "hello from the sender")
    sent_at = sender.page.evaluate("""(() => {
        const at = performance.timeOrigin + performance.now();
        document.getElementById('send').requestSubmit();
        return at;
    })()""")
    wait_for(reader.page, "[...document.querySelectorAll('#thread .text')].some(e => e.textContent === "
             "'hello from the sender')", "the message in the second page", timeout=5)
    latency = (reader.page.evaluate("window.__arrived") - sent_at) / 1000
    check(latency <= 1.0, f"chat: the message took {latency:.2f} s to reach the second page (want within 1 s)")
    print(f"   a message reached the second page {latency * 1000:.0f} ms after it was sent", flush=True)

    # The second page loses its connection: it goes offline, and the server restarts (on its file, same port), which
    # ends both pages' streams; the first reconnects at once, the second cannot until it is back online.
    reader.offline = True
    sender.offline = True
    reader_context.set_offline(True)
    server.stop()
    server.start()
    wait_for(reader.page, "document.getElementById('live').textContent === 'reconnecting…'",
             "the second page to lose its stream")
    wait_for(sender.page, "document.getElementById('live').textContent === 'live'",
             "the first page's stream to come back", timeout=15)
    sender.offline = False
    missed = [f"while you were away {i}" for i in range(3)]
    for text in missed:
        send(text)
        wait_for(sender.page, f"[...document.querySelectorAll('#thread .message:not(.sending) .text')]"
                 f".some(e => e.textContent === {text!r})", f"the sent message {text!r}")
    time.sleep(0.5)
    check(all(count(reader.page, text) == 0 for text in missed),
          "chat: the offline page showed messages sent while it was offline (the stream had not dropped)")
    reader_context.set_offline(False)
    wait_for(reader.page, f"[...document.querySelectorAll('#thread .text')].some(e => e.textContent === {missed[-1]!r})",
             "the missed messages after reconnecting", timeout=15)
    reader.offline = False
    time.sleep(0.5)
    for text in missed + ["hello from the sender"]:
        check(count(reader.page, text) == 1, f"chat: {text!r} is shown {count(reader.page, text)} times, want once")
        check(count(sender.page, text) == 1, f"chat sender: {text!r} is shown {count(sender.page, text)} times")
    sender.page.screenshot(path=os.path.join(shots, "chat.png"))

    # Scrolling up: the message at the top stays where it was while older ones load above it.
    page = reader.page
    before = page.evaluate("""(() => {
        const box = document.getElementById('messages');
        box.scrollTop = 0;
        const first = document.querySelector('#thread .message');
        window.__anchor = first.dataset.id;
        return { count: document.querySelectorAll('#thread .message').length,
                 top: first.getBoundingClientRect().top };
    })()""")
    page.dispatch_event("#messages", "scroll")
    wait_for(page, f"document.querySelectorAll('#thread .message').length > {before['count']}", "older messages")
    after = page.evaluate("""document.querySelector(`#thread .message[data-id="${window.__anchor}"]`)
        .getBoundingClientRect().top""")
    check(abs(after - before["top"]) <= 1, f"chat: the top message moved from {before['top']} to {after} px")
    sender.report()
    reader.report()
    sender_context.close()
    reader_context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--screenshots", required=True)
    args = parser.parse_args()
    os.makedirs(args.screenshots, exist_ok=True)
    started = time.monotonic()
    server = Server(args.binary, args.workdir)
    server.start()
    try:
        return run(args, server, started)
    finally:
        server.stop()


def run(args, server, started):
    args.base = server.base
    print(f"browser test: the server on {server.base}", flush=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 900, "height": 800})
        for flow in (list_scrolls_to_200, faults_then_retry, reset_starts_over, photos_decode, app_under_base_path,
                     scenario_panel, journal_follows_live, report_cards):
            print(f"browser test: {flow.__name__}", flush=True)
            arguments = (context, args.base, args.screenshots) \
                if flow in (list_scrolls_to_200, photos_decode, app_under_base_path, journal_follows_live) \
                else (context, args.base)
            try:
                flow(*arguments)
            except Exception as error:  # a timeout or a missing element: loud, and the next flow runs
                check(False, f"{flow.__name__}: {error}")
        print("browser test: chat_replies_typing_and_reads", flush=True)
        try:
            chat_replies_typing_and_reads(browser, args.base, args.screenshots)
        except Exception as error:
            check(False, f"chat_replies_typing_and_reads: {error}")
        # The chat flow restarts the server, whose journals are kept in memory only: the report cards come before it.
        print("browser test: chat_live_and_offline", flush=True)
        try:
            chat_live_and_offline(browser, args.base, args.screenshots, server)
        except Exception as error:
            check(False, f"chat_live_and_offline: {error}")
        browser.close()
    print(f"browser test: {len(failures)} failures in {time.monotonic() - started:.0f} s; screenshots in "
          f"{args.screenshots}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
