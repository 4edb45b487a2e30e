// The Chat view's live feed: the chat's changes and typing (`/conversations/events`), over a WebSocket (which can
// also say that the user is typing), or over Server-Sent Events where a WebSocket never opens (a proxy that blocks
// it). Either resumes from the last sequence number seen after a lost connection (`?since=`; an EventSource's own
// reconnect sends Last-Event-ID), and a new one waits out the dataset's latest Retry-After.
import { basePath, clientId, datasetRetryAt, forgetReadsOnTheirWay, settings, underBase, withToken } from "./api.js";

/** The kinds the view handles, which an EventSource must name to hear. */
const kinds = ["message.created", "message.updated", "message.deleted", "conversation.updated", "typing", "reset",
  "expired"];

/** Opens the feed. `handle(event)`: each event as a WebSocket carries it (`kind`, `sequence`, …). `state(text,
 * transport)`: "live" or "reconnecting…". `reopenedFresh()`: a feed open again with nothing to resume from. */
export function chatFeed(handle, { signal, state, reopenedFresh }) {
  let socket = null;
  let source = null;
  let reopening = null;
  let lastSequence = null;
  let webSocketWorks = "WebSocket" in window;
  let webSocketOpened = false; // ever
  let webSocketFailures = 0; // in a row, none ever open, while online

  function deliver(event) {
    // `expired` names the position to go on from (a WebSocket's carries no sequence of its own).
    lastSequence = event.sequence ?? event.last_sequence ?? lastSequence;
    if (event.kind !== "typing") forgetReadsOnTheirWay(); // what the view reads next must show the change
    handle(event);
  }

  // WebSocket and EventSource send no custom header, so the dataset goes in the query, and so does the token when
  // one is held. Under a base path (`/d/<name>/`) the path names the dataset.
  function path() {
    const query = new URLSearchParams();
    const dataset = basePath ? "" : settings().dataset;
    if (dataset) query.set("dataset", dataset);
    if (lastSequence !== null) query.set("since", lastSequence);
    query.set("client_id", clientId); // a WebSocket sends no X-Client-Id: its typing names the tab so
    const text = query.toString();
    return withToken(underBase(`/conversations/events${text ? `?${text}` : ""}`));
  }

  function connect(reopened = false) {
    if (signal.aborted) return;
    const resumes = lastSequence !== null;
    let opened = false;
    const isOpen = (transport) => {
      opened = true;
      webSocketFailures = 0;
      if (transport === "websocket") webSocketOpened = true;
      state("live", transport);
      if (reopened && !resumes) reopenedFresh();
    };
    const lost = () => {
      state("reconnecting…");
      if (signal.aborted) return;
      // A WebSocket that never opens, three times in a row while the browser is online, is blocked on the way (a
      // proxy): events instead. (Once: a server restarting, or answering 503 meanwhile, fails one or two.)
      if (socket && !opened && !webSocketOpened && navigator.onLine) webSocketWorks = ++webSocketFailures < 3;
      clearTimeout(reopening);
      reopening = setTimeout(() => connect(true), Math.max(1000, datasetRetryAt() - performance.now()));
    };
    socket = null;
    source = null;
    if (webSocketWorks) {
      const url = new URL(path(), location.href);
      url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
      socket = new WebSocket(url);
      socket.addEventListener("open", () => isOpen("websocket"));
      socket.addEventListener("message", (message) => deliver(JSON.parse(message.data)));
      socket.addEventListener("close", lost);
      return;
    }
    source = new EventSource(path());
    source.addEventListener("open", () => isOpen("sse"));
    source.addEventListener("error", () => {
      // EventSource reconnects by itself after a lost connection, but not after an answer that is no stream (a
      // 401, a 503 outage): then a new one.
      state("reconnecting…");
      if (source.readyState === EventSource.CLOSED) lost();
    });
    for (const kind of kinds) {
      source.addEventListener(kind, (message) => {
        const data = JSON.parse(message.data);
        const sequence = message.lastEventId ? Number(message.lastEventId) : undefined;
        if (kind.startsWith("message.")) deliver({ kind, sequence, message: data });
        else if (kind === "conversation.updated") deliver({ kind, sequence, conversation: data });
        else deliver({ kind, sequence, ...data });
      });
    }
  }
  connect();

  return {
    /** Sends `message` (JSON) over the WebSocket; false when there is none open. */
    send(message) {
      if (!socket || socket.readyState !== WebSocket.OPEN) return false;
      socket.send(JSON.stringify(message));
      return true;
    },
    close() {
      clearTimeout(reopening);
      socket?.close();
      source?.close();
    },
  };
}
