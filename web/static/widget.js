// Tidemark scenario widgets: the browser half of the widget package.
//
// The server draws every widget (the first paint works with JavaScript off:
// its links reload the page at another step or setting). When the engine
// module is ready, this file hands each widget to it: the engine re-runs the
// scenario in chunks (so the page never blocks), and every redraw comes from
// the same Go drawing code the server used. After a step the engine sends
// the changes to the stage rather than the stage (see patch), and this file
// applies them, moving the rows a step moved (see animateMoves).
//
// On a scenario page the widget also answers keys wherever the focus is
// (a presenter's clicker sends PageDown, PageUp, arrows and space; B blanks
// the screen; P enters or leaves presenter mode; J there shows a stream
// job's panel in the pipeline's place, C the checks over the foot of the
// screen), keeps the embed snippets
// under it in step with what it shows, and, in presenter mode, keeps a
// second window opened with ?present=notes on the same step.
"use strict";

(() => {
  const hosts = () => [...document.querySelectorAll(".tm-host[data-source]")];
  // Each call into the engine should take about SLICE_MS, so the page never
  // blocks: the run is advanced in chunks whose size (in events) adapts to
  // how fast this machine runs the engine, starting from FIRST_CHUNK. The
  // aim is well under the 50 ms of a long task because a chunk sometimes
  // includes a garbage collection of the trace built so far (20-40 ms at
  // 10,000 steps).
  const SLICE_MS = 10;
  const FIRST_CHUNK = 250;
  const ADDRESS_MS = 200; // see setAddress
  const MOVE_MS = 450; // how long a row takes to move to its new place
  const SVG = "http://www.w3.org/2000/svg";

  const engineReady = () =>
    new Promise((resolve, reject) => {
      if (window.tidemarkEngine) return resolve(window.tidemarkEngine);
      window.addEventListener("tidemark:engine", () => resolve(window.tidemarkEngine), { once: true });
      document.addEventListener("tidemark:error", (e) => reject(new Error(e.detail && e.detail.error)), { once: true });
    });

  // nextTask runs fn in a task of its own, after input and rendering that
  // are due (a MessageChannel message, which unlike setTimeout is not clamped
  // to 4 ms when repeated).
  const channel = new MessageChannel();
  const queued = [];
  channel.port1.onmessage = () => queued.shift()();
  const nextTask = (fn) => {
    queued.push(fn);
    channel.port2.postMessage(null);
  };
  const yieldToPage = () => new Promise((r) => nextTask(r));

  const reduceMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

  // parse turns a fragment's HTML into an element, in the SVG namespace when
  // it goes into an SVG element.
  const template = document.createElement("template");
  const parse = (html, parent) => {
    if (parent && parent.namespaceURI === SVG) {
      template.innerHTML = `<svg xmlns="${SVG}">${html}</svg>`;
      return template.content.firstElementChild.firstElementChild;
    }
    template.innerHTML = html;
    return template.content.firstElementChild;
  };

  // openDetails and reopen keep the learner's open <details> open when a
  // fragment holding them is replaced.
  const openDetails = (el) =>
    new Set([...el.querySelectorAll("details[open]")].map((d) => d.dataset.key || d.dataset.frag || ""));
  const reopen = (el, open) => {
    if (!open.size) return;
    for (const d of el.querySelectorAll("details")) {
      if (open.has(d.dataset.key || d.dataset.frag || "")) d.open = true;
    }
  };

  // patch applies the engine's changes to the stage on screen:
  //   ["r", key, html]                 replace fragment key
  //   ["k", key, [keys], {key: html}]  give fragment key (the stage for "")
  //                                    these child fragments in this order
  //
  // byKey maps each fragment's key to its element; patch keeps it current.
  const indexFrags = (el, byKey) => {
    if (el.dataset && el.dataset.frag !== undefined) byKey.set(el.dataset.frag, el);
    for (const d of el.querySelectorAll("[data-frag]")) byKey.set(d.dataset.frag, d);
  };
  const forgetFrags = (el, byKey) => {
    if (byKey.get(el.dataset.frag) === el) byKey.delete(el.dataset.frag);
    for (const d of el.querySelectorAll("[data-frag]")) {
      if (byKey.get(d.dataset.frag) === d) byKey.delete(d.dataset.frag);
    }
  };
  // parseAll parses the HTML of every replacement whose fragment is on
  // screen already, in one call per kind of element (a step that moves the
  // axis replaces a hundred small SVG fragments, and each call to the
  // parser has a cost of its own), and returns the element for each op.
  // Fragments of one tag in one namespace parse alike side by side.
  const tagOf = /^<([a-zA-Z][a-zA-Z0-9-]*)/;
  const parseAll = (ops, byKey) => {
    const groups = new Map();
    for (const op of ops) {
      if (op[0] !== "r") continue;
      const old = byKey.get(op[1]);
      const m = tagOf.exec(op[2]);
      if (!old || !old.parentNode || !m) continue;
      const svg = old.parentNode.namespaceURI === SVG;
      const g = (svg ? "s:" : "h:") + m[1];
      if (!groups.has(g)) groups.set(g, { svg, ops: [] });
      groups.get(g).ops.push(op);
    }
    const parsed = new Map();
    for (const { svg, ops: group } of groups.values()) {
      if (group.length < 2) continue;
      const html = group.map((op) => op[2]).join("");
      template.innerHTML = svg ? `<svg xmlns="${SVG}">${html}</svg>` : html;
      const els = [...(svg ? template.content.firstElementChild : template.content).children];
      if (els.length !== group.length) continue; // parsed otherwise than one by one: leave them to parse
      group.forEach((op, i) => parsed.set(op, { el: els[i], svg }));
    }
    return parsed;
  };

  // focusIn names the element in stage that has the focus, so that it can
  // be found again once a step has drawn its fragment anew, or null.
  const focusIn = (stage) => {
    const a = document.activeElement;
    if (!a || a === document.body || !stage || !stage.contains(a)) return null;
    if (a.id) return "#" + CSS.escape(a.id);
    // A fold's summary (the step as tables, a check's details): its
    // details is drawn anew, open or closed, when it is toggled.
    const fold = a.tagName === "SUMMARY" && a.parentNode.dataset.fold;
    if (fold) return `details[data-fold="${CSS.escape(fold)}"] > summary`;
    const parts = [];
    for (const k of ["act", "key", "testid"]) {
      if (a.dataset[k]) parts.push(`[data-${k}="${CSS.escape(a.dataset[k])}"]`);
    }
    return parts.length ? a.tagName.toLowerCase() + parts.join("") : null;
  };

  const patch = (stage, ops, byKey) => {
    const parsed = parseAll(ops, byKey);
    for (const op of ops) {
      if (op[0] === "r") {
        const old = byKey.get(op[1]);
        if (!old || !old.isConnected) return false;
        const open = old.tagName === "DETAILS" && old.open;
        const inner = old.firstElementChild ? openDetails(old) : new Set();
        const pre = parsed.get(op);
        const el = pre && pre.svg === (old.parentNode.namespaceURI === SVG) ? pre.el : parse(op[2], old.parentNode);
        forgetFrags(old, byKey);
        old.replaceWith(el);
        if (open) el.open = true;
        reopen(el, inner);
        indexFrags(el, byKey);
        continue;
      }
      const parent = op[1] ? byKey.get(op[1]) : stage;
      if (!parent || !parent.isConnected) return false;
      const keys = op[2];
      const fresh = op[3] || {};
      const want = new Set(keys);
      const have = new Map();
      let after = null; // the first node after the run of fragments
      for (const c of [...parent.children]) {
        if (c.dataset.frag === undefined) continue;
        if (want.has(c.dataset.frag)) have.set(c.dataset.frag, c);
        after = c.nextSibling;
        if (!want.has(c.dataset.frag)) {
          forgetFrags(c, byKey);
          c.remove();
        }
      }
      let cursor = [...parent.children].find((c) => c.dataset.frag !== undefined) || after;
      for (const k of keys) {
        let node = have.get(k);
        if (!node) {
          node = parse(fresh[k], parent);
          indexFrags(node, byKey);
        }
        if (node === cursor) {
          cursor = cursor.nextElementSibling && cursor.nextElementSibling.dataset.frag !== undefined ? cursor.nextElementSibling : after;
          continue;
        }
        parent.insertBefore(node, cursor);
      }
    }
    return true;
  };

  // chipRects records where the row chips are that the changes move rows
  // from (data-from in their HTML), so that each can be moved from there.
  const fromAttr = /data-from="([^"]+)"/g;
  const chipRects = (stage, ops) => {
    const wanted = new Set();
    const scan = (html) => {
      for (const m of html.matchAll(fromAttr)) wanted.add(m[1]);
    };
    for (const op of ops) {
      if (op[0] === "r") scan(op[2]);
      else for (const k in op[3]) scan(op[3][k]);
    }
    const rects = new Map();
    if (!wanted.size) return rects;
    for (const el of stage.querySelectorAll("[data-chip]")) {
      if (wanted.has(el.dataset.chip)) rects.set(el.dataset.chip, el.getBoundingClientRect());
    }
    return rects;
  };

  // animateMoves moves each chip that came from another (data-from) from
  // where that one was to where it is, and lets the others appear: a row
  // read travels from the source to the extractor, a row written from the
  // extractor to its slot. Nothing moves for those who ask for less motion.
  const animateMoves = (stage, before) => {
    if (!before || !before.size) return;
    // Every position is read before any animation starts: starting one
    // invalidates style, so reading the next chip's position after it
    // would lay the stage out again, once per chip.
    const moves = [];
    for (const el of stage.querySelectorAll("[data-new]")) {
      const from = before.get(el.dataset.from);
      if (!from || !el.animate) continue;
      // A shape of a picture moves in the picture's units, which its
      // viewBox scales: the screen's pixels are turned into them.
      const m = el instanceof SVGGraphicsElement && el.ownerSVGElement ? el.ownerSVGElement.getScreenCTM() : null;
      moves.push([el, from, el.getBoundingClientRect(), m]);
    }
    for (const [el, from, to, m] of moves) {
      let dx = from.left - to.left;
      let dy = from.top - to.top;
      if (Math.abs(dx) + Math.abs(dy) < 2) continue;
      if (m && m.a && m.d) {
        dx /= m.a;
        dy /= m.d;
      } else if (el.currentCSSZoom && el.currentCSSZoom !== 1) {
        // A zoomed element (presenter mode's stage) moves in its own
        // pixels, which its zoom scales.
        dx /= el.currentCSSZoom;
        dy /= el.currentCSSZoom;
      }
      el.animate(
        [{ transform: `translate(${dx}px, ${dy}px)`, opacity: 0.6 }, { transform: "translate(0, 0)", opacity: 1 }],
        { duration: MOVE_MS, easing: "cubic-bezier(.2,.7,.3,1)" },
      );
    }
  };

  // fitStage makes presenter mode's picture fit the window under the
  // narration, so that a room sees the whole pipeline without anyone
  // scrolling: when the stations are taller or wider than what is left of
  // the window, it zooms them out (CSS zoom, which lays them out again
  // smaller: a zoomed-out picture may wrap into fewer rows, so the zoom is
  // found by a short search, each try one layout); when they fit, they keep
  // their size. The stylesheet has already made them as compact as a room
  // can still read. The truth's line under the stations fits too (the
  // room reads it, and a clicker cannot scroll to it) unless that would
  // take the stations below readableZoom: a tall stage on a small screen
  // stays readable, with the truth's line under it.
  const readableZoom = 0.75;
  // growToScreen makes presenter mode on a screen larger than designScreen
  // (a 1920×1080 projector) as large as it is on designScreen, for which
  // the stylesheet lays it out, as the browser's own zoom would: the
  // room reads it from the same seats at any resolution. At 1920×1080 it
  // filled the top half of the screen in type two thirds the size.
  const designScreen = { width: 1280, height: 720 };
  const growToScreen = (widget, off) => {
    const room = document.documentElement;
    const grow = Math.min(room.clientWidth / designScreen.width, room.clientHeight / designScreen.height);
    const z = grow >= 1.05 && !off ? Math.floor(grow * 20) / 20 : 1;
    widget.style.zoom = z === 1 ? "" : String(z);
    // The widget fills the window's height, counted before its zoom.
    widget.style.minHeight = z === 1 ? "" : `calc(100vh / ${z})`;
    return z;
  };
  // floatExplain puts a key's story, asked for in presenter mode, in the
  // page's top layer over the foot of the screen, where the room sees it:
  // in its place under the stage it fell below the screen, where a
  // clicker cannot scroll (and the widget, a size container, keeps a
  // fixed box within itself). Its Close link takes it away.
  const floatExplain = (host) => {
    const x = host.querySelector('.tm-widget[data-present="on"] .tm-aside > [data-testid="explain"]');
    if (!x || !x.showPopover || x.matches(":popover-open")) return;
    x.popover = "manual";
    x.showPopover();
  };
  const fitStage = (host) => {
    floatExplain(host);
    // With J, the stream job's panel stands in the pipeline's place; it is
    // never zoomed below readableZoom, its plots falling off the screen
    // rather than everything turning too small for a room.
    const widget = host.querySelector('.tm-widget[data-present="on"]');
    const job = host.querySelector('.tm-widget[data-present="on"][data-view="job"] .tm-panel-job');
    const flow = job || host.querySelector('.tm-widget[data-present="on"] .tm-flow');
    if (!flow) return;
    const room = document.documentElement;
    // What is readable is the zoom as drawn: the widget's growth times the
    // stage's.
    const grown = growToScreen(widget, host.dataset.grow === "off");
    const readable = readableZoom / grown;
    const zoomFor = (under) => {
      const fits = (z) => {
        flow.style.zoom = z === 1 ? "" : String(z);
        const r = flow.getBoundingClientRect();
        const bottom = under ? Math.max(r.bottom, under.getBoundingClientRect().bottom) : r.bottom;
        return bottom <= room.clientHeight - 2 && r.right <= room.clientWidth - 2 && flow.scrollWidth <= flow.clientWidth + 1;
      };
      if (fits(1)) return 1;
      let lo = 0.9;
      while (lo > 0.3 && !fits(lo)) lo = Math.round(lo * 80) / 100;
      let hi = Math.min(1, lo / 0.8);
      for (let i = 0; i < 4; i++) {
        const mid = Math.round(((lo + hi) / 2) * 100) / 100;
        if (mid <= lo || mid >= hi) break;
        if (fits(mid)) lo = mid;
        else hi = mid;
      }
      return lo;
    };
    // A long narration (a rebalance's assignment, say) in the room's large
    // type can take a third of the screen: when the stations and the
    // truth's line would then fall below readableZoom, the narration takes
    // the type of a short screen's first (tm-live-long), still a room's.
    // The checks' verdicts under the truth's line fit too when that
    // costs the stations 15% of their size at most: the stations are
    // what the room watches; the checks stay under them, a scroll away.
    // A stream's stage still too tall for the truth's line and the checks
    // (its chart, an operator's late records and two targets on a
    // projector's 1024×768) drops what the room needs least (tm-tight; the
    // stylesheet says what, and how the rest is reached). Other worlds'
    // stages keep theirs, their checks a C away.
    const truth = host.querySelector(".tm-aside > .tm-truth");
    const checks = host.querySelector(".tm-aside > .tm-panel-checks:last-child:not(:popover-open)");
    const live = widget.querySelector(".tm-live");
    let all;
    const fit = () => {
      let z = zoomFor(truth);
      all = !checks || !checks.checkVisibility();
      if (!all && z >= readable) {
        const zc = zoomFor(checks);
        if (zc >= z * 0.85 && zc >= readable) [z, all] = [zc, true];
      }
      return z;
    };
    if (live) live.classList.remove("tm-live-long");
    widget.classList.remove("tm-tight");
    let z = fit();
    if (z < readable && live && !job) {
      live.classList.add("tm-live-long");
      z = fit();
    }
    if ((z < readable || !all) && !job && flow.querySelector(".tm-col-stream")) {
      widget.classList.add("tm-tight");
      z = fit();
    }
    if (z < readable) z = job ? Math.min(1, readable) : zoomFor(null);
    flow.style.zoom = z === 1 ? "" : String(z);
    // A long narration, grown, can leave the stage less room than it had:
    // then the widget keeps its size, until the window's size changes, so
    // that the room's screen does not grow and shrink from step to step.
    if (grown > 1 && grown * z < 1) {
      host.dataset.grow = "off";
      fitStage(host);
    }
  };

  // stick keeps the row labels of a box that scrolls sideways (a log
  // lane's partition, a stream chart's rows and heading) at the box's left
  // edge, as a sticky column would be: on a phone the pictures scroll, and
  // rows with no name beside them say nothing. app.css moves each label by
  // --sx, the box's scrollLeft: a picture that scrolls is drawn at its own
  // size, a unit of it a CSS pixel. Each label is painted last in its
  // group, over what passes beneath it, once its box scrolls (a picture
  // that fits keeps its reading order).
  const LABELS = ".tm-lane-label, .tm-lanelabel";
  const stick = (box) => {
    box.style.setProperty("--sx", box.scrollLeft);
    if (box.scrollWidth <= box.clientWidth + 1) return;
    for (const t of box.querySelectorAll(LABELS)) if (t.nextSibling) t.parentNode.appendChild(t);
  };

  // showNow keeps the moment a step is about in view in each stream chart
  // of root wider than its box (on a phone): when a step leaves its now
  // line, with the watermark just left of it, out of view, the box scrolls
  // to it; otherwise a learner's own scrolling stays. Every box's row
  // labels are placed anew (stick), since a step may have drawn them anew
  // and a box may have stopped scrolling (presenter mode). A chart that
  // fits its box costs one measurement.
  //
  // The log's lanes of root do the same: when the cells the step wrote or
  // read (or, when it touched none, the log's end, where the next records
  // land) are not all in view, clear of the shadows at its edges (EDGE),
  // the box scrolls to them, their right edge at the same 70% of its width
  // as a stream's now line (their left edge, clear of the partitions'
  // labels, when they are wider than that). Setting scrollLeft scrolls
  // only the box, at once, whatever the reader's motion setting, and
  // leaves the focus where it was.
  const EDGE = 16;
  const LABEL = 40; // a lane's label, "p12", and its halo
  const showNow = (root) => {
    for (const wrap of root.querySelectorAll('[data-testid="stream-wrap"]')) {
      const now = wrap.querySelector(".tm-nowline");
      if (now && wrap.scrollWidth > wrap.clientWidth + 1) {
        const x = now.getBoundingClientRect().left - wrap.getBoundingClientRect().left;
        if (x < 0 || x > wrap.clientWidth) wrap.scrollLeft += x - wrap.clientWidth * 0.7;
      }
      stick(wrap);
    }
    for (const box of root.querySelectorAll('[data-testid="log"]')) {
      stick(box);
      if (box.scrollWidth <= box.clientWidth + 1) continue;
      let marks = box.querySelectorAll('[data-testid="cell"]:is([data-new], [data-read])');
      if (!marks.length) marks = box.querySelectorAll(".tm-log-end");
      if (!marks.length) continue;
      const edge = box.getBoundingClientRect().left + box.clientLeft;
      let left = Infinity;
      let right = -Infinity;
      for (const m of marks) {
        const r = m.getBoundingClientRect();
        left = Math.min(left, r.left - edge);
        right = Math.max(right, r.right - edge);
      }
      if (left >= LABEL && right <= box.clientWidth - EDGE) continue;
      box.scrollLeft += Math.min(left - LABEL, right - box.clientWidth * 0.7);
      stick(box);
    }
  };

  // checksBack is said when presenter mode's floating checks go back.
  const checksBack = "The checks are under the stage again.";

  // viewActs are the engine's actions that change what a widget looks at
  // rather than the run's settings (its knobs, faults and the truth).
  const viewActs = new Set(["seek", "present", "explain", "text", "steps", "drawn", "fill", "settings"]);
  // folds are the views the page opens and closes as the learner unfolds a
  // part of the stage, and fill the checks it runs for a pending view.
  const folds = new Set(["text", "steps", "drawn", "fill"]);

  let pageWidget = null; // the scenario page's own widget, which answers keys anywhere

  class Widget {
    constructor(host, engine) {
      this.host = host;
      this.engine = engine;
      this.id = host.dataset.id || "tm";
      this.timer = null;
      this.busy = false;
      this.waiting = []; // acts asked for while a run went on (see act)
      this.stepAfter = null; // the step a press asked for while a run went on (see stepTo)
      this.settingsFor = null; // settings from the notes window the room is taking (see takeSettings)
      this.settingsStep = null; // the notes window's step since, which the room takes after them
      this.following = false; // settings from the notes window are being drawn: not told back (tellPeer)
    }

    async open() {
      const h = this.host.dataset;
      // A widget with its own query (a lesson's embeds, each with its own
      // knobs) opens with it; otherwise the page's address is the widget's.
      const query = h.query !== undefined ? h.query : location.search;
      // A lesson's embed the learner moved opens where they left it
      // (data-kept: lesson.js), if the engine takes that as a link without
      // a word (no problem with it, nothing refused, a run within budget).
      // Otherwise the mark goes, saying nothing, and so does what lesson.js
      // kept: the embed opens with its own query.
      let r;
      let restored = false;
      if (h.kept) {
        r = this.engine.open(this.id, h.source, h.name, h.base, h.kept, h.embedded || "");
        if (r.ok) await this.run();
        restored = r.ok && !this.pendingMessage && !this.engine.view(this.id, false).message;
        if (!restored) {
          this.stopped = this.pendingMessage = "";
          delete h.kept;
        }
      }
      if (!restored) r = this.engine.open(this.id, h.source, h.name, h.base, query, h.embedded || "");
      if (!r.ok) {
        // A host another script made (the sandbox's, a linked scenario's)
        // has no message of its own to say it in: it gets one.
        if (!this.host.querySelector(".tm-message")) {
          const p = document.createElement("p");
          p.className = "tm-message";
          p.setAttribute("role", "alert");
          p.dataset.testid = "widget-refused";
          this.host.replaceChildren(p);
        }
        this.say(r.error);
        return;
      }
      if (!restored) await this.run();
      if (this.stopped) {
        // The run passed the browser's work budget: there is no trace to
        // draw, only why.
        const p = document.createElement("p");
        p.className = "tm-message";
        p.setAttribute("role", "alert");
        p.dataset.testid = "widget-stopped";
        p.textContent = this.stopped;
        this.host.replaceChildren(p);
        return;
      }
      // A live region written to after a re-run: the widget's own (.tm-live)
      // is drawn anew with its text already in it, which a screen reader
      // does not read out, so a knob, a fault, Undo or presenter mode would
      // change the page in silence.
      this.announcer = document.createElement("div");
      this.announcer.className = "tm-visually-hidden";
      this.announcer.setAttribute("aria-live", "polite");
      this.announcer.dataset.testid = "announcer";
      this.host.after(this.announcer);
      this.draw(true);
      this.drawn = true;
      this.host.addEventListener("click", (e) => this.onClick(e));
      // A scroll does not bubble; caught on its way down, it reaches the
      // host from any chart that scrolls.
      this.host.addEventListener("scroll", (e) => {
        const id = e.target.dataset && e.target.dataset.testid;
        if (id === "stream-wrap" || id === "log") stick(e.target);
      }, { capture: true, passive: true });
      // The stage's explain links leave the step out, since the page
      // follows them itself (see stageLink in templates/widget). Whatever
      // may take the link elsewhere (a middle or modified click, the
      // context menu's copy or new tab, a drag, Enter with a modifier)
      // finds it put back first.
      for (const type of ["mousedown", "contextmenu", "dragstart", "focusin"]) {
        this.host.addEventListener(type, (e) => this.linkStep(e.target));
      }
      this.host.addEventListener("change", (e) => this.onChange(e));
      this.host.addEventListener("input", (e) => this.onInput(e));
      this.host.addEventListener("submit", (e) => e.preventDefault());
      this.host.addEventListener("keydown", (e) => this.onKey(e));
      // Whether the focus last came by the pointer or by Tab (see handleKey).
      this.host.addEventListener("pointerdown", () => { this.byPointer = true; });
      this.host.addEventListener("keydown", (e) => { if (e.key === "Tab") this.byPointer = false; }, true);
      // The stage's folded parts are drawn once opened (see State.TextOpen).
      this.host.addEventListener("toggle", (e) => {
        const fold = e.target.dataset && e.target.dataset.fold;
        if (fold && e.target.closest(".tm-stage")) this.act(fold, e.target.open ? "on" : "off");
      }, true);
      if (this.isPage()) {
        pageWidget = this;
        this.listenToPeer();
        // A room's window opened or reloaded with other settings tells a
        // notes window already open, which takes them. One opened bare
        // (its address names presenter mode and nothing else: no step, no
        // knob, no fault) says so, and takes the step and settings the
        // presenter prepared in the notes window instead, until it is
        // driven itself.
        if (this.presentMode === "on") {
          const q = new URLSearchParams(location.search);
          q.delete("present");
          this.bare = !q.toString();
          this.tellPeer({ step: this.step, query: this.query });
        }
        // Escape leaves full screen before the page sees it: leaving full
        // screen shows a blanked screen again, so the room is never left
        // black and out of full screen.
        document.addEventListener("fullscreenchange", () => {
          if (!document.fullscreenElement) this.unblank();
        });
      }
      window.addEventListener("resize", () => {
        delete this.host.dataset.grow;
        if (this.presentMode === "on") fitStage(this.host);
      });
      // When the widget became interactive, on the page's clock (0 is the
      // start of navigation); the browser budget test reads it.
      this.host.dataset.readyAt = String(performance.now());
      this.host.dataset.ready = "true";
    }

    // pageAt is the address of this scenario's page at query (its step,
    // knobs and faults), in presenter mode mode ("on" or "notes"), or out
    // of it ("").
    pageAt(query, mode) {
      const q = new URLSearchParams(query);
      if (mode) q.set("present", mode);
      else q.delete("present");
      return this.host.dataset.base + "?" + q.toString();
    }

    // isPage reports whether this is a scenario page's own widget, whose
    // state is the page's address.
    isPage() {
      return this.host.dataset.embedded !== "on" && this.id === "tm";
    }

    async run() {
      this.busy = true;
      // While a run goes on, the widget is about to be drawn anew: a
      // screen reader waits for it, and so does a test.
      this.host.setAttribute("aria-busy", "true");
      try {
        let chunk = FIRST_CHUNK;
        for (;;) {
          const t0 = performance.now();
          const r = this.engine.advance(this.id, chunk);
          const took = performance.now() - t0;
          if (!r.ok) this.pendingMessage = r.error;
          if (r.stopped) this.stopped = r.error;
          if (r.done) break;
          // Aim the next chunk at SLICE_MS, growing at most twofold a time.
          chunk = Math.max(16, Math.min(chunk * 2, Math.round((chunk * SLICE_MS) / Math.max(took, 1))));
          await yieldToPage();
        }
      } finally {
        this.busy = false;
        this.host.removeAttribute("aria-busy");
      }
    }

    // say shows a problem at the top of the widget, or clears it with "".
    // A refusal of a control among the knobs and faults under the stage
    // (a crash with no run in flight to stop) is said beside that
    // control's group instead: at the top it was a screen or more above
    // the button, out of sight of whoever pressed it.
    say(text, from) {
      for (const old of this.host.querySelectorAll(".tm-settings > .tm-message")) old.remove();
      const m = this.host.querySelector(".tm-message");
      if (!m) return;
      let group = text && from && from.closest ? from.closest(".tm-settings > *") : null;
      if (group && !group.checkVisibility()) group = null; // presenter mode hides them
      m.textContent = group ? "" : text || "";
      m.hidden = !m.textContent;
      if (group) {
        const near = document.createElement("p");
        near.className = "tm-message";
        near.setAttribute("role", "alert");
        near.dataset.testid = "message-near";
        near.textContent = text;
        group.after(near);
        near.scrollIntoView({ block: "nearest" });
      }
    }

    // draw swaps in the engine's drawing: the whole widget after a re-run,
    // or the changes to the stage after a step, keeping focus on the
    // control in use. ran says a re-run came before it (a knob, a fault,
    // Undo), whose step's narration is said again.
    draw(full, ran) {
      const before = this.step;
      const v = this.engine.view(this.id, full);
      if (!v.ok) return this.say(v.error);
      if (full) {
        const focused = document.activeElement && document.activeElement.closest(".tm-host") === this.host
          ? this.selectorFor(document.activeElement) : null;
        const timeline = this.host.querySelector(".tm-widget > .tm-timeline");
        const open = timeline ? timeline.open : false;
        this.host.innerHTML = v.html;
        this.frags = null;
        const now = this.host.querySelector(".tm-widget > .tm-timeline");
        if (now) now.open = open;
        // First: it draws the button that opens the room's knobs and
        // faults, which may be the control to focus again.
        this.presenting(this.host.querySelector(".tm-widget").dataset.present || "");
        if (focused) {
          // A control the step disabled (Undo, once nothing is left to
          // undo) cannot keep the focus: the first one its group still has
          // takes it, so that the focus does not fall to the page.
          let el = this.host.querySelector(focused);
          if (el && el.disabled) {
            const group = el.closest("[role=group], fieldset, form");
            el = group && group.querySelector("button:not([disabled]), a[href], input:not([disabled]), select:not([disabled])");
          }
          if (el) el.focus();
        }
        this.showJob(this.jobView);
        this.showFaults(this.faultsOpen);
        showNow(this.host);
        // The faults in effect, said when they change (a fault added or
        // undone): the list beside the buttons is new content, which a
        // screen reader does not read out.
        const on = this.host.querySelector('[data-testid="faults-on"]');
        const faults = on ? on.textContent : "";
        const changed = this.drawn && faults !== this.faultsSaid;
        this.faultsSaid = faults;
        // The step's narration, said again after a re-run (a knob, a
        // fault, Undo), or when it changed; not when only the view did
        // (the truth shown or hidden, presenter mode), which said it
        // twice for nothing.
        const live = this.host.querySelector(".tm-live");
        const told = live ? live.textContent : "";
        if (this.drawn && this.announcer) {
          this.announcer.textContent = [v.message, changed ? faults || "No faults in effect" : "", ran || told !== this.said ? told : ""].filter(Boolean).join(". ");
        }
        this.said = told;
      } else {
        const stage = this.host.querySelector(".tm-stage");
        const focused = focusIn(stage);
        const motion = v.step === before + 1 && v.ops && v.ops.length && !reduceMotion();
        const moved = motion ? chipRects(stage, v.ops) : null;
        if (v.ops && v.ops.length && !this.frags) {
          this.frags = new Map();
          indexFrags(stage, this.frags);
        }
        if (!v.ops || !v.ops.length || !patch(stage, v.ops, this.frags)) {
          this.frags = null;
          if (v.stage) {
            const open = openDetails(stage);
            stage.innerHTML = v.stage;
            reopen(stage, open);
          } else if (v.ops && v.ops.length) {
            // The stage on screen is not the one the engine drew last.
            this.engine.act(this.id, "drawn", "");
            return this.draw(true);
          }
        }
        // The narration and the counter first: their height is the
        // stage's room, which fitStage measures.
        // Written only when it changed: a live region written anew is read
        // out again, and a fold opened or a key explained is no new step.
        const live = this.host.querySelector(".tm-live");
        if (live.textContent !== v.narration) live.textContent = v.narration;
        this.said = v.narration;
        this.host.querySelector(".tm-counter").textContent = `Step ${v.step} of ${v.steps}`;
        // A step may draw the checks' panel anew: float it again before the
        // stage is fitted, which leaves floating checks out, unless a key's
        // story was asked for, which takes the foot of the screen.
        if (this.checksOpen) this.showChecks(!this.explaining);
        if (this.presentMode === "on") fitStage(this.host);
        showNow(stage);
        if (focused && (!document.activeElement || document.activeElement === document.body)) {
          // The fragment holding the focus was drawn anew: focus its match.
          const el = stage.querySelector(focused);
          if (el) el.focus({ preventScroll: true });
        }
        animateMoves(stage, moved);
        if (this.explaining) {
          const x = stage.querySelector('[data-testid="explain"]');
          // An explanation comes as a new element, which a screen reader
          // may not read out: say it in the region that stays.
          if (x && this.announcer) this.announcer.textContent = x.textContent.replace(/\s*Close$/, "");
          // It opens under the truth's line, often below the screen from
          // the key clicked: bring it into view (presenter mode floats it).
          if (x && this.presentMode !== "on") x.scrollIntoView({ block: "nearest" });
        }
        this.explaining = false;
        const scrub = this.host.querySelector('[data-act="scrub"]');
        scrub.value = String(v.step);
        scrub.setAttribute("aria-valuetext", `step ${v.step} of ${v.steps}`);
        for (const [act, href, off] of [["start", v.start, v.step === 0], ["back", v.back, v.step === 0],
          ["forward", v.forward, v.step === v.steps], ["end", v.end, v.step === v.steps]]) {
          const a = this.host.querySelector(`a[data-act="${act}"]`);
          a.href = href;
          a.setAttribute("aria-disabled", String(off));
        }
        const present = this.host.querySelector('a[data-act="present"]');
        if (present) present.href = this.pageAt(v.query, new URLSearchParams(v.query).has("present") ? "" : "on");
        const notes = this.host.querySelector('a[data-testid="btn-notes"]');
        if (notes) notes.href = this.pageAt(v.query, "notes");
        const list = this.host.querySelector(".tm-steps");
        if (list) {
          const was = list.querySelector("li[aria-current]");
          if (was) was.removeAttribute("aria-current");
          const cur = list.querySelector(`li[data-step="${v.step}"]`);
          if (cur) cur.setAttribute("aria-current", "step");
        }
        this.say(v.message);
      }
      this.host.querySelector(".tm-widget").dataset.step = String(v.step);
      if (this.pendingMessage) {
        this.say(this.pendingMessage);
        this.pendingMessage = "";
      }
      if (this.isPage()) {
        this.setAddress(this.host.dataset.base + v.query, full);
        this.tellPeer(v);
      }
      this.query = v.query;
      // A lesson's embed links to its scenario's own page where the reader
      // is (the step, the knobs and the faults on screen), so that a
      // teacher can take that step to presenter mode.
      const figure = this.host.closest(".scenario-embed");
      const own = figure && figure.querySelector('a[data-testid="embed-link"]');
      if (own) own.href = this.host.dataset.base + v.query;
      const present = figure && figure.querySelector('a[data-testid="embed-present"]');
      if (present) present.href = this.pageAt(v.query, "on");
      if (this.host.dataset.embedded === "on") {
        // An embed's "open" link opens the scenario where the reader is:
        // the same step, knobs and faults (and, for a scenario carried in
        // the address, the same text, after #).
        const credit = document.querySelector(".embed-credit a[data-page]");
        if (credit) credit.href = credit.dataset.page + v.query + (credit.dataset.hash === "on" ? location.hash : "");
      }
      this.step = v.step;
      this.steps = v.steps;
      if (v.pending) this.fillSoon();
      this.collectWhenIdle();
    }

    // collectWhenIdle lets the engine collect its garbage when the page has
    // nothing else to do, rather than in the middle of a later step.
    collectWhenIdle() {
      if (this.idleQueued || !this.engine.idle) return;
      this.idleQueued = true;
      const run = () => {
        this.idleQueued = false;
        this.engine.idle();
      };
      if (window.requestIdleCallback) requestIdleCallback(run, { timeout: 2000 });
      else setTimeout(run, 200);
    }

    // setAddress keeps the address bar at the step and settings on screen,
    // and the embed snippets with it. history.replaceState costs several
    // milliseconds (the browser process stores the entry), so while the
    // learner steps, plays or scrubs the address follows at most every
    // ADDRESS_MS; a re-run updates it at once. url is a path and query: the
    // fragment stays as it is when the address is written, since it may
    // carry the scenario itself (#tdm=…) and the sandbox rewrites it as the
    // text changes, possibly while this address waits.
    setAddress(url, now) {
      // The first address, as the widget opens, waits as a step's does: the
      // page was loaded from (nearly) that address, and becoming
      // interactive should not wait for the browser to store it.
      const first = this.address === undefined;
      this.address = url;
      const apply = () => {
        const next = this.address + location.hash;
        if (new URL(next, location.href).href !== location.href) history.replaceState(null, "", next);
        this.updateSnippets();
      };
      if (now && !first) {
        clearTimeout(this.addressTimer);
        this.addressTimer = null;
        apply();
        return;
      }
      if (this.addressTimer) return;
      this.addressTimer = setTimeout(() => {
        this.addressTimer = null;
        apply();
      }, ADDRESS_MS);
    }

    // updateSnippets redraws the page's embed snippets for what the widget
    // shows, with the same Go code the server drew them with.
    updateSnippets() {
      const box = document.querySelector(`.embed-snippets[data-for="${this.id}"]`);
      if (!box || !this.engine.snippets) return;
      const origin = box.dataset.origin || location.origin;
      const s = this.engine.snippets(this.id, origin);
      if (!s.ok) return;
      for (const kind of ["iframe", "script", "markdown", "image"]) {
        const code = box.querySelector(`[data-snippet="${kind}"]`);
        if (code && code.textContent !== s[kind]) code.textContent = s[kind];
      }
    }

    // fillSoon asks the engine, in a task of its own, for what a step of a
    // large scenario was drawn without (its checks), and draws the step
    // again. Only the step on screen is filled: steps played or scrubbed
    // past are skipped.
    fillSoon() {
      if (this.fillQueued) return;
      this.fillQueued = true;
      nextTask(() => {
        this.fillQueued = false;
        if (this.busy) return; // a re-run is drawn in full when it ends
        const r = this.engine.act(this.id, "fill", String(this.step));
        if (!r.ok) return;
        // Only the checks changed: the next view sends just that panel.
        this.draw(false);
      });
    }

    selectorFor(el) {
      if (el.dataset.act) return `[data-act="${el.dataset.act}"]`;
      if (el.id) return `#${CSS.escape(el.id)}`;
      return null;
    }

    // pressed notes the control an event acts through, for as long as the
    // event is handled: act reads it at once, to say a refusal beside it,
    // and a later act (a key, a queued change) does not find it.
    pressed(el) {
      this.from = el;
      queueMicrotask(() => {
        this.from = null;
      });
    }

    async act(action, arg, rerun) {
      if (this.busy) {
        // A knob, a fault or Undo chosen while a run goes on is taken, in
        // order, once the run is drawn: dropped, the knob would jump back
        // to the value the run had. A step or a view waits for nothing.
        if (!viewActs.has(action) && this.waiting.length < 8) this.waiting.push([action, arg, rerun]);
        return;
      }
      const r = this.engine.act(this.id, action, String(arg ?? ""));
      if (!r.ok && !r.rerun) {
        // A knob's value refused: its choices show the setting drawn again,
        // as the page drew them (the browser had checked the new one).
        if (action === "knob") for (const i of this.host.querySelectorAll('input[type="radio"]')) i.checked = i.defaultChecked;
        this.say(r.error, this.from);
        return r;
      }
      // The room's faults close once anything is done (a fault taken, a
      // step): the room sees the stage again. A refused one stays, said.
      if (this.faultsOpen && !folds.has(action)) this.showFaults(false);
      // Driven, the room leads: a step, a knob or a fault taken here, not
      // one followed from the notes window nor a fold opened by the page.
      if (!this.quiet && !folds.has(action)) this.bare = false;
      // A knob, a fault, the truth or Undo chosen in the notes window is
      // the room's: the drawing that follows sends it there (tellPeer).
      this.drive = this.presentMode === "notes" && !viewActs.has(action);
      if (r.rerun) {
        await this.run();
        this.draw(true, true);
        this.takeWaiting();
        return r;
      }
      this.draw(Boolean(rerun));
      return r;
    }

    // takeWaiting takes, in order, what was asked for while a run went on:
    // the knobs, faults and Undo, then the step a press asked for.
    takeWaiting() {
      const next = this.waiting.shift();
      if (next) {
        this.act(...next).then((r) => {
          if (!(r && r.rerun)) this.takeWaiting();
        });
        return;
      }
      if (this.stepAfter !== null) this.seek(this.stepAfter);
    }

    seek(n) {
      this.stepAfter = null; // a step taken now settles any asked for before
      this.act("seek", Math.max(0, Math.min(n, this.steps)));
    }

    // at is the step the learner's next press moves from: the one on
    // screen, or the one an earlier press asked for while a run went on.
    get at() {
      return this.stepAfter ?? this.step;
    }

    // stepTo is a step the learner asked for, with a key, a clicker, a
    // button or the scrubber. While a run goes on (a knob just turned, a
    // clicker pressed at once) it is taken once the run is drawn: dropped,
    // the press in front of the room did nothing, and the next one landed
    // a step short.
    stepTo(n) {
      if (this.busy) {
        this.stepAfter = n;
        return;
      }
      this.seek(n);
    }

    // linkStep puts the step the stage shows into an explain link's href.
    linkStep(target) {
      const el = target && target.closest && target.closest('a[data-act="explain"]');
      if (!el || !this.host.contains(el)) return;
      const u = new URL(el.href, location.href);
      if (u.searchParams.get("step") === String(this.step)) return;
      u.searchParams.set("step", String(this.step));
      el.setAttribute("href", u.pathname + u.search);
    }

    onClick(e) {
      const el = e.target.closest("[data-act]");
      if (!el || !this.host.contains(el)) return;
      const act = el.dataset.act;
      this.pressed(el);
      if (el.href && (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey)) {
        // A link opened in a new tab or window is the browser's to follow.
        this.linkStep(el);
        return;
      }
      const moves = { start: 0, back: this.at - 1, forward: this.at + 1, end: this.steps };
      if (act in moves) {
        e.preventDefault();
        this.stop();
        this.stepTo(moves[act]);
      } else if (act === "seek") {
        e.preventDefault();
        this.stepTo(Number(el.dataset.step));
      } else if (act === "explain") {
        e.preventDefault();
        this.explaining = Boolean(el.dataset.key);
        this.act("explain", el.dataset.key || "");
      } else if (act === "present") {
        e.preventDefault();
        this.togglePresent();
      } else if (act === "faults") {
        this.showFaults(!this.faultsOpen);
        // The focus on the first fault, the room's usual errand; the knobs
        // are before it (Shift+Tab), which the announcement says.
        const first = this.faultsOpen && this.host.querySelector(".tm-faults button:not([disabled])");
        if (first) first.focus();
        if (this.announcer) this.announcer.textContent = this.faultsOpen ? "The knobs and faults, over the foot of the screen; the knobs are before the faults; Escape closes them." : "";
      } else if (act === "play") {
        this.timer ? this.stop() : this.play();
      } else if (act === "crash") {
        this.stop();
        this.act("crash", "");
      } else if (act === "fail" || act === "slow" || act === "burst-key") {
        // The stream job's faults (templates/widget/jobfaults.go): the
        // stream or operator, the point and the key are chosen beside them.
        this.stop();
        const pick = (id) => {
          const c = this.host.querySelector(`[data-testid="${id}"]`);
          return c ? c.value.trim() : "";
        };
        const arg = act === "burst-key" ? `${pick("keyburst-producer")} ${pick("keyburst-key")}`
          : act === "fail" ? `${pick("job-who")} ${pick("job-point") || "now"}` : pick("job-who");
        this.act(act, arg);
      } else if (act === "jump-back") {
        this.stop();
        this.act("jump", "-5s");
      } else if (act === "jump-forward") {
        this.stop();
        this.act("jump", "+5s");
      } else if (act === "add-partition" || act === "pause") {
        // The log world's faults: the button names its topic or group, and
        // a pause lasts as long as the length chosen beside it.
        this.stop();
        const length = act === "pause" ? this.host.querySelector('[data-testid="pause-length"]') : null;
        this.act(act, (el.dataset.arg || "") + (length ? " " + length.value : ""));
      } else if (act === "stall" || act === "delay") {
        // The stream world's faults: the partition and the length are the
        // ones chosen beside the buttons.
        this.stop();
        const part = this.host.querySelector('[data-testid="stream-part"]');
        const length = this.host.querySelector('[data-testid="stream-length"]');
        this.act(act, `${part ? part.value : ""} ${length ? length.value : ""}`);
      } else if (act === "burst") {
        this.stop();
        const producer = this.host.querySelector('[data-testid="burst-producer"]');
        this.act("burst", producer ? producer.value : "");
      } else if (act === "jump-clock") {
        this.stop();
        this.act("jump", el.dataset.arg || "");
      } else if (act === "producer-clock") {
        // A partition's clock: the own clock of the producer pinned to it.
        this.stop();
        this.act("producer-clock", el.dataset.arg || "");
      } else if (act === "undo") {
        this.stop();
        this.act("undo", "");
      }
    }

    onChange(e) {
      const el = e.target;
      this.pressed(el);
      if (el.type === "radio" && el.closest(".tm-knob")) {
        this.stop();
        this.act("knob", `${el.name}=${el.value}`);
      } else if (el.name === "truth") {
        this.act("truth", el.checked ? "on" : "off", true);
      } else if (el.dataset.act === "speed" && this.timer) {
        this.stop();
        this.play();
      }
    }

    onInput(e) {
      if (e.target.dataset.act === "scrub") {
        this.stop();
        this.stepTo(Number(e.target.value));
      }
    }

    // onKey answers the keys of a keyboard or a presenter's clicker. Inside
    // the widget they work wherever the focus is but a field that uses them;
    // on a scenario page they work anywhere on the page (see pageKeys).
    onKey(e) {
      if (this.handleKey(e)) e.stopPropagation();
    }

    // handleKey answers a key for the widget; pageWide says it was pressed
    // outside the widget, on its scenario page.
    handleKey(e, pageWide) {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return false;
      const t = e.target;
      const is = (sel) => Boolean(t.matches && t.matches(sel));
      if (is("textarea, input[type=text], input[type=search], input[type=number], [contenteditable]")) return false;
      const presenting = Boolean(this.presentMode);
      // Out of presenter mode, a key pressed elsewhere on the page is the
      // page's (PageDown, Home, End and space scroll it, letters are
      // letters), but for the side arrows, which step. P presents only
      // with the focus in the widget: a shortcut of one letter that works
      // anywhere fires when speech input types a word (WCAG 2.1.4). In
      // presenter mode, which the learner chose, every key is the widget's.
      const quiet = Boolean(pageWide) && !presenting;
      const forward = this.at + 1;
      const back = this.at - 1;
      const keys = { ArrowLeft: back, ArrowRight: forward, PageUp: back, PageDown: forward, Home: 0, End: this.steps };
      if (presenting) {
        // Some clickers send the up and down arrows; in presenter mode
        // nothing scrolls, so they step too.
        keys.ArrowUp = back;
        keys.ArrowDown = forward;
      }
      if (e.key in keys) {
        const clicker = e.key === "PageUp" || e.key === "PageDown";
        // The scrubber, a list and a knob's radio buttons move with their
        // own arrows, Home and End; a clicker's PageUp and PageDown step.
        // A control the mouse last focused (a knob just clicked) gives its
        // arrows to stepping: a learner who picks a setting and presses →
        // to step on must not see the knob turn back under the press, nor
        // a presenter in front of the room. One reached by Tab keeps them.
        if (!clicker && !this.byPointer && is("input[type=range], select, input[type=radio]")) return false;
        // A chart or a panel wider than its box, focused to be read, scrolls
        // with the side arrows as the browser gives them; in presenter mode
        // they step, as a clicker's do.
        if (!presenting && (e.key === "ArrowLeft" || e.key === "ArrowRight") && t.tabIndex >= 0 && t.scrollWidth > t.clientWidth + 1 && !is("a, button")) return false;
        if (quiet && e.key !== "ArrowLeft" && e.key !== "ArrowRight") return false;
        e.preventDefault();
        // A blank screen comes back on the step it left, whatever key
        // brings it back: the room sees where the presenter stopped.
        if (this.unblank()) return true;
        this.stop();
        this.stepTo(keys[e.key]);
        return true;
      }
      if (e.key === " " && !quiet && !presenting && is("a.tm-btn[href]")) {
        // A link drawn as a button (Start, Back, Forward, End, Present,
        // Notes: links, so that they work without scripts) answers space
        // as a button does, where the browser would scroll the page. Other
        // links (an explanation, a "why?") keep the browser's space. A held
        // space presses it once, as it does a button.
        e.preventDefault();
        if (!e.repeat) t.click();
        return true;
      }
      if (e.key === " " && !quiet && (presenting || !is("button, a, input, select, summary"))) {
        // In presenter mode space steps, as a clicker's does; elsewhere it
        // plays and pauses. On a blank screen it only shows it again.
        e.preventDefault();
        if (this.unblank()) return true;
        if (presenting) {
          this.stop();
          this.stepTo(e.shiftKey ? back : forward);
        } else {
          this.timer ? this.stop() : this.play();
        }
        return true;
      }
      if (!this.isPage()) return false;
      const blankKey = e.key === "b" || e.key === "B" || e.key === "."; // a clicker's blank-screen key
      if (document.documentElement.classList.contains("tm-blank") && (blankKey || e.key === "Escape")) {
        // Whatever has the focus, the keys that blanked the screen show it
        // again.
        e.preventDefault();
        this.unblank();
        return true;
      }
      if (quiet) return false;
      if ((e.key === "p" || e.key === "P") && this.presentMode !== "notes") {
        // Not in the notes window: it would become a page of its own and
        // stop following the room (the presenter closes it instead).
        e.preventDefault();
        this.togglePresent();
        return true;
      }
      if (blankKey && presenting) {
        // A clicker's blank-screen key, in presenter mode only. In the
        // notes window it blanks the room's screen, not the presenter's.
        e.preventDefault();
        if (this.presentMode === "notes") {
          this.setRoomBlank(!this.roomBlank);
          if (this.peer) this.peer.postMessage({ blank: this.roomBlank });
        } else {
          this.blank(true);
        }
        return true;
      }
      if ((e.key === "j" || e.key === "J") && presenting && this.host.querySelector('[data-testid="panel-job"]')) {
        // The stream job's checkpoints, sinks and operators, in the
        // pipeline's place, and back: a clicker cannot scroll down to them.
        e.preventDefault();
        this.showJob(!this.jobView);
        if (this.presentMode === "notes" && this.peer) this.peer.postMessage({ job: this.jobView });
        // Said to a screen reader only: the room's screen shows no banner.
        if (this.announcer) this.announcer.textContent = this.jobView ? "The job's checkpoints, sinks and operators; J shows the pipeline again." : "The pipeline; J shows the job's checkpoints and sinks.";
        return true;
      }
      if ((e.key === "j" || e.key === "J") && presenting) {
        // No stream job to show: said, so that a presenter does not take
        // the silence for a stalled clicker or page.
        e.preventDefault();
        this.say("This scenario has no stream job, so J has no checkpoints, sinks or operators to show.");
        return true;
      }
      if ((e.key === "c" || e.key === "C") && presenting && this.host.querySelector(".tm-aside > .tm-panel-checks")) {
        // The checks' verdicts over the foot of the screen, and away: on a
        // dense stage they sit under it, where a clicker cannot scroll.
        e.preventDefault();
        const on = !(this.presentMode === "notes" ? this.roomChecks : this.checksOpen);
        if (this.presentMode === "notes") {
          this.roomChecks = on;
          if (this.peer) this.peer.postMessage({ checks: on });
        } else {
          this.showChecks(on);
        }
        const where = this.presentMode === "notes" ? "the room's screen" : "the screen";
        if (this.announcer) this.announcer.textContent = on ? `The checks, over the foot of ${where}; C takes them away.` : checksBack;
        return true;
      }
      if ((e.key === "f" || e.key === "F") && presenting) {
        e.preventDefault();
        this.fullScreen(!document.fullscreenElement);
        return true;
      }
      if (e.key === "F5" && presenting) {
        // A clicker's start-the-show key: full screen, where it reloaded
        // the page in front of the room (and out of full screen). Its
        // stop-the-show key, Escape, leaves full screen as ever.
        e.preventDefault();
        this.fullScreen(true);
        return true;
      }
      if (e.key === "Escape" && this.faultsOpen) {
        e.preventDefault();
        this.showFaults(false);
        return true;
      }
      if (e.key === "Escape" && this.checksOpen) {
        e.preventDefault();
        this.showChecks(false);
        if (this.announcer) this.announcer.textContent = checksBack;
        return true;
      }
      return false;
    }

    // unblank shows a blank screen again, and reports whether it was blank.
    unblank() {
      return this.blank(false);
    }

    // setRoomBlank records in the notes window that the room's screen is
    // blank (on) or shows the stage, says so, and keeps a line saying it
    // above the notes while it is blank: the message goes with the next
    // step, and the presenter cannot see the room's screen.
    setRoomBlank(on) {
      this.roomBlank = on;
      this.say(on ? "The room's screen is blank; press B to show it again." : "The room's screen shows the stage again.");
      if (!this.blankLine) {
        this.blankLine = document.createElement("p");
        this.blankLine.className = "tm-room-blank";
        this.blankLine.dataset.testid = "room-blank";
        this.blankLine.textContent = "The room's screen is blank: B shows it again.";
        this.host.before(this.blankLine);
      }
      this.blankLine.hidden = !on;
    }

    // blank blanks the screen (on) or shows it again, and reports whether
    // that changed anything. The room's window
    // tells the notes window each change, so that B there, after the
    // room's own key or a step showed the stage again, blanks it at the
    // first press rather than the second.
    blank(on) {
      const root = document.documentElement.classList;
      if (root.contains("tm-blank") === on) return false;
      root.toggle("tm-blank", on);
      if (this.presentMode === "on" && this.peer) this.peer.postMessage({ roomBlank: on });
      // Said to a screen reader, as C and J are: the screen itself shows
      // nothing while blank.
      if (this.announcer) this.announcer.textContent = on ? "The screen is blank; B or a step key shows it again." : "The stage again, at step " + this.at + ".";
      return true;
    }

    // showJob puts the stream job's panel in the pipeline's place in
    // presenter mode (on), or the pipeline back; a full draw keeps it.
    showJob(on) {
      const was = this.jobView;
      this.jobView = Boolean(on) && Boolean(this.presentMode);
      // The notes window hears of each change, so that its J asks for the
      // other state.
      if (was !== this.jobView && this.presentMode === "on" && this.peer) this.peer.postMessage({ roomJob: this.jobView });
      const w = this.host.querySelector(".tm-widget");
      if (!w) return;
      if (this.jobView) w.dataset.view = "job";
      else delete w.dataset.view;
      if (this.presentMode === "on") fitStage(this.host);
    }

    // showFaults shows the knobs and faults in presenter mode's room
    // window (on), in the page's top layer over the foot of the screen, or
    // hides them: the widget, a size container, keeps a fixed box within
    // itself.
    showFaults(on) {
      this.faultsOpen = Boolean(on) && this.presentMode === "on";
      if (this.faultsOpen && this.checksOpen) this.showChecks(false);
      const s = this.host.querySelector(".tm-settings");
      const b = this.host.querySelector('[data-act="faults"]');
      if (b) b.setAttribute("aria-expanded", String(this.faultsOpen));
      if (!s || !s.showPopover) return;
      if (this.faultsOpen) {
        s.popover = "manual";
        if (!s.matches(":popover-open")) s.showPopover();
      } else if (s.popover) {
        if (s.contains(document.activeElement) && b) b.focus({ preventScroll: true });
        s.hidePopover();
        s.removeAttribute("popover");
      }
    }

    // showChecks shows the checks' panel in presenter mode's room window
    // (on), in the page's top layer over the foot of the screen, or puts
    // it back under the stage, as showFaults does the knobs.
    // One thing floats over the foot of the screen at a time: the checks
    // close the knobs and a key's story, and the notes window hears of
    // each change, so that its C asks for the other state.
    showChecks(on) {
      const was = this.checksOpen;
      this.checksOpen = Boolean(on) && this.presentMode === "on";
      const c = this.host.querySelector(".tm-aside > .tm-panel-checks");
      if (this.checksOpen && this.faultsOpen) this.showFaults(false);
      if (this.checksOpen && this.host.querySelector('.tm-aside > [data-testid="explain"]')) this.act("explain", "");
      if (was !== this.checksOpen && this.presentMode === "on" && this.peer) this.peer.postMessage({ roomChecks: this.checksOpen });
      if (!c || !c.showPopover) return;
      if (this.checksOpen) {
        // The truth's line, which the floating checks cover, heads them:
        // the room compares the two (a copy, which a screen reader skips;
        // the line itself is still in the page).
        const truth = this.host.querySelector(".tm-aside > .tm-truth");
        let copy = c.querySelector(".tm-truth-copy");
        if (truth && !copy) {
          copy = document.createElement("p");
          copy.className = "tm-truth-copy";
          copy.setAttribute("aria-hidden", "true");
          c.prepend(copy);
        }
        if (copy) copy.textContent = truth ? truth.textContent : "";
        c.popover = "manual";
        if (!c.matches(":popover-open")) {
          this.checksFrom = document.activeElement;
          c.showPopover();
        }
      } else if (c.popover) {
        // The focus in the floating checks goes back where it was when
        // they opened, or to the step forward if a step drew that anew;
        // it would fall to the page.
        if (c.contains(document.activeElement)) {
          const from = this.checksFrom;
          const back = from && from !== document.body && from.isConnected ? from : this.host.querySelector('[data-act="forward"]');
          if (back) back.focus({ preventScroll: true });
        }
        c.hidePopover();
        c.removeAttribute("popover");
      }
      // The stage fits again when the checks came or went (a step's draw
      // fits it after floating them again).
      if (was !== this.checksOpen && this.presentMode === "on") fitStage(this.host);
    }

    // togglePresent enters or leaves presenter mode: the stage and the
    // narration in large type and nothing else, full screen when the
    // browser allows it (the key or click that asked is what allows it).
    togglePresent() {
      const next = this.presentMode ? "" : "on";
      this.stop();
      this.act("present", next, true);
      this.fullScreen(next === "on");
    }

    fullScreen(on) {
      const el = document.documentElement;
      if (on && !document.fullscreenElement && el.requestFullscreen) {
        el.requestFullscreen().catch(() => {});
      } else if (!on && document.fullscreenElement && document.exitFullscreen) {
        document.exitFullscreen().catch(() => {});
      }
    }

    // presenting marks the page for presenter mode's stylesheet.
    presenting(mode) {
      const was = this.presentMode;
      this.presentMode = mode === "on" ? "on" : mode === "notes" ? "notes" : "";
      if (!this.isPage()) return;
      // The room sees the stage from its top: entered from a page scrolled
      // down to the faults or the checks, it showed the checks, the
      // narration and the steps scrolled away.
      if (this.presentMode === "on" && was !== "on") window.scrollTo({ top: 0, behavior: "instant" });
      // The knobs and faults, which presenter mode hides, in reach of a
      // presenter who has only the room's window (a projector that
      // mirrors the laptop): a button beside Exit shows them (showFaults).
      // Drawn here, not by the engine, which would weigh more to download.
      const exit = this.host.querySelector('.tm-widget[data-present="on"] a[data-act="present"]');
      if (exit && !this.host.querySelector('[data-act="faults"]')) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "tm-btn tm-break";
        b.dataset.act = "faults";
        b.dataset.testid = "btn-faults";
        b.title = "Knobs and faults";
        b.setAttribute("aria-controls", this.host.querySelector(".tm-settings").id);
        this.label(b, "⚙", "Knobs and faults");
        exit.before(b);
      }
      const root = document.documentElement.classList;
      root.toggle("tm-presenting", this.presentMode === "on");
      root.toggle("tm-presenter-notes", this.presentMode === "notes");
      if (!this.presentMode) this.unblank();
    }

    // A presenter's two windows (the room's, ?present, and the notes,
    // ?present=notes) follow each other's steps. The room owns the
    // settings, but for a room opened bare (see bare): the notes window
    // reloads with the room's knobs and faults whenever they differ, and a
    // step taken in the notes window moves the room without changing them. A knob, a fault, the truth or Undo
    // chosen in the notes window is sent with set, and the room takes it
    // in place (a reload would leave full screen). Any other tab of the
    // same scenario, not presenting, is left alone.
    listenToPeer() {
      if (!window.BroadcastChannel) return;
      this.peer = new BroadcastChannel("tidemark:" + this.host.querySelector(".tm-widget").dataset.scenario);
      const opening = (this.host.querySelector(".tm-message") || {}).textContent || ""; // what the page's link made the widget say
      this.peer.onmessage = (e) => {
        const m = e.data;
        if (!m || typeof m !== "object") return;
        if (typeof m.roomJob === "boolean") {
          // The room shows the job's panel or the pipeline, from either window.
          if (this.presentMode === "notes") this.jobView = m.roomJob;
          return;
        }
        if (typeof m.roomChecks === "boolean") {
          // The room's checks floated or went back, from either window.
          if (this.presentMode === "notes") this.roomChecks = m.roomChecks;
          return;
        }
        if (typeof m.checks === "boolean") {
          // C in the notes window shows the room the checks, or takes them away.
          if (this.presentMode === "on") this.showChecks(m.checks);
          return;
        }
        if (typeof m.job === "boolean") {
          // J in the notes window shows the room the job's panel, or the pipeline.
          if (this.presentMode === "on") this.showJob(m.job);
          return;
        }
        if (typeof m.blank === "boolean") {
          // The notes window blanks the room's screen, or shows it again.
          if (this.presentMode === "on") this.blank(m.blank);
          return;
        }
        if (typeof m.roomBlank === "boolean") {
          // The room's screen was blanked or shown again, from either window.
          if (this.presentMode === "notes" && this.roomBlank !== m.roomBlank) this.setRoomBlank(m.roomBlank);
          return;
        }
        if (typeof m.refused === "string" && typeof m.query === "string") {
          if (this.presentMode !== "notes") return;
          try {
            sessionStorage.setItem("tidemark:refused", "The room did not take that change, and keeps its own settings. " + m.refused);
          } catch (_) {
            // Without storage the notes window still goes back to the room's settings.
          }
          location.replace(this.pageAt(m.query, "notes"));
          return;
        }
        if (m.hello === true) {
          // A window opened mid-talk asks where the room is.
          if (this.presentMode === "on") {
            this.tellPeer({ step: this.step, query: this.query }, true);
            if (document.documentElement.classList.contains("tm-blank")) this.peer.postMessage({ roomBlank: true });
            // A problem with the room's link that its screen still shows (a
            // fault it could not take, say) is the presenter's to read, not
            // only the room's. (A refusal of the notes window's settings
            // is told as one.)
            const said = this.host.querySelector(".tm-message");
            if (opening && said && !said.hidden && said.textContent === opening) this.peer.postMessage({ roomSays: opening });
          }
          return;
        }
        if (typeof m.roomSays === "string") {
          if (this.presentMode === "notes") this.say("The room's screen says: " + m.roomSays);
          return;
        }
        if (m.bare === true && m.mode === "on" && this.presentMode === "notes") {
          // A room opened bare takes this window's step and settings.
          this.peer.postMessage({ mode: "notes", step: this.step, query: this.query, set: true });
          return;
        }
        if (!this.presentMode || typeof m.query !== "string" || !Number.isInteger(m.step)) return;
        if ((m.mode !== "on" && m.mode !== "notes") || m.mode === this.presentMode) return;
        const settings = (q) => {
          const c = new URLSearchParams(q);
          for (const k of ["step", "present", "explain"]) c.delete(k);
          c.sort();
          return c.toString();
        };
        const same = settings(location.search) === settings(m.query);
        if (m.set === true && m.mode === "notes" && this.presentMode === "on") {
          // A knob, a fault, the truth or Undo chosen in the notes window:
          // the room takes them, without leaving full screen.
          if (!same || m.step !== this.step) this.takeSettings(m.query);
          return;
        }
        if (this.presentMode === "on" && this.settingsFor !== null && settings(this.settingsFor) === settings(m.query)) {
          // The notes window steps on with the settings the room is still
          // taking: the room goes to that step once they are taken. Told
          // the room's old settings now, the notes window would reload
          // with them, and reload again with the new ones.
          this.settingsStep = m.step;
          return;
        }
        if (!same && this.presentMode === "notes") {
          location.replace(this.pageAt(m.query, "notes"));
          return;
        }
        if (m.step !== this.step && this.busy) {
          // A run goes on here (a knob just turned in this window): the
          // other window's step is taken once the run is drawn, as a
          // press here would be (stepTo). Dropped, this window sent the
          // room its old step with the knob, and the room went back.
          this.stepAfter = m.step;
        } else if (m.step !== this.step) {
          this.quiet = true;
          this.seek(m.step);
          this.quiet = false;
        }
        // The room answers a notes window that has other settings with its
        // own, which that window then reloads with.
        if (!same) this.tellPeer({ step: this.step, query: this.query }, true);
      };
      if (new URLSearchParams(location.search).get("present") === "notes") {
        this.peer.postMessage({ hello: true });
        // Why this window just went back to the room's settings (see refused above).
        let refused = null;
        try {
          refused = sessionStorage.getItem("tidemark:refused");
          sessionStorage.removeItem("tidemark:refused");
        } catch (_) {
          // No storage: nothing was kept.
        }
        if (refused) this.say(refused);
      }
    }

    // tellPeer tells the presenter's other window the step and settings of
    // view v; force sends even while a peer's message is being followed.
    tellPeer(v, force) {
      const set = Boolean(this.drive);
      this.drive = false;
      // The drawing of settings taken from the notes window is not told
      // back: that window has them already, and may have stepped on since,
      // and told its old step it would go back to it (see takeSettings).
      if (this.following && !force) {
        this.following = false;
        return;
      }
      if (!this.peer || (this.quiet && !force) || !this.presentMode || typeof v.query !== "string") return;
      // Settings taken from the notes window, which has stepped on since:
      // the step it is at follows at once (see takeSettings).
      if (this.settingsStep !== null && this.settingsStep !== v.step) return;
      this.peer.postMessage({ mode: this.presentMode, step: v.step, query: v.query, set, bare: Boolean(this.bare) });
    }

    // takeSettings makes the knobs, faults and truth of query (chosen in
    // the notes window) the room's, at the step query names; a run in
    // progress finishes first.
    takeSettings(query) {
      this.settingsWanted = query;
      this.settingsFor = query;
      if (this.settingsTimer) return;
      const apply = () => {
        this.settingsTimer = null;
        if (this.busy) {
          this.settingsTimer = setTimeout(apply, 50);
          return;
        }
        const q = this.settingsWanted;
        this.settingsWanted = null;
        this.stop();
        this.following = true;
        this.act("settings", q, true).then((r) => {
          this.following = false;
          const step = this.settingsStep;
          this.settingsStep = null;
          if (this.settingsWanted === null) this.settingsFor = null;
          // Settings the room cannot take change nothing here; the notes
          // window, which already shows them, is told why and goes back
          // to the room's.
          if (r && !r.ok && !r.rerun && this.peer) this.peer.postMessage({ refused: r.error, step: this.step, query: this.query });
          else if (step !== null && step !== this.step) this.seek(step);
        });
      };
      apply();
    }

    play() {
      const speed = Number(this.host.querySelector('[data-act="speed"]').value) || 700;
      const button = this.host.querySelector('[data-act="play"]');
      button.setAttribute("aria-pressed", "true");
      this.label(button, "❚❚", "Pause");
      // While playing, a step a second or faster would pile up in a screen
      // reader's queue: the narration goes quiet, and stop says where it is.
      this.host.querySelector(".tm-live").setAttribute("aria-live", "off");
      if (this.step >= this.steps) this.seek(0);
      this.timer = setInterval(() => {
        if (this.step >= this.steps) return this.stop();
        this.seek(this.step + 1);
      }, reduceMotion() ? Math.max(speed, 1000) : speed);
    }

    // label writes a control's glyph and word, as the widget package does.
    label(button, glyph, word) {
      const g = document.createElement("span");
      g.setAttribute("aria-hidden", "true");
      g.textContent = glyph;
      const w = document.createElement("span");
      w.className = "tm-word";
      w.textContent = word;
      button.replaceChildren(g, w);
    }

    stop() {
      if (!this.timer) return;
      clearInterval(this.timer);
      this.timer = null;
      const button = this.host.querySelector('[data-act="play"]');
      button.setAttribute("aria-pressed", "false");
      this.label(button, "▶", "Play");
      const live = this.host.querySelector(".tm-live");
      live.setAttribute("aria-live", "polite");
      if (this.announcer) this.announcer.textContent = "Paused. " + live.textContent;
    }
  }

  // pageKeys lets a scenario page's widget answer keys pressed anywhere on
  // the page, so that a clicker or the arrow keys work without first
  // focusing a control.
  document.addEventListener("keydown", (e) => {
    if (!pageWidget || pageWidget.host.contains(e.target)) return;
    pageWidget.handleKey(e, true);
  });

  // Copy buttons beside the embed snippets: revealed by this script, since
  // they need it.
  const copyButtons = () => {
    for (const button of document.querySelectorAll("[data-copy]")) {
      if (!navigator.clipboard) continue;
      button.hidden = false;
      button.addEventListener("click", async () => {
        const kind = button.dataset.copy;
        const box = button.closest(".embed-snippets");
        const code = box.querySelector(`[data-snippet="${kind}"]`);
        const said = box.querySelector(`[data-copied="${kind}"]`);
        try {
          await navigator.clipboard.writeText(code.textContent);
          said.textContent = "Copied.";
        } catch (err) {
          said.textContent = "Could not copy: select the text and copy it instead.";
        }
        setTimeout(() => {
          said.textContent = "";
        }, 2500);
      });
    }
  };

  // Other scripts (the sandbox's play.js, share.js for a linked scenario)
  // make widget hosts of their own after the page has loaded, and hand them
  // over here: open(host) resolves with the widget once it is drawn.
  window.tidemarkWidgets = {
    engine: engineReady,
    open: async (host) => {
      const w = new Widget(host, await engineReady());
      await w.open();
      return w;
    },
  };

  const start = async () => {
    copyButtons();
    let engine;
    try {
      engine = await engineReady();
    } catch (err) {
      for (const h of hosts()) {
        const m = h.querySelector(".tm-message");
        if (m) {
          m.textContent = "The interactive engine could not start (" + err.message + "); the steps below still work as links.";
          m.hidden = false;
        }
      }
      return;
    }
    for (const h of hosts()) {
      if (h.closest("#play-output")) continue; // the sandbox's: play.js opens it
      await new Widget(h, engine).open();
    }
  };
  start();
})();
