// The Journal view's report card (`GET /admin/report`): what the dataset's clients did that a good list client does
// not, one finding per kind with its count, its advice and its example requests, each a link to its row below.
// Loaded when the view opens and again at most every 2 s while entries arrive (and at once when the client filter
// changes); an older answer that arrives after a newer one is not shown.
import { request } from "./api.js";
import { escape } from "./list.js";

/** The least time between two loads while entries arrive. */
const spacing = 2000;

/** Wires the report card into `box` (`<section class="journal-report">`). `url(client)` is the report's URL,
 * `jump(seq)` shows a row, `clientsSeen(names)` hands the report's clients to the filter. Returns
 * `{ refresh, soon, stop }`: load now, load within the spacing, stop for good. */
export function reportCard(box, { url, jump, clientsSeen }) {
  box.innerHTML = `<h2>Report card <small class="journal-report-state" aria-live="polite"></small></h2>
    <ul class="journal-findings"></ul>`;
  const list = box.querySelector(".journal-findings");
  const state = box.querySelector(".journal-report-state");
  let client = "";
  let turn = 0;
  let last = 0; // when the latest load started
  let timer = null;
  let controller = null;
  let stopped = false;

  async function refresh(forClient = client) {
    if (stopped) return;
    client = forClient;
    clearTimeout(timer);
    timer = null;
    controller?.abort();
    controller = new AbortController();
    const mine = ++turn;
    last = Date.now();
    box.setAttribute("aria-busy", "true");
    try {
      const { json } = await request(url(client), { controls: false, signal: controller.signal });
      if (mine !== turn) return;
      show(json);
      clientsSeen(json.clients ?? []);
    } catch (error) {
      if (error.name === "AbortError" || mine !== turn) return;
      state.textContent = `not loaded: ${error.message}`;
    } finally {
      if (mine === turn) box.removeAttribute("aria-busy");
    }
  }

  /** A load within the spacing: entries are arriving. */
  function soon() {
    if (stopped || timer !== null) return;
    timer = setTimeout(() => refresh(), Math.max(0, last + spacing - Date.now()));
  }

  function show(json) {
    const clients = json.clients?.length ?? 0;
    const who = json.client ? `of client ${json.client}` : `of ${clients} client${clients === 1 ? "" : "s"}`;
    state.textContent = `${json.entries} request${json.entries === 1 ? "" : "s"} ${who}`;
    list.replaceChildren();
    if (!json.findings.length) {
      const none = document.createElement("li");
      none.className = "journal-none";
      none.textContent = "No findings";
      list.append(none);
      return;
    }
    for (const finding of json.findings) list.append(findingItem(finding));
  }

  function findingItem(finding) {
    const item = document.createElement("li");
    item.className = `journal-finding kind-${finding.kind}`;
    item.dataset.kind = finding.kind;
    item.dataset.count = finding.count;
    const examples = finding.examples.map((seq) => `<button type="button" class="journal-example"
      data-seq="${Number(seq)}" aria-label="Show request ${Number(seq)}">#${Number(seq)}</button>`).join(" ");
    const routes = (finding.by_route ?? []).map((row) => `<li><code>${escape(row.route)}</code>: ${Number(row.count)},
      ${Number(row.wasted_bytes)} bytes not sent</li>`).join("");
    item.innerHTML = `<p><strong class="kind">${escape(finding.kind)}</strong>
      <span class="count">× ${Number(finding.count)}</span></p>
      <p class="advice" title="${escape(finding.readme ?? "")}">${escape(finding.advice)}</p>
      <p class="examples">${finding.count > finding.examples.length ? "First requests" : "Requests"}: ${examples}</p>
      ${routes ? `<ul class="by-route">${routes}</ul>` : ""}`;
    return item;
  }

  list.addEventListener("click", (event) => {
    const example = event.target.closest(".journal-example");
    if (example) jump(Number(example.dataset.seq));
  });

  return {
    refresh,
    soon,
    stop() {
      stopped = true;
      clearTimeout(timer);
      controller?.abort();
    },
  };
}
