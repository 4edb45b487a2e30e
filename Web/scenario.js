// The Scenario panel: the profile of the dataset the app shows (`/admin/datasets/<name>/profile`: latency,
// bandwidth, a rate limit, token expiry, an outage, faults, a script), set from a preset or edited as JSON. A preset
// replaces the whole profile, as a PUT does; Clear deletes it.
import { datasetName, request } from "./api.js";

const slow = { min_ms: 300, max_ms: 900 };

/** The presets, by their button's `data-preset`. */
const presets = {
  "3g": { latency: { list: slow, detail: slow, image: slow }, bandwidth: { kbps: 750 } },
  flaky: { faults: { rate: 0.2, kinds: "503,reset" } },
  offline: { outage: { for_ms: 10000 } },
  token: { auth: { token_ttl_s: 30 } },
};

/** Wires the panel (`<details id="scenario">`); its profile loads when it opens and when the dataset changes. */
export function scenarioPanel(panel) {
  const form = panel.querySelector("form");
  const text = form.elements.profile;
  const status = panel.querySelector(".status");
  const shownName = panel.querySelector(".dataset-name");
  let turn = 0; // the latest action: an older one's answer, arriving later, is not shown

  // At the server's root, with none of the panel's controls: the path names the dataset.
  const path = () => `/admin/datasets/${encodeURIComponent(datasetName())}/profile`;
  const get = async () => (await request(path(), { controls: false })).json;

  /** Whether a dataset is named; if not, the panel says so and does nothing (the default list has no profile). */
  function named() {
    const name = datasetName();
    shownName.textContent = name || "(none)";
    for (const button of form.querySelectorAll("button")) button.disabled = !name;
    if (!name) {
      text.value = "";
      status.textContent = "Name a dataset (the Dataset field above) to give it a scenario: the shared default list "
        + "has none.";
    }
    return Boolean(name);
  }

  async function run(action, done) {
    if (!named()) return;
    const mine = ++turn;
    form.setAttribute("aria-busy", "true");
    status.textContent = "…";
    try {
      const profile = await action();
      if (mine !== turn) return;
      text.value = JSON.stringify(profile ?? {}, null, 2);
      status.textContent = done;
    } catch (error) {
      if (mine === turn) status.textContent = error.detail ?? error.message;
    } finally {
      if (mine === turn) form.removeAttribute("aria-busy");
    }
  }

  function load() {
    run(get, "");
  }

  const put = (profile) => run(
    async () => (await request(path(), { method: "PUT", body: profile, controls: false })).json, "applied");

  form.addEventListener("click", (event) => {
    const name = event.target.closest("button[data-preset]")?.dataset.preset;
    if (!name) return;
    if (name === "clear") {
      run(async () => {
        await request(path(), { method: "DELETE", controls: false });
        return get();
      }, "cleared");
    } else {
      put(presets[name]);
    }
  });

  // Apply (the text area's JSON); the form is never submitted.
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    let profile;
    try {
      profile = JSON.parse(text.value.trim() || "{}");
    } catch (error) {
      status.textContent = `not JSON: ${error.message}`;
      return;
    }
    put(profile);
  });

  panel.addEventListener("toggle", () => { if (panel.open) load(); });
  document.getElementById("controls").elements.dataset.addEventListener("change", () => {
    if (panel.open) load();
    else named();
  });
  named();
}
