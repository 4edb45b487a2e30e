// The Chat view: the dataset's conversations, newest activity first (a conversation that gets a message moves to
// the top), and the open conversation: newest at the bottom; scrolling up loads older messages without the view
// jumping (the first visible message stays where it was). A reply shows a quote of what it answers; tapping it
// jumps there, loading the window around the origin when it is not loaded (one `around=` request), and from that
// window the view pages either way. A send shows the message at once and rolls it back, with Retry, when the POST
// fails (one Idempotency-Key per message, so a retry never posts twice); editing uses PATCH with If-Match; what
// the user has seen is marked read. Live over a WebSocket (which also tells the others that the user is typing),
// with Server-Sent Events as the fallback; either resumes from the last sequence number after a lost connection.
import { clientId, request, uuid } from "./api.js";
import { chatFeed } from "./chat-feed.js";
import { conversationList } from "./chat-list.js";
import { chatMessage } from "./chat-message.js";
import { escape } from "./list.js";
import { armRetry } from "./retry.js";

const batch = 30;

export function chatView(root) {
  root.innerHTML = `<section class="chat" aria-label="Chat">
    <nav class="conversations" aria-label="Conversations"><ol id="conversations"></ol>
      <div id="more-conversations" class="more"></div></nav>
    <div class="conversation">
      <h2 id="title" class="title"></h2>
      <div id="messages" class="messages" role="log" aria-live="polite">
        <div id="older" class="more"></div><ol id="thread"></ol><div id="newer" class="more"></div>
      </div>
      <p id="typing" class="typing" aria-live="polite"></p>
      <button type="button" id="latest" class="latest" hidden>Newest messages ↓</button>
      <form id="send" class="send">
        <span id="replying" class="replying" hidden></span>
        <label for="text" class="hidden-label">Message</label>
        <input id="text" name="text" autocomplete="off" required maxlength="4000" placeholder="Message">
        <button type="submit">Send</button>
      </form>
      <p id="live" class="live" aria-live="polite">connecting…</p>
    </div></section>`;
  const $ = (selector) => root.querySelector(selector);
  const list = $("#conversations");
  const messages = $("#messages");
  const thread = $("#thread");
  const older = $("#older");
  const newer = $("#newer");
  const live = $("#live");
  const controller = new AbortController();
  const signal = controller.signal;

  const conversations = conversationList(list, $("#more-conversations"), { open: (id) => open(id), signal });
  let current = null; // the open conversation's id
  let user = null; // its first participant: the app's user
  const shown = new Map(); // message id -> <li>
  const quotes = new Map(); // message id -> the message, for quotes of origins not shown
  let olderCursor = null; // where older messages continue; null: the beginning is shown
  let newerCursor = null; // after a jump: where newer messages continue; null: the newest are shown
  let loading = false; // older or newer messages on their way
  let olderFailed = false;
  // Each load that replaces the thread (a conversation opened, the newest loaded, a jump) starts an epoch: what
  // an earlier one brings back after that is dropped. While one is on its way, live messages wait in `arrived`.
  let epoch = 0;
  let replacing = false;
  let arrived = [];
  let readFailedAt = -Infinity; // a failed read marker is not posted again for 5 s
  let replyTo = null;
  const lastMarked = new Map(); // conversation -> the read marker set
  let typingTimer = null;
  let lastTypingSent = -Infinity;

  const path = (suffix = "") => `/conversations/${current}/messages${suffix}`;

  // ---- the open conversation

  function placeMessage(item) {
    const entry = chatMessage(item, { own: item.author_id === user, origin: quoteOf(item), jump, reply, edit });
    shown.get(item.id)?.replaceWith(entry);
    shown.set(item.id, entry);
    return entry;
  }

  /** The quoted origin of a reply: the message shown, one read before, or read now (a promise). */
  function quoteOf(item) {
    if (item.reply_to === null || item.reply_to === undefined) return null;
    const conversation = current;
    const known = shown.get(item.reply_to)?.message ?? quotes.get(item.reply_to);
    if (known) return known;
    return request(path(`/${item.reply_to}`), { signal }).then(({ json }) => {
      if (conversation === current) quotes.set(json.id, json);
      return json;
    });
  }

  function atBottom() {
    return messages.scrollHeight - messages.scrollTop - messages.clientHeight < 40;
  }

  function append(item) {
    if (shown.has(item.id)) return placeMessage(item);
    const stick = atBottom();
    const entry = placeMessage(item);
    // In id order: a live message may overtake one being sent.
    const after = [...thread.children].find((other) => other.dataset.id && Number(other.dataset.id) > item.id);
    thread.insertBefore(entry, after ?? null);
    if (stick) messages.scrollTop = messages.scrollHeight;
    return entry;
  }

  function showEdges() {
    older.textContent = olderCursor === null ? "The beginning." : "";
    newer.textContent = "";
    $("#latest").hidden = newerCursor === null;
  }

  async function open(id) {
    if (current === id) return;
    current = id;
    user = conversations.get(id)?.user ?? null;
    conversations.markCurrent(id);
    $("#title").textContent = conversations.get(id)?.entry.querySelector(".name").textContent ?? "";
    $("#typing").textContent = "";
    cancelReply();
    quotes.clear();
    await loadNewest();
  }

  /** The newest messages, at the bottom, everything shown before replaced. */
  /** Starts a load that replaces the thread; returns its epoch. */
  function beginReplacing() {
    epoch += 1;
    replacing = true;
    loading = false; // what older or newer load was on its way is dropped (its epoch is over)
    arrived = [];
    return epoch;
  }

  /** The thread was replaced: the live messages that came meanwhile follow, where they belong. */
  function endReplacing() {
    replacing = false;
    if (newerCursor === null) for (const message of arrived) if (message.conversation === current) append(message);
    arrived = [];
  }

  async function loadNewest() {
    const mine = beginReplacing();
    older.innerHTML = `<span class="spinner" aria-busy="true">Loading messages…</span>`;
    try {
      const { json } = await request(path(`?order=desc&limit=${batch}`), { signal });
      if (mine !== epoch) return;
      thread.replaceChildren();
      shown.clear();
      for (const item of [...json.items].reverse()) append(item);
      olderCursor = json.has_more ? json.next_cursor : null;
      newerCursor = null;
      olderFailed = false;
      showEdges();
      endReplacing();
      messages.scrollTop = messages.scrollHeight;
      markRead();
      fillTheBox();
    } catch (error) {
      if (mine !== epoch) return;
      replacing = false;
      if (error.name === "AbortError") return;
      older.innerHTML = `<span class="failure" role="alert">${escape(error.message)}</span>
        <button type="button" class="retry">Retry</button>`;
      armRetry(older.querySelector(".retry"), error.retryAt, loadNewest);
    }
  }

  /** A tall window that the messages do not fill has nothing to scroll: load older ones until it is full. */
  function fillTheBox() {
    if (olderCursor !== null && !olderFailed && messages.scrollHeight <= messages.clientHeight) loadOlder();
  }

  async function loadOlder() {
    if (loading || replacing || olderCursor === null) return;
    const mine = epoch;
    loading = true;
    olderFailed = false;
    // Keep the first visible message where it is: everything that changes (this line, then the rows) is above it,
    // and its distance from the bottom of the content does not change, so the scroll position is set from that.
    const fromBottom = messages.scrollHeight - messages.scrollTop;
    older.innerHTML = `<span class="spinner" aria-busy="true">Loading older messages…</span>`;
    messages.scrollTop = messages.scrollHeight - fromBottom;
    try {
      const { json } = await request(path(`?after=${olderCursor}&order=desc&limit=${batch}`), { signal });
      if (mine !== epoch) return;
      const before = messages.scrollHeight - messages.scrollTop;
      const fragment = document.createDocumentFragment();
      for (const item of [...json.items].reverse()) if (!shown.has(item.id)) fragment.append(placeMessage(item));
      thread.prepend(fragment);
      olderCursor = json.has_more ? json.next_cursor : null;
      showEdges();
      messages.scrollTop = messages.scrollHeight - before;
      loading = false;
      fillTheBox();
    } catch (error) {
      if (mine !== epoch) return;
      loading = false;
      olderFailed = true;
      if (error.name === "AbortError") return;
      older.innerHTML = `<span class="failure" role="alert">${escape(error.message)}</span>
        <button type="button" class="retry">Retry</button>`;
      armRetry(older.querySelector(".retry"), error.retryAt, loadOlder);
    }
  }

  /** After a jump: the messages after the window, at the bottom; at the newest, live messages show again. */
  async function loadNewer() {
    if (loading || replacing || newerCursor === null) return;
    const mine = epoch;
    loading = true;
    newer.innerHTML = `<span class="spinner" aria-busy="true">Loading newer messages…</span>`;
    try {
      const { json } = await request(path(`?after=${newerCursor}&limit=${batch}`), { signal });
      if (mine !== epoch) return;
      for (const item of json.items) append(item);
      newerCursor = json.has_more ? json.next_cursor : null;
      showEdges();
      loading = false;
      markRead();
    } catch (error) {
      if (mine !== epoch) return;
      loading = false;
      if (error.name === "AbortError") return;
      newer.innerHTML = `<span class="failure" role="alert">${escape(error.message)}</span>
        <button type="button" class="retry">Retry</button>`;
      armRetry(newer.querySelector(".retry"), error.retryAt, loadNewer);
    }
  }

  /** The jump to a reply's origin: there at once when it is shown, else the window around it (one request). */
  async function jump(origin) {
    if (!shown.has(origin)) {
      const mine = beginReplacing();
      try {
        const { json } = await request(path(`?around=${origin}&limit=${batch}`), { signal });
        if (mine !== epoch) return;
        thread.replaceChildren();
        shown.clear();
        for (const item of json.items) append(item);
        olderCursor = json.has_more_before ? json.before_cursor : null;
        newerCursor = json.has_more_after ? json.after_cursor : null;
        olderFailed = false;
        showEdges();
        endReplacing();
      } catch (error) {
        if (mine !== epoch) return;
        replacing = false;
        if (error.name !== "AbortError") live.textContent = `the jump failed: ${error.message}`;
        return;
      }
    }
    const target = shown.get(origin);
    if (!target) return;
    target.scrollIntoView({ block: "center" });
    for (const other of thread.querySelectorAll(".highlight")) other.classList.remove("highlight");
    target.classList.add("highlight");
  }

  function reply(item) {
    replyTo = item.id;
    const note = $("#replying");
    note.hidden = false;
    note.innerHTML = `↪ ${escape(item.author)}: ${escape(item.text.slice(0, 60))}
      <button type="button" class="cancel" aria-label="Cancel the reply">×</button>`;
    note.querySelector(".cancel").addEventListener("click", cancelReply);
    $("#text").focus();
  }

  function cancelReply() {
    replyTo = null;
    $("#replying").hidden = true;
  }

  /** Sets the user's read marker at the newest message shown, once it is on screen (and only forward). */
  function markRead() {
    if (current === null || newerCursor !== null || !atBottom()) return;
    const newest = Math.max(-1, ...[...shown.keys()]);
    if (newest < 0 || (lastMarked.get(current) ?? -1) >= newest) return;
    if (performance.now() - readFailedAt < 5000) return;
    const conversation = current;
    const before = lastMarked.get(conversation);
    lastMarked.set(conversation, newest);
    request(`/conversations/${conversation}/read`, { method: "POST", body: { up_to: newest }, signal })
      .then(({ json }) => conversations.describe(conversation, undefined, json.unread))
      .catch(() => {
        // Marked again later (with the next message, or a scroll to the bottom), not at once.
        readFailedAt = performance.now();
        if (lastMarked.get(conversation) === newest) lastMarked.set(conversation, before);
      });
  }

  async function send(text, pending, key, answering) {
    pending.className = "message sending";
    pending.querySelector(".state")?.remove();
    const conversation = current;
    try {
      const body = answering === null ? { text } : { text, reply_to: answering };
      const { json } = await request(path(), { method: "POST", body, headers: { "Idempotency-Key": key } });
      pending.remove();
      if (conversation === current && newerCursor === null) append(json);
      markRead();
    } catch (error) {
      pending.className = "message failed";
      const state = document.createElement("span");
      state.className = "state";
      state.setAttribute("role", "alert");
      state.innerHTML = `not sent (${escape(error.message)})
        <button type="button" class="retry">Retry</button> <button type="button" class="discard">Discard</button>`;
      armRetry(state.querySelector(".retry"), error.retryAt, () => send(text, pending, key, answering));
      state.querySelector(".discard").addEventListener("click", () => pending.remove());
      pending.append(state);
    }
  }

  async function edit(entry, item) {
    const textSpan = entry.querySelector(".text");
    // The ETag of the message as the user starts editing it: if it changes meanwhile, the PATCH is refused (412)
    // instead of overwriting that change.
    let tag;
    try {
      const fresh = await request(path(`/${item.id}`), { faults: false, signal });
      tag = fresh.response.headers.get("ETag");
      textSpan.textContent = fresh.json.text;
    } catch (error) {
      note(entry, `cannot edit: ${error.message}`);
      return;
    }
    const input = document.createElement("input");
    input.className = "editing";
    input.value = textSpan.textContent;
    input.setAttribute("aria-label", `New text of message ${item.id}`);
    textSpan.replaceWith(input);
    input.focus();
    input.addEventListener("keydown", async (event) => {
      if (event.key === "Escape") return input.replaceWith(textSpan);
      if (event.key !== "Enter") return;
      event.preventDefault();
      try {
        const { json } = await request(path(`/${item.id}`), { method: "PATCH", body: { text: input.value },
          headers: { "If-Match": tag } });
        input.replaceWith(textSpan);
        placeMessage(json);
      } catch (error) {
        input.replaceWith(textSpan);
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

  $("#send").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("#text");
    const text = input.value.trim();
    if (!text || current === null) return;
    input.value = "";
    const answering = replyTo;
    cancelReply();
    if (newerCursor !== null) await loadNewest(); // sent at the end: show the end
    const pending = document.createElement("li");
    pending.className = "message sending";
    pending.innerHTML = `<span class="author">you</span><span class="text">${escape(text)}</span>`;
    thread.append(pending);
    messages.scrollTop = messages.scrollHeight;
    send(text, pending, uuid(), answering);
  });

  // Typing, said over the WebSocket at most every 3 s while it goes on (each lasts 5 s on the server's side).
  $("#text").addEventListener("input", () => {
    if (current === null || performance.now() - lastTypingSent < 3000) return;
    if (feed.send({ type: "typing", conversation: current })) lastTypingSent = performance.now();
  });

  $("#latest").addEventListener("click", loadNewest);

  messages.addEventListener("scroll", () => {
    if (!olderFailed && messages.scrollTop < 120) loadOlder();
    if (atBottom()) {
      if (newerCursor !== null) loadNewer();
      else markRead();
    }
  });

  // ---- live: one handler for both transports

  function typing(event) {
    if (event.conversation !== current || event.client === clientId) return;
    const line = $("#typing");
    line.textContent = `${event.author} is typing…`;
    line.dataset.author = event.author_id;
    clearTimeout(typingTimer);
    typingTimer = setTimeout(() => { line.textContent = ""; }, event.duration_ms);
  }

  function handle(event) {
    switch (event.kind) {
      case "message.created": {
        const message = event.message;
        if (message.conversation === current && replacing) {
          arrived.push(message); // shown once the thread it belongs to is
        } else if (message.conversation === current && newerCursor === null) {
          append(message);
          markRead();
        }
        if (message.conversation === current && Number($("#typing").dataset.author) === message.author_id) {
          $("#typing").textContent = "";
        }
        const known = conversations.get(message.conversation);
        conversations.describe(message.conversation, message,
          known && message.author_id !== known.user && !(message.conversation === current && atBottom())
            ? Number(known.entry.querySelector(".badge").textContent || 0) + 1 : undefined);
        break;
      }
      case "message.updated":
      case "message.deleted":
        if (event.message.conversation === current && shown.has(event.message.id)) placeMessage(event.message);
        break;
      case "conversation.updated":
        conversations.moved(event.conversation);
        break;
      case "typing":
        typing(event);
        break;
      case "reset":
      case "expired":
        startOver();
        break;
      default:
        break; // the items' changes, read markers
    }
  }

  async function startOver() {
    const keep = current;
    current = null;
    const items = await conversations.load();
    const next = conversations.get(keep) ? keep : items[0]?.id;
    if (next !== undefined) await open(next);
  }

  const feed = chatFeed(handle, {
    signal,
    state: (text, transport) => {
      live.textContent = text;
      if (transport) live.dataset.transport = transport;
    },
    // Nothing to resume from (no change seen before the feed was lost): what came meanwhile is read instead, in the
    // conversation open (none yet: its first load reads it).
    reopenedFresh: () => {
      if (current !== null) loadNewest();
    },
  });

  conversations.load().then((items) => {
    if (items.length) open(items[0].id); // the most recent
  });
  return () => {
    controller.abort();
    clearTimeout(typingTimer);
    feed.close();
  };
}


