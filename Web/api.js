// The data layer every view uses: fetch with the control panel's settings applied (latency and faults as query
// parameters, the dataset as X-Dataset), problems turned into errors a failure view can show.

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

/** The headers every request carries: the dataset, and this tab's client id (for fail_first). */
export function baseHeaders() {
  const headers = { "X-Client-Id": clientID };
  const dataset = settings().dataset;
  if (dataset && !basePath) headers["X-Dataset"] = dataset;
  return headers;
}

export class RequestError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** Fetches JSON; resolves with `{ json, response }`, rejects with a RequestError that says what went wrong. */
export async function request(path, { method = "GET", body, headers = {}, faults = true, signal } = {}) {
  let response;
  try {
    response = await fetch(withControls(path, { faults }), {
      method, signal, headers: { ...baseHeaders(), ...headers, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new RequestError(`the connection failed (${error.message})`, 0);
  }
  noteHeaders(response);
  const text = await response.text().catch(() => null);
  if (text === null) throw new RequestError("the answer was cut off", response.status);
  let json = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      throw new RequestError(`the answer is not JSON (${response.status})`, response.status);
    }
  }
  if (!response.ok) {
    throw new RequestError(json?.detail ? `${response.status}: ${json.detail}` : `status ${response.status}`,
      response.status);
  }
  return { json, response };
}

/** Shows the catalog version and the last X-Cache in the status line. */
export function noteHeaders(response) {
  const cache = response.headers.get("X-Cache");
  if (cache) document.getElementById("last-cache").textContent = `X-Cache ${cache}`;
}

export function noteVersion(version) {
  if (version !== undefined) document.getElementById("version").textContent = `version ${version}`;
}
