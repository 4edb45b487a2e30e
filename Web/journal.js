// The Journal view: what the clients of the dataset asked for and got, as a browser's network panel shows it. One
// row per request (`GET /admin/journal/events`, followed live while the view is shown), with a bar from its start to
// its end on a time axis all rows share, coloured by status, hatched when the client gave up on it, with a marker
// where ListServer injected a fault; a filter by client; and the report card above (journal-report.js), whose
// examples lead to their rows. The rows keep to the latest 2,000; the Clear button empties the dataset's journal.
import { datasetName, request } from "./api.js";
import { reportCard } from "./journal-report.js";
import { clientLabel, entryRow, time } from "./journal-row.js";

/** The most rows the view keeps (the oldest go). */
const keep = 2000;

/** `path` at the server's root, naming the dataset the app shows by `?dataset=` (nothing for the default list), with
 * `params` (those "" or null left out). */
function adminURL(path, params = {}) {
  const query = new URLSearchParams();
  const name = datasetName();
  if (name) query.set("dataset", name);
  for (const [key, value] of Object.entries(params)) if (value !== "" && value != null) query.set(key, String(value));
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

export function journalView(root) {
  root.innerHTML = `<section id="journal" class="journal" aria-label="Request journal">
    <div class="journal-bar">
      <span id="journal-status" class="live" role="status">connecting…</span>
      <span class="journal-count"></span>
      <label>Client <select id="journal-client"><option value="">all</option></select></label>
      <a id="journal-har" download="journal.har">Download HAR</a>
      <button type="button" id="journal-clear">Clear</button>
      <span class="journal-note" role="alert"></span>
    </div>
    <section class="journal-report" aria-label="Report card"></section>
    <div class="journal-head journal-grid" aria-hidden="true">
      <span>#</span><span>Method</span><span>Target</span><span>Status</span><span>Time</span>
      <span class="journal-axis"><span class="from"></span><span class="to"></span></span>
    </div>
    <ol id="journal-rows" class="journal-rows" aria-label="Requests, in the order of their answers"></ol>
  </section>`;
  const rows = root.querySelector("#journal-rows");
  const status = root.querySelector("#journal-status");
  const count = root.querySelector(".journal-count");
  const note = root.querySelector(".journal-note");
  const select = root.querySelector("#journal-client");
  const har = root.querySelector("#journal-har");
  const axisFrom = root.querySelector(".journal-axis .from");
  const axisTo = root.querySelector(".journal-axis .to");
  const shown = new Map(); // seq -> { row, start, end } (milliseconds on the journal's clock)
  const clients = new Set();
  let highest = 0; // the highest seq seen: where a stream opened again starts
  let missed = 0; // entries the stream said it no longer had
  let source = null;
  let reopening = null;
  let drawing = 0;
  let following = true; // the list is scrolled to its end: it stays there as rows come
  let stopped = false;

  har.href = adminURL("/admin/journal.har");
  const report = reportCard(root.querySelector(".journal-report"), {
    url: (client) => adminURL("/admin/report", { client }),
    jump,
    clientsSeen: (names) => names.forEach(addClient),
  });

  // EventSource sends no custom header: the dataset goes in the query. It reconnects by itself after a lost
  // connection, with Last-Event-ID (the server goes on after it); an answer that is no stream closes it for good, so
  // a new one is opened later, from the highest seq shown.
  function connect() {
    if (stopped) return;
    status.textContent = "connecting…";
    const stream = new EventSource(adminURL("/admin/journal/events", { since: highest }));
    source = stream;
    stream.addEventListener("open", () => { status.textContent = "live"; });
    stream.addEventListener("error", () => {
      if (stream.readyState !== EventSource.CLOSED) {
        status.textContent = "reconnecting…";
        return;
      }
      status.textContent = "not available; trying again";
      reopening = setTimeout(connect, 5000);
    });
    stream.addEventListener("entry", (event) => add(JSON.parse(event.data)));
    // The journal started over (the server restarted): its numbers begin again, so what is shown goes.
    stream.addEventListener("reset", () => {
      rows.replaceChildren();
      shown.clear();
      highest = 0;
      missed = 0;
      redraw();
    });
    stream.addEventListener("missed", (event) => {
      missed += Number(JSON.parse(event.data).missed) || 0;
      redraw();
    });
  }

  const filtered = (client) => select.value !== "" && client !== select.value;
  rows.addEventListener("scroll", () => {
    following = rows.scrollHeight - rows.scrollTop - rows.clientHeight < 24;
  }, { passive: true });

  function add(entry) {
    if (shown.has(entry.seq)) return;
    highest = Math.max(highest, entry.seq);
    const row = entryRow(entry);
    row.hidden = filtered(entry.client);
    // In seq order (the order of the answers); the replay and the live entries come so, this keeps it whatever comes.
    let before = rows.lastElementChild;
    while (before && Number(before.dataset.seq) > entry.seq) before = before.previousElementSibling;
    rows.insertBefore(row, before ? before.nextSibling : rows.firstChild);
    shown.set(entry.seq, { row, start: entry.t_ms, end: entry.t_ms + entry.duration_ms });
    addClient(entry.client);
    while (shown.size > keep) {
      const oldest = rows.firstElementChild;
      shown.delete(Number(oldest.dataset.seq));
      oldest.remove();
    }
    redraw();
    report.soon();
  }

  /** The axis over every row kept, the count, and the newest row in view if the list is at its end: once a frame. */
  function redraw() {
    if (drawing) return;
    drawing = requestAnimationFrame(() => {
      drawing = 0;
      let from = Infinity;
      let to = -Infinity;
      let visible = 0;
      for (const { row, start, end } of shown.values()) {
        from = Math.min(from, start);
        to = Math.max(to, end);
        if (!row.hidden) visible += 1;
      }
      if (!shown.size) from = to = 0;
      const span = Math.max(to - from, 1);
      rows.style.setProperty("--t0", String(from));
      rows.style.setProperty("--span", String(span));
      axisFrom.textContent = shown.size ? time(from) : "";
      axisTo.textContent = shown.size ? time(from + span) : "";
      count.textContent = `${visible === shown.size ? visible : `${visible} of ${shown.size}`} request`
        + (shown.size === 1 ? "" : "s")
        + (missed ? `; ${missed} earlier ones no longer kept` : "");
      if (following) rows.scrollTop = rows.scrollHeight;
    });
  }

  function addClient(name) {
    if (!name || clients.has(name)) return;
    clients.add(name);
    const option = document.createElement("option");
    option.value = name;
    option.textContent = clientLabel(name);
    option.title = name;
    select.append(option);
  }

  /** Shows the row of `seq` (a finding's example): scrolled to, highlighted, focused. */
  function jump(seq) {
    const row = document.getElementById(`journal-row-${seq}`);
    if (!row) {
      note.textContent = `Request #${seq} is no longer shown (the view keeps the latest ${keep}).`;
      return;
    }
    note.textContent = "";
    if (row.hidden) {
      select.value = "";
      select.dispatchEvent(new Event("change"));
    }
    row.scrollIntoView({ block: "center" });
    row.classList.remove("highlight");
    void row.offsetWidth; // so that the animation starts again on a second click
    row.classList.add("highlight");
    row.addEventListener("animationend", () => row.classList.remove("highlight"), { once: true });
    row.focus({ preventScroll: true });
  }

  select.addEventListener("change", () => {
    for (const { row } of shown.values()) row.hidden = filtered(row.dataset.client);
    har.href = adminURL("/admin/journal.har", { client: select.value });
    report.refresh(select.value);
    redraw();
  });

  root.querySelector("#journal-clear").addEventListener("click", async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    note.textContent = "";
    try {
      await request(adminURL("/admin/journal"), { method: "DELETE", controls: false });
      // The view starts over on a new stream, after the highest seq shown (numbers go on after a Clear): what the old
      // one still had in flight from before the Clear is not shown, and `t_ms` counts from the first request after.
      source?.close();
      clearTimeout(reopening);
      rows.replaceChildren();
      shown.clear();
      missed = 0;
      following = true;
      connect();
      redraw();
      report.refresh();
    } catch (error) {
      note.textContent = `Clear failed: ${error.message}`;
    } finally {
      button.disabled = false;
    }
  });

  connect();
  report.refresh();
  redraw();
  return () => {
    stopped = true;
    source?.close();
    clearTimeout(reopening);
    cancelAnimationFrame(drawing);
    report.stop();
  };
}
