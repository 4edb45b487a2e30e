// The Chat view: newest at the bottom; scrolling up loads older messages without the view jumping (the first
// visible message stays where it was); a send shows the message at once and rolls it back, with Retry, when the
// POST fails (one Idempotency-Key per message, so a retry never posts twice); editing uses PATCH with If-Match;
// messages from others arrive over EventSource, which resumes with Last-Event-ID after a lost connection.
import { request, settings, noteVersion } from "./api.js";
import { escape } from "./list.js";

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

  async function loadNewest() {
    older.innerHTML = `<span class="spinner" aria-busy="true">Loading messages…</span>`;
    try {
      const { json } = await request(`/items?order=desc&limit=${batch}`, { signal: controller.signal });
      noteVersion(json.version);
      thread.replaceChildren();
      shown.clear();
      for (const item of [...json.items].reverse()) append(item);
      oldest = json.next_cursor;
      hasMore = json.has_more;
      older.textContent = hasMore ? "" : "The beginning.";
      messages.scrollTop = messages.scrollHeight;
    } catch (error) {
      if (error.name === "AbortError") return;
      older.innerHTML = `<span class="failure" role="alert">${escape(error.message)}</span>
        <button type="button" class="retry">Retry</button>`;
      older.querySelector(".retry").addEventListener("click", loadNewest);
    }
  }

  async function loadOlder() {
    if (loadingOlder || !hasMore || oldest === null) return;
    loadingOlder = true;
    older.innerHTML = `<span class="spinner" aria-busy="true">Loading older messages…</span>`;
    try {
      const { json } = await request(`/items?after=${oldest}&order=desc&limit=${batch}`,
        { signal: controller.signal });
      // Keep the first visible message where it is: the rows go in above it, and the scroll position moves by
      // exactly what they add.
      const before = messages.scrollHeight - messages.scrollTop;
      const fragment = document.createDocumentFragment();
      for (const item of [...json.items].reverse()) {
        if (shown.has(item.id)) continue;
        const entry = message(item);
        shown.set(item.id, entry);
        fragment.append(entry);
      }
      thread.prepend(fragment);
      messages.scrollTop = messages.scrollHeight - before;
      oldest = json.next_cursor ?? oldest;
      hasMore = json.has_more;
      older.textContent = hasMore ? "" : "The beginning.";
    } catch (error) {
      if (error.name === "AbortError") return;
      older.innerHTML = `<span class="failure" role="alert">${escape(error.message)}</span>
        <button type="button" class="retry">Retry</button>`;
      older.querySelector(".retry").addEventListener("click", loadOlder);
    } finally {
      loadingOlder = false;
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
      state.querySelector(".retry").addEventListener("click", () => send(text, pending, key));
      state.querySelector(".discard").addEventListener("click", () => pending.remove());
      pending.append(state);
    }
  }

  async function edit(entry) {
    const id = Number(entry.dataset.id);
    const textSpan = entry.querySelector(".text");
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
        // The item as it is now, and its ETag: the PATCH applies only if nobody changed it meanwhile.
        const current = await request(`/items/${id}`, { faults: false });
        const tag = current.response.headers.get("ETag");
        const { json } = await request(`/items/${id}`, { method: "PATCH", body: { label: input.value },
          headers: { "If-Match": tag } });
        finish(json.label);
      } catch (error) {
        finish(textSpan.textContent);
        const note = document.createElement("span");
        note.className = "state";
        note.setAttribute("role", "alert");
        note.textContent = error.status === 412 ? "changed by someone else; try again" : `not saved: ${error.message}`;
        entry.append(note);
      }
    });
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
    send(text, pending, crypto.randomUUID());
  });

  messages.addEventListener("scroll", () => {
    if (messages.scrollTop < 120) loadOlder();
  });

  // Live: every change of the list. EventSource sends no custom header, so the dataset goes in the query.
  const dataset = settings().dataset;
  const events = new EventSource(`/items/events${dataset ? `?dataset=${encodeURIComponent(dataset)}` : ""}`);
  events.addEventListener("open", () => { live.textContent = "live"; });
  events.addEventListener("error", () => { live.textContent = "reconnecting…"; });
  events.addEventListener("created", (event) => append(JSON.parse(event.data)));
  events.addEventListener("updated", (event) => {
    const item = JSON.parse(event.data);
    const entry = shown.get(item.id);
    const text = entry?.querySelector(".text");
    if (text) text.textContent = item.label;
  });
  events.addEventListener("deleted", (event) => {
    const { id } = JSON.parse(event.data);
    shown.get(id)?.remove();
    shown.delete(id);
  });
  for (const name of ["reset", "expired"]) events.addEventListener(name, () => loadNewest());

  loadNewest();
  return () => {
    controller.abort();
    events.close();
  };
}
