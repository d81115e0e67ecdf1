// Tidemark embed script: put an interactive scenario in any page.
//
//   <script src="https://HOST/static/embed.js" data-scenario="hwm/visibility-gap"
//           data-step="14" data-knobs="mark=lsn" async></script>
//
// data-scenario is required; data-step and data-knobs (a query string of
// knob=value pairs) are optional. The script inserts after itself an iframe
// of HOST's embed page for that scenario, and keeps the iframe as tall as
// its content: the embed page (frame.js) posts its height, and this script
// accepts a message only from HOST's origin, from its own iframe, and with
// the id it gave that iframe. Each tag on a page makes its own iframe.
//
// Serve this file by its plain name (/static/embed.js): authors cannot know
// the content-hashed one. It sets no global and touches nothing else.
(() => {
  "use strict";
  const script = document.currentScript;
  if (!script || !script.src) return; // not run from a <script src> tag: nothing to anchor to
  const origin = new URL(script.src, document.baseURI).origin;
  const data = script.dataset;
  const scenario = (data.scenario || "").trim();

  if (!scenario) {
    const note = document.createElement("p");
    note.className = "tidemark-embed-missing";
    note.setAttribute("role", "note");
    note.textContent =
      "A Tidemark scenario was meant to appear here, but its script tag names no scenario. " +
      'Add data-scenario="…" with a scenario id such as hwm/visibility-gap (every scenario page on ' +
      origin + " shows its id and a ready-made snippet).";
    script.after(note);
    return;
  }

  const query = new URLSearchParams(data.knobs || "");
  const step = (data.step || "").trim();
  if (step) query.set("step", step);
  const path = scenario.split("/").map(encodeURIComponent).join("/");
  const qs = query.toString();
  const id = "tidemark-" + Math.random().toString(36).slice(2) + Date.now().toString(36);

  const frame = document.createElement("iframe");
  frame.src = origin + "/embed/" + path + (qs ? "?" + qs : "");
  frame.name = id; // the embed page reads its id from its window's name
  frame.title = "Tidemark scenario " + scenario + " (interactive)";
  frame.loading = "lazy";
  frame.width = "100%";
  frame.height = "640";
  frame.className = "tidemark-embed";
  frame.dataset.tidemarkId = id;
  frame.style.width = "100%";
  frame.style.border = "0";
  frame.style.display = "block";
  script.after(frame);

  const MAX_HEIGHT = 20000; // a bound against a runaway page, not a layout choice
  window.addEventListener("message", (event) => {
    if (event.origin !== origin || event.source !== frame.contentWindow) return;
    const m = event.data;
    if (!m || typeof m !== "object" || m.tidemark !== "height" || m.id !== id) return;
    const height = Number(m.height);
    if (!Number.isFinite(height) || height <= 0) return;
    frame.style.height = Math.min(Math.ceil(height), MAX_HEIGHT) + "px";
    frame.height = String(Math.min(Math.ceil(height), MAX_HEIGHT));
    if (typeof m.title === "string" && m.title) frame.title = m.title + " (interactive)";
  });
})();
