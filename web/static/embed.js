// Tidemark embed script: put an interactive scenario in any page.
//
// A bundled scenario, by its id:
//
//   <script src="https://HOST/static/embed.js" data-scenario="hwm/visibility-gap"
//           data-step="14" data-knobs="mark=lsn" async></script>
//
// A scenario of your own, written inline next to the tag (before or after it):
//
//   <script type="text/x-tidemark">
//   scenario mydocs/late-commit "A late commit falls behind the mark"
//   ...
//   </script>
//   <script src="https://HOST/static/embed.js" data-step="4" async></script>
//
// or in a file this page may fetch (on its own site, or served with CORS):
//
//   <script src="https://HOST/static/embed.js" data-source="/docs/late-commit.tdm" async></script>
//
// data-scenario wins over data-source, which wins over an inline block.
// data-step and data-knobs (a query string: knob=value pairs, and any other
// setting a link takes, such as truth=off or fault=12~crash) are optional,
// and so is data-theme (light, dark or auto; by default the page's own).
// The script inserts after itself an iframe of HOST's embed page: for a
// bundled scenario, /embed/ID; for your own, /embed/#tdm=… with the text
// compressed into the address (see web/static/share.js), so HOST stores
// nothing; a text too long for an address goes to /embed/#posted, and
// this script hands it to the frame when the frame asks for it. It keeps
// the iframe as tall as its content: the embed page
// (frame.js) posts its height, and this script accepts a message only from
// HOST's origin, from its own iframe, and with the id it gave that iframe.
// What it cannot embed (no scenario named, a file it cannot fetch, a text
// larger than 64 KB) it says in a short note where the iframe would be.
// Each tag on a page makes its own iframe.
//
// Serve this file by its plain name (/static/embed.js): authors cannot know
// the content-hashed one. It sets no global and touches nothing else.
(() => {
  "use strict";
  const script = document.currentScript;
  if (!script || !script.src) return; // not run from a <script src> tag: nothing to anchor to
  const self = new URL(script.src, document.baseURI);
  const origin = self.origin;
  // The site's own address: this file is SITE/static/embed.js, and SITE may
  // have a path (a copy of the site on a static host, under a sub-path).
  const site = origin + self.pathname.replace(/\/static\/embed(\.[0-9a-f]+)?\.js$/, "");
  const data = script.dataset;
  const scenario = (data.scenario || "").trim();
  const source = (data.source || "").trim();
  const MAX_PAYLOAD = 12 * 1024; // characters in a link: share.MaxPayload
  const MAX_TEXT = 64 * 1024; // bytes of scenario text: share.MaxText
  const id = "tidemark-" + Math.random().toString(36).slice(2) + Date.now().toString(36);

  const note = (text, cls) => {
    const p = document.createElement("p");
    p.dataset.tidemarkId = id; // what the script inserts, the inline pairing looks past
    p.className = cls || "tidemark-embed-problem";
    p.setAttribute("role", "note");
    p.textContent = text;
    script.after(p);
  };

  const query = new URLSearchParams(data.knobs || "");
  const step = (data.step || "").trim();
  if (step) query.set("step", step);
  const qs = query.toString();

  // frame inserts the iframe of src; text, when given, is a scenario too
  // long for the address, which the frame asks for once it has loaded.
  const frame = (src, label, text) => {
    const f = document.createElement("iframe");
    f.src = src;
    f.name = id; // the embed page reads its id from its window's name
    f.title = "Tidemark scenario " + label + " (interactive)";
    f.loading = "lazy";
    f.width = "100%";
    f.height = "640";
    f.className = "tidemark-embed";
    f.dataset.tidemarkId = id;
    f.style.width = "100%";
    f.style.border = "0";
    f.style.display = "block";
    // The frame's colours: a browser shows a frame in dark colours when
    // the reader's system is dark, unless the frame's element says which
    // scheme the page around it is in (its CSS color-scheme, or a
    // <meta name="color-scheme">). A page that declares none is drawn
    // light, so the frame is too; data-theme="dark", "light" or "auto"
    // (the reader's system) chooses for a page whose dark theme is its own.
    const theme = (data.theme || "").trim().toLowerCase();
    if (theme && !["light", "dark", "auto"].includes(theme)) {
      note(`data-theme="${data.theme}" is not a theme the Tidemark embed knows (light, dark or auto); the frame takes the page's own colours.`, "tidemark-embed-problem");
    }
    if (theme === "light" || theme === "dark") f.style.colorScheme = theme;
    else if (theme !== "auto" && getComputedStyle(script.parentElement || document.documentElement).colorScheme === "normal" &&
      !document.querySelector('meta[name="color-scheme"]')) f.style.colorScheme = "light";
    script.after(f);

    const MAX_HEIGHT = 20000; // a bound against a runaway page, not a layout choice
    window.addEventListener("message", (event) => {
      if (event.origin !== origin || event.source !== f.contentWindow) return;
      const m = event.data;
      if (!m || typeof m !== "object" || m.id !== id) return;
      if (m.tidemark === "text?" && typeof text === "string") {
        f.contentWindow.postMessage({ tidemark: "text", id, text }, origin);
        return;
      }
      if (m.tidemark !== "height") return;
      const height = Number(m.height);
      if (!Number.isFinite(height) || height <= 0) return;
      f.style.height = Math.min(Math.ceil(height), MAX_HEIGHT) + "px";
      f.height = String(Math.min(Math.ceil(height), MAX_HEIGHT));
      if (typeof m.title === "string" && m.title) f.title = m.title + " (interactive)";
    });
  };

  if (scenario) {
    const path = scenario.split("/").map(encodeURIComponent).join("/");
    frame(site + "/embed/" + path + (qs ? "?" + qs : ""), scenario);
    return;
  }

  // payloadOf compresses a scenario's text into a link's payload: raw
  // DEFLATE in unpadded base64url, as share.js and the Go package web/share.
  const payloadOf = async (text) => {
    const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    let bin = "";
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };

  const failed = (err) => note("The Tidemark scenario could not be embedded: " + err.message);

  // embedText embeds a scenario's text; file, when the text came from one,
  // is its name, which the embed's errors give (file:line:column).
  const embedText = async (text, where, file) => {
    if (new TextEncoder().encode(text).length > MAX_TEXT) {
      note(`The Tidemark scenario ${where} is larger than ${MAX_TEXT / 1024} KB, the most a scenario may be.`);
      return;
    }
    if (typeof CompressionStream !== "function") {
      note("This browser cannot show the Tidemark scenario " + where + " (it lacks CompressionStream); any current Chrome, Edge, Firefox or Safari can.");
      return;
    }
    const payload = await payloadOf(text);
    const m = /^\s*scenario\s+(\S+)/m.exec(text);
    const named = file ? "file=" + encodeURIComponent(file) + "&" : "";
    const page = site + "/embed/" + (qs ? "?" + qs : "") + "#" + named;
    // A text too long for an address is handed to the frame, which asks
    // for it (share.js): the frame's address says so with "posted".
    if (payload.length > MAX_PAYLOAD) frame(page + "posted", m ? m[1] : "of this page", text);
    else frame(page + "tdm=" + payload, m ? m[1] : "of this page");
  };

  if (source) {
    const url = new URL(source, document.baseURI);
    fetch(url).then(
      async (r) => {
        if (!r.ok) {
          note(`The Tidemark scenario file ${url.href} could not be fetched: the server answered ${r.status} ${r.statusText}.`.replace(/ \.$/, "."));
          return;
        }
        let file = "";
        try {
          file = decodeURIComponent(url.pathname.slice(url.pathname.lastIndexOf("/") + 1));
        } catch {
          // A name that does not decode is left out; the errors say linked.tdm.
        }
        await embedText(await r.text(), "in " + url.href, file);
      },
      () => note(`The Tidemark scenario file ${url.href} could not be fetched. A file on another site must be served with Access-Control-Allow-Origin (CORS) for this page to read it.`),
    ).catch(failed);
    return;
  }

  // An inline scenario: a <script type="text/x-tidemark"> right before or
  // right after this tag. An async tag may run before the parser reaches
  // the one after it, so without one before, look again once the page is parsed.
  // Tags and blocks in a row pair up: a block between two tags is the
  // earlier tag's when that tag has no block before it
  // ([tag A][block A][tag B][block B]), and the later tag's otherwise
  // ([block A][tag A][block B][tag B]).
  // What another tag inserted (its iframe or note) is not part of the
  // page's pairs: an async tag may insert its iframe between itself and its
  // block before the next tag runs ([tag A][iframe A][block A][tag B]).
  const skip = (el, next) => {
    while (el && el.dataset && el.dataset.tidemarkId) el = next ? el.nextElementSibling : el.previousElementSibling;
    return el;
  };
  const prev = (el) => skip(el.previousElementSibling, false);
  const isBlock = (el) => Boolean(el) && el.tagName === "SCRIPT" && (el.type || "").trim().toLowerCase() === "text/x-tidemark";
  const takesInline = (el) => Boolean(el) && el.tagName === "SCRIPT" && Boolean(el.src) &&
    /\/embed\.js$/.test(new URL(el.src, document.baseURI).pathname) && !el.dataset.scenario && !el.dataset.source;
  const takesBefore = (tag) => {
    const block = prev(tag);
    if (!isBlock(block)) return false;
    const owner = prev(block);
    return !(takesInline(owner) && !takesBefore(owner));
  };
  const inline = () => {
    if (takesBefore(script)) return prev(script);
    const next = skip(script.nextElementSibling, true);
    return isBlock(next) ? next : null;
  };
  const fromInline = () => {
    const block = inline();
    if (!block) {
      note(
        "A Tidemark scenario was meant to appear here, but its script tag names no scenario. " +
          'Add data-scenario="…" with a scenario id such as hwm/visibility-gap (every scenario page on ' +
          site + ' shows its id and a ready-made snippet), data-source="…" with the address of a .tdm file, ' +
          'or put the scenario in a <script type="text/x-tidemark"> next to the tag.',
        "tidemark-embed-missing",
      );
      return;
    }
    // The text as written, without the line break that follows the opening
    // tag. Its errors name it inline.tdm, counting lines from there: the
    // block has no file of its own, and "linked.tdm" sent its author
    // looking for a link.
    embedText(block.textContent.replace(/^\r?\n/, ""), "written in this page", "inline.tdm").catch(failed);
  };
  if (inline() || document.readyState !== "loading") fromInline();
  else document.addEventListener("DOMContentLoaded", fromInline, { once: true });
})();
