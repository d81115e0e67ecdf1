// Tidemark links that carry a scenario: the text, compressed, in the
// address's fragment (#tdm=PAYLOAD), which the browser never sends to a
// server. PAYLOAD is the text as UTF-8, compressed with raw DEFLATE
// (CompressionStream "deflate-raw") and written in unpadded base64url; the
// Go package web/share reads and writes the same, with the same limits.
//
// This file defines window.tidemarkShare (used by the sandbox, play.js) and
// draws the widget of a page that shows a linked scenario: /embed/#tdm=…,
// marked by an element with data-tidemark-linked. A fragment that is
// missing, too long or damaged gets a message there, never a blank page.
"use strict";

(() => {
  const KEY = "tdm";
  const MAX_PAYLOAD = 12 * 1024; // characters: share.MaxPayload
  const MAX_TEXT = 64 * 1024; // bytes once unpacked: share.MaxText

  // ShareError is why a payload could not be made or read. kind is
  // "empty", "too-long", "too-large" or "damaged"; the message is a sentence.
  class ShareError extends Error {
    constructor(kind, message) {
      super(message);
      this.kind = kind;
    }
  }

  const toBase64url = (bytes) => {
    let bin = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };

  const fromBase64url = (s) => {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  };

  const supported = () => typeof CompressionStream === "function" && typeof DecompressionStream === "function";

  // encode returns the payload that carries text, or throws a ShareError
  // when a link cannot carry it. Its message says why and leaves what to
  // do instead to the caller: the sandbox offers a script tag or a file.
  const encode = async (text) => {
    const bytes = new TextEncoder().encode(text);
    if (bytes.length > MAX_TEXT) {
      throw new ShareError("too-large", `The scenario is ${bytes.length} bytes, and a link carries at most ${MAX_TEXT}.`);
    }
    const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
    const payload = toBase64url(new Uint8Array(await new Response(stream).arrayBuffer()));
    if (payload.length > MAX_PAYLOAD) {
      throw new ShareError("too-long",
        `The scenario is too long for a link: compressed it is ${payload.length} characters, and a link carries at most ${MAX_PAYLOAD}.`);
    }
    return payload;
  };

  const damaged = (why) => new ShareError("damaged", "The scenario in this link is damaged: " + why);

  // decode returns the text a payload carries, or throws a ShareError. It
  // unpacks at most MAX_TEXT bytes, so a small payload cannot blow up.
  const decode = async (payload) => {
    payload = payload.replace(/=+$/, "");
    if (!payload) throw new ShareError("empty", "This link holds no scenario after #tdm=.");
    if (payload.length > MAX_PAYLOAD) {
      throw new ShareError("too-long", `The scenario in this link is ${payload.length} characters long, and a link carries at most ${MAX_PAYLOAD}.`);
    }
    const bad = payload.search(/[^A-Za-z0-9_-]/);
    if (bad >= 0) {
      throw damaged(`character ${bad + 1} (“${payload[bad]}”) is not one a link's scenario is written in; was the link cut short or changed on the way?`);
    }
    let bytes;
    try {
      bytes = fromBase64url(payload);
    } catch {
      throw damaged("its length does not fit the encoding; was the link cut short?");
    }
    const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
    const chunks = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.length;
        if (size > MAX_TEXT) {
          reader.cancel().catch(() => {});
          throw new ShareError("too-large", `The scenario in this link unpacks to more than ${MAX_TEXT} bytes, the most a scenario may be.`);
        }
        chunks.push(value);
      }
    } catch (err) {
      if (err instanceof ShareError) throw err;
      throw damaged("its compressed text cannot be unpacked; was the link cut short or changed on the way?");
    }
    const all = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.length;
    }
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(all);
    } catch {
      throw damaged("it unpacks to something that is not text.");
    }
  };

  // partsOf splits a fragment ("#file=a.tdm&tdm=…") into its parts.
  const partsOf = (hash) => hash.replace(/^#/, "").split("&");

  // payloadOf returns the tdm= payload of a fragment ("#x=1&tdm=…"), or null.
  const payloadOf = (hash) => {
    const part = partsOf(hash).find((p) => p.startsWith(KEY + "="));
    return part === undefined ? null : part.slice(KEY.length + 1);
  };

  // UNNAMED is the file a link's scenario's errors name when the link
  // names none (share.Unnamed).
  const UNNAMED = "linked.tdm";

  // fileOf returns the name a fragment gives its scenario's file
  // ("#file=late-commit.tdm&tdm=…", as embed.js writes for data-source), for
  // its errors to name, or "linked.tdm". Only a plain file name is taken:
  // it is shown to the reader, and comes from whoever wrote the link. The
  // first file= counts, as in share.FileOf: the server and the page name
  // a link's errors alike.
  const fileOf = (hash) => {
    const part = partsOf(hash).find((p) => p.startsWith("file="));
    if (part === undefined) return UNNAMED;
    let name;
    try {
      name = decodeURIComponent(part.slice(5));
    } catch {
      return UNNAMED;
    }
    name = name.slice(name.lastIndexOf("/") + 1);
    return /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name) ? name : UNNAMED;
  };

  // caret shows line number n of a text, line, with a caret under its
  // column col (counted in characters, a tab as one). The space before the
  // caret keeps the line's tabs where they are, so the caret stands under
  // its character however wide the page draws a tab.
  const caret = (n, line, col) => {
    const prefix = `${n} | `;
    const lead = [...line].slice(0, Math.max(col, 1) - 1).map((c) => (c === "\t" ? "\t" : " ")).join("");
    return `${prefix}${line}\n${" ".repeat(prefix.length)}${lead}^`;
  };

  // toCaret scrolls a caret's box (a pre of caret's text, which scrolls
  // sideways rather than wrap) so that the caret is in sight: on a phone a
  // long line left it past the box's edge, where no one saw what it points at.
  const toCaret = (pre) => {
    const text = pre.lastChild;
    if (!text || text.nodeType !== Node.TEXT_NODE || !text.length || pre.scrollWidth <= pre.clientWidth) return;
    const r = document.createRange();
    r.setStart(text, text.length - 1);
    r.setEnd(text, text.length);
    const x = r.getBoundingClientRect().left - pre.getBoundingClientRect().left + pre.scrollLeft;
    pre.scrollLeft = Math.max(0, x - pre.clientWidth * 0.6);
  };

  // buildFor returns the file of the smallest build of the engine that
  // runs text, from picker (web/pages.Picker's JSON, which the page carries):
  // the first build whose worlds hold those of the commands the text's
  // lines start with (blank lines and # comments start none). A line that
  // starts otherwise (a typo, a space the scenario format refuses) takes
  // the largest build, whose error names every command, as does a text no
  // build runs; null when the picker lists no build. web/pages'
  // WorldsOfCommands reads a text alike.
  const buildFor = (text, picker) => {
    const builds = picker.builds || [];
    if (builds.length === 0) return null;
    const largest = builds[builds.length - 1].file;
    let need = 0;
    for (const line of text.split("\n")) {
      const s = line.replace(/^[ \t]+/, "");
      if (s === "" || s === "\r" || s[0] === "#") continue;
      const word = /^[A-Za-z][A-Za-z0-9_-]*/.exec(s);
      if (!word || !Object.hasOwn(picker.commands, word[0])) return largest;
      need |= picker.commands[word[0]];
    }
    const b = builds.find((b) => (need & ~b.worlds) === 0);
    return b ? b.file : largest;
  };

  window.tidemarkShare = { KEY, MAX_PAYLOAD, MAX_TEXT, ShareError, supported, encode, decode, payloadOf, fileOf, caret, toCaret, buildFor };

  // ---- A page that shows the scenario of its own link (/embed/#tdm=…) ----

  const page = document.querySelector("[data-tidemark-linked]");
  if (!page) return;
  const problem = page.querySelector('[data-testid="linked-problem"]');
  const out = page.querySelector('[data-testid="linked-output"]');
  const title = document.querySelector('[data-testid="page-title"]');

  const show = (lines) => {
    problem.replaceChildren();
    for (const [tag, text, cls] of lines) {
      const el = document.createElement(tag);
      el.textContent = text;
      if (cls) el.className = cls;
      // The caret's copy of the line repeats what the message says (its
      // line and column), as in the sandbox: hidden from screen readers.
      if (cls === "play-caret") el.setAttribute("aria-hidden", "true");
      problem.append(el);
    }
    problem.hidden = false;
    const pre = problem.querySelector("pre.play-caret");
    if (pre) toCaret(pre);
    out.replaceChildren();
    page.dataset.state = "problem";
  };

  // posted asks the page that frames this one for the scenario's text:
  // embed.js frames "#posted" (with "file=" before it, for a file) when a
  // text is too long for an address, and answers the frame's request with
  // {tidemark: "text", id, text}. Only the framing window is listened to,
  // and only with the id it gave the frame (the frame's name); a text from
  // it can do no more than a link's. Resolves to null when no answer comes.
  const posted = () => new Promise((resolve) => {
    const id = window.name;
    if (window.parent === window || !id) {
      resolve(null);
      return;
    }
    // The first answer, or none in ten seconds, ends the listening.
    const done = (text) => {
      clearTimeout(timer);
      window.removeEventListener("message", heard);
      resolve(text);
    };
    const heard = (e) => {
      const m = e.data;
      if (e.source !== window.parent || !m || m.tidemark !== "text" || m.id !== id || typeof m.text !== "string") return;
      done(m.text);
    };
    const timer = setTimeout(() => done(null), 10000);
    window.addEventListener("message", heard);
    window.parent.postMessage({ tidemark: "text?", id }, "*");
  });

  // RETRY is where, in this tab's sessionStorage, a link whose text a
  // smaller build refused is kept for its reload with every world.
  const RETRY = "tidemark:linked-every-world";

  // choose tells app.js which build to load, which waits for it (the
  // element marked data-tidemark-wait): the smallest that runs text. A
  // link that carries no playable text downloads no engine at all. It
  // returns whether it chose a build smaller than every world's.
  //
  // Only the build of every world suggests what a misspelt word meant
  // (engine/scenario/near.go), so a text a smaller build refuses is opened
  // once more with it (see open): the author reads "did you mean mark=?"
  // as the sandbox and tidemark check say it.
  const choose = (text) => {
    const host = document.querySelector("[data-tidemark-wasm][data-tidemark-wait]");
    if (!host) return false;
    let retry = false;
    try {
      retry = sessionStorage.getItem(RETRY) === location.href;
      sessionStorage.removeItem(RETRY);
    } catch {
      // Without storage a refusal is said without the suggestion.
    }
    let file = null;
    try {
      if (!retry) file = buildFor(text, JSON.parse(host.dataset.tidemarkBuilds || "{}"));
    } catch {
      // A page whose picker is unreadable loads the build it names.
    }
    // The builds lie beside the one the page names (Picker says why).
    const every = new URL(host.dataset.tidemarkWasm, location.href);
    if (file) host.dataset.tidemarkWasm = new URL(file, every).href;
    host.removeAttribute("data-tidemark-wait");
    host.dispatchEvent(new CustomEvent("tidemark:chosen"));
    return Boolean(file) && host.dataset.tidemarkWasm !== every.href;
  };

  const open = async () => {
    // The credit link opens the same scenario in the sandbox.
    const credit = document.querySelector('[data-testid="linked-open"]');
    if (credit) {
      credit.href = credit.getAttribute("href").split("#")[0] + location.hash;
      credit.parentElement.hidden = false;
    }
    const loading = document.querySelector(".linked-loading");
    if (loading) loading.hidden = false;
    const payload = payloadOf(location.hash);
    let text;
    if (payload === null && partsOf(location.hash).includes("posted")) {
      // The text is not in the address, so no link can open it elsewhere.
      if (credit) credit.parentElement.hidden = true;
      text = await posted();
      if (text === null) {
        show([["p", "This page shows a scenario that the page framing it hands over (embed.js does, for a scenario too long for an address), and no page did."]]);
        return;
      }
      // More UTF-16 units than MAX_TEXT is more bytes too: refused unencoded.
      if (text.length > MAX_TEXT || new TextEncoder().encode(text).length > MAX_TEXT) {
        show([["p", `The scenario is larger than ${MAX_TEXT / 1024} KB, the most a scenario may be.`]]);
        return;
      }
    } else if (payload === null) {
      show([["p", "This page shows a scenario carried in its own address, after #tdm=, and this address carries none. " +
        "A link to it comes from the sandbox's Embed button or from embed.js."]]);
      return;
    } else if (!supported()) {
      show([["p", "This browser cannot unpack the scenario in this link (it lacks DecompressionStream). Any current Chrome, Edge, Firefox or Safari can."]]);
      return;
    } else {
      try {
        text = await decode(payload);
      } catch (err) {
        show([["p", err.message]]);
        return;
      }
    }
    const smaller = choose(text);
    let engine;
    try {
      engine = await window.tidemarkWidgets.engine();
    } catch (err) {
      show([["p", "The interactive engine could not start (" + err.message + ")."]]);
      return;
    }
    const name = fileOf(location.hash);
    const c = engine.check(text, name);
    if (!c.ok && smaller) {
      try {
        sessionStorage.setItem(RETRY, location.href);
        location.reload();
        return;
      } catch {
        // No storage: say the refusal as this build words it.
      }
    }
    if (!c.ok) {
      // A text whose scenario line reads is headed with its title, though
      // a later line does not build (the frame's title names the scenario
      // to a screen reader, and embed.js copies it to the iframe's).
      const named = /^[ \t]*scenario[ \t]+\S+[ \t]+"([^"\n]+)"/m.exec(text);
      if (named && title) {
        title.textContent = named[1];
        document.title = named[1] + " — Tidemark";
      }
      // A file's or an inline block's errors name it; only a link's text
      // is "the scenario in this link".
      const lines = [["p", (name === UNNAMED ? "The scenario in this link" : "The scenario") + " does not build: " + c.error]];
      if (c.line > 0) {
        lines.push(["pre", caret(c.line, text.split("\n")[c.line - 1] || "", c.col), "play-caret"]);
      }
      show(lines);
      return;
    }
    problem.hidden = true;
    const host = document.createElement("div");
    host.className = "tm-host";
    Object.assign(host.dataset, { source: text, name, base: location.pathname, id: "tm", embedded: "on", query: location.search });
    out.replaceChildren(host);
    await window.tidemarkWidgets.open(host);
    const w = host.querySelector(".tm-widget");
    if (w && title) {
      title.textContent = (w.getAttribute("aria-label") || "").replace(/^Scenario: /, "") || title.textContent;
      document.title = title.textContent + " — Tidemark";
    }
    page.dataset.state = "ready";
  };

  window.addEventListener("hashchange", () => location.reload());
  open();
})();
