// One message of the Chat view: its author and time, its text (or that it was deleted), the quote of the message
// it answers (a button: the jump to it), and Reply, and Edit on the user's own. The element keeps the message it
// shows (`entry.message`), which quotes of it read.
import { escape } from "./list.js";

/** `hh:mm` of an RFC 3339 time, in the viewer's zone. */
export function messageTime(text) {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** The element of `item`. `origin`: the message it answers, a promise of it, or null; `jump(id)`, `reply(item)` and
 * `edit(entry, item)` are what its buttons do. */
export function chatMessage(item, { own, origin, jump, reply, edit }) {
  const entry = document.createElement("li");
  entry.className = `message${own ? " own" : ""}${item.deleted ? " deleted" : ""}`;
  entry.dataset.id = item.id;
  entry.message = item;
  const edited = item.edited_at ? ` <span class="edited">(edited)</span>` : "";
  entry.innerHTML = `<div class="body"><span class="author">${escape(item.author)}</span>
      <time datetime="${escape(item.sent_at)}">${messageTime(item.sent_at)}</time>
      <span class="text">${item.deleted ? "" : escape(item.text)}</span>${item.deleted ? "<em>message deleted</em>" : edited}
    </div>
    <span class="actions">${item.deleted ? "" : `<button type="button" class="reply"
      aria-label="Reply to message ${item.id}">Reply</button>`}${own && !item.deleted ? `<button type="button"
      class="edit" aria-label="Edit message ${item.id}">Edit</button>` : ""}</span>`;
  entry.querySelector(".reply")?.addEventListener("click", () => reply(item));
  entry.querySelector(".edit")?.addEventListener("click", () => edit(entry, item));
  if (item.reply_to !== null && item.reply_to !== undefined) {
    const quote = document.createElement("button");
    quote.type = "button";
    quote.className = "quote";
    quote.dataset.origin = item.reply_to;
    quote.setAttribute("aria-label", `Go to message ${item.reply_to}, which this answers`);
    quote.textContent = "↪ …";
    quote.addEventListener("click", () => jump(item.reply_to));
    entry.prepend(quote);
    const fill = (message) => {
      quote.textContent = `↪ ${message.author}: ${message.deleted ? "message deleted" : message.text.slice(0, 80)}`;
    };
    if (origin instanceof Promise) origin.then(fill, () => { quote.textContent = "↪ an earlier message"; });
    else if (origin) fill(origin);
  }
  return entry;
}
