// Tidemark lesson pages: predictions graded against the engine's answer key,
// and the learner's progress (sections read, predictions made and right) kept
// in localStorage, with export to a file and import from one.
//
// The answer key is computed by the engine on the server and rendered as
// data-verdict on each option; this file only compares and reveals. Without
// scripts the page still works: each prediction has a <details> "Reveal".
"use strict";

(() => {
  document.documentElement.classList.add("js");
  const article = document.querySelector("[data-lesson]");
  if (!article) {
    return;
  }
  const slug = article.dataset.lesson;
  const KEY = "tidemark.progress";
  const ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
  const MAX_FILE = 256 * 1024;

  const empty = () => ({ app: "tidemark", kind: "progress", version: 1, lessons: {} });

  // validate returns a clean progress object, or throws an Error whose message
  // is shown to the learner.
  const validate = (data) => {
    const refuse = (why) => {
      throw new Error(why);
    };
    const plain = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
    if (!plain(data) || data.app !== "tidemark" || data.kind !== "progress") {
      refuse("That file is not a Tidemark progress file.");
    }
    if (data.version !== 1) {
      refuse("That progress file comes from a different version of Tidemark (version " + String(data.version) + ").");
    }
    for (const k of Object.keys(data)) {
      if (!["app", "kind", "version", "exportedAt", "lessons"].includes(k)) {
        refuse("That progress file has an unexpected field: " + k + ".");
      }
    }
    if (!plain(data.lessons)) {
      refuse("That progress file has no lessons in it.");
    }
    const out = empty();
    for (const [name, l] of Object.entries(data.lessons)) {
      if (!ID.test(name) || !plain(l)) {
        refuse("That progress file has a malformed lesson entry.");
      }
      for (const k of Object.keys(l)) {
        if (k !== "read" && k !== "predictions") {
          refuse("That progress file has an unexpected field in lesson " + name + ": " + k + ".");
        }
      }
      const read = l.read === undefined ? [] : l.read;
      const preds = l.predictions === undefined ? {} : l.predictions;
      if (!Array.isArray(read) || read.length > 500 || !read.every((s) => typeof s === "string" && ID.test(s))) {
        refuse("That progress file lists sections in a form Tidemark does not know.");
      }
      if (!plain(preds)) {
        refuse("That progress file lists predictions in a form Tidemark does not know.");
      }
      const clean = {};
      for (const [pid, p] of Object.entries(preds)) {
        const ok = ID.test(pid) && plain(p) && Object.keys(p).every((k) => k === "choice" || k === "right") &&
          typeof p.choice === "string" && ID.test(p.choice) && typeof p.right === "boolean";
        if (!ok) {
          refuse("That progress file has a malformed prediction: " + pid + ".");
        }
        clean[pid] = { choice: p.choice, right: p.right };
      }
      out.lessons[name] = { read: [...new Set(read)], predictions: clean };
    }
    return out;
  };

  const load = () => {
    try {
      const raw = localStorage.getItem(KEY);
      return raw ? validate(JSON.parse(raw)) : empty();
    } catch {
      return empty(); // unreadable storage: start afresh rather than break the page
    }
  };

  let state = load();
  const mine = () => {
    if (!state.lessons[slug]) {
      state.lessons[slug] = { read: [], predictions: {} };
    }
    return state.lessons[slug];
  };
  const save = () => {
    try {
      localStorage.setItem(KEY, JSON.stringify(state));
    } catch {
      say("Your browser would not store progress; it will be lost when you leave.");
    }
  };

  const panel = article.querySelector("[data-testid=progress]");
  const summary = panel.querySelector("[data-testid=progress-summary]");
  const message = panel.querySelector("[data-testid=progress-message]");
  const say = (text) => {
    message.textContent = text;
  };
  const sections = (article.dataset.sections || "").split(" ").filter(Boolean);
  const forms = [...article.querySelectorAll("form[data-prediction]")];

  const render = () => {
    const l = mine();
    const read = l.read.filter((s) => sections.includes(s));
    const answered = forms.filter((f) => l.predictions[f.dataset.prediction]);
    const right = answered.filter((f) => l.predictions[f.dataset.prediction].right);
    summary.textContent = "Sections read: " + read.length + " of " + sections.length +
      ". Predictions made: " + answered.length + " of " + forms.length + ", " + right.length + " right.";
    for (const id of sections) {
      const mark = article.querySelector("#" + CSS.escape(id) + " [data-testid=read-mark]");
      if (mark) {
        mark.hidden = !l.read.includes(id);
      }
    }
    for (const f of forms) {
      showPrediction(f, l.predictions[f.dataset.prediction]);
    }
  };

  const labelOf = (f, id) => {
    const input = f.querySelector("input[value='" + CSS.escape(id) + "']");
    const label = input && f.querySelector("label[for='" + CSS.escape(input.id) + "']");
    return label ? label.textContent.trim() : id;
  };

  const showPrediction = (f, p) => {
    const result = f.querySelector("[data-testid=prediction-result]");
    const inputs = [...f.querySelectorAll("input[type=radio]")];
    const submit = f.querySelector("[data-testid=prediction-submit]");
    const reveal = f.querySelector("details");
    if (!p) {
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
      reveal.hidden = true; // the key waits until the learner commits
      reveal.open = false;
      return;
    }
    inputs.forEach((i) => { i.checked = i.value === p.choice; i.disabled = true; });
    submit.hidden = true;
    const correct = inputs.filter((i) => i.dataset.verdict === "true").map((i) => labelOf(f, i.value));
    f.dataset.graded = p.right ? "right" : "wrong";
    result.textContent = p.right
      ? "Right — the engine agrees with you."
      : "Not this time. The engine's answer: " + correct.join("; ") + ".";
    reveal.hidden = false;
    reveal.open = true;
  };

  for (const f of forms) {
    f.addEventListener("submit", (e) => {
      e.preventDefault();
      const chosen = f.querySelector("input[type=radio]:checked");
      if (!chosen) {
        f.querySelector("[data-testid=prediction-result]").textContent = "Choose an answer first.";
        return;
      }
      mine().predictions[f.dataset.prediction] = { choice: chosen.value, right: chosen.dataset.verdict === "true" };
      save();
      render();
    });
  }

  // A main section counts as read once its end has been on screen.
  const markRead = (id) => {
    const l = mine();
    if (!l.read.includes(id)) {
      l.read.push(id);
      save();
      render();
    }
  };
  if ("IntersectionObserver" in window) {
    const io = new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (e.isIntersecting && e.boundingClientRect.bottom <= (window.innerHeight || document.documentElement.clientHeight) + 1) {
          markRead(e.target.dataset.section);
          io.unobserve(e.target);
        }
      }
    }, { threshold: [0, 0.25, 0.5, 0.75, 1] });
    for (const id of sections) {
      const el = document.getElementById(id);
      if (el) {
        io.observe(el);
      }
    }
  }

  const exportText = () => JSON.stringify({ ...state, exportedAt: new Date().toISOString() }, null, 2);

  // importText replaces the progress with the file's, or refuses it and keeps
  // the current progress. It returns the message shown to the learner.
  const importText = (text) => {
    let next;
    try {
      if (text.length > MAX_FILE) {
        throw new Error("That file is too large to be a Tidemark progress file.");
      }
      let data;
      try {
        data = JSON.parse(text);
      } catch {
        throw new Error("That file is not valid JSON.");
      }
      next = validate(data);
    } catch (err) {
      const m = err.message + " Nothing was imported; your progress is unchanged.";
      say(m);
      return { ok: false, message: m };
    }
    state = next;
    save();
    render();
    const m = "Progress imported.";
    say(m);
    return { ok: true, message: m };
  };

  panel.querySelector("[data-testid=progress-export]").addEventListener("click", () => {
    const url = URL.createObjectURL(new Blob([exportText()], { type: "application/json" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = "tidemark-progress.json";
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    say("Progress exported to tidemark-progress.json.");
  });

  const fileInput = panel.querySelector("[data-testid=progress-import]");
  fileInput.addEventListener("change", async () => {
    const file = fileInput.files && fileInput.files[0];
    fileInput.value = "";
    if (!file) {
      return;
    }
    if (file.size > MAX_FILE) {
      importText("x".repeat(MAX_FILE + 1));
      return;
    }
    importText(await file.text());
  });

  panel.querySelector("[data-testid=progress-reset]").addEventListener("click", () => {
    delete state.lessons[slug];
    save();
    render();
    say("Progress for this lesson cleared.");
  });

  // For tests and for the console: the same functions the buttons use.
  window.tidemarkProgress = { exportText, importText, state: () => JSON.parse(JSON.stringify(state)) };

  panel.hidden = false;
  render();
})();
