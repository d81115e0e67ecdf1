// Tidemark page glue, loaded with <script src defer> on every page. The site's
// Content-Security-Policy forbids inline scripts, so all page behaviour lives
// in files like this one.
"use strict";

(() => {
  // Lets the stylesheet tell a page with scripts from one without.
  document.documentElement.classList.add("js");

  // An element with data-tidemark-wasm="<hashed URL of tidemark.wasm>" asks for
  // the engine. wasm_exec.js (which defines Go) must be loaded before this file.
  // The element's data-tidemark-state becomes "loading", then "ready" or
  // "error", and it receives a "tidemark:ready" or "tidemark:error" event.
  const host = document.querySelector("[data-tidemark-wasm]");
  if (!host) {
    return;
  }

  const setState = (state, detail) => {
    host.dataset.tidemarkState = state;
    host.dispatchEvent(new CustomEvent("tidemark:" + state, { detail, bubbles: true }));
  };

  const load = async (url) => {
    if (typeof Go !== "function") {
      throw new Error("wasm_exec.js must be loaded before app.js");
    }
    const go = new Go();
    // Collect garbage a fifth as often, within a soft limit: a long trace is
    // a large heap, and every collection pauses the page (see wasm/main.go).
    go.env = Object.assign({}, go.env, { GOGC: "400", GOMEMLIMIT: "256MiB" });
    const response = fetch(url);
    const { instance } = await WebAssembly.instantiateStreaming(response, go.importObject);
    // go.run settles only when the Go program exits, which the engine never
    // does; do not await it.
    go.run(instance).catch((err) => setState("error", { error: String(err) }));
    return go;
  };

  host.dataset.tidemarkState = "loading";
  window.tidemark = {
    ready: load(host.dataset.tidemarkWasm).then(
      (go) => {
        setState("ready", {});
        return go;
      },
      (err) => {
        setState("error", { error: String(err) });
        throw err;
      },
    ),
  };
})();
