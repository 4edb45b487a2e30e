// The Chat view: newest at the bottom; scrolling up loads older messages without the view jumping (the first
// visible message stays where it was); a send shows the message at once and rolls it back, with Retry, when the
// POST fails (one Idempotency-Key per message, so a retry never posts twice); editing uses PATCH with If-Match;
// messages from others arrive over EventSource, which resumes with Last-Event-ID after a lost connection.
import { basePath, datasetRetryAt, request, settings, noteVersion, underBase, uuid, withToken } from "./api.js";
import { escape } from "./list.js";
import { armRetry } from "./retry.js";

const batch = 20;

export function chatView(root) {
  root.innerHTML = `<section class="chat" aria-label="Chat">
    <div id="messages" class="messages" role="log" aria-live="polite">
      <div id="older" class="more"></div><ol id="thread"></ol>
    </div>
    <form id="send" class="send">
      <label for="text" class="hidden-label">Message</label>
      <input id="text" name="text" autocomplete="off" required maxlength="500" placeholder="Message">
      <button type="submit">Send</button>
    </form>
    <p id="live" class="live" aria-live="polite">connecting…</p></section>`;
  const messages = root.querySelector("#messages");
  const thread = root.querySelector("#thread");
  const older = root.querySelector("#older");
  const live = root.querySelector("#live");
  const shown = new Map(); // id -> <li>
  let oldest = null;
  let hasMore = true;
  let loadingOlder = false;
  // Older messages failed: only their Retry loads them again, not scrolling to the top (which would retry on its
  // own, hidden behind "Loading…", and hide the failure and its countdown).
  let olderFailed = false;
  const controller = new AbortController();

  function message(item) {
    const entry = document.createElement("li");
    entry.className = "message";
    entry.dataset.id = item.id;
    entry.innerHTML = `<span class="author">${escape(item.author)}</span>
      <span class="text">${escape(item.label)}</span>
      <button type="button" class="edit" aria-label="Edit message ${item.id}">Edit</button>`;
    entry.querySelector(".edit").addEventListener("click", () => edit(entry));
    return entry;
  }

  function atBottom() {
    return messages.scrollHeight - messages.scrollTop - messages.clientHeight < 40;
  }

  function append(item) {
    if (shown.has(item.id)) return;
    const stick = atBottom();
    const entry = message(item);
    shown.set(item.id, entry);
    // In id order: a live message may overtake one being sent.
    const after = [...thread.children].find((other) => other.dataset.id && Number(other.dataset.id) > item.id);
    thread.insertBefore(entry, after ?? null);
    if (stick) messages.scrollTop = messages.scrollHeight;
  }

  /** The newest messages. Merged with what is shown (a live message may have come while they loaded), unless the
   * list started over (`reset`, `expired`): then everything shown goes first. */
  async function loadNewest({ startOver = false } = {}) {
    older.innerHTML = `<span class="spinner" aria-busy="true">Loading messages…</span>`;
    try {
      const { json } = await request(`/items?order=desc&limit=${batch}`, { signal: controller.signal });
      noteVersion(json.version);
      if (startOver) {
        thread.replaceChildren();
        shown.clear();
      }
      for (const item of [...json.items].reverse()) append(item);
      oldest = json.next_cursor;
      hasMore = json.has_more;
      olderFailed = false; // the failure and its Retry, if any, are replaced
      older.textContent = hasMore ? "" : "The beginning.";
      messages.scrollTop = messages.scrollHeight;
      fillTheBox();
    } catch (error) {
      if (error.name === "AbortError") return;
      older.innerHTML = `<span class="failure" role="alert">${escape(error.message)}</span>
        <button type="button" class="retry">Retry</button>`;
      armRetry(older.querySelector(".retry"), error.retryAt, () => loadNewest({ startOver }));
    }
  }

  /** A tall window that the messages do not fill has nothing to scroll: load older ones until it is full. */
  function fillTheBox() {
    if (hasMore && !olderFailed && messages.scrollHeight <= messages.clientHeight) loadOlder();
  }

  async function loadOlder() {
    if (loadingOlder || !hasMore || oldest === null) return;
    loadingOlder = true;
    olderFailed = false;
    // Keep the first visible message where it is: everything that changes (this line, then the rows) is above it,
    // and its distance from the bottom of the content does not change, so the scroll position is set from that.
    const fromBottom = messages.scrollHeight - messages.scrollTop;
    older.innerHTML = `<span class="spinner" aria-busy="true">Loading older messages…</span>`;
    messages.scrollTop = messages.scrollHeight - fromBottom;
    try {
      const { json } = await request(`/items?after=${oldest}&order=desc&limit=${batch}`,
        { signal: controller.signal });
      const before = messages.scrollHeight - messages.scrollTop;
      const fragment = document.createDocumentFragment();
      for (const item of [...json.items].reverse()) {
        if (shown.has(item.id)) continue;
        const entry = message(item);
        shown.set(item.id, entry);
        fragment.append(entry);
      }
      thread.prepend(fragment);
      oldest = json.next_cursor ?? oldest;
      hasMore = json.has_more;
      older.textContent = hasMore ? "" : "The beginning.";
      messages.scrollTop = messages.scrollHeight - before;
      loadingOlder = false;
      fillTheBox();
    } catch (error) {
      loadingOlder = false;
      olderFailed = true;
      if (error.name === "AbortError") return;
      older.innerHTML = `<span class="failure" role="alert">${escape(error.message)}</span>
        <button type="button" class="retry">Retry</button>`;
      armRetry(older.querySelector(".retry"), error.retryAt, loadOlder);
    }
  }

  async function send(text, pending, key) {
    pending.className = "message sending";
    pending.querySelector(".state")?.remove();
    try {
      const { json } = await request("/items", { method: "POST", body: { label: text },
        headers: { "Idempotency-Key": key } });
      pending.remove();
      append(json);
    } catch (error) {
      pending.className = "message failed";
      const state = document.createElement("span");
      state.className = "state";
      state.setAttribute("role", "alert");
      state.innerHTML = `not sent (${escape(error.message)})
        <button type="button" class="retry">Retry</button> <button type="button" class="discard">Discard</button>`;
      armRetry(state.querySelector(".retry"), error.retryAt, () => send(text, pending, key));
      state.querySelector(".discard").addEventListener("click", () => pending.remove());
      pending.append(state);
    }
  }

  async function edit(entry) {
    const id = Number(entry.dataset.id);
    const textSpan = entry.querySelector(".text");
    // The ETag of the message as the user starts editing it: if someone changes it meanwhile, the PATCH is
    // refused (412) instead of overwriting their change.
    let tag;
    try {
      const current = await request(`/items/${id}`, { faults: false });
      tag = current.response.headers.get("ETag");
      textSpan.textContent = current.json.label;
    } catch (error) {
      note(entry, `cannot edit: ${error.message}`);
      return;
    }
    const input = document.createElement("input");
    input.className = "editing";
    input.value = textSpan.textContent;
    input.setAttribute("aria-label", `New text of message ${id}`);
    textSpan.replaceWith(input);
    input.focus();
    const finish = (text) => {
      const span = document.createElement("span");
      span.className = "text";
      span.textContent = text;
      input.replaceWith(span);
    };
    input.addEventListener("keydown", async (event) => {
      if (event.key === "Escape") return finish(textSpan.textContent);
      if (event.key !== "Enter") return;
      event.preventDefault();
      try {
        const { json } = await request(`/items/${id}`, { method: "PATCH", body: { label: input.value },
          headers: { "If-Match": tag } });
        finish(json.label);
      } catch (error) {
        finish(textSpan.textContent);
        note(entry, error.status === 412
          ? "changed by someone else meanwhile; edit again" : `not saved: ${error.message}`);
      }
    });
  }

  function note(entry, text) {
    entry.querySelector(".state")?.remove();
    const element = document.createElement("span");
    element.className = "state";
    element.setAttribute("role", "alert");
    element.textContent = text;
    entry.append(element);
  }

  root.querySelector("#send").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = root.querySelector("#text");
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    const pending = document.createElement("li");
    pending.className = "message sending";
    pending.innerHTML = `<span class="author">you</span><span class="text">${escape(text)}</span>`;
    thread.append(pending);
    messages.scrollTop = messages.scrollHeight;
    send(text, pending, uuid());
  });

  messages.addEventListener("scroll", () => {
    if (!olderFailed && messages.scrollTop < 120) loadOlder();
  });

  // Live: every change of the list. EventSource sends no custom header, so the dataset goes in the query, and so
  // does the token when one is held. Under a base path (`/d/<name>/`) the path names the dataset.
  const dataset = basePath ? "" : settings().dataset;
  const stream = `/items/events${dataset ? `?dataset=${encodeURIComponent(dataset)}` : ""}`;
  let events;
  let reopening;
  // `reopened`: a stream opened again after one that ended; it starts from now, so the newest messages are loaded
  // again once it is open, for what came between the load before it and its start (shown ones are skipped).
  function connect(reopened = false) {
    const source = new EventSource(withToken(underBase(stream)));
    events = source;
    source.addEventListener("open", () => {
      live.textContent = "live";
      if (reopened) {
        reopened = false;
        loadNewest();
      }
    });
    source.addEventListener("error", () => {
      live.textContent = "reconnecting…";
      // EventSource reconnects by itself after a lost connection, but not after an answer that is no stream (a 401
      // before the app held a token, or with an expired one; a 503 outage): load the newest messages for what
      // happened meanwhile (which fetches a token if the dataset asks for one), then open a new stream, with that
      // token. The stream's own Retry-After cannot be read, so it waits out the latest the dataset's answers gave
      // (an outage's 503s all say when it ends).
      if (source.readyState !== EventSource.CLOSED) return;
      reopening = setTimeout(async () => {
        await loadNewest();
        if (controller.signal.aborted) return;
        reopening = setTimeout(() => connect(true), Math.max(0, datasetRetryAt() - performance.now()));
      }, 2000);
    });
    source.addEventListener("created", (event) => append(JSON.parse(event.data)));
    source.addEventListener("updated", (event) => {
      const item = JSON.parse(event.data);
      const entry = shown.get(item.id);
      const text = entry?.querySelector(".text");
      if (text) text.textContent = item.label;
    });
    source.addEventListener("deleted", (event) => {
      const { id } = JSON.parse(event.data);
      shown.get(id)?.remove();
      shown.delete(id);
    });
    for (const name of ["reset", "expired"]) source.addEventListener(name, () => loadNewest({ startOver: true }));
  }
  connect();

  loadNewest();
  return () => {
    controller.abort();
    clearTimeout(reopening);
    events.close();
  };
}
