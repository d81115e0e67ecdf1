// Tidemark embed page, framed: tell the page that framed us how tall we are.
//
// embed.js names its iframe (the frame's window.name) with an id of its own
// and sizes the frame from these messages; it accepts them only from our
// origin and with its id. The message holds nothing but the height and the
// document's title, so it is posted to any parent origin: the page that
// framed us is someone else's documentation, whose origin we cannot know.
"use strict";

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
    // A page that draws an author's own scenario (share.js) draws it after
    // loading, and then sets its data-state ("ready" or "problem"). A
    // browser runs no ResizeObserver in a cross-origin frame out of sight,
    // so a frame below the fold kept the height of "Opening…" until the
    // reader scrolled to it: the change of state sends the height too (a
    // measure lays the page out wherever the frame is).
    const linked = document.querySelector("[data-tidemark-linked]");
    if (linked) new MutationObserver(send).observe(linked, { attributes: true, attributeFilter: ["data-state"] });
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
