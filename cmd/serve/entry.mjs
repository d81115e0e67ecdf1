// The Cloudflare Worker's entry. `make worker` copies it into build/worker
// beside the glue that github.com/syumai/workers generates
// (`workers-assets-gen -mode=go`: worker.mjs, runtime.mjs, wasm_exec.js) and
// app.wasm, cmd/serve built with GOOS=js GOARCH=wasm.
//
// A request for a file of build/worker/assets (the site exported as static
// files) is answered by Workers static assets before any of this runs. The
// rest goes to the library's glue, which starts the Go program for the
// request (see cmd/serve/worker.go). This file only adds what the static
// assets' routing needs around it, and nothing of what the library does:
//
//   - wrangler.jsonc's run_worker_first sends /play here first, because the
//     assets would answer a POST to it 405; its GET and HEAD go back to the
//     assets, without starting Go;
//   - a path that is neither a file nor a route of the Go program (its 404
//     as text or HTML) gets the copy's not-found page, 404.html.
import glue from "./worker.mjs";

// workerFirst are the paths that run_worker_first sends here, whose GET and
// HEAD the assets answer.
const workerFirst = new Set(["/play", "/play/"]);

// isPage reports whether a response is text or HTML, as the Go program's
// answer to a path it has no route for is (a picture's or an oEmbed
// answer's own 404 is SVG or JSON, and is kept).
function isPage(res) {
  return /^text\/(plain|html)/.test(res.headers.get("content-type") ?? "");
}

export default {
  async fetch(request, env, ctx) {
    const read = request.method === "GET" || request.method === "HEAD";
    if (read && workerFirst.has(new URL(request.url).pathname)) {
      return env.ASSETS.fetch(request);
    }
    const res = await glue.fetch(request, env, ctx);
    if (res.status !== 404 || !isPage(res)) {
      return res;
    }
    const page = await env.ASSETS.fetch(new URL("/404", request.url));
    if (!page.ok) {
      return res;
    }
    // Read the Go program's short answer to its end, as the library expects
    // of a response (its program ends when the body is closed).
    await res.arrayBuffer();
    return new Response(request.method === "HEAD" ? null : page.body, { status: 404, headers: page.headers });
  },
};
