// probe.js checks a Go wasm module under node for the wasmmerge tests.
//
//   node probe.js memory MODULE
//     instantiates MODULE with every import stubbed, without running it,
//     and prints the size and SHA-256 of its linear memory: what the data
//     segments put there.
//   node probe.js time MODULE [RUNS]
//     compiles and instantiates MODULE (imports stubbed) RUNS times (default
//     21) and prints the median milliseconds of each, for docs/performance.md.
//   node probe.js drive MODULE WASM_EXEC_JS SCENARIO_FILE
//     starts Tidemark's browser module as the page does, opens the scenario,
//     runs it to the end and prints what the last step's view holds.
"use strict";

const fs = require("fs");
const crypto = require("crypto");
const sha256 = (data) => crypto.createHash("sha256").update(data).digest("hex");

const [mode, file] = process.argv.slice(2);

// stubs returns an import object for mod whose functions all throw.
const stubs = (mod) => {
  const imports = {};
  for (const imp of WebAssembly.Module.imports(mod)) {
    imports[imp.module] ??= {};
    imports[imp.module][imp.name] = () => {
      throw new Error("the probe does not run the module, but it called " + imp.name);
    };
  }
  return imports;
};

if (mode === "memory") {
  const mod = new WebAssembly.Module(fs.readFileSync(file));
  const { mem } = new WebAssembly.Instance(mod, stubs(mod)).exports;
  const bytes = new Uint8Array(mem.buffer);
  console.log(JSON.stringify({ bytes: bytes.length, sha256: sha256(bytes) }));
} else if (mode === "time") {
  const runs = Number(process.argv[4] || 21);
  const bytes = fs.readFileSync(file);
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  (async () => {
    const compile = [];
    const instantiate = [];
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      const mod = await WebAssembly.compile(bytes);
      compile.push(performance.now() - t);
      t = performance.now();
      await WebAssembly.instantiate(mod, stubs(mod));
      instantiate.push(performance.now() - t);
    }
    console.log(JSON.stringify({ runs, compileMs: median(compile).toFixed(1), instantiateMs: median(instantiate).toFixed(2) }));
  })();
} else if (mode === "drive") {
  const [, , wasmExec, scenarioFile] = process.argv.slice(2);
  globalThis.require = require;
  globalThis.fs = fs;
  globalThis.path = require("path");
  globalThis.TextEncoder = require("util").TextEncoder;
  globalThis.TextDecoder = require("util").TextDecoder;
  globalThis.performance ??= require("perf_hooks").performance;
  globalThis.crypto ??= crypto;
  // The module announces itself with a DOM event; node's global object
  // has no dispatchEvent.
  globalThis.dispatchEvent = () => true;
  require(wasmExec);
  (async () => {
    const go = new Go();
    go.env = { GOGC: "400", GOMEMLIMIT: "256MiB" };
    const { instance } = await WebAssembly.instantiate(fs.readFileSync(file), go.importObject);
    go.run(instance);
    const engine = globalThis.tidemarkEngine;
    const opened = engine.open("w", fs.readFileSync(scenarioFile, "utf8"), "probe.tdm", "/scenarios/probe", "", "off");
    if (!opened.ok) {
      throw new Error("open: " + opened.error);
    }
    while (!engine.advance("w", 1000).done) {}
    const last = engine.act("w", "seek", "1000000");
    if (!last.ok) {
      throw new Error("seek: " + last.error);
    }
    const v = engine.view("w", true);
    console.log(JSON.stringify({ steps: v.steps, step: v.step, narration: v.narration, html: v.html.length, sha256: sha256(v.html) }));
    engine.stop();
    process.exit(0);
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  console.error("usage: node probe.js memory MODULE | drive MODULE WASM_EXEC_JS SCENARIO_FILE");
  process.exit(2);
}
