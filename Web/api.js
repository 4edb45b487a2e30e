// The data layer every view uses: fetch with the control panel's settings applied (latency and faults as query
// parameters, the dataset as X-Dataset), a bearer token fetched when the dataset asks for one, a request never sent
// again before the Retry-After of its 429 or 503 (retry.js), problems turned into errors a failure view can show.
import { latestRetryAt, noteAnswer, requestKey, untilAllowed } from "./retry.js";

/** A random UUID: `crypto.randomUUID` where the page is a secure context (https, localhost), else made from
 * `crypto.getRandomValues`, which every context has (a phone or an emulator reaches the server over plain http). */
export function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const clientID = uuid();
/** This tab's `X-Client-Id` (a WebSocket's typing names it: the view leaves out its own). */
export const clientId = clientID;

/** The `/d/<name>` the page was opened under (a dataset as a base URL: every request then goes under it and names
 * that dataset, so the panel's dataset field is fixed), or "" at `/`. */
export const basePath = (location.pathname.match(/^\/d\/[A-Za-z0-9._-]{1,64}(?=\/)/) ?? [""])[0];

/** `path` (server-relative) under the page's base, unless it is there already (an `image_url` the server wrote). */
export function underBase(path) {
  return basePath && !path.startsWith(`${basePath}/`) ? basePath + path : path;
}

/** The control panel's values, read from the form each time. */
export function settings() {
  const form = document.getElementById("controls");
  const value = (name) => form.elements[name].value.trim();
  return {
    delay: value("delay_ms"), failRate: value("fail_rate"), fail: value("fail"), failFirst: value("fail_first"),
    dataset: value("dataset"),
  };
}

/** `path` with the control parameters that apply (faults only on data paths and when `faults` is set). */
export function withControls(path, { faults = true } = {}) {
  const url = new URL(underBase(path), location.origin);
  const s = settings();
  if (s.delay && s.delay !== "0") url.searchParams.set("delay_ms", s.delay);
  if (faults && s.failRate && Number(s.failRate) > 0) {
    url.searchParams.set("fail_rate", s.failRate);
    if (s.fail) url.searchParams.set("fail", s.fail);
  }
  if (faults && s.failFirst && s.failFirst !== "0") {
    url.searchParams.set("fail_first", s.failFirst);
    if (s.fail) url.searchParams.set("fail", s.fail);
  }
  return url.pathname + url.search;
}

/** The dataset the app shows, by the name the admin routes take in their path: the base path's, else the panel's
 * field; "" for the shared default list, which has no profile. */
export function datasetName() {
  return basePath ? basePath.slice(3) : settings().dataset;
}

/** The headers every request carries: the dataset, and this tab's client id (for fail_first). */
export function baseHeaders() {
  const headers = { "X-Client-Id": clientID };
  const dataset = settings().dataset;
  if (dataset && !basePath) headers["X-Dataset"] = dataset;
  return headers;
}

export class RequestError extends Error {
  /** `detail`: the problem's own `detail`, when the server answered one. `retryAt`: the `performance.now()` time
   * before which the request is not to be sent again (a 429's or 503's Retry-After), or 0. */
  constructor(message, status, detail, retryAt = 0) {
    super(message);
    this.status = status;
    this.detail = detail;
    this.retryAt = retryAt;
  }
}

// Bearer tokens, for a dataset whose profile asks for them (`auth`): a request answered 401 with a `Bearer`
// challenge gets a token from `POST <base>/auth/token` and is sent once more with it. The token is kept for the
// dataset it was issued for and goes with every later request to it, until the server refuses it and a new one is
// fetched. Admin routes never carry it (they take the admin token, and their 401 is not the dataset's).
const tokens = new Map(); // dataset ("" for the default list) -> access token
const issuing = new Map(); // dataset -> the POST /auth/token in flight, shared by the requests that met a 401

/** The dataset a token is kept for: as requests name it (the base path, else X-Dataset). */
function tokenKey() {
  return basePath || settings().dataset;
}

/** The latest Retry-After the dataset's answers asked the app to wait out (a `performance.now()` time, 0 for none):
 * what an `EventSource`, whose own answer the app cannot read, waits before it is opened again. */
export function datasetRetryAt() {
  return latestRetryAt(tokenKey());
}

/** `url` with the dataset's token as `access_token` (RFC 6750 §2.3), for what the browser fetches itself (`<img>`,
 * `EventSource`), which cannot send `Authorization`; unchanged while no token is held. */
export function withToken(url) {
  const token = tokens.get(tokenKey());
  if (!token) return url;
  const withIt = new URL(url, location.origin);
  withIt.searchParams.set("access_token", token);
  return withIt.pathname + withIt.search;
}

/** A token in place of `refused` (the one the server just refused, or null when the request carried none). */
function renewToken(refused) {
  const dataset = tokenKey();
  const held = tokens.get(dataset);
  if (held && held !== refused) return Promise.resolve(held); // another request has renewed it meanwhile
  if (!issuing.has(dataset)) issuing.set(dataset, issueToken(dataset).finally(() => issuing.delete(dataset)));
  return issuing.get(dataset);
}

async function issueToken(dataset) {
  const key = requestKey(dataset, "POST", underBase("/auth/token"));
  await untilAllowed(key);
  let response;
  let json = null;
  try {
    response = await fetch(underBase("/auth/token"), {
      method: "POST", headers: { ...baseHeaders(), "Content-Type": "application/json" }, body: "{}",
    });
    json = await response.json().catch(() => null);
  } catch (error) {
    throw new RequestError(`no token: the connection failed (${error.message})`, 0);
  }
  const retryAt = noteAnswer(key, response);
  if (!response.ok || typeof json?.access_token !== "string") {
    throw new RequestError(`no token: ${json?.detail ?? `status ${response.status}`}`, response.status, json?.detail,
      retryAt);
  }
  tokens.set(dataset, json.access_token);
  return json.access_token;
}

/** The last `ETag` and body of each GET the app read (by dataset and URL), the 200 most recent: reading it again
 * asks with `If-None-Match`, and a 304 gives the kept body. Chromium's own cache did this, but an entry whose body a
 * view stopped reading (left while its page was still arriving) was dropped, and the next read of that page went
 * out without `If-None-Match`: the report card's `duplicate_page`, now and then under load. */
const revalidated = new Map();
const revalidatedLimit = 200;

/** The GETs on their way (by dataset and URL), each `{ promise, controller, readers }`: a second read of a URL whose
 * answer is still coming waits for that answer instead of asking again without the tag it has not read yet (the
 * report card's `duplicate_page`, when a view was opened again while its first page was arriving). The fetch is
 * cancelled only when every reader of it has given up (``joined``). */
const inFlight = new Map();

/** Forgets the GETs on their way, so that the next read of each asks afresh: after a write of the app's own (a
 * non-GET `request` does it) or a change the feed told of, an answer that left the server before it must not be
 * joined. Their readers still get their answers. */
export function forgetReadsOnTheirWay() {
  inFlight.clear();
}

/** Fetches JSON; resolves with `{ json, response }`, rejects with a RequestError that says what went wrong.
 * `controls: false` sends `path` as it is, from the server's root (not under the base path), with none of the
 * panel's controls (no delay, no faults, no X-Dataset): what the admin routes that name a dataset in the path take.
 * A GET with no headers of its caller's joins the same GET on its way, if there is one (``inFlight``). */
export async function request(path,
  { method = "GET", body, headers = {}, faults = true, controls = true, signal } = {}) {
  const url = controls ? withControls(path, { faults }) : path;
  const key = requestKey(tokenKey(), method, url);
  const options = { method, body, headers, controls, bearer: !path.startsWith("/admin/") };
  if (method !== "GET" && method !== "HEAD") forgetReadsOnTheirWay(); // read your writes
  const { response, text, retryAt, notModified } = method === "GET" && Object.keys(headers).length === 0
    ? await joined(key, signal, (shared) => exchange(url, key, { ...options, signal: shared }))
    : await exchange(url, key, { ...options, signal });
  if (notModified) return { json: JSON.parse(text), response };
  if (text === null) throw new RequestError("the answer was cut off", response.status, undefined, retryAt);
  let json = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      throw new RequestError(`the answer is not JSON (${response.status})`, response.status, undefined, retryAt);
    }
  }
  if (!response.ok) {
    throw new RequestError(json?.detail ? `${response.status}: ${json.detail}` : `status ${response.status}`,
      response.status, json?.detail, retryAt);
  }
  return { json, response };
}

/** One request and its answer's text: `{ response, text, retryAt, notModified }`, `text` the kept body when the
 * answer is a 304 to the tag the app sent (`notModified`). */
async function exchange(url, key, { method, body, headers, controls, bearer, signal }) {
  const kept = method === "GET" ? revalidated.get(key) : undefined;
  const send = async (token) => {
    try {
      return await fetch(url, {
        method, signal,
        // The app revalidates itself (`revalidated`): the browser's cache would add a condition of its own.
        cache: method === "GET" ? "no-store" : "default",
        headers: {
          ...(controls ? baseHeaders() : { "X-Client-Id": clientID }), ...headers,
          ...(kept && !headers["If-None-Match"] ? { "If-None-Match": kept.etag } : {}),
          ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
    } catch (error) {
      if (error.name === "AbortError") throw error;
      throw new RequestError(`the connection failed (${error.message})`, 0);
    }
  };
  await untilAllowed(key, signal); // a Retry-After not yet over: an automatic retry waits it out
  const token = bearer ? tokens.get(tokenKey()) : undefined;
  let response = await send(token);
  if (bearer && response.status === 401 && /^bearer\b/i.test(response.headers.get("WWW-Authenticate") ?? "")) {
    await response.text().catch(() => null);
    response = await send(await renewToken(token ?? null));
  }
  noteHeaders(response);
  const text = await response.text().catch(() => null);
  const retryAt = noteAnswer(key, response);
  if (response.status === 304 && kept) {
    revalidated.delete(key); // most recent last
    revalidated.set(key, kept);
    return { response, text: kept.text, retryAt, notModified: true };
  }
  const etag = response.headers.get("ETag");
  if (method === "GET" && response.ok && etag && text !== null) {
    revalidated.delete(key);
    revalidated.set(key, { etag, text });
    if (revalidated.size > revalidatedLimit) revalidated.delete(revalidated.keys().next().value);
  }
  return { response, text, retryAt, notModified: false };
}

/** How long a GET nobody reads any more goes on, in case a reader joins it (``joined``). */
const abandonGraceMs = 250;

/** `start(signal)`'s answer, shared with every other reader of `key` while it is on its way (``inFlight``); rejects
 * with an AbortError when `signal` aborts, and the fetch is cancelled when its last reader has left and nobody has
 * joined within ``abandonGraceMs``. */
function joined(key, signal, start) {
  if (signal?.aborted) return Promise.reject(new DOMException("The read was given up", "AbortError"));
  let entry = inFlight.get(key);
  if (!entry) {
    const controller = new AbortController();
    entry = { controller, readers: 0, timer: null };
    const forget = () => { if (inFlight.get(key) === entry) inFlight.delete(key); };
    entry.promise = start(controller.signal).finally(forget);
    entry.promise.catch(() => {}); // its readers handle it; one left by all of them is nobody's
    entry.forget = forget;
    inFlight.set(key, entry);
  }
  const shared = entry;
  clearTimeout(shared.timer); // a reader again: the fetch goes on
  shared.readers += 1;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = () => {
      if (settled) return false;
      settled = true;
      shared.readers -= 1;
      signal?.removeEventListener("abort", leave);
      return true;
    };
    const leave = () => {
      if (!finish()) return;
      // Cancelled once no reader has joined for a moment: a view that is made again drops its old self first
      // (whose reads are given up), then asks for the same page when its end comes into view, a frame or two on.
      if (shared.readers === 0) {
        clearTimeout(shared.timer);
        shared.timer = setTimeout(() => {
          if (shared.readers > 0) return;
          shared.forget(); // a reader who comes now starts afresh rather than join a cancelled fetch
          shared.controller.abort();
        }, abandonGraceMs);
      }
      reject(new DOMException("The read was given up", "AbortError"));
    };
    signal?.addEventListener("abort", leave, { once: true });
    shared.promise.then(
      (value) => { if (finish()) resolve(value); },
      (error) => { if (finish()) reject(error); });
  });
}

/** Fetches a picture as an `<img>` would, by its URL alone (no header of the app's: the dataset and the token go in
 * the query, and without X-Client-Id each connection is a client of its own, as an `<img>`'s is), but where the app
 * can read a 429's or 503's Retry-After; resolves with the bytes, rejects with a RequestError. */
export async function fetchImage(url, signal) {
  const key = requestKey(tokenKey(), "GET", url);
  await untilAllowed(key, signal);
  let response;
  try {
    // As an <img>'s: its Accept (which picks WebP), and a low priority, so the list's pages go first.
    response = await fetch(url, {
      signal, priority: "low", headers: { Accept: "image/avif,image/webp,image/*,*/*;q=0.8" },
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new RequestError(`the connection failed (${error.message})`, 0);
  }
  let bytes;
  try {
    bytes = await response.blob();
  } catch (error) {
    if (error.name === "AbortError") throw error;
    bytes = null;
  }
  const retryAt = noteAnswer(key, response);
  if (!response.ok) throw new RequestError(`status ${response.status}`, response.status, undefined, retryAt);
  if (bytes === null) throw new RequestError("the answer was cut off", response.status);
  return bytes;
}

/** Shows the catalog version and the last X-Cache in the status line. */
export function noteHeaders(response) {
  const cache = response.headers.get("X-Cache");
  if (cache) document.getElementById("last-cache").textContent = `X-Cache ${cache}`;
}

export function noteVersion(version) {
  if (version !== undefined) document.getElementById("version").textContent = `version ${version}`;
}
