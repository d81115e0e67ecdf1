// The Cloudflare Worker's entry. `make worker` copies it into build/worker
// beside app.wasm (cmd/serve built with GOOS=js GOARCH=wasm) and the
// wasm_exec.js of the Go toolchain that built it.
//
// A request for a file that exists in build/worker/assets (the site
// exported as static files: pages, the files of web/static, pictures of how
// each scenario ends, oEmbed descriptions) is answered by Workers static
// assets before this script runs; this script gets the rest (pictures of any
// step, the sandbox's posts, /oembed, not found), and the paths that
// wrangler.jsonc's run_worker_first sends here first, whose GET and HEAD it
// hands back to the assets.
//
// The Go program starts once per isolate and answers every request the
// isolate gets (starting Go costs tens of milliseconds of CPU, more than a
// request). If it exits or fails to start, the next request starts it again.
import "./wasm_exec.js";
import mod from "./app.wasm";

let site; // a Promise of the Go program's function that answers a request

function start() {
  return new Promise((resolve, reject) => {
    globalThis.tidemarkReady = resolve;
    globalThis.tidemarkFailed = (message) => reject(new Error(message));
    const go = new Go();
    const instance = new WebAssembly.Instance(mod, go.importObject);
    go.run(instance).finally(() => {
      // The program ended: the next request starts it again. (Had it not
      // said it was ready, this request gets the error.)
      site = undefined;
      reject(new Error("the Go program ended before it was ready"));
    });
  });
}

// isPage reports whether a response's headers ([name, value] pairs) say it
// is text or HTML, as the Go program's answer to a path it has no route for is.
function isPage(headers) {
  return headers.some(
    ([name, value]) => name.toLowerCase() === "content-type" && /^text\/(plain|html)/.test(value),
  );
}

// Statuses whose response has no body.
const noBody = new Set([101, 204, 205, 304]);

export default {
  async fetch(request, env) {
    if ((request.method === "GET" || request.method === "HEAD") && env.ASSETS !== undefined) {
      const path = new URL(request.url).pathname;
      if (path === "/play" || path === "/play/") {
        return env.ASSETS.fetch(request);
      }
    }
    if (site === undefined) {
      site = start();
      site.catch(() => {
        site = undefined;
      });
    }
    let answer;
    try {
      answer = await site;
    } catch (e) {
      return new Response(`Tidemark could not start: ${e.message}\n`, {
        status: 500,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    const body =
      request.method === "GET" || request.method === "HEAD"
        ? null
        : new Uint8Array(await request.arrayBuffer());
    const res = await answer(request.method, request.url, [...request.headers], body);
    if (res.status === 404 && env.ASSETS !== undefined && isPage(res.headers)) {
      // No file and no route of the Go program: the copy's not-found page.
      // (A picture's or an oEmbed answer's own 404 is kept.)
      const page = await env.ASSETS.fetch(new URL("/404", request.url));
      if (page.ok) {
        return new Response(request.method === "HEAD" ? null : page.body, { status: 404, headers: page.headers });
      }
    }
    const sendBody = request.method !== "HEAD" && !noBody.has(res.status);
    return new Response(sendBody ? res.body : null, { status: res.status, headers: res.headers });
  },
};
