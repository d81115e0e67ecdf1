// chain.js: the chain builder without a reload. The form works as a plain
// GET without this script; with it, picking an option says at once what the
// chain you are assembling guarantees, worked out as the server does
// (lessons/chain): each hop may lose or repeat; a repeat is absorbed by a
// later hop built for it (a keyed merge folds copies and replays, a
// transaction per checkpoint discards replays); the chain's guarantee is
// what is left. The engine's verdict still needs the form to be sent.
"use strict";

(() => {
  const form = document.querySelector('[data-testid="chain-form"]');
  if (!form) {
    return;
  }
  const preview = form.querySelector('[data-testid="chain-preview"]');
  const result = document.querySelector('[data-testid="chain-result"]');
  const hops = [...form.querySelectorAll('[data-testid="chain-hop"]')];

  const names = {
    "false false": ["exactly-once", "every row once"],
    "false true": ["at-least-once", "rows may be doubled, none lost"],
    "true false": ["at-most-once", "rows may be missing, none doubled"],
    "true true": ["no guarantee", "rows may be missing and others doubled"],
  };

  const chosen = () =>
    hops.map((li) => {
      const input = li.querySelector("input:checked");
      return {
        hop: li.dataset.hop,
        loses: input.dataset.loses === "true",
        repeats: input.dataset.repeats === "true",
        absorbs: input.dataset.absorbs.split(" ").filter(Boolean),
      };
    });

  const guarantee = (picks) => {
    let loses = false;
    let repeats = false;
    picks.forEach((p, i) => {
      loses = loses || p.loses;
      if (!p.repeats) {
        return;
      }
      const kind = p.hop === "source" ? "copies" : "replays";
      const absorbed = picks.slice(i + 1).some((q) => q.absorbs.includes(kind));
      repeats = repeats || !absorbed;
    });
    return names[loses + " " + repeats];
  };

  const update = () => {
    const [name, effect] = guarantee(chosen());
    const shown = result.querySelector('[data-testid="chain-guarantee"]').textContent;
    preview.hidden = false;
    preview.dataset.guarantee = name;
    preview.textContent =
      "The chain as you have set it: " + name + " (" + effect + ")." +
      (name === shown ? "" : " The run below is of the chain before your change; run this one to see what the engine finds.");
    result.classList.toggle("chain-stale", name !== shown);
  };

  form.addEventListener("change", update);
  update();
})();
