// Tidemark scenario widgets: the browser half of the widget package.
//
// The server draws every widget (the first paint works with JavaScript off:
// its links reload the page at another step or setting). When the engine
// module is ready, this file hands each widget to it: the engine re-runs the
// scenario in chunks (so the page never blocks), and every redraw comes from
// the same Go drawing code the server used. This file only forwards input and
// swaps in the HTML it is given.
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

  class Widget {
    constructor(host, engine) {
      this.host = host;
      this.engine = engine;
      this.id = host.dataset.id || "tm";
      this.timer = null;
      this.busy = false;
    }

    async open() {
      const h = this.host.dataset;
      // A widget with its own query (a lesson's embeds, each with its own
      // knobs) opens with it; otherwise the page's address is the widget's.
      const query = h.query !== undefined ? h.query : location.search;
      const r = this.engine.open(this.id, h.source, h.name, h.base, query, h.embedded || "");
      if (!r.ok) {
        this.say(r.error);
        return;
      }
      await this.run();
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
      this.draw(true);
      this.host.addEventListener("click", (e) => this.onClick(e));
      this.host.addEventListener("change", (e) => this.onChange(e));
      this.host.addEventListener("input", (e) => this.onInput(e));
      this.host.addEventListener("submit", (e) => e.preventDefault());
      this.host.addEventListener("keydown", (e) => this.onKey(e));
      // When the widget became interactive, on the page's clock (0 is the
      // start of navigation); the browser budget test reads it.
      this.host.dataset.readyAt = String(performance.now());
      this.host.dataset.ready = "true";
    }

    async run() {
      this.busy = true;
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
      }
    }

    say(text) {
      const m = this.host.querySelector(".tm-message");
      if (!m) return;
      m.textContent = text || "";
      m.hidden = !text;
    }

    // draw swaps in the engine's HTML: the whole widget after a re-run, or
    // just the stage after a step, keeping focus on the control in use.
    draw(full) {
      const v = this.engine.view(this.id, full);
      if (!v.ok) return this.say(v.error);
      if (full) {
        const focused = document.activeElement && document.activeElement.closest(".tm-host") === this.host
          ? this.selectorFor(document.activeElement) : null;
        this.host.innerHTML = v.html;
        if (focused) {
          const el = this.host.querySelector(focused);
          if (el) el.focus();
        }
      } else {
        // A long scenario's step list is a window drawn with the stage:
        // keep it open or closed as the learner left it.
        const stage = this.host.querySelector(".tm-stage");
        const windowed = stage.querySelector(".tm-timeline");
        const open = windowed ? windowed.open : null;
        stage.innerHTML = v.stage;
        if (open !== null) {
          const now = stage.querySelector(".tm-timeline");
          if (now) now.open = open;
        }
        this.host.querySelector(".tm-live").textContent = v.narration;
        const scrub = this.host.querySelector('[data-act="scrub"]');
        scrub.value = String(v.step);
        scrub.setAttribute("aria-valuetext", `step ${v.step} of ${v.steps}`);
        this.host.querySelector(".tm-counter").textContent = `Step ${v.step} of ${v.steps}`;
        for (const [act, href, off] of [["start", v.start, v.step === 0], ["back", v.back, v.step === 0],
          ["forward", v.forward, v.step === v.steps], ["end", v.end, v.step === v.steps]]) {
          const a = this.host.querySelector(`a[data-act="${act}"]`);
          a.href = href;
          a.setAttribute("aria-disabled", String(off));
        }
        const list = this.host.querySelector(".tm-steps");
        const was = list.querySelector("li[aria-current]");
        if (was) was.removeAttribute("aria-current");
        const cur = list.querySelector(`li[data-step="${v.step}"]`);
        if (cur) cur.setAttribute("aria-current", "step");
        this.say(v.message);
      }
      this.host.querySelector(".tm-widget").dataset.step = String(v.step);
      if (this.pendingMessage) {
        this.say(this.pendingMessage);
        this.pendingMessage = "";
      }
      if (this.host.dataset.embedded !== "on" && this.id === "tm") {
        // The fragment stays: it may carry the scenario itself (#tdm=…).
        this.setAddress(this.host.dataset.base + v.query + location.hash, full);
      }
      this.query = v.query;
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

    // setAddress keeps the address bar at the step and settings on screen.
    // history.replaceState costs several milliseconds (the browser process
    // stores the entry), so while the learner steps, plays or scrubs the
    // address follows at most every ADDRESS_MS; a re-run updates it at once.
    setAddress(url, now) {
      this.address = url;
      if (now) {
        clearTimeout(this.addressTimer);
        this.addressTimer = null;
        history.replaceState(null, "", url);
        return;
      }
      if (this.addressTimer) return;
      this.addressTimer = setTimeout(() => {
        this.addressTimer = null;
        history.replaceState(null, "", this.address);
      }, ADDRESS_MS);
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
        // Only the checks changed: swap in their panel, not the whole stage.
        const panel = this.host.querySelector('.tm-stage [data-testid="panel-checks"]');
        const c = panel && this.engine.checks ? this.engine.checks(this.id) : null;
        if (c && c.ok) {
          panel.outerHTML = c.html;
          this.collectWhenIdle();
        } else {
          this.draw(false);
        }
      });
    }

    selectorFor(el) {
      if (el.dataset.act) return `[data-act="${el.dataset.act}"]`;
      if (el.id) return `#${CSS.escape(el.id)}`;
      return null;
    }

    async act(action, arg, rerun) {
      if (this.busy) return;
      const r = this.engine.act(this.id, action, String(arg ?? ""));
      if (!r.ok && !r.rerun) {
        this.say(r.error);
        return;
      }
      if (r.rerun) {
        await this.run();
        this.draw(true);
        return;
      }
      this.draw(Boolean(rerun));
    }

    seek(n) {
      this.act("seek", Math.max(0, Math.min(n, this.steps)));
    }

    onClick(e) {
      const el = e.target.closest("[data-act]");
      if (!el || !this.host.contains(el)) return;
      const act = el.dataset.act;
      const moves = { start: 0, back: this.step - 1, forward: this.step + 1, end: this.steps };
      if (act in moves) {
        e.preventDefault();
        this.stop();
        this.seek(moves[act]);
      } else if (act === "seek") {
        e.preventDefault();
        this.seek(Number(el.dataset.step));
      } else if (act === "explain") {
        e.preventDefault();
        this.act("explain", el.dataset.key || "");
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
      } else if (act === "undo") {
        this.stop();
        this.act("undo", "");
      }
    }

    onChange(e) {
      const el = e.target;
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
        this.seek(Number(e.target.value));
      }
    }

    onKey(e) {
      const t = e.target;
      if (t.matches("input[type=range], select, textarea, input[type=text]")) return;
      const keys = { ArrowLeft: this.step - 1, ArrowRight: this.step + 1, Home: 0, End: this.steps };
      if (e.key in keys) {
        e.preventDefault();
        this.stop();
        this.seek(keys[e.key]);
      } else if (e.key === " " && !t.matches("button, a, input")) {
        e.preventDefault();
        this.timer ? this.stop() : this.play();
      }
    }

    play() {
      const speed = Number(this.host.querySelector('[data-act="speed"]').value) || 700;
      const reduce = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      const button = this.host.querySelector('[data-act="play"]');
      button.setAttribute("aria-pressed", "true");
      button.textContent = "⏸ Pause";
      if (this.step >= this.steps) this.seek(0);
      this.timer = setInterval(() => {
        if (this.step >= this.steps) return this.stop();
        this.seek(this.step + 1);
      }, reduce ? Math.max(speed, 1000) : speed);
    }

    stop() {
      if (!this.timer) return;
      clearInterval(this.timer);
      this.timer = null;
      const button = this.host.querySelector('[data-act="play"]');
      button.setAttribute("aria-pressed", "false");
      button.textContent = "▶ Play";
    }
  }

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
