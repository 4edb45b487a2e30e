// The Chat view's list of conversations: the most recent first, a page at a time, each with its last message and
// unread count; a conversation that gets a message moves to the top (read from the server when the list does not
// hold it yet).
import { request } from "./api.js";
import { escape } from "./list.js";
import { armRetry } from "./retry.js";

/** The list in `element` (more pages through a button in `status`); `open(id)` is what choosing one does. */
export function conversationList(element, status, { open, signal }) {
  const conversations = new Map(); // id -> { entry, user (the first participant's id), updatedAt }
  let cursor = null;

  function entryOf(item) {
    const entry = document.createElement("li");
    entry.className = "conversation-item";
    entry.dataset.id = item.id;
    entry.innerHTML = `<button type="button" class="open"><span class="name">${escape(item.title)}</span>
      <span class="badge" hidden></span><span class="preview"></span></button>`;
    entry.querySelector(".open").addEventListener("click", () => open(item.id));
    conversations.set(item.id, { entry, user: item.participants[0]?.id, updatedAt: item.updated_at });
    describe(item.id, item.last_message, item.unread);
    return entry;
  }

  /** Shows `last` as the conversation's last message, and `unread` (when given) as its count. */
  function describe(id, last, unread) {
    const known = conversations.get(id);
    if (!known) return;
    if (last) {
      known.entry.querySelector(".preview").textContent = last.deleted ? "message deleted"
        : `${last.author}: ${last.text}`;
    }
    if (unread !== undefined) {
      const badge = known.entry.querySelector(".badge");
      badge.textContent = unread;
      badge.hidden = unread === 0;
      badge.setAttribute("aria-label", `${unread} unread`);
    }
  }

  /** The first page (`more`: the next one); resolves with its conversations ([] when it failed). */
  async function load(more = false) {
    const query = more && cursor ? `&after=${encodeURIComponent(cursor)}` : "";
    try {
      const { json } = await request(`/conversations?limit=20${query}`, { signal });
      if (!more) {
        element.replaceChildren();
        conversations.clear();
      }
      for (const item of json.items) if (!conversations.has(item.id)) element.append(entryOf(item));
      cursor = json.next_cursor;
      status.innerHTML = json.has_more ? `<button type="button" class="load">More conversations</button>` : "";
      status.querySelector(".load")?.addEventListener("click", () => load(true));
      return json.items;
    } catch (error) {
      if (error.name === "AbortError") return [];
      status.innerHTML = `<span class="failure" role="alert">${escape(error.message)}</span>
        <button type="button" class="retry">Retry</button>`;
      armRetry(status.querySelector(".retry"), error.retryAt, () => load(more));
      return [];
    }
  }

  /** A conversation got a message (`conversation.updated`): to the top. */
  async function moved(change) {
    let known = conversations.get(change.id);
    if (!known) {
      try {
        const { json } = await request(`/conversations/${change.id}`, { signal });
        // Another change of it may have brought it meanwhile.
        if (!conversations.has(change.id)) element.prepend(entryOf(json));
        known = conversations.get(change.id);
      } catch {
        return; // the next change, or a reload, brings it
      }
    }
    known.updatedAt = change.updated_at;
    element.prepend(known.entry);
  }

  return {
    load, moved, describe,
    /** What the list knows of conversation `id`: `{ entry, user, updatedAt }`, or undefined. */
    get: (id) => conversations.get(id),
    /** Marks `id` as the one open. */
    markCurrent(id) {
      for (const [other, known] of conversations) known.entry.classList.toggle("current", other === id);
    },
  };
}
