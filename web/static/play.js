// Tidemark sandbox (/play): check the text as the visitor types, play it
// when it builds, say beside each expect line whether it holds, keep the
// text as a draft in this browser, keep it in the address (#tdm=…, see
// share.js), and copy a link or embed snippets for it.
//
// Drafts are never lost without a word (docs/security.md, "How drafts are
// kept"), to the standard lesson.js keeps for progress:
//   - Each tab edits a draft of its own, under tidemark.play.draft.ID; the
//     tab remembers its ID in sessionStorage, so a reload continues it. A
//     link or a posted text that differs from the tab's draft starts a new
//     draft: the old one stays, listed under "Drafts kept in this browser".
//   - A draft's key holding something this page cannot read is never
//     written over: the tab moves to a new key, and the entry is listed to
//     save to a file or delete. So is a draft another tab changed meanwhile.
//   - A save the browser refuses (storage full, storage off) is said, the
//     text stays on the page, the save is tried again with the next change,
//     and leaving the page asks first.
//   - Opening another draft saves this one first; deleting asks.
"use strict";

(() => {
  const src = document.getElementById("play-src");
  const engineEl = document.getElementById("play-engine");
  if (!src || !engineEl) return;
  const share = window.tidemarkShare;
  const byTest = (id) => document.querySelector(`[data-testid="${id}"]`);
  const PAGE = engineEl.dataset.pageUrl || location.pathname;
  const EMBED = engineEl.dataset.embedUrl || "/embed/";
  const SCRIPT = engineEl.dataset.scriptUrl || "/static/embed.js";
  const PICTURE = engineEl.dataset.pictureUrl || "";
  const NAME = "play.tdm";
  const SLICE_MS = 10; // a call into the engine takes about this long (see widget.js)

  const form = document.querySelector(".play-form");
  const gutter = byTest("play-gutter");
  const errorBox = document.getElementById("play-error");
  const out = document.getElementById("play-output");
  const savedLine = byTest("play-saved");
  const problem = byTest("play-problem");
  const expectBox = byTest("play-expect");
  const expectSummaryShown = byTest("play-expect-summary");
  const expectSaid = byTest("play-expect-said");
  // expectSummary's text is shown in the section and said from a live
  // region that was on the page from the start: the section is shown with
  // its first words, and a region shown as its words arrive is often not
  // read out.
  const expectSummary = {
    set textContent(text) {
      if (expectSummaryShown.textContent !== text) expectSummaryShown.textContent = text;
      if (expectSaid.textContent !== text) expectSaid.textContent = text;
    },
  };
  const expectList = byTest("play-expect-list");
  const panel = byTest("play-share-panel");
  const copied = byTest("play-copied");
  const draftsBox = byTest("play-drafts");
  const draftsList = byTest("play-drafts-list");
  const field = (id) => byTest(id);

  const el = (tag, text, attrs) => {
    const e = document.createElement(tag);
    if (text) e.textContent = text;
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else e.setAttribute(k, v);
    }
    return e;
  };
  const nextTask = () => new Promise((r) => setTimeout(r, 0));

  // ---- Problems, said in the page's alert: one per topic ----

  const problems = new Map(); // topic -> sentence
  const setProblem = (topic, text) => {
    if (text) problems.set(topic, text);
    else problems.delete(topic);
    problem.replaceChildren(...[...problems.values()].map((t) => el("p", t)));
    problem.hidden = problems.size === 0;
  };

  // ---- Drafts ----

  const PREFIX = "tidemark.play.draft.";
  const TAB = "tidemark.play.tab";
  const LINK = "tidemark.play.tab.link"; // the payload this tab last put in its address
  const VERSION = 1;
  const isQuota = (err) => err instanceof DOMException &&
    (err.name === "QuotaExceededError" || err.name === "NS_ERROR_DOM_QUOTA_REACHED" || err.code === 22);
  const WHY = {
    full: "the browser's storage for this site is full",
    refused: "the browser refused to store it",
    unavailable: "this browser does not let the page store anything",
  };
  const newId = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 8);

  // readDraft returns null when nothing is stored under key, { ok: true,
  // text, savedAt } for a draft, or { ok: false, raw } for anything else.
  // It throws when storage is unavailable.
  const readDraft = (key) => {
    const raw = localStorage.getItem(key);
    if (raw === null) return null;
    try {
      const d = JSON.parse(raw);
      if (d && d.app === "tidemark" && d.kind === "play-draft" && d.version === VERSION &&
        typeof d.text === "string" && typeof d.savedAt === "string") {
        return { ok: true, text: d.text, savedAt: d.savedAt };
      }
    } catch {
      // not JSON: unreadable, below
    }
    return { ok: false, raw };
  };
  const tryRead = (key) => {
    try {
      return readDraft(key);
    } catch {
      return null;
    }
  };

  let tabId = null;
  try {
    tabId = sessionStorage.getItem(TAB);
  } catch {
    // no session storage: the tab keeps its draft's id while the page is open
  }
  const setTab = (id) => {
    tabId = id;
    try {
      sessionStorage.setItem(TAB, id);
    } catch {
      // as above
    }
  };
  // The address follows the text a moment after each change, so a reload
  // may find it behind the draft: a payload this tab put there itself is
  // not a link someone opened, and the tab's draft is at least as new.
  let ownLink = null;
  try {
    ownLink = sessionStorage.getItem(LINK);
  } catch {
    // as above
  }
  const rememberLink = (p) => {
    try {
      sessionStorage.setItem(LINK, p);
    } catch {
      // as above
    }
  };

  let lastSaved = null; // the text this page last stored under its key, or read from it
  let unsaved = false; // the text on the page is not stored (a save failed)
  let saveTimer = null;

  const timeOf = (iso) => {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
  };

  const save = () => {
    clearTimeout(saveTimer);
    saveTimer = null;
    const text = src.value;
    if (!tabId) setTab(newId());
    let existing;
    try {
      existing = readDraft(PREFIX + tabId);
    } catch {
      return failed("unavailable");
    }
    if (existing && (!existing.ok || (existing.text !== lastSaved && existing.text !== text))) {
      // Not ours to write over: an entry this page cannot read, or a draft
      // another tab (a duplicate of this one) has changed since. This tab
      // moves to a draft of its own; that entry stays as it is.
      setTab(newId());
      lastSaved = null;
      return save();
    }
    if (existing && existing.text === text) {
      saved(existing.savedAt, text);
      return;
    }
    const record = { app: "tidemark", kind: "play-draft", version: VERSION, text, savedAt: new Date().toISOString() };
    try {
      localStorage.setItem(PREFIX + tabId, JSON.stringify(record));
    } catch (err) {
      return failed(isQuota(err) ? "full" : "refused");
    }
    saved(record.savedAt, text);
    renderDrafts();
  };

  const saved = (at, text) => {
    lastSaved = text;
    unsaved = false;
    setProblem("save", "");
    savedLine.textContent = "Kept in this browser as a draft, " + timeOf(at) + ".";
    savedLine.hidden = false;
  };

  const failed = (why) => {
    unsaved = true;
    savedLine.hidden = true;
    setProblem("save", "Your text is not saved in this browser: " + WHY[why] + ". It is still on this page; " +
      "the page tries again with your next change. Keep this tab open, or use Save as a file" +
      (why === "full" ? ", or delete drafts you no longer need (below)." : "."));
  };

  const saveSoon = () => {
    unsaved = true;
    clearTimeout(saveTimer);
    saveTimer = setTimeout(save, 300);
  };

  window.addEventListener("beforeunload", (e) => {
    if (saveTimer) save();
    if (unsaved) {
      e.preventDefault();
      e.returnValue = "";
    }
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden" && saveTimer) save();
  });

  // titleOf names a draft by its scenario line, or its first line.
  const titleOf = (text) => {
    const m = /^\s*scenario\s+(\S+)(?:\s+"([^"]*)")?/m.exec(text);
    if (m) return m[2] ? `${m[2]} (${m[1]})` : m[1];
    const first = text.split("\n").find((l) => l.trim()) || "(empty)";
    return first.length > 60 ? first.slice(0, 59) + "…" : first;
  };
  const fileNameOf = (text) => {
    const m = /^\s*scenario\s+(\S+)/m.exec(text);
    return (m ? m[1].replace(/[^A-Za-z0-9._-]+/g, "-") : "scenario") + ".tdm";
  };

  const download = (name, text, type) => {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = el("a", "", { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  };

  const listDrafts = () => {
    const out = [];
    try {
      for (let i = 0; i < localStorage.length; i++) {
        const key = localStorage.key(i);
        if (key !== null && key.startsWith(PREFIX)) out.push({ key, id: key.slice(PREFIX.length), ...readDraft(key) });
      }
    } catch {
      return [];
    }
    return out.sort((a, b) => (b.ok ? b.savedAt : "").localeCompare(a.ok ? a.savedAt : ""));
  };

  // renderDrafts draws the list again. A button of the list that had the
  // focus (a draft just deleted, or a list redrawn for another tab's save)
  // hands it to the same button of the same draft, else of the draft now in
  // its place, else to the text: a keyboard never lands at the page's start.
  const renderDrafts = () => {
    const drafts = listDrafts();
    const active = document.activeElement;
    const focused = active && draftsList.contains(active) && active.closest("li")
      ? { id: active.closest("li").dataset.draft, testid: active.dataset.testid, index: [...draftsList.children].indexOf(active.closest("li")) }
      : null;
    draftsList.replaceChildren();
    for (const d of drafts) {
      const mine = d.id === tabId;
      const li = el("li", "", { "data-testid": "play-draft", "data-draft": d.id, "aria-current": String(mine) });
      const name = d.ok
        ? titleOf(d.text) + " — " + timeOf(d.savedAt) + (mine ? " (this tab)" : "")
        : "An entry this page cannot read (written by another version of Tidemark?), kept as it is";
      li.append(el("span", name, { class: "play-draft-name" }));
      // Each button names its draft, for a screen reader's list of buttons.
      const what = d.ok ? "the draft “" + titleOf(d.text) + "”" : "the entry this page cannot read";
      if (d.ok && !mine) {
        const open = el("button", "Open", { type: "button", class: "tm-btn", "data-testid": "play-draft-open", "aria-label": "Open " + what });
        open.addEventListener("click", () => openDraft(d));
        li.append(open);
      }
      const file = el("button", "Save to a file", { type: "button", class: "tm-btn", "data-testid": "play-draft-file", "aria-label": "Save " + what + " to a file" });
      file.addEventListener("click", () => (d.ok ? download(fileNameOf(d.text), d.text, "text/plain") : download("tidemark-draft-" + d.id + ".txt", d.raw, "text/plain")));
      li.append(file);
      const del = el("button", "Delete", { type: "button", class: "tm-btn", "data-testid": "play-draft-delete", "aria-label": "Delete " + what });
      del.addEventListener("click", () => deleteDraft(d));
      li.append(del);
      draftsList.append(li);
    }
    draftsBox.hidden = drafts.length === 0;
    if (focused) {
      const items = [...draftsList.children];
      const li = items.find((x) => x.dataset.draft === focused.id) || items[Math.min(focused.index, items.length - 1)];
      const to = li && (li.querySelector(`[data-testid="${focused.testid}"]`) || li.querySelector("button"));
      (to || src).focus();
    }
  };

  const openDraft = (d) => {
    if (saveTimer) save();
    if (unsaved && !confirm("The text on this page is not saved in this browser. Open the other draft anyway, and lose it?")) return;
    const now = tryRead(d.key);
    if (!now || !now.ok) {
      renderDrafts();
      return;
    }
    setTab(d.id);
    lastSaved = now.text;
    src.value = now.text;
    textChanged(false);
    renderDrafts();
    src.focus();
  };

  const deleteDraft = (d) => {
    const what = d.ok ? "the draft “" + titleOf(d.text) + "”" : "this entry";
    if (!confirm("Delete " + what + " from this browser? It cannot be brought back; Save to a file keeps a copy.")) return;
    try {
      localStorage.removeItem(d.key);
    } catch {
      setProblem("save", "The browser would not delete it.");
    }
    if (d.id === tabId) lastSaved = null; // the next change stores the text again
    renderDrafts();
  };

  window.addEventListener("storage", (e) => {
    if (e.storageArea === localStorage && (e.key === null || e.key.startsWith(PREFIX))) renderDrafts();
  });

  // ---- The address: the text travels after #tdm= ----

  let addressTimer = null;
  let payload = null; // the payload in the address, or null when a link cannot carry the text
  let payloadText = null; // the text payload carries
  const updateAddress = async () => {
    clearTimeout(addressTimer);
    addressTimer = null;
    if (!share.supported()) return;
    const text = src.value;
    if (text === payloadText && share.payloadOf(location.hash) === payload) return; // the address carries it already
    try {
      const p = await share.encode(text);
      if (src.value !== text) return; // typed meanwhile: the next update will do
      payload = p;
      payloadText = text;
      if (problems.has("address")) setProblem("address", "");
      history.replaceState(null, "", location.pathname + location.search + "#" + share.KEY + "=" + p);
      rememberLink(p);
    } catch (err) {
      payload = payloadText = null;
      const note = err.message + " The address no longer carries it; this tab's draft does.";
      if (problems.get("address") !== note) setProblem("address", note);
      history.replaceState(null, "", location.pathname + location.search);
    }
  };

  // ---- Checking, playing and the expect lines ----

  let engine = null;
  let widget = null;
  let generation = 0;
  let queue = Promise.resolve();
  let verdicts = new Map(); // line -> "pass" | "fail" | "error" | "pending"

  const drawGutter = () => {
    const n = src.value.split("\n").length;
    const width = String(n).length;
    const rows = [];
    for (let i = 1; i <= n; i++) {
      const status = verdicts.get(i);
      const mark = { pass: "✓", fail: "✗", error: "!", pending: "…" }[status] || " ";
      const row = el("div", String(i).padStart(width, " ") + " " + mark);
      if (status) row.dataset.status = status;
      row.dataset.line = String(i);
      rows.push(row);
    }
    gutter.replaceChildren(...rows);
    gutter.scrollTop = src.scrollTop;
  };
  src.addEventListener("scroll", () => {
    gutter.scrollTop = src.scrollTop;
  });

  const showError = (r) => {
    // The box is a live region: rewrite it only when what it says changes,
    // or a screen reader reads the same error again at every pause in typing.
    // The caret's copy of the line (hidden from screen readers) follows
    // the text even when the error does not change: an edit elsewhere on
    // the line, or a space made a tab, moves what the caret stands under.
    const said = r.ok ? "" : `${r.line}:${r.col}:${r.error}`;
    const caret = r.ok || !(r.line > 0) ? "" : share.caret(r.line, src.value.split("\n")[r.line - 1] || "", r.col);
    // The box itself stays on the page, empty when there is no error: a
    // live region shown at the moment its words arrive is often not read.
    if (errorBox.dataset.said === said && (errorBox.childElementCount === 0) === r.ok) {
      const pre = errorBox.querySelector("pre.play-caret");
      if (pre && pre.textContent !== caret) {
        pre.textContent = caret;
        share.toCaret(pre);
      }
      return;
    }
    errorBox.dataset.said = said;
    errorBox.replaceChildren();
    if (r.ok) {
      errorBox.dataset.line = "0";
      src.removeAttribute("aria-invalid");
      return;
    }
    errorBox.append(el("p", r.error));
    if (caret) share.toCaret(errorBox.appendChild(el("pre", caret, { class: "play-caret", "aria-hidden": "true" })));
    src.setAttribute("aria-invalid", "true");
    errorBox.dataset.line = String(r.line);
  };

  const goToLine = (n) => {
    const lines = src.value.split("\n");
    let start = 0;
    for (let i = 0; i < n - 1 && i < lines.length; i++) start += lines[i].length + 1;
    src.focus();
    src.setSelectionRange(start, start + (lines[n - 1] || "").length);
  };

  const RANK = { pass: 0, pending: 1, error: 2, fail: 3 };
  // Each verdict is a glyph and its words; a screen reader reads the words
  // alone ("check mark holds" says nothing more).
  const VERDICT = { pass: ["✓", "holds"], fail: ["✗", "fails"], error: ["!", "could not run"], "": ["…", "checking"] };
  const verdict = (status) => {
    const [glyph, words] = VERDICT[status];
    const v = el("span", "", { class: "play-verdict" });
    v.append(el("span", glyph, { "aria-hidden": "true" }), " " + words);
    return v;
  };
  const drawExpect = (results, summary) => {
    expectBox.hidden = false;
    expectSummary.textContent = summary;
    expectList.replaceChildren();
    verdicts = new Map();
    for (const x of results) {
      const status = x.status || "pending";
      // A line with several claims shows the worst of them.
      const was = verdicts.get(x.line);
      if (!was || RANK[status] > RANK[was]) verdicts.set(x.line, status);
      const li = el("li", "", { "data-testid": "play-expect-item", "data-status": status, "data-line": String(x.line) });
      li.append(verdict(x.status), " ");
      const at = el("button", "line " + x.line, { type: "button", class: "play-line", "aria-label": "Go to line " + x.line });
      at.addEventListener("click", () => goToLine(x.line));
      li.append(at, " ", el("code", "expect " + x.claim));
      if (x.detail) li.append(el("span", x.detail, { class: "play-detail" }));
      expectList.append(li);
    }
    drawGutter();
  };

  const runExpect = async (gen, text) => {
    const r = engine.expect("play", text, NAME);
    if (!r.ok) {
      verdicts = new Map(r.line > 0 ? [[r.line, "error"]] : []);
      expectBox.hidden = false;
      expectSummary.textContent = "The expect lines could not be read: " + r.error;
      expectList.replaceChildren();
      drawGutter();
      return;
    }
    if (r.count === 0) {
      drawExpect([], "This scenario states no expectations. A line such as “expect missing=3” or “expect check reconciliation=fail when mark=lsn” says what a run should show, and is checked here as you type.");
      return;
    }
    let chunk = 250;
    for (;;) {
      const t0 = performance.now();
      const a = engine.expectAdvance("play", chunk);
      const took = performance.now() - t0;
      if (gen !== generation) return;
      if (a.done) {
        const pass = a.results.filter((x) => x.status === "pass").length;
        const fail = a.results.filter((x) => x.status === "fail").length;
        const err = a.results.length - pass - fail;
        const parts = [pass + (pass === 1 ? " holds" : " hold")];
        if (fail) parts.push(fail + (fail === 1 ? " fails" : " fail"));
        if (err) parts.push(err + " could not be checked");
        drawExpect(a.results, a.results.length + (a.results.length === 1 ? " expectation: " : " expectations: ") + parts.join(", ") + ".");
        expectBox.dataset.done = "true";
        return;
      }
      expectBox.dataset.done = "false";
      drawExpect(a.results, "Checking the expect lines…");
      chunk = Math.max(16, Math.min(chunk * 2, Math.round((chunk * SLICE_MS) / Math.max(took, 1))));
      await nextTask();
      if (gen !== generation) return;
    }
  };

  const check = async (gen) => {
    if (gen !== generation || !engine) return; // a newer change is queued, or no engine yet
    const text = src.value;
    const r = engine.check(text, NAME);
    showError(r);
    if (!r.ok) {
      widget = null;
      out.replaceChildren();
      verdicts = new Map(r.line > 0 ? [[r.line, "error"]] : []); // the margin marks the error's line
      expectBox.hidden = false;
      expectBox.dataset.done = "true";
      expectSummary.textContent = "The expect lines are checked once the scenario builds.";
      expectList.replaceChildren();
      drawGutter();
      return;
    }
    const host = el("div", "", { class: "tm-host" });
    // The widget's id is "tm", the page's own: its step, knobs and faults
    // follow in the address (?step=…), beside the text (#tdm=…).
    Object.assign(host.dataset, { source: text, name: NAME, base: PAGE, id: "tm", embedded: "", query: location.search });
    out.replaceChildren(host);
    widget = await window.tidemarkWidgets.open(host);
    delete host.dataset.query; // from now on the widget keeps its own state
    if (gen !== generation) return;
    await runExpect(gen, text);
  };

  const recheck = () => {
    const gen = ++generation;
    queue = queue.then(() => check(gen)).catch((err) => setProblem("engine", "The sandbox hit a problem: " + err.message));
    return queue;
  };

  let checkTimer = null;
  const textChanged = (edited) => {
    drawGutter();
    if (edited) saveSoon();
    clearTimeout(addressTimer);
    addressTimer = setTimeout(updateAddress, 300);
    clearTimeout(checkTimer);
    checkTimer = setTimeout(recheck, 250);
  };
  src.addEventListener("input", () => textChanged(true));
  form.addEventListener("submit", (e) => {
    if (!engine) return; // without the engine, the server checks the text
    e.preventDefault();
    clearTimeout(checkTimer);
    recheck();
  });

  // ---- Share and embed ----

  const site = (path) => new URL(path, location.href).href;
  const attr = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const titleText = () => {
    const w = out.querySelector(".tm-widget");
    return (w && (w.getAttribute("aria-label") || "").replace(/^Scenario: /, "")) || titleOf(src.value);
  };

  // state returns the widget's step, knobs and faults as a query ("?…"),
  // or "" when nothing is playing.
  const state = () => (widget && widget.query) || "";

  const snippets = (p) => {
    const q = new URLSearchParams(state());
    const step = q.get("step") || "";
    q.delete("step");
    const rest = q.toString();
    const title = titleText();
    let script;
    if (/<\/script|<!--/i.test(src.value)) {
      script = "<!-- This scenario's text contains </script or <!--, which cannot sit inside a script tag. " +
        "Put it in a .tdm file next to your page and point data-source at it: -->\n" +
        `<script src="${attr(site(SCRIPT))}" data-source="my-scenario.tdm"` + (step && step !== "0" ? ` data-step="${attr(step)}"` : "") +
        (rest ? ` data-knobs="${attr(rest)}"` : "") + " async></script>";
    } else {
      script = `<script type="text/x-tidemark">\n${src.value.replace(/\n$/, "")}\n</script>\n` +
        `<script src="${attr(site(SCRIPT))}"` + (step && step !== "0" ? ` data-step="${attr(step)}"` : "") +
        (rest ? ` data-knobs="${attr(rest)}"` : "") + " async></script>";
    }
    // A text too long for a link has the script tag alone: embed.js hands
    // such a text to its frame rather than put it in the frame's address.
    if (p === null) return { script };
    const frag = "#" + share.KEY + "=" + p;
    const iframe = `<iframe src="${attr(site(EMBED) + state() + frag)}" title="${attr(title + " — Tidemark")}" width="100%" height="800" loading="lazy" style="color-scheme: light"></iframe>`;
    const out = { link: site(PAGE) + state() + frag, iframe, script };
    if (PICTURE) {
      const pq = new URLSearchParams(state());
      pq.set("src", p);
      // The engine's words for what the picture shows (widget.Outcome),
      // as the scenario pages' snippets have them.
      const said = widget && widget.engine.snippets ? widget.engine.snippets(widget.id, "") : null;
      const alt = ((said && said.ok && said.alt) || title + (step && step !== "0" ? ", at step " + step : ", how it ends")).replace(/[[\]\\]/g, "\\$&");
      // The picture links to the sandbox with the same text and settings.
      out.picture = `[![${alt}](${site(PICTURE)}?${pq.toString()})](${out.link})`;
    }
    return out;
  };

  const copy = async (text, what) => {
    try {
      await navigator.clipboard.writeText(text);
      copied.textContent = what + " copied to the clipboard.";
      return true;
    } catch {
      copied.textContent = "The browser would not copy the " + what.toLowerCase() + ": select it below and copy it yourself.";
      return false;
    }
  };

  // linked shows the panel's fields that only a link can fill (the link,
  // the iframe, the picture), or, for a text too long for a link, hides
  // them and says why the script tag is left.
  const linked = (on) => {
    for (const id of ["play-link", "play-snippet-iframe", "play-snippet-picture"]) {
      const f = field(id);
      if (!f) continue;
      f.hidden = !on;
      const label = panel.querySelector(`label[for="${id}"]`);
      if (label) label.hidden = !on;
    }
    field("play-share-linked").hidden = !on;
    field("play-share-unlinked").hidden = on;
  };

  const openPanel = async (what) => {
    if (!share.supported()) {
      setProblem("share", "This browser cannot compress a scenario into a link (it lacks CompressionStream). Any current Chrome, Edge, Firefox or Safari can.");
      return;
    }
    let p = null;
    try {
      p = await share.encode(src.value);
    } catch (err) {
      // Too long for an address but not for a page (64 KB): the script
      // tag carries the text inline, and embed.js hands it to its frame.
      if (err.kind !== "too-long") {
        setProblem("share", err.message + " To embed it, save it as a file (Save as a file) and point embed.js's data-source at it.");
        return;
      }
      setProblem("share", err.message +
        " So it has no link, iframe or picture; the script tag under “Share or embed this scenario” carries it whole.");
    }
    if (p !== null) setProblem("share", "");
    const s = snippets(p);
    linked(p !== null);
    field("play-snippet-script").value = s.script;
    if (p !== null) {
      field("play-link").value = s.link;
      field("play-snippet-iframe").value = s.iframe;
      if (s.picture && field("play-snippet-picture")) field("play-snippet-picture").value = s.picture;
    }
    panel.hidden = false;
    if (p === null) {
      if (what === "embed") await copy(s.script, "Script tag");
    } else if (what === "share") await copy(s.link, "Link");
    else await copy(s.iframe, "Iframe snippet");
  };

  const shareButton = form.querySelector('[data-act="share"]');
  const embedButton = form.querySelector('[data-act="embed"]');
  const fileButton = form.querySelector('[data-act="save-file"]');
  shareButton.addEventListener("click", () => openPanel("share"));
  embedButton.addEventListener("click", () => openPanel("embed"));
  fileButton.addEventListener("click", () => download(fileNameOf(src.value), src.value, "text/plain"));
  // Each snippet is copied whole when clicked into.
  for (const box of panel.querySelectorAll(".play-snippet")) {
    box.addEventListener("focus", () => box.select());
  }

  // ---- Start ----

  // keepBrokenLink is set when the address's link could not be opened: the
  // address keeps it until the text changes, so that the learner can copy
  // it to report it, not find it replaced by the draft's own link at once.
  let keepBrokenLink = false;

  // initialText picks what the editor starts with: a link's text, a posted
  // text, the tab's own draft, or the page's example; a link's or a posted
  // text that differs from the tab's draft becomes a draft of its own.
  const initialText = async () => {
    const mine = tabId ? tryRead(PREFIX + tabId) : null;
    const fromPage = src.value;
    const p = share.payloadOf(location.hash);
    let given = null;
    // A reload, or an address this tab wrote itself, continues the tab's
    // draft: the address follows the text a moment behind it.
    const nav = performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
    const reloaded = nav ? nav.type === "reload" : false;
    if (mine && mine.ok && (reloaded || (p !== null && p === ownLink))) {
      lastSaved = mine.text;
      return mine.text;
    }
    if (p !== null) {
      try {
        if (!share.supported()) throw new Error("This browser cannot unpack it (it lacks DecompressionStream).");
        given = await share.decode(p);
      } catch (err) {
        setProblem("link", "The scenario in this page's address could not be opened. " + err.message + " " +
          (mine && mine.ok ? "This tab's draft is shown instead." : "The sandbox starts from its example instead."));
        keepBrokenLink = true;
      }
    } else if (src.dataset.posted === "on") {
      given = fromPage;
    }
    if (given !== null && p !== null) {
      payload = p;
      payloadText = given;
    }
    if (given !== null) {
      if (mine && mine.ok && mine.text === given) {
        lastSaved = given;
      } else {
        setTab(newId());
      }
      return given;
    }
    if (mine && mine.ok) {
      lastSaved = mine.text;
      return mine.text;
    }
    if (!tabId || mine) setTab(newId()); // mine here is an entry this page cannot read
    return fromPage;
  };

  window.addEventListener("hashchange", async () => {
    // A link pasted into this tab's address: open it as a new draft.
    const p = share.payloadOf(location.hash);
    if (p === null || p === payload) return;
    if (saveTimer) save();
    try {
      const text = await share.decode(p);
      setProblem("link", "");
      if (text === src.value) return;
      // As when another draft is opened: a text the browser could not
      // store is not replaced without asking.
      if (unsaved && !confirm("The text on this page is not saved in this browser. Open the linked scenario anyway, and lose it?")) {
        setProblem("link", "The linked scenario was not opened, so that your text, which this browser could not store, stays.");
        return;
      }
      setTab(newId());
      lastSaved = null;
      src.value = text;
      payload = p;
      payloadText = text;
      textChanged(false);
      renderDrafts();
    } catch (err) {
      setProblem("link", "The scenario in this page's address could not be opened. " + err.message + " Your text is unchanged.");
    }
  });

  const start = async () => {
    src.value = await initialText();
    drawGutter();
    renderDrafts();
    for (const b of [shareButton, embedButton, fileButton]) b.hidden = false;
    if (!keepBrokenLink) updateAddress();
    try {
      engine = await window.tidemarkWidgets.engine();
    } catch (err) {
      setProblem("engine", "The interactive engine could not start (" + err.message + ")." +
        (PICTURE ? " Run still checks the text on the server." : ""));
      return;
    }
    await recheck();
    document.documentElement.dataset.playReady = "true";
  };
  start();
})();
