// Tidemark's not-found pages in a static copy: name what the address most
// likely meant. The server names it itself (lessons.Near, and the pages'
// own suggestions); a copy's one 404.html and one embed/404.html cannot,
// since a host sends the same file for every missing address, so they carry
// the names they know and this script matches the address against them,
// by the same rule: a name a few edits away (at most 2, or a sixth of its
// length), the closest first and at most three, or else a name the address
// holds whole or ends with.
"use strict";

(() => {
  const edits = (a, b) => {
    let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const cur = [i];
      for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
    return prev[b.length];
  };
  const near = (word, known) => {
    if (!word || word.length > 200) return [];
    const found = known
      .map((k) => [k, edits(word, k)])
      .filter(([k, d]) => d > 0 && d <= Math.max(2, Math.floor(k.length / 6)))
      .sort((x, y) => x[1] - y[1])
      .slice(0, 3)
      .map(([k]) => k);
    if (found.length) return found;
    // A name held whole in a path or an address, or one without its folder.
    const bare = word.replace(/\/+$/, "").replace(/\.(svg|tdm|html)$/, "");
    return known.filter((k) => bare && (bare === k || bare.endsWith("/" + k) || k.endsWith("/" + bare))).slice(0, 3);
  };
  const decoded = (s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s; // a malformed escape: name it as it was written
    }
  };

  // embed/404.html: the host sends it for a mistyped embed id, or the
  // copy's 404.html sends the browser here with ?id=. Name that id, and the
  // known ids a few edits from it, as the server's own not-found embed does.
  const said = document.querySelector("[data-embed-not-found]");
  if (said) {
    const dir = location.pathname.replace(/\/embed\/.*$/, "/embed/");
    const id = decoded(new URLSearchParams(location.search).get("id") || location.pathname.slice(dir.length).replace(/\/+$/, ""));
    if (id && id !== "404.html" && id.length <= 200) {
      const known = [...document.querySelectorAll("[data-embed-known] li")].map((li) => li.textContent.trim());
      const meant = near(id, known);
      said.textContent = `No Tidemark scenario is named “${id}”.` + (meant.length ? ` Did you mean ${meant.join(" or ")}?` : "");
    }
  }

  // 404.html: the pages the copy holds are its hidden list's links, each
  // under the copy's path (the home page's link gives that path). Offer the
  // ones nearest the address, as links.
  const pages = document.querySelector("[data-known-pages]");
  const what = document.querySelector('[data-testid="not-found-what"]');
  if (pages && what && !document.querySelector('[data-testid="not-found-near"]')) {
    const home = new URL(pages.dataset.homeUrl, location.href).pathname;
    const rel = (p) => decoded(p.startsWith(home) ? p.slice(home.length) : p).replace(/\/+$/, "");
    const byName = new Map([...pages.querySelectorAll("a")].map((a) => [rel(new URL(a.href).pathname), a.href]));
    const meant = near(rel(location.pathname), [...byName.keys()]);
    if (meant.length) {
      const p = document.createElement("p");
      p.dataset.testid = "not-found-near";
      p.append("Did you mean ");
      meant.forEach((name, i) => {
        if (i > 0) p.append(" or ");
        const a = document.createElement("a");
        a.href = byName.get(name);
        a.textContent = name;
        p.append(a);
      });
      p.append("?");
      what.after(p);
    }
  }
})();
