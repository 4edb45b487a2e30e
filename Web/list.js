// The List view: the two-level list. Pages of items load as the end comes near; each row then loads its slow
// detail (loading, then the value with a short animation, or a failure with Retry, which counts down a 429's or
// 503's Retry-After first), and shows it again, animated, whenever it scrolls back into view. A cached detail
// (X-Cache: HIT) appears at once.
import { request, noteVersion } from "./api.js";
import { armRetry } from "./retry.js";

const pageSize = 20;

export function listView(root) {
  root.innerHTML = `<section class="list" aria-label="Items"><ol id="rows"></ol>
    <div id="more" class="more" aria-live="polite"></div></section>`;
  const rows = root.querySelector("#rows");
  const more = root.querySelector("#more");
  const details = new Map(); // id -> amount, once loaded
  let nextPage = 1;
  let loading = false;
  let finished = false;
  // A page failed: only its Retry loads it again, not the end of the list coming into view (which would retry on
  // its own, hidden behind "Loading…", and hide the failure and its countdown).
  let failed = false;
  const controller = new AbortController();

  const rowObserver = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const row = entry.target;
      const id = Number(row.dataset.id);
      if (details.has(id)) reveal(row, details.get(id));
      else if (row.dataset.state !== "loading" && row.dataset.state !== "failed") loadDetail(row);
    }
  }, { rootMargin: "100px" });

  const endObserver = new IntersectionObserver((entries) => {
    if (!failed && entries.some((entry) => entry.isIntersecting)) loadPage();
  }, { rootMargin: "400px" });

  async function loadPage() {
    if (loading || finished) return;
    failed = false;
    loading = true;
    more.innerHTML = `<span class="spinner" aria-busy="true">Loading page ${nextPage}…</span>`;
    try {
      const { json } = await request(`/items?page=${nextPage}&limit=${pageSize}`, { signal: controller.signal });
      noteVersion(json.version);
      for (const item of json.items) rows.append(makeRow(item));
      finished = json.next_page === null;
      nextPage += 1;
      more.textContent = finished ? `All ${json.total} items.` : "";
      loading = false;
      // The sentinel may still be in view (a tall window): keep going.
      if (!finished) requestAnimationFrame(() => {
        if (more.getBoundingClientRect().top < innerHeight + 400) loadPage();
      });
    } catch (error) {
      if (error.name === "AbortError") return;
      loading = false;
      failed = true;
      more.innerHTML = `<span class="failure" role="alert">Page ${nextPage} failed: ${escape(error.message)}</span>
        <button type="button" class="retry">Retry</button>`;
      armRetry(more.querySelector(".retry"), error.retryAt, loadPage);
    }
  }

  function makeRow(item) {
    const row = document.createElement("li");
    row.className = "row";
    row.dataset.id = item.id;
    row.innerHTML = `<span class="swatch"></span>
      <span class="label">${escape(item.label)}</span><span class="author">${escape(item.author)}</span>
      <span class="detail" aria-busy="true">…</span>`;
    // Through the CSSOM: the page's Content-Security-Policy allows no inline style attributes.
    row.querySelector(".swatch").style.setProperty("--swatch", item.color);
    rowObserver.observe(row);
    return row;
  }

  async function loadDetail(row) {
    const id = Number(row.dataset.id);
    const cell = row.querySelector(".detail");
    row.dataset.state = "loading";
    cell.setAttribute("aria-busy", "true");
    cell.className = "detail loading";
    cell.textContent = "loading";
    try {
      const { json, response } = await request(`/items/${id}/detail`, { signal: controller.signal });
      details.set(id, json.amount);
      row.dataset.cache = response.headers.get("X-Cache") ?? "";
      reveal(row, json.amount, response.headers.get("X-Cache") === "HIT");
    } catch (error) {
      if (error.name === "AbortError") return;
      row.dataset.state = "failed";
      cell.removeAttribute("aria-busy");
      cell.className = "detail failed";
      cell.innerHTML = `<span role="alert" title="${escape(error.message)}">failed</span>
        <button type="button" class="retry">Retry</button>`;
      armRetry(cell.querySelector(".retry"), error.retryAt, () => loadDetail(row));
    }
  }

  function reveal(row, amount, atOnce = false) {
    const cell = row.querySelector(".detail");
    row.dataset.state = "done";
    cell.removeAttribute("aria-busy");
    cell.className = atOnce ? "detail value" : "detail value arrived";
    cell.textContent = amount.toFixed(4);
    if (!atOnce) cell.addEventListener("animationend", () => cell.classList.remove("arrived"), { once: true });
  }

  endObserver.observe(more);
  loadPage();
  return () => {
    controller.abort();
    rowObserver.disconnect();
    endObserver.disconnect();
  };
}

export function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
