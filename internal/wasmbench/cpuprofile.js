// cpuprofile.js sums a V8 CPU profile (node --cpu-prof) by function, for
// docs/performance.md:
//
//   node cpuprofile.js PROFILE [TOP] [FROM_MS] [NAME,NAME...]
//
// prints the TOP (default 40) functions by self time, with their share of
// the profile, counting only samples taken FROM_MS (default 0) or more after
// the profile started: a Go test binary's first seconds build the
// benchmark's session and grow the heap. Each NAME given (a function's
// name as the profile spells it, e.g. gcWriteBarrier or
// github.com_tidemark_tidemark_templates_widget.truthText) is also
// printed with its inclusive time: samples with it anywhere on the stack.
"use strict";

const fs = require("fs");

const [file, top = "40", fromMs = "0", names = ""] = process.argv.slice(2);
if (!file) {
  console.error("usage: node cpuprofile.js PROFILE [TOP] [FROM_MS] [NAME,NAME...]");
  process.exit(2);
}
const p = JSON.parse(fs.readFileSync(file, "utf8"));
const from = Number(fromMs) * 1000; // timeDeltas are in microseconds
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children || []) parent.set(c, n.id);
const fn = (id) => byId.get(id).callFrame.functionName || "(anonymous)";
const wanted = names ? names.split(",") : [];

let t = 0;
let all = 0;
const self = new Map();
const incl = new Map(wanted.map((n) => [n, 0]));
p.samples.forEach((id, i) => {
  const dt = p.timeDeltas[i] || 0;
  t += dt;
  if (t < from) return;
  all += dt;
  self.set(fn(id), (self.get(fn(id)) || 0) + dt);
  if (!wanted.length) return;
  const on = new Set();
  for (let x = id; x !== undefined; x = parent.get(x)) on.add(fn(x));
  for (const n of wanted) if (on.has(n)) incl.set(n, incl.get(n) + dt);
});

const line = (us, name) =>
  `${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / all).toFixed(1).padStart(5)}%  ${name}`;
console.log(`${(all / 1000).toFixed(0)} ms sampled from ${fromMs} ms on; self time:`);
for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) console.log(line(us, name));
if (wanted.length) {
  console.log("inclusive time:");
  for (const [name, us] of incl) console.log(line(us, name));
}
