// Retry-After: a 429 or 503 that says when to ask again is remembered for its request (the dataset, the method and
// the URL: what the server's report card compares), and the app does not send that request again before then. The
// data layer waits out what is left before it sends (so an automatic retry waits too), and a failure view's Retry
// button is disabled and counts down ("Retry in 3 s") until the time has come.
// Times are `performance.now()` milliseconds: monotonic, unlike `Date.now()`.

const notBefore = new Map(); // "<dataset> <METHOD> <url>" -> the time before which it is not sent again

/** The key a request is remembered by. `dataset` is "" for the shared default list. */
export function requestKey(dataset, method, url) {
  return `${dataset} ${method} ${url}`;
}

/** The milliseconds a 429 or 503 asks the client to wait (`Retry-After`: seconds, or an HTTP date), else 0. */
export function retryAfterMs(response) {
  if (response.status !== 429 && response.status !== 503) return 0;
  const value = response.headers.get("Retry-After")?.trim() ?? "";
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.max(0, ms) : 0;
}

/** Notes the answer to the request `key` (once its body is read: the wait counts from the end of the answer) and
 * returns the time it may be sent again: later for a 429 or 503 with Retry-After, else now. */
export function noteAnswer(key, response) {
  const wait = retryAfterMs(response);
  if (wait > 0) notBefore.set(key, performance.now() + wait);
  else notBefore.delete(key);
  return performance.now() + wait;
}

/** When the request `key` may be sent again (0: at once). */
export function retryAt(key) {
  return notBefore.get(key) ?? 0;
}

/** The latest time any request of `dataset` may be sent again: for what the app cannot read the answer of itself
 * (an `EventSource`), the best guess of how long the dataset asked to be left alone (an outage's 503s all say it). */
export function latestRetryAt(dataset) {
  let latest = 0;
  for (const [key, at] of notBefore) if (key.startsWith(`${dataset} `)) latest = Math.max(latest, at);
  return latest;
}

/** Resolves once the request `key` may be sent again (at once if it may now); rejects if `signal` aborts first. */
export function untilAllowed(key, signal) {
  const wait = retryAt(key) - performance.now();
  if (wait <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, wait);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

/** Wires a failure view's Retry `button` to `retry`; until `at` (a `performance.now()` time, as a RequestError's
 * `retryAt`) it is disabled and counts down the seconds left. */
export function armRetry(button, at, retry) {
  button.addEventListener("click", retry);
  const tick = () => {
    const left = (at ?? 0) - performance.now();
    const seconds = Math.ceil(left / 1000);
    button.disabled = left > 0;
    button.textContent = left > 0 ? `Retry in ${seconds} s` : "Retry";
    if (left > 0) setTimeout(tick, left - (seconds - 1) * 1000); // when the number shown changes, and at the end
  };
  tick();
}
