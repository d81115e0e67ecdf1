// Tidemark lesson pages: predictions graded against the engine's answer key,
// and the learner's progress (sections read, predictions made and right) kept
// in localStorage, with export to a file and import from one.
//
// A lesson is a contents page and a page per chapter. Every page of it
// carries the lesson's outline (data-outline on the article: its chapters
// with their sections and predictions, and each prediction's options with
// the engine's verdicts), so progress is counted, shown in the table of
// contents, exported and imported for the whole lesson from any page of it.
//
// The answer key is computed by the engine on the server and rendered as
// data-verdict on each option; this file only compares and reveals. After a
// wrong answer, "Try again" lets the learner answer once more, for practice:
// the answer key has been shown, so a later try is graded on the page but
// never stored, and progress keeps the first answer locked in. Without
// scripts the page still works: each prediction has a <details> "Reveal".
//
// A main section counts as read once every part of it has been on screen
// while the page was at rest (see "Reading"), however tall it is.
//
// Apart from progress, each embed the learner moved is kept where they left
// it for the tab, in sessionStorage (see "Where each embed was left").
//
// Stored progress is never dropped without a word (docs/security.md, "How
// progress is stored"):
//   - A stored record this page cannot use whole (not JSON, not ours, a newer
//     version, or with entries it cannot read) is first copied, unchanged, to
//     a key of its own (tidemark.progress.aside.N) and listed under "Kept
//     aside" for the learner to save to a file; the entries that can be read
//     are used. When there is no room for the copy, the page writes nothing
//     over the record and says so.
//   - Every save re-reads what is stored and applies just the change made
//     (a section read, an answer, an import, a clear), so what another tab
//     saved meanwhile is kept; a `storage` event redraws from what is stored.
//   - A change the browser would not store is reported, kept on the page and
//     tried again with the next save; an import or a clear that could not be
//     stored is reported as not done.
//   - Import shows what it would change and merges unless the learner picks
//     replace; clearing asks first.
"use strict";

(() => {
  document.documentElement.classList.add("js");
  const article = document.querySelector("[data-lesson]");
  if (!article) {
    return;
  }
  const slug = article.dataset.lesson;
  const KEY = "tidemark.progress";
  const ASIDE = "tidemark.progress.aside.";
  const VERSION = 1;
  const ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
  // own is o[k] when o has k itself, else undefined: an id such as
  // "constructor" must not find what every object inherits.
  const own = (o, k) => (Object.hasOwn(o, k) ? o[k] : undefined);
  // answerOf is a stored answer: the option chosen, its grade, and, only
  // when true, that it was a later try, made after the answer key was shown.
  // This page stores no later try (see practice); a record from an earlier
  // version may hold one, which is read, kept and counted apart.
  const answerOf = (choice, right, retried) => (retried ? { choice, right, retried: true } : { choice, right });
  const MAX_FILE = 256 * 1024;
  const MAX_READ = 500;

  const panel = article.querySelector("[data-testid=progress]");
  const q = (id) => panel.querySelector("[data-testid=" + id + "]");
  const summary = q("progress-summary");
  const message = q("progress-message");
  const problemText = q("progress-problem");
  const unsavedText = q("progress-unsaved");
  const asideBox = q("progress-aside");
  const asideList = q("progress-aside-list");
  const sections = (article.dataset.sections || "").split(" ").filter(Boolean);
  const forms = [...article.querySelectorAll("form[data-prediction]")];
  const outline = (() => {
    try {
      const o = JSON.parse(article.dataset.outline || "{}");
      return { title: String(o.title || slug), chapters: Array.isArray(o.chapters) ? o.chapters : [], predictions: o.predictions || {}, others: o.others || {} };
    } catch {
      return { title: slug, chapters: [], predictions: {}, others: {} };
    }
  })();
  // Every lesson of the site: this one and those its outline names.
  const siteLessons = [slug, ...Object.keys(outline.others)];
  // lessonName names a lesson of the site for a sentence: "this lesson", or
  // another lesson by its title (its slug when the outline lacks it).
  const lessonName = (name) => {
    if (name === slug) {
      return "this lesson";
    }
    const o = own(outline.others, name);
    return "the lesson " + quoted(o && o.title ? o.title : name);
  };
  // Every prediction of the lesson, in page order across its chapters.
  const predictionIds = outline.chapters.flatMap((c) => c.predictions || []);
  const keyOf = (pid) => (Object.hasOwn(outline.predictions, pid) ? outline.predictions[pid] : null);
  const optionOf = (pid, choice) => {
    const k = keyOf(pid);
    return k && k.options.find((o) => o.id === choice);
  };
  const labelOf = (pid, choice) => {
    const o = optionOf(pid, choice);
    return o ? o.label : choice;
  };
  const questionOf = (pid) => {
    const k = keyOf(pid);
    return quoted(k ? k.question : pid, 100);
  };
  // otherQuestion is another lesson's prediction pid as the outline has it,
  // or undefined.
  const otherQuestion = (name, pid) => {
    const o = own(outline.others, name);
    return o && o.questions ? own(o.questions, pid) : undefined;
  };
  // predictionIn names prediction pid of lesson name for a sentence, by its
  // question (its id when the outline lacks it), and another lesson's with
  // the lesson it is in.
  const predictionIn = (name, pid) => {
    if (name === slug) {
      return "the prediction " + questionOf(pid);
    }
    const q = otherQuestion(name, pid);
    return "the prediction " + quoted(q && q.question ? q.question : pid, 100) + " in " + lessonName(name);
  };
  // labelIn is the label of option choice of prediction pid of lesson name
  // (the choice itself when the outline lacks it).
  const labelIn = (name, pid, choice) => {
    if (name === slug) {
      return labelOf(pid, choice);
    }
    const q = otherQuestion(name, pid);
    return (q && q.options && own(q.options, choice)) || choice;
  };

  const say = (text) => {
    message.textContent = text;
  };
  // setText changes an element's text only when it differs, so a live region
  // is not announced again for the same words.
  const setText = (el, text) => {
    if (el.textContent !== text) {
      el.textContent = text;
    }
  };
  const plural = (n, one, many) => n + " " + (n === 1 ? one : many);
  const quoted = (s, max = 48) => "“" + (s.length > max ? s.slice(0, max - 1) + "…" : s) + "”";
  const listed = (items, max = 3) =>
    items.slice(0, max).join("; ") + (items.length > max ? "; and " + (items.length - max) + " more" : "");
  const clone = (x) => JSON.parse(JSON.stringify(x));

  // ---- Reading a record ----

  const empty = () => ({ app: "tidemark", kind: "progress", version: VERSION, lessons: {} });
  const plain = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
  const lessonIn = (record, name) => {
    if (!Object.hasOwn(record.lessons, name)) {
      record.lessons[name] = { read: [], predictions: {} };
    }
    return own(record.lessons, name);
  };

  // parse reads a progress record, from storage or a file. It returns either
  // { fatal, version } when nothing in it can be used (fatal is "not-json",
  // "foreign", "newer", "version" or "no-lessons"), or { record, problems }:
  // every entry that can be read, and a description of each one that cannot.
  const parse = (text) => {
    let data;
    try {
      data = JSON.parse(text);
    } catch {
      return { fatal: "not-json" };
    }
    if (!plain(data) || data.app !== "tidemark" || data.kind !== "progress") {
      return { fatal: "foreign" };
    }
    if (data.version !== VERSION) {
      const newer = Number.isSafeInteger(data.version) && data.version > VERSION;
      return { fatal: newer ? "newer" : "version", version: String(data.version).slice(0, 20) };
    }
    if (!plain(data.lessons)) {
      return { fatal: "no-lessons" };
    }
    const problems = [];
    for (const k of Object.keys(data)) {
      if (!["app", "kind", "version", "exportedAt", "lessons"].includes(k)) {
        problems.push("an unexpected field, " + quoted(k));
      }
    }
    const out = empty();
    for (const [name, l] of Object.entries(data.lessons)) {
      if (!ID.test(name) || !plain(l)) {
        problems.push("the lesson entry " + quoted(name));
        continue;
      }
      for (const k of Object.keys(l)) {
        if (k !== "read" && k !== "predictions") {
          problems.push("an unexpected field in lesson " + quoted(name) + ", " + quoted(k));
        }
      }
      const read = [];
      if (l.read !== undefined) {
        if (!Array.isArray(l.read) || l.read.length > MAX_READ) {
          problems.push("the sections read in lesson " + quoted(name));
        } else {
          for (const s of l.read) {
            if (typeof s === "string" && ID.test(s)) {
              read.push(s);
            } else {
              problems.push("a section read in lesson " + quoted(name) + ", " + quoted(JSON.stringify(s) ?? "undefined"));
            }
          }
        }
      }
      const preds = {};
      if (l.predictions !== undefined) {
        if (!plain(l.predictions)) {
          problems.push("the predictions in lesson " + quoted(name));
        } else {
          for (const [pid, p] of Object.entries(l.predictions)) {
            const ok = ID.test(pid) && plain(p) && Object.keys(p).every((k) => k === "choice" || k === "right" || k === "retried") &&
              typeof p.choice === "string" && ID.test(p.choice) && typeof p.right === "boolean" &&
              (p.retried === undefined || typeof p.retried === "boolean");
            if (ok) {
              preds[pid] = answerOf(p.choice, p.right, p.retried);
            } else {
              problems.push("the prediction " + quoted(pid) + " in lesson " + quoted(name));
            }
          }
        }
      }
      out.lessons[name] = { read: [...new Set(read)], predictions: preds };
    }
    return { record: out, problems };
  };

  // whyUnusable says, after "it", why parse could not use a record whole.
  const whyUnusable = (p) => {
    switch (p.fatal) {
      case "not-json":
        return "is not valid JSON";
      case "foreign":
        return "is not a Tidemark progress record";
      case "newer":
        return "was written by a newer version of Tidemark (version " + p.version + ")";
      case "version":
        return "has a version this page does not know (" + p.version + ")";
      case "no-lessons":
        return "has no lessons in it";
    }
    return "has " + plural(p.problems.length, "entry", "entries") + " this page cannot read: " + listed(p.problems);
  };

  // ---- Storage ----

  const isQuota = (err) => err instanceof DOMException &&
    (err.name === "QuotaExceededError" || err.name === "NS_ERROR_DOM_QUOTA_REACHED" || err.code === 22);
  // Why a change was not stored, as the end of "…because …".
  const WHY = {
    full: "the browser's storage for this site is full",
    refused: "the browser refused to store it",
    unavailable: "this browser does not let the page store anything",
    blocked: "the progress already stored could not be read nor kept aside, and the page will not write over it",
  };

  const asideNumber = (key) => Number(key.slice(ASIDE.length)) || 0;
  const asideKeys = () => {
    const keys = [];
    try {
      for (let i = 0; i < localStorage.length; i++) {
        const k = localStorage.key(i);
        if (k !== null && k.startsWith(ASIDE)) {
          keys.push(k);
        }
      }
    } catch {
      return [];
    }
    return keys.sort((a, b) => asideNumber(a) - asideNumber(b));
  };

  // keepAside copies raw, unchanged, to a key of its own (unless an
  // identical copy is already there). It returns "" when raw is kept, or a
  // key of WHY.
  const keepAside = (raw) => {
    try {
      const keys = asideKeys();
      if (keys.some((k) => localStorage.getItem(k) === raw)) {
        return "";
      }
      const n = keys.reduce((m, k) => Math.max(m, asideNumber(k)), 0) + 1;
      localStorage.setItem(ASIDE + n, raw);
      return "";
    } catch (err) {
      return isQuota(err) ? "full" : "refused";
    }
  };

  // readStored reads the stored progress. It returns { record } (what can be
  // used, a fresh object), with { note } when part or all of the stored
  // record could not be used, { blocked } when it could not be kept aside
  // either (then nothing may be written over it), or { unavailable } when
  // the browser gives no storage at all.
  const readStored = () => {
    let raw;
    try {
      raw = localStorage.getItem(KEY);
    } catch {
      return { record: empty(), unavailable: true };
    }
    if (raw === null) {
      return { record: empty() };
    }
    const p = parse(raw);
    if (!p.fatal && p.problems.length === 0) {
      return { record: p.record };
    }
    const notKept = keepAside(raw);
    let note = "The progress stored in this browser " + whyUnusable(p) + ". ";
    note += p.fatal ? "This page starts from nothing" : "The rest of it is in use";
    note += !notKept
      ? "; the record, exactly as it was, is kept aside (below) for you to save to a file."
      : ". " + (notKept === "full" ? "There is no room to keep a copy of the record aside" : "The browser would not store a copy of the record aside") +
        ", so the page will store nothing over it until you save it to a file and delete it (below).";
    return { record: p.fatal ? empty() : p.record, note, blocked: notKept !== "", raw };
  };

  const write = (record) => {
    try {
      localStorage.setItem(KEY, JSON.stringify(record));
      return "";
    } catch (err) {
      return isQuota(err) ? "full" : "refused";
    }
  };

  // state is what the page shows: the stored progress with the pending
  // changes applied. pending holds changes made in passing (a section read,
  // an answer) that could not be stored yet; each save tries them again.
  let state = empty();
  let pending = [];
  let unsavedWhy = "";
  let last = { record: empty() }; // the latest readStored result

  // regrade grades this lesson's predictions in r again with this page's
  // answer key, which every page of the lesson carries, and says whether a
  // grade changed. A grade the key does not give comes from another
  // lesson's page, which imports this lesson's answers as a file has them,
  // or from a file made by hand. Every read of the stored progress goes
  // through it, so a page never shows such a grade, not even one saved by
  // another tab while it is open.
  const regrade = (r) => {
    const l = own(r.lessons, slug);
    let changed = false;
    for (const [pid, p] of Object.entries(l ? l.predictions : {})) {
      const o = optionOf(pid, p.choice);
      if (o && p.right !== (o.right === true)) {
        p.right = o.right === true;
        changed = true;
      }
    }
    return changed;
  };

  // update re-reads the stored progress (keeping what another tab saved),
  // replays the pending changes, applies change, and stores the result. An
  // explicit change (import, clear) that cannot be stored is dropped, and
  // the page shows what is stored; any other is kept pending. With no change
  // it tries to store the pending ones. It returns "" when stored, or a key
  // of WHY.
  const update = (change, explicit) => {
    last = readStored();
    const record = last.record;
    for (const c of pending) {
      c(record);
    }
    regrade(record);
    const before = clone(record);
    if (change) {
      change(record);
    }
    const why = last.unavailable ? "unavailable" : last.blocked ? "blocked" : write(record);
    if (!why) {
      pending = [];
      unsavedWhy = "";
      state = record;
    } else if (explicit) {
      state = before;
    } else {
      if (change) {
        pending.push(change);
      }
      unsavedWhy = why;
      state = record;
    }
    redraw();
    return why;
  };

  // refresh redraws from what is stored, with the pending changes on top.
  const refresh = () => {
    last = readStored();
    state = last.record;
    for (const c of pending) {
      c(state);
    }
    regrade(state); // shown graded; stored so with the next save
    redraw();
  };

  // ---- Drawing ----

  const mine = () => own(state.lessons, slug) || { read: [], predictions: {} };

  const render = () => {
    const l = mine();
    const read = l.read.filter((s) => sections.includes(s));
    const answered = predictionIds.filter((pid) => own(l.predictions, pid));
    const right = answered.filter((pid) => own(l.predictions, pid).right);
    const first = right.filter((pid) => !own(l.predictions, pid).retried);
    const later = right.length - first.length;
    setText(summary, "Sections read: " + read.length + " of " + sections.length +
      ". Predictions made: " + answered.length + " of " + predictionIds.length + ", " + first.length + " right" +
      (later ? ", " + later + " more on a later try." : "."));
    drawContents(l);
    for (const id of sections) {
      const mark = article.querySelector("#" + CSS.escape(id) + " [data-testid=read-mark]");
      if (mark) {
        mark.hidden = !l.read.includes(id);
      }
    }
    for (const f of forms) {
      showPrediction(f, own(l.predictions, f.dataset.prediction));
    }
  };

  // drawContents shows each chapter's progress in the table of contents,
  // and on the contents page points its first link at where to go on.
  const drawContents = (l) => {
    let next = null;
    for (const c of outline.chapters) {
      const secs = c.sections || [];
      const preds = c.predictions || [];
      const read = secs.filter((s) => l.read.includes(s)).length;
      const answered = preds.filter((p) => own(l.predictions, p)).length;
      const done = read === secs.length && answered === preds.length;
      if (!done && !next) {
        next = c;
      }
      const li = article.querySelector("[data-testid=toc-chapter][data-chapter='" + CSS.escape(c.id) + "']");
      const badge = li && li.querySelector("[data-testid=toc-progress]");
      if (!badge) {
        continue;
      }
      li.dataset.done = done ? "true" : "false";
      const parts = [read + " of " + plural(secs.length, "section", "sections") + " read"];
      if (preds.length > 0) {
        parts.push(answered + " of " + plural(preds.length, "prediction", "predictions") + " answered");
      }
      if (!done) {
        setText(badge, read + answered === 0 ? "(not started)" : "(" + parts.join(", ") + ")");
      } else if (badge.textContent !== "(✓ done)") {
        // The tick is hidden from screen readers, which would say "check
        // mark" before the word that says it.
        const tick = document.createElement("span");
        tick.setAttribute("aria-hidden", "true");
        tick.textContent = "✓";
        badge.replaceChildren("(", tick, " done)");
      }
    }
    const start = article.querySelector("[data-testid=lesson-start]");
    const began = l.read.length + Object.keys(l.predictions).length > 0;
    if (start && began) {
      const i = next ? outline.chapters.indexOf(next) : -1;
      start.href = next ? next.href : outline.chapters[0].href;
      setText(start, next ? "Continue with chapter " + (i + 1) + ": " + next.title : "Every chapter done; start again from chapter 1");
    }
  };

  // practice holds, by prediction id, a later try at a prediction whose
  // answer key the learner has seen: { first } (the stored answer it is a
  // try after) while they choose, then also { choice, right } once locked
  // in. It is practice and never stored: progress measures the predictions
  // made before the key was shown, so a later try cannot turn a wrong
  // answer into a right one.
  const practice = new Map();
  const same = (a, b) => !!a && !!b && a.choice === b.choice && a.right === b.right && !a.retried === !b.retried;

  const showPrediction = (f, p) => {
    const pid = f.dataset.prediction;
    const result = f.querySelector("[data-testid=prediction-result]");
    const inputs = [...f.querySelectorAll("input[type=radio]")];
    const submit = f.querySelector("[data-testid=prediction-submit]");
    const retry = f.querySelector("[data-testid=prediction-retry]");
    const reveal = f.querySelector("details");
    if (practice.has(pid) && !same(p, practice.get(pid).first)) {
      // The answer changed elsewhere (another tab, an import, a clear):
      // show what is stored now.
      practice.delete(pid);
      delete f.dataset.retrying;
    }
    const tried = practice.get(pid);
    if (!p || (tried && tried.choice === undefined)) {
      // Redrawn whenever progress changes (a section read, another answer):
      // leave a choice the learner is still making alone, and clear only an
      // answer that progress no longer holds.
      if (f.dataset.graded) {
        inputs.forEach((i) => { i.checked = false; });
        result.textContent = "";
      }
      f.removeAttribute("data-graded");
      inputs.forEach((i) => { i.disabled = false; });
      submit.hidden = false;
      retry.hidden = true;
      reveal.hidden = true; // the key waits until the learner commits
      reveal.open = false;
      return;
    }
    delete f.dataset.retrying;
    // The answer shown is the last locked in: a later try's, when there is
    // one, else the stored answer.
    const shown = tried || p;
    if (tried) {
      f.dataset.practice = "true";
    } else {
      delete f.dataset.practice;
    }
    inputs.forEach((i) => { i.checked = i.value === shown.choice; i.disabled = true; });
    submit.hidden = true;
    retry.hidden = shown.right; // a wrong answer can be tried again, once its why is seen
    const correct = inputs.filter((i) => i.dataset.verdict === "true").map((i) => labelOf(f.dataset.prediction, i.value));
    const graded = shown.right ? "right" : "wrong";
    let text;
    if (tried) {
      // A stored answer marked retried (see answerOf) was not the first.
      text = (tried.right ? "Right this time — the engine agrees with you." : "Not this time either. The engine's answer: " + correct.join("; ") + ".") +
        " This try was practice: your progress counts " + (p.retried ? "the answer it holds, " : "your first answer, ") +
        quoted(labelOf(pid, p.choice), 100) + ", which was not right.";
    } else if (p.right) {
      text = p.retried ? "Right on a later try — the engine agrees with you now." : "Right — the engine agrees with you.";
    } else {
      text = "Not this time. The engine's answer: " + correct.join("; ") + ". You may try again for practice: your progress counts " +
        (p.retried ? "the answer it holds." : "your first answer.");
    }
    if (f.dataset.graded !== graded || result.textContent !== text) {
      f.dataset.graded = graded;
      result.textContent = text;
    }
    if (reveal.hidden) {
      reveal.hidden = false;
      reveal.open = true;
    }
  };

  // keptRecords lists the records left as they were: the copies kept aside,
  // and the stored record itself when it could not be copied.
  const keptRecords = () => {
    const out = [];
    try {
      for (const key of asideKeys()) {
        out.push({ key, raw: localStorage.getItem(key) ?? "", name: "Kept-aside record " + asideNumber(key) });
      }
    } catch {
      return out;
    }
    if (last.blocked) {
      out.push({ key: KEY, raw: last.raw, name: "The stored progress record" });
    }
    return out;
  };

  let asideDrawn = "";
  const drawAside = () => {
    const kept = keptRecords();
    const sig = kept.map((k) => k.key + "\u0000" + k.raw.length).join("\u0001");
    if (sig === asideDrawn) {
      return;
    }
    asideDrawn = sig;
    asideBox.hidden = kept.length === 0;
    asideList.replaceChildren(...kept.map((k) => {
      const li = document.createElement("li");
      li.dataset.key = k.key;
      const text = document.createElement("p");
      text.textContent = k.name + ": it " + whyUnusable(parse(k.raw)) + " (" + plural(k.raw.length, "character", "characters") + ").";
      const actions = document.createElement("div");
      actions.className = "progress-actions";
      const save = button("Save " + k.name.toLowerCase() + " to a file", "progress-aside-export", () => {
        const file = "tidemark-progress-kept-aside" + (k.key === KEY ? "" : "-" + asideNumber(k.key)) + (parse(k.raw).fatal === "not-json" ? ".txt" : ".json");
        download(k.raw, file);
        say(k.name + " saved to " + file + ", exactly as it was stored.");
      });
      const del = button("Delete " + k.name.toLowerCase() + "…", "progress-aside-delete", async () => {
        const yes = await confirmAction({
          title: "Delete " + k.name.toLowerCase() + "?",
          text: "This page cannot read it, and once deleted it cannot be recovered. Save it to a file first if you may want it.",
          yes: "Delete it", no: "Keep it", opener: del,
        });
        if (!yes) {
          say(k.name + " is kept.");
          return;
        }
        if (k.key !== KEY && last.raw === k.raw) {
          // The stored record is still this one: store what the page uses in
          // its place first, or the next read would set it aside again.
          update(null, false);
        }
        try {
          localStorage.removeItem(k.key);
        } catch {
          say(k.name + " could not be deleted: " + WHY.refused + ".");
          return;
        }
        say(k.name + " deleted.");
        if (pending.length > 0) {
          update(null, false); // it may have been what kept them from being stored
        } else {
          refresh();
        }
        q("progress-export").focus(); // the deleted record's buttons are gone
      });
      actions.append(save, del);
      li.append(text, actions);
      return li;
    }));
  };

  const button = (text, testid, onClick) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "tm-btn";
    b.dataset.testid = testid;
    b.textContent = text;
    b.addEventListener("click", onClick);
    return b;
  };

  // keptNote is the last word on a record set aside; it stays while any
  // record is kept aside, though later reads find the stored record sound.
  let keptNote = "";
  const redraw = () => {
    drawAside();
    keptNote = last.note || (asideList.children.length > 0 ? keptNote : "");
    let problem = keptNote;
    if (last.unavailable) {
      problem = "This browser does not let the page store anything, so progress lasts only while the page is open. Export it to a file to keep it.";
    }
    setText(problemText, problem);
    setText(unsavedText, pending.length === 0 ? "" :
      plural(pending.length, "change", "changes") + " on this page " + (pending.length === 1 ? "is" : "are") +
      " not stored, because " + WHY[unsavedWhy] + ". " +
      (pending.length === 1 ? "It stays" : "They stay") + " here while the page is open and will be stored with the next save that works; export your progress to a file to be sure of it.");
    render();
  };

  // ---- Dialogs ----

  // openDialog shows dialog as a modal (keyboard focus stays inside; Escape
  // closes it) and resolves with the value it was closed with ("" for
  // Escape). Focus goes back to opener afterwards.
  const openDialog = (dialog, opener) => new Promise((resolve) => {
    dialog.returnValue = "";
    dialog.addEventListener("close", () => {
      if (opener && opener.isConnected) {
        opener.focus();
      }
      resolve(dialog.returnValue);
    }, { once: true });
    dialog.showModal();
  });

  const confirmDialog = q("progress-confirm");
  const confirmYes = q("progress-confirm-yes");
  const confirmNo = q("progress-confirm-no");
  confirmYes.addEventListener("click", () => confirmDialog.close("yes"));
  confirmNo.addEventListener("click", () => confirmDialog.close("no"));
  const confirmAction = async ({ title, text, yes, no, opener }) => {
    q("progress-confirm-title").textContent = title;
    q("progress-confirm-text").textContent = text;
    confirmYes.textContent = yes;
    confirmNo.textContent = no;
    return (await openDialog(confirmDialog, opener)) === "yes";
  };

  // ---- Predictions and reading ----

  for (const f of forms) {
    f.addEventListener("submit", (e) => {
      e.preventDefault();
      const chosen = f.querySelector("input[type=radio]:checked");
      if (!chosen) {
        f.querySelector("[data-testid=prediction-result]").textContent = "Choose an answer first.";
        return;
      }
      const pid = f.dataset.prediction;
      const tried = practice.get(pid);
      if (tried) {
        // A later try comes after the answer key was shown: it is graded
        // here and stored nowhere, so progress keeps the first answer.
        tried.choice = chosen.value;
        tried.right = chosen.dataset.verdict === "true";
        render();
      } else {
        const answer = answerOf(chosen.value, chosen.dataset.verdict === "true", false);
        let earlier = false;
        const why = update((r) => {
          const l = lessonIn(r, slug);
          // An answer is locked in once: one made in another tab stands.
          if (own(l.predictions, pid)) {
            earlier = true;
          } else {
            l.predictions[pid] = answer;
          }
        }, false);
        if (why) {
          say("Your answer is shown but not stored, because " + WHY[why] + ".");
        } else if (earlier) {
          say("You had already answered this prediction in another tab; that answer is kept.");
        }
      }
      // The lock-in button is gone and the options are disabled: focus goes
      // on to what comes next, not back to the page's start.
      const next = f.querySelector("[data-testid=prediction-retry]:not([hidden])") || f.querySelector("[data-testid=prediction-result]");
      if (next && (document.activeElement === document.body || !document.activeElement || document.activeElement.hidden || document.activeElement.disabled)) {
        if (!next.matches("button")) next.setAttribute("tabindex", "-1");
        next.focus();
      }
    });
    const retry = f.querySelector("[data-testid=prediction-retry]");
    retry.addEventListener("click", () => {
      const pid = f.dataset.prediction;
      const p = own(mine().predictions, pid);
      if (!p || p.right) {
        return;
      }
      practice.set(pid, { first: { ...p } });
      f.dataset.retrying = "true";
      f.removeAttribute("data-graded");
      f.querySelectorAll("input[type=radio]").forEach((i) => { i.checked = false; });
      render();
      f.querySelector("[data-testid=prediction-result]").textContent =
        "Choose again, for practice: your progress keeps your first answer, whatever you choose now.";
      const first = f.querySelector("input[type=radio]");
      if (first) {
        first.focus();
      }
    });
  }

  // ---- Embeds played with other settings ----
  //
  // Under each embed the page prints how the run ends with the settings the
  // text uses (its text equivalent, drawn by the server). Once the learner
  // sets a knob of the widget otherwise, that summary no longer describes
  // the widget above it: its title says so, and names what the widget
  // plays now (its knobs, and the faults the learner added), until they
  // are set back.
  const SUMMARY = "How it ends with these settings:";
  const checkEmbedKnobs = (fig) => {
    const title = fig.querySelector(".embed-summary-title");
    if (!title) {
      return;
    }
    const changed = [];
    for (const kv of (fig.dataset.knobs || "").split(" ").filter(Boolean)) {
      const [name, value] = kv.split("=");
      const on = fig.querySelector(".tm-knob[data-knob='" + CSS.escape(name) + "'] input[type=radio]:checked");
      if (on && on.value !== value) {
        changed.push(name + "=" + on.value);
      }
    }
    // The widget's link to its own page carries its faults (widget.js):
    // the text gives an embed none, so each is one the learner added.
    const own = fig.querySelector('a[data-testid="embed-link"]');
    const faults = own ? new URL(own.href, location.href).searchParams.getAll("fault").length : 0;
    if (faults > 0) {
      changed.push(faults === 1 ? "the fault you added" : faults + " faults you added");
    }
    const plays = changed.length > 1 ? changed.slice(0, -1).join(", ") + " and " + changed[changed.length - 1] : changed[0];
    setText(title, changed.length === 0 ? SUMMARY
      : "How it ends with the settings the text uses, listed here; the widget above now plays " + plays + ":");
  };
  for (const fig of article.querySelectorAll("figure.scenario-embed")) {
    fig.addEventListener("change", (e) => {
      if (e.target.matches(".tm-knob input")) {
        checkEmbedKnobs(fig);
      }
    });
    // The widget draws itself anew when its knobs change (by a knob, or a
    // button that resets them).
    const host = fig.querySelector(".tm-host");
    if (host && "MutationObserver" in window) {
      new MutationObserver(() => checkEmbedKnobs(fig)).observe(host, { childList: true });
    }
  }

  // ---- Where each embed was left ----
  //
  // An embed the learner moved (a step, a knob, a fault, the truth) opens
  // there again after a reload or a step back in the tab's history. The
  // page's address cannot hold the places of its many embeds, so each is
  // kept in sessionStorage, under the page's path and the embed's id, as
  // its link to its own page (which widget.js keeps where the widget is),
  // from the learner's first move on. It is no progress: it is neither
  // exported nor imported. What is read back is untrusted: only a value for
  // the embed's own scenario, of a link's size, reaches widget.js (as
  // data-kept, before the engine starts: app.js starts it once the
  // deferred scripts have run), which opens the embed there only if the
  // engine takes it as it takes a link, without a word. A storage that
  // throws (private mode, a full quota) keeps nothing.
  const KEPT = "tidemark.embed:";
  const KEPT_MAX = 4000; // characters of one embed's link
  const KEPT_KEYS = 100; // embeds kept in a tab, over every page
  const here = KEPT + location.pathname + "#";
  const session = (f) => {
    try {
      return f(sessionStorage);
    } catch {
      return null;
    }
  };
  // keepAt stores link under key. The old value goes first, so that a
  // write the browser refuses leaves no older place to come back to; and
  // KEPT_KEYS reached, the other pages' embeds are forgotten.
  const keepAt = (key, link) => session((s) => {
    s.removeItem(key);
    const ours = Object.keys(s).filter((k) => k.startsWith(KEPT));
    if (ours.length >= KEPT_KEYS) {
      ours.forEach((k) => k.startsWith(here) || s.removeItem(k));
    }
    if (link.length <= KEPT_MAX) {
      s.setItem(key, link);
    }
  });
  for (const fig of article.querySelectorAll("figure.scenario-embed")) {
    const host = fig.querySelector(".tm-host[data-query]");
    const link = fig.querySelector('a[data-testid="embed-link"]');
    if (!host || !link) {
      continue;
    }
    const key = here + host.dataset.id;
    const base = host.dataset.base + "?";
    const was = session((s) => s.getItem(key));
    if (was && was.length <= KEPT_MAX && was.startsWith(base)) {
      host.dataset.kept = was.slice(base.length);
    }
    let opened = null;
    let moved = false;
    new MutationObserver(() => {
      const now = link.getAttribute("href");
      if (opened === null) {
        // The widget's first drawing. Without data-kept it opened where
        // the text has it: a value kept was not taken, and goes.
        opened = now;
        if (!host.dataset.kept) {
          session((s) => s.removeItem(key));
        }
        return;
      }
      moved = moved || now !== opened;
      if (moved) {
        keepAt(key, now);
      }
    }).observe(link, { attributes: true, attributeFilter: ["href"] });
  }

  // ---- Reading ----
  //
  // A main section counts as read once every part of it has been on screen.
  // Its pieces are its blocks (a paragraph, a list, a scenario, a table) and
  // those of its parts; each piece is cut into BANDS equal bands, and a band
  // counts as seen when any of it was in the viewport while the page was at
  // rest for SETTLE ms and visible. So a section of any height can be read
  // to the end, one flung past is not, and a piece that changes height (a
  // widget the engine takes over) moves no other piece's record. A look
  // measures where every piece is at that moment rather than trusting an
  // IntersectionObserver's last report, which can arrive after a look that
  // follows a scroll; the observer only says when the page has moved under
  // the reader (a widget drawn above them), and without it nothing is
  // marked read on its own.
  const BANDS = 8;
  const SETTLE = 300;
  const markRead = (id) => {
    if (mine().read.includes(id)) {
      return;
    }
    const why = update((r) => {
      const l = lessonIn(r, slug);
      if (!l.read.includes(id)) {
        l.read.push(id);
      }
    }, false);
    if (why) {
      say("A section you read is not stored, because " + WHY[why] + ".");
    }
  };
  const bandsOf = new WeakMap(); // piece → one flag per band
  const piecesOf = (section) => [...section.children].flatMap((c) =>
    c.tagName === "SECTION" ? [...c.children] : [c]);
  const watched = [...article.querySelectorAll("section[data-main]")]
    .filter((el) => sections.includes(el.dataset.section));
  let looks = 0; // how many times the page has taken in what is on screen
  const look = () => {
    if (document.visibilityState === "hidden") {
      return;
    }
    looks++;
    const vh = window.innerHeight || document.documentElement.clientHeight;
    for (const el of watched) {
      const id = el.dataset.section;
      if (mine().read.includes(id)) {
        continue;
      }
      const box = el.getBoundingClientRect();
      if (box.bottom <= 0 || box.top >= vh) {
        continue;
      }
      let all = true;
      for (const piece of piecesOf(el)) {
        const r = piece.getBoundingClientRect();
        let bands = bandsOf.get(piece);
        if (!bands) {
          bands = new Uint8Array(BANDS);
          bandsOf.set(piece, bands);
        }
        if (r.height <= 0) {
          bands.fill(1); // nothing to see
        }
        for (let i = 0; i < BANDS; i++) {
          const top = r.top + (r.height * i) / BANDS;
          const bottom = r.top + (r.height * (i + 1)) / BANDS;
          if (bottom > 0 && top < vh) {
            bands[i] = 1;
          }
        }
        all = all && bands.every(Boolean);
      }
      if (all) {
        markRead(id);
      }
    }
  };
  let resting = 0;
  const atRest = () => {
    clearTimeout(resting);
    resting = setTimeout(look, SETTLE);
  };
  if ("IntersectionObserver" in window) {
    const io = new IntersectionObserver(atRest);
    for (const el of watched) {
      io.observe(el);
    }
    window.addEventListener("scroll", atRest, { passive: true });
    window.addEventListener("resize", atRest, { passive: true });
    document.addEventListener("visibilitychange", atRest);
  }
  // seenOf says how much of a section on this page has been seen, from 0
  // to 1 (1 once it is read).
  const seenOf = (id) => {
    const el = article.querySelector("section[data-main][data-section='" + CSS.escape(id) + "']");
    if (!el) {
      return 0;
    }
    if (mine().read.includes(id)) {
      return 1;
    }
    const pieces = piecesOf(el);
    const n = pieces.reduce((sum, p) => sum + (bandsOf.get(p) || []).reduce((a, b) => a + b, 0), 0);
    return n / (pieces.length * BANDS);
  };

  // Another tab saved, cleared or set a record aside: show what is stored now.
  window.addEventListener("storage", (e) => {
    if (e.storageArea === localStorage && (e.key === null || e.key === KEY || e.key.startsWith(ASIDE))) {
      refresh();
    }
  });

  // ---- Export ----

  const download = (text, name) => {
    const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  const exportText = () => JSON.stringify({ ...state, exportedAt: new Date().toISOString() }, null, 2);

  q("progress-export").addEventListener("click", () => {
    download(exportText(), "tidemark-progress.json");
    say("Progress exported to tidemark-progress.json.");
  });

  // ---- Import ----

  // readFile checks a file's text. It returns { record } or { refused }: a
  // sentence saying why nothing can be imported from it.
  const readFile = (text) => {
    if (text.length > MAX_FILE) {
      return { refused: "That file is too large to be a Tidemark progress file." };
    }
    const p = parse(text);
    switch (p.fatal) {
      case undefined:
        break;
      case "not-json":
        return { refused: "That file is not valid JSON." };
      case "foreign":
        return { refused: "That file is not a Tidemark progress file." };
      case "newer":
        return { refused: "That progress file comes from a newer version of Tidemark (version " + p.version + ")." };
      case "version":
        return { refused: "That progress file comes from a different version of Tidemark (version " + p.version + ")." };
      default:
        return { refused: "That progress file has no lessons in it." };
    }
    if (p.problems.length > 0) {
      return { refused: "That progress file has " + plural(p.problems.length, "entry", "entries") + " Tidemark cannot read: " + listed(p.problems) + "." };
    }
    return { record: p.record };
  };

  // match keeps the entries of a file that name something on this site: for
  // this lesson, its sections and its predictions with one of their options
  // (graded again with this page's answer key); for the site's other
  // lessons, their entries as they are (their own pages check them). It
  // returns the matching progress and what matched nothing.
  const match = (file) => {
    const lessons = {};
    const unmatched = [];
    for (const [name, l] of Object.entries(file.lessons)) {
      if (name === slug) {
        const read = [];
        for (const s of l.read) {
          if (sections.includes(s)) {
            read.push(s);
          } else {
            unmatched.push("section " + quoted(s) + " of this lesson");
          }
        }
        const predictions = {};
        for (const [pid, p] of Object.entries(l.predictions)) {
          const o = optionOf(pid, p.choice);
          if (o) {
            predictions[pid] = answerOf(p.choice, o.right === true, p.retried);
          } else if (keyOf(pid)) {
            unmatched.push("answer " + quoted(p.choice) + " to the prediction " + questionOf(pid));
          } else {
            unmatched.push("prediction " + quoted(pid) + " of this lesson");
          }
        }
        if (read.length > 0 || Object.keys(predictions).length > 0) {
          lessons[name] = { read, predictions };
        }
      } else if (siteLessons.includes(name)) {
        if (l.read.length > 0 || Object.keys(l.predictions).length > 0) {
          lessons[name] = clone(l);
        }
      } else {
        unmatched.push("lesson " + quoted(name));
      }
    }
    return { lessons, unmatched };
  };

  const mergeChange = (lessons) => (r) => {
    for (const [name, l] of Object.entries(lessons)) {
      const here = lessonIn(r, name);
      for (const s of l.read) {
        if (!here.read.includes(s) && here.read.length < MAX_READ) {
          here.read.push(s);
        }
      }
      for (const [pid, p] of Object.entries(l.predictions)) {
        if (!own(here.predictions, pid)) {
          here.predictions[pid] = { ...p };
        }
      }
    }
  };
  const replaceChange = (lessons) => (r) => {
    r.lessons = clone(lessons);
  };

  // whichTry says when an answer was given, as the previews word it.
  const whichTry = (p) => (p.retried ? "on a later try" : "at the first try");

  // effects describes, in sentences, how progress `to` differs from `from`.
  const effects = (from, to) => {
    const out = [];
    const names = [...new Set([...Object.keys(from.lessons), ...Object.keys(to.lessons)])];
    for (const name of names) {
      const a = own(from.lessons, name) || { read: [], predictions: {} };
      const b = own(to.lessons, name) || { read: [], predictions: {} };
      const where = lessonName(name);
      const addRead = b.read.filter((s) => !a.read.includes(s)).length;
      const loseRead = a.read.filter((s) => !b.read.includes(s)).length;
      const addPred = Object.keys(b.predictions).filter((p) => !own(a.predictions, p)).length;
      const losePred = Object.keys(a.predictions).filter((p) => !own(b.predictions, p)).length;
      const changed = Object.keys(b.predictions).filter((p) => own(a.predictions, p) && own(a.predictions, p).choice !== own(b.predictions, p).choice);
      if (addRead + addPred > 0) {
        out.push("Adds " + [addRead && plural(addRead, "section read", "sections read"), addPred && plural(addPred, "answer", "answers")].filter(Boolean).join(" and ") + " to " + where + ".");
      }
      if (loseRead + losePred > 0) {
        out.push("Forgets " + [loseRead && plural(loseRead, "section read", "sections read"), losePred && plural(losePred, "answer", "answers")].filter(Boolean).join(" and ") + " in " + where + " that the file does not have.");
      }
      for (const pid of changed) {
        out.push("Changes your answer to " + predictionIn(name, pid) + " from " + quoted(labelIn(name, pid, own(a.predictions, pid).choice)) +
          " to the file's " + quoted(labelIn(name, pid, own(b.predictions, pid).choice)) + ".");
      }
      // The same choice, counted as first given or on a later try as the
      // file has it: the summary counts the two apart.
      const recounted = Object.keys(b.predictions).filter((p) => own(a.predictions, p) && own(a.predictions, p).choice === own(b.predictions, p).choice &&
        !own(a.predictions, p).retried !== !own(b.predictions, p).retried);
      for (const pid of recounted) {
        out.push("Counts your answer to " + predictionIn(name, pid) + " as given " + whichTry(own(b.predictions, pid)) + ", as the file does.");
      }
    }
    return out;
  };
  // kept lists the answers a merge leaves as they are although the file has another.
  const keptAnswers = (from, lessons) => {
    const out = [];
    for (const [name, l] of Object.entries(lessons)) {
      const here = own(from.lessons, name);
      for (const [pid, p] of Object.entries(l.predictions)) {
        const mineP = here && own(here.predictions, pid);
        if (mineP && mineP.choice !== p.choice) {
          out.push("Keeps your answer to " + predictionIn(name, pid) +
            " (" + quoted(labelIn(name, pid, mineP.choice)) + "); the file has " + quoted(labelIn(name, pid, p.choice)) + ".");
        } else if (mineP && !mineP.retried !== !p.retried) {
          out.push("Keeps your answer to " + predictionIn(name, pid) + " as given " + whichTry(mineP) + "; the file counts it as given " + whichTry(p) + ".");
        }
      }
    }
    return out;
  };

  // plan works out what importing text would do to the progress shown now.
  // It returns { refused } or { lessons, unmatched, merge, replace } where
  // merge and replace list the effects of each, in sentences.
  const plan = (text) => {
    const file = readFile(text);
    if (file.refused) {
      return { refused: file.refused };
    }
    const { lessons, unmatched } = match(file.record);
    if (Object.keys(lessons).length === 0) {
      const names = unmatched.length > 0 ? " It names " + listed(unmatched) + "." : " It holds no progress.";
      return { refused: "Nothing in that file matches a lesson, section or prediction on this site." + names };
    }
    const now = clone(state);
    const merged = clone(now);
    mergeChange(lessons)(merged);
    const replaced = clone(now);
    replaceChange(lessons)(replaced);
    const merge = [...effects(now, merged), ...keptAnswers(now, lessons)];
    const replace = effects(now, replaced);
    if (effects(now, merged).length === 0 && replace.length === 0) {
      return { refused: "Everything in that file is already here." };
    }
    return { lessons, unmatched, merge, replace };
  };

  // apply imports a plan's progress by merge or replace, and returns the
  // message shown to the learner.
  const apply = (p, mode) => {
    const why = update(mode === "replace" ? replaceChange(p.lessons) : mergeChange(p.lessons), true);
    if (why) {
      return { ok: false, message: "Nothing was imported, because " + WHY[why] + ". Your stored progress is unchanged." };
    }
    return { ok: true, message: mode === "replace" ? "Progress replaced with the file's." : "Progress imported: the file's progress was merged with yours." };
  };

  const importDialog = q("progress-import-dialog");
  const importMerge = q("progress-import-merge");
  q("progress-import-confirm").addEventListener("click", () => {
    importDialog.close(q("progress-import-replace").checked ? "replace" : "merge");
  });
  q("progress-import-cancel").addEventListener("click", () => importDialog.close("cancel"));
  const fill = (list, items) => {
    list.replaceChildren(...items.map((t) => {
      const li = document.createElement("li");
      li.textContent = t;
      return li;
    }));
  };

  // previewImport shows what importing text would change and imports it the
  // way the learner picks (merge unless they choose replace). It resolves
  // with { ok, message }.
  const previewImport = async (text, fileName, opener) => {
    const p = plan(text);
    if (p.refused) {
      return { ok: false, message: p.refused + " Nothing was imported; your progress is unchanged." };
    }
    q("progress-import-title").textContent = "Import progress from " + quoted(fileName) + "?";
    q("progress-import-about").textContent = "Pick how. Nothing changes until you choose Import.";
    fill(q("progress-import-merge-effect"), p.merge.length > 0 ? p.merge : ["Adds nothing: everything in the file is already here."]);
    fill(q("progress-import-replace-effect"), p.replace.length > 0 ? p.replace : ["Changes nothing."]);
    q("progress-import-skipped").textContent = p.unmatched.length > 0
      ? "Not imported either way, because nothing on this site matches them: " + listed(p.unmatched, 6) + "."
      : "";
    importMerge.checked = true; // merging is the default; replacing is a choice
    const mode = await openDialog(importDialog, opener);
    if (mode !== "merge" && mode !== "replace") {
      return { ok: false, message: "Import cancelled; your progress is unchanged." };
    }
    return apply(p, mode);
  };

  const fileInput = q("progress-import");
  fileInput.addEventListener("change", async () => {
    const file = fileInput.files && fileInput.files[0];
    fileInput.value = "";
    if (!file) {
      return;
    }
    let text;
    try {
      text = file.size > MAX_FILE ? "x".repeat(MAX_FILE + 1) : await file.text();
    } catch (e) {
      // The file went away or changed after it was picked, or the
      // browser may not read it: say so rather than nothing.
      say("The file " + quoted(file.name) + " could not be read (" + ((e && e.name) || "an error") + "). Nothing was imported; your progress is unchanged.");
      return;
    }
    say((await previewImport(text, file.name, fileInput)).message);
  });

  // importText imports text straight away (for the console and tests), by
  // merge unless mode is "replace". It returns { ok, message }.
  const importText = (text, mode) => {
    const p = plan(text);
    const r = p.refused ? { ok: false, message: p.refused + " Nothing was imported; your progress is unchanged." } : apply(p, mode);
    say(r.message);
    return r;
  };

  // ---- Clearing ----

  const reset = q("progress-reset");
  reset.addEventListener("click", async () => {
    const l = mine();
    const answers = Object.keys(l.predictions).length;
    if (l.read.length + answers === 0) {
      say("There is no progress for this lesson to clear.");
      return;
    }
    const title = outline.title; // the lesson's, not the chapter's: every chapter is cleared
    const yes = await confirmAction({
      title: "Clear your progress in this lesson?",
      text: "This forgets " + plural(l.read.length, "section read", "sections read") + " and " + plural(answers, "answer", "answers") +
        " in " + quoted(title) + " in this browser. Export your progress to a file first if you may want it back.",
      yes: "Clear progress", no: "Keep my progress", opener: reset,
    });
    if (!yes) {
      say("Nothing was cleared.");
      return;
    }
    const why = update((r) => { delete r.lessons[slug]; }, true);
    say(why ? "Progress was not cleared, because " + WHY[why] + ". Nothing was changed." : "Progress for this lesson cleared.");
  });

  // For tests and for the console: the same functions the buttons use.
  window.tidemarkProgress = {
    exportText, importText,
    state: () => clone(state),
    kept: () => keptRecords().map(({ key, raw }) => ({ key, raw })),
    seen: seenOf,
    looks: () => looks,
    look, // takes in the screen now, as a rest after a scroll does
  };

  // An address from before the lesson had chapters (/lessons/slug#section)
  // lands on the contents page, and one that names a section of another
  // chapter (a link written by hand) on a page without it: take it on to
  // the chapter that holds it.
  const moveOldAddress = () => {
    if (location.hash.length < 2) {
      return false;
    }
    let id;
    try {
      id = decodeURIComponent(location.hash.slice(1));
    } catch {
      return false; // a fragment no section could have: the page stays
    }
    const c = !document.getElementById(id) && outline.chapters.find((c) => (c.anchors || []).includes(id) || (c.predictions || []).includes(id.replace(/^predict-/, "")));
    if (!c || !/^\/lessons\//.test(c.href) || c.href === location.pathname) {
      return false;
    }
    location.replace(c.href + location.hash);
    return true;
  };
  if (moveOldAddress()) {
    return;
  }
  window.addEventListener("hashchange", moveOldAddress);

  // ---- Landing on a section ----
  //
  // A link to a section (#id) is followed while the page loads, before
  // the engine has drawn the widgets above the section, which grow as it
  // draws them (and, with smooth scrolling, while the browser is still on
  // its way): the section ended up thousands of pixels down the screen.
  // So the page keeps the link's target at the top of the screen while
  // what is above it changes size, until every widget above it is drawn
  // (or the engine has failed) and the page has not changed size for
  // QUIET ms, LIMIT ms at most; the reader who scrolls, clicks or presses
  // a key meanwhile has taken over, and it stops at once. On arrival a
  // correction is instant, made before the page is painted again, so that
  // the target seems to stay where it is. A link to a section of this page
  // followed later suffers the same on its way (the parts of the widgets
  // it passes are laid out as they come near the screen): it is kept the
  // same way, each correction scrolling as the browser's own scroll to it
  // does, smoothly unless the reader asks for less motion (app.css), so
  // that a smooth scroll is aimed anew rather than cut short. A reload or
  // a step back in history leaves the browser's own scroll position alone.
  const QUIET = 1000;
  const LIMIT = 20000;
  const INPUT = ["wheel", "touchstart", "pointerdown", "keydown"];
  let letGo = null; // ends the keeping under way
  const targetOf = (hash) => {
    if (hash.length < 2) {
      return null;
    }
    try {
      return document.getElementById(decodeURIComponent(hash.slice(1)));
    } catch {
      return null;
    }
  };
  const keep = (target, behavior) => {
    if (letGo) {
      letGo();
    }
    // inPlace says whether the target is at the top of the screen, or as
    // near it as the page's end lets it come.
    const inPlace = () => {
      const margin = parseFloat(getComputedStyle(target).scrollMarginTop) || 0;
      const root = document.documentElement;
      return Math.abs(target.getBoundingClientRect().top - margin) <= 1 ||
        (target.getBoundingClientRect().top > margin && window.scrollY + root.clientHeight >= root.scrollHeight - 1);
    };
    const place = () => {
      if (!inPlace()) {
        target.scrollIntoView({ block: "start", behavior });
      }
    };
    if (!("ResizeObserver" in window)) {
      place();
      return;
    }
    const above = [...article.querySelectorAll(".tm-host[data-source]")]
      .filter((h) => h.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING);
    let failed = false;
    let quiet = 0;
    // settle stops once the target is in place: a smooth scroll still on
    // its way is looked at again a while later.
    const settle = () => {
      if (inPlace()) {
        stop();
        return;
      }
      place();
      quiet = setTimeout(settle, QUIET);
    };
    const moved = () => {
      place();
      clearTimeout(quiet);
      if (failed || above.every((h) => h.dataset.ready === "true")) {
        quiet = setTimeout(settle, QUIET);
      }
    };
    const onError = () => {
      failed = true;
      moved();
    };
    const ro = new ResizeObserver(moved);
    const stop = () => {
      ro.disconnect();
      clearTimeout(quiet);
      clearTimeout(limit);
      for (const type of INPUT) {
        window.removeEventListener(type, stop, true);
      }
      document.removeEventListener("tidemark:error", onError);
      if (letGo === stop) {
        letGo = null;
      }
    };
    const limit = setTimeout(stop, LIMIT);
    for (const type of INPUT) {
      window.addEventListener(type, stop, { capture: true, passive: true });
    }
    document.addEventListener("tidemark:error", onError);
    ro.observe(article); // calls moved once at the start too
    letGo = stop;
  };
  const arrival = performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null;
  const landing = targetOf(location.hash);
  if (landing && (!arrival || arrival.type === "navigate")) {
    keep(landing, "instant");
  }
  document.addEventListener("click", (e) => {
    const a = e.target.closest && e.target.closest("a[href*='#']");
    if (!a || e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey || (a.target && a.target !== "_self")) {
      return;
    }
    const to = new URL(a.href, location.href);
    const target = to.origin + to.pathname + to.search === location.origin + location.pathname + location.search && targetOf(to.hash);
    if (!target) {
      return;
    }
    keep(target, "auto");
  });

  panel.hidden = false;
  // Grades the stored record does not match this page's key are stored
  // again as the key gives them (see regrade).
  if (regrade(clone(readStored().record))) {
    update(null, false);
  } else {
    refresh();
  }
})();
