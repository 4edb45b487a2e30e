// One entry of the request journal as a row of the Journal view: its seq, method, target, status and duration, and
// a bar on the time axis the list holds (CSS: `--t0` and `--span` on the list, `--t` and `--d` on the row), coloured
// by status, hatched when the client gave up on the request, with a marker at its end for an injected fault.
import { escape } from "./list.js";

/** `ms` milliseconds, short. */
export function time(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

/** The colour class of a status: 0 (no answer) goes with the 5xx. */
function statusClass(status) {
  if (status >= 200 && status < 300) return "status-2xx";
  if (status >= 300 && status < 400) return "status-3xx";
  if (status >= 400 && status < 500) return "status-4xx";
  return status === 0 || status >= 500 ? "status-5xx" : "status-other";
}

/** A client's name in the filter: the start of a UUID (an app's `X-Client-Id`), else the name, shortened. */
export function clientLabel(name) {
  if (/^[0-9a-f]{8}-[0-9a-f-]{27}$/i.test(name)) return `${name.slice(0, 8)}…`;
  return name.length > 28 ? `${name.slice(0, 26)}…` : name;
}

/** The `<li>` of `entry` (a journal entry's JSON), `id="journal-row-<seq>"`, its facts in `data-*` and its title. */
export function entryRow(entry) {
  const row = document.createElement("li");
  const aborted = entry.aborted === true;
  row.className = `journal-row journal-grid ${statusClass(entry.status)}${aborted ? " aborted" : ""}`;
  row.id = `journal-row-${entry.seq}`;
  row.tabIndex = -1;
  Object.assign(row.dataset, {
    seq: entry.seq, status: entry.status, route: entry.route, aborted: String(aborted), client: entry.client,
  });
  const facts = [`#${entry.seq} ${entry.method} ${entry.target}`, `route ${entry.route}`,
    entry.status ? `status ${entry.status}` : "no answer", time(entry.duration_ms), `${entry.bytes} bytes`,
    `client ${entry.client}`];
  if (aborted) facts.push(`given up after ${entry.received_bytes ?? 0} bytes`);
  if (entry.fault) facts.push(`fault ${entry.fault}`);
  if (entry.retry_after_s != null) facts.push(`Retry-After ${entry.retry_after_s} s`);
  if (entry.if_none_match) facts.push(`If-None-Match ${entry.if_none_match}`);
  row.title = facts.join(" · ");
  const fault = entry.fault ? `<span class="fault-mark" title="fault: ${escape(entry.fault)}">⚡<span
    class="hidden-label">fault ${escape(entry.fault)}</span></span>` : "";
  row.innerHTML = `<span class="seq">${Number(entry.seq)}</span><span class="method">${escape(entry.method)}</span>
    <span class="target">${escape(entry.target)}</span><span class="code">${Number(entry.status) || "–"}</span>
    <span class="took">${time(entry.duration_ms)}</span>
    <span class="track"><span class="span-bar">${fault}</span></span>`;
  // Through the CSSOM (the page's policy allows no style attributes): where the bar starts and how long it lasts.
  // The list holds the axis, so a rescale sets two properties on it, not two on every row.
  row.style.setProperty("--t", String(entry.t_ms));
  row.style.setProperty("--d", String(entry.duration_ms));
  return row;
}
