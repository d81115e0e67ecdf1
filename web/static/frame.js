// Tidemark embed page, framed: tell the page that framed us how tall we are.
//
// embed.js names its iframe (the frame's window.name) with an id of its own
// and sizes the frame from these messages; it accepts them only from our
// origin and with its id. The message holds nothing but the height and the
// document's title, so it is posted to any parent origin: the page that
// framed us is someone else's documentation, whose origin we cannot know.
"use strict";

// A static copy's not-found page for embeds (embed/404.html) cannot know
// the id it was asked for: the host sends it for a mistyped address, or the
// copy's 404.html sends the browser here with ?id=. Name that id, and the
// known ids a few edits from it, as the server's own not-found embed does
// (lessons.Near).
(() => {
  const said = document.querySelector("[data-embed-not-found]");
  if (!said) return;
  const dir = location.pathname.replace(/\/embed\/.*$/, "/embed/");
  let id = new URLSearchParams(location.search).get("id") || location.pathname.slice(dir.length).replace(/\/+$/, "");
  try {
    id = decodeURIComponent(id);
  } catch {
    // a malformed escape: name the id as it was written
  }
  if (!id || id === "404.html" || id.length > 200) return;
  const edits = (a, b) => {
    let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const cur = [i];
      for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
    return prev[b.length];
  };
  const known = [...document.querySelectorAll("[data-embed-known] li")].map((li) => li.textContent.trim());
  let near = known
    .map((k) => [k, edits(id, k)])
    .filter(([k, d]) => d > 0 && d <= Math.max(2, Math.floor(k.length / 6)))
    .sort((x, y) => x[1] - y[1])
    .slice(0, 3)
    .map(([k]) => k);
  if (!near.length) {
    // An id held whole in a path or an address, or one without its folder.
    const bare = id.replace(/\/+$/, "").replace(/\.svg$/, "").replace(/\.tdm$/, "");
    near = known.filter((k) => bare && (bare === k || bare.endsWith("/" + k) || k.endsWith("/" + bare))).slice(0, 3);
  }
  said.textContent = `No Tidemark scenario is named “${id}”.` + (near.length ? ` Did you mean ${near.join(" or ")}?` : "");
})();

(() => {
  if (window.parent === window || !window.name) return;
  const id = window.name;
  let last = -1;
  const send = () => {
    // The height of the document's content (body.embed has no min-height,
    // so this shrinks as well as grows).
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ tidemark: "height", id, height, title: document.title }, "*");
  };
  const start = () => {
    send();
    if ("ResizeObserver" in window) {
      new ResizeObserver(send).observe(document.documentElement);
    } else {
      window.addEventListener("resize", send);
    }
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start, { once: true });
  } else {
    start();
  }
})();
