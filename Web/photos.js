// The Photos view: the photo list. A page of metadata first, then each row's picture, sized for the row's width
// and the screen's devicePixelRatio, with a placeholder until it is decoded (the item's blur_hash drawn, over its
// colour), then a fade-in.
// A failed page or picture shows Retry, which counts down a 429's or 503's Retry-After first.
import { basePath, fetchImage, request, withControls, withToken, settings, noteVersion } from "./api.js";
import { escape } from "./list.js";
import { armRetry } from "./retry.js";
import { placeholder } from "./blurhash.js";

export function photosView(root) {
  root.innerHTML = `<section class="photos" aria-label="Photos"><ul id="photos"></ul>
    <div id="more" class="more" aria-live="polite"></div></section>`;
  const list = root.querySelector("#photos");
  const more = root.querySelector("#more");
  let page = 1;
  let loading = false;
  let finished = false;
  let failed = false; // a page failed: only its Retry loads it again (as in the List view)
  const controller = new AbortController();

  const endObserver = new IntersectionObserver((entries) => {
    if (!failed && entries.some((entry) => entry.isIntersecting)) loadPage();
  }, { rootMargin: "600px" });

  async function loadPage() {
    if (loading || finished) return;
    failed = false;
    loading = true;
    more.innerHTML = `<span class="spinner" aria-busy="true">Loading photos…</span>`;
    try {
      const { json } = await request(`/items?page=${page}&limit=10`, { signal: controller.signal });
      noteVersion(json.version);
      for (const item of json.items) list.append(photo(item));
      finished = json.next_page === null;
      page += 1;
      more.textContent = "";
      loading = false;
    } catch (error) {
      if (error.name === "AbortError") return;
      loading = false;
      failed = true;
      more.innerHTML = `<span class="failure" role="alert">${escape(error.message)}</span>
        <button type="button" class="retry">Retry</button>`;
      armRetry(more.querySelector(".retry"), error.retryAt, loadPage);
    }
  }

  function photo(item) {
    const entry = document.createElement("li");
    entry.className = "photo";
    const width = Math.min(list.clientWidth || 600, 900);
    const height = Math.max(1, Math.round(width * item.height / item.width));
    const ratio = window.devicePixelRatio || 1;
    const w = Math.min(5000, Math.round(width * ratio));
    const h = Math.min(5000, Math.max(1, Math.round(height * ratio)));
    const caption = `${escape(item.label)} · ${escape(item.author)} · ${Number(item.width)}×${Number(item.height)}`;
    entry.innerHTML = `<figure><div class="frame" aria-busy="true">
      <img alt="${escape(item.label)} by ${escape(item.author)}" width="${width}" height="${height}" decoding="async">
      </div><figcaption>${caption}</figcaption></figure>`;
    const frame = entry.querySelector(".frame");
    frame.style.setProperty("--placeholder", item.color);
    const blurred = placeholder(item.blur_hash, height / width);
    if (blurred) frame.style.backgroundImage = `url("${blurred}")`;
    const image = entry.querySelector("img");
    // Fetched as an <img> would fetch it (fetchImage), by its URL alone: the dataset and the token (when one is held)
    // go in the query. Not by the <img> itself, which cannot tell a 503's Retry-After from any other failure.
    const dataset = basePath ? "" : settings().dataset;  // under a base path, image_url carries it
    const source = () => withToken(withControls(
      `${item.image_url}?w=${w}&h=${h}${dataset ? `&dataset=${encodeURIComponent(dataset)}` : ""}`));
    image.addEventListener("load", () => {
      URL.revokeObjectURL(image.src);
      frame.removeAttribute("aria-busy");
      image.classList.add("shown");
    });
    image.addEventListener("error", () => {
      URL.revokeObjectURL(image.src);
      failed(0); // bytes that do not decode: no Retry-After to wait out
    });

    function failed(retryAt) {
      frame.removeAttribute("aria-busy");
      frame.classList.add("failed");
      const retry = document.createElement("button");
      retry.type = "button";
      retry.className = "retry";
      frame.append(retry);
      // The same URL again (a cache-buster would be another resource to fail_first).
      armRetry(retry, retryAt, () => {
        frame.classList.remove("failed");
        frame.setAttribute("aria-busy", "true");
        retry.remove();
        load();
      });
    }

    async function load() {
      try {
        image.src = URL.createObjectURL(await fetchImage(source(), controller.signal));
      } catch (error) {
        if (error.name !== "AbortError") failed(error.retryAt);
      }
    }

    load();
    return entry;
  }

  endObserver.observe(more);
  loadPage();
  return () => {
    controller.abort();
    endObserver.disconnect();
  };
}
