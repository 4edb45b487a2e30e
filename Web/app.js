// The app at /: three views of the list this server exists for and the Journal of what they asked the server (a
// network panel of the dataset's requests with its report card), switched by the URL's fragment; the control panel
// that makes the network slow or failing on purpose, and the Scenario panel that sets the dataset's profile.
import { basePath, request } from "./api.js";
import { listView } from "./list.js";
import { photosView } from "./photos.js";
import { chatView } from "./chat.js";
import { journalView } from "./journal.js";
import { scenarioPanel } from "./scenario.js";

const views = { list: listView, photos: photosView, chat: chatView, journal: journalView };
let leave = null;

function show() {
  const name = views[location.hash.slice(1)] ? location.hash.slice(1) : "list";
  leave?.();
  const root = document.getElementById("view");
  root.replaceChildren();
  root.setAttribute("aria-label", name);
  for (const link of document.querySelectorAll("nav a")) {
    if (link.dataset.view === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  leave = views[name](root);
}

document.getElementById("reset").addEventListener("click", async (event) => {
  const button = event.currentTarget;
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  try {
    await request("/admin/reset", { method: "POST", faults: false });
    show();
  } catch (error) {
    alert(`Reset failed: ${error.message}`);
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
  }
});

// Under /d/<name>/ the path names the dataset: the field shows it and cannot name another.
if (basePath) {
  const field = document.getElementById("controls").elements.dataset;
  field.value = basePath.slice(3);
  field.readOnly = true;
  field.title = `This page is under ${basePath}/: every request names that dataset.`;
}

// The panel is read as it is, never submitted (Enter in a field would reload the page).
document.getElementById("controls").addEventListener("submit", (event) => event.preventDefault());
// A changed dataset is another list: start the view over.
document.getElementById("controls").elements.dataset.addEventListener("change", show);
addEventListener("hashchange", show);
scenarioPanel(document.getElementById("scenario"));
show();
