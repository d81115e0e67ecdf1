// Tidemark page glue, loaded with <script src async> on every page (see
// templates.LayoutView.AsyncScript). The site's Content-Security-Policy
// forbids inline scripts, so all page behaviour lives in files like this one.
"use strict";

(() => {
  // A static copy's 404.html, which most hosts send for any missing file:
  // a mistyped embed id (SITE/embed/hwm/typo) goes on to the copy's
  // not-found page for embeds, which fits in the author's iframe and names
  // the id (templates.NotFoundView.EmbedNotFoundURL). The page renders after
  // this script, so look once the document is parsed.
  const toEmbedNotFound = () => {
    const marker = document.querySelector("[data-embed-not-found-url]");
    if (!marker) return;
    const to = new URL(marker.getAttribute("data-embed-not-found-url"), location.href);
    const dir = to.pathname.replace(/[^/]*$/, "");
    if (to.pathname === location.pathname || !location.pathname.startsWith(dir)) return;
    to.search = "?id=" + encodeURIComponent(location.pathname.slice(dir.length).replace(/\/+$/, ""));
    location.replace(to.href);
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", toEmbedNotFound, { once: true });
  else toEmbedNotFound();

  // Lets the stylesheet tell a page with scripts from one without.
  document.documentElement.classList.add("js");

  // This script runs as soon as it arrives, usually while the page is still
  // being parsed: the head's <link rel=preload as=fetch crossorigin> has
  // started downloading the engine module, and compiling it starts here, as
  // its bytes arrive, instead of once the deferred scripts have run.
  // fetch() in CORS mode with same-origin credentials is the request the
  // preload made, so the browser hands over the preloaded response.
  const preload = document.querySelector('link[rel="preload"][as="fetch"][href$=".wasm"]');
  let early = null;
  if (preload && WebAssembly.compileStreaming) {
    early = { url: preload.href, module: WebAssembly.compileStreaming(fetch(preload.href)) };
    early.module.catch(() => {}); // load() falls back to a fetch of its own
  }

  let started = false;
  const start = () => {
    if (started) {
      return;
    }
    started = true;
    // An element with data-tidemark-wasm="<hashed URL of tidemark.wasm>" asks
    // for the engine. wasm_exec.js (which defines Go) is a deferred script:
    // it has run once the document is parsed (see below). The element's
    // data-tidemark-state becomes "loading", then "ready" or "error", and it
    // receives a "tidemark:ready" or "tidemark:error" event.
    const host = document.querySelector("[data-tidemark-wasm]");
    if (!host) {
      return;
    }

    const setState = (state, detail) => {
      host.dataset.tidemarkState = state;
      host.dispatchEvent(new CustomEvent("tidemark:" + state, { detail, bubbles: true }));
    };

    const instantiate = async (url, imports) => {
      if (early && early.url === new URL(url, location.href).href) {
        try {
          return await WebAssembly.instantiate(await early.module, imports);
        } catch (err) {
          // Compiled or fetched otherwise than expected: fetch it again.
        }
      }
      return (await WebAssembly.instantiateStreaming(fetch(url), imports)).instance;
    };

    const load = async (url) => {
      if (typeof Go !== "function") {
        throw new Error("wasm_exec.js must be loaded before app.js");
      }
      const go = new Go();
      // Collect garbage a fifth as often, within a soft limit: a long trace is
      // a large heap, and every collection pauses the page (see wasm/main.go).
      go.env = Object.assign({}, go.env, { GOGC: "400", GOMEMLIMIT: "256MiB" });
      const instance = await instantiate(url, go.importObject);
      // go.run settles only when the Go program exits, which the engine never
      // does; do not await it.
      go.run(instance).catch((err) => setState("error", { error: String(err) }));
      return go;
    };

    // A page that picks its build once it has read its scenario (a linked
    // embed: share.js) marks the element data-tidemark-wait, and takes the
    // mark off, with data-tidemark-wasm set to the build, when it has
    // chosen; then it sends "tidemark:chosen". Until then nothing loads.
    const chosen = host.hasAttribute("data-tidemark-wait")
      ? new Promise((resolve) => host.addEventListener("tidemark:chosen", resolve, { once: true }))
      : Promise.resolve();
    host.dataset.tidemarkState = "loading";
    window.tidemark = {
      ready: chosen.then(() => load(host.dataset.tidemarkWasm)).then(
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
  };

  // The engine starts once the document is parsed and the deferred scripts
  // (wasm_exec.js, widget.js) have run: DOMContentLoaded fires after them.
  // The document is "interactive" while they run, so that state alone does
  // not say they have.
  if (document.readyState === "complete" || (document.readyState === "interactive" && typeof Go === "function")) {
    start();
  } else {
    document.addEventListener("DOMContentLoaded", start, { once: true });
    // Should the event have passed already (a page without wasm_exec.js),
    // load still comes, and the engine says what is missing.
    window.addEventListener("load", start, { once: true });
  }
})();
