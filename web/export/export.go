// Package export writes the whole Tidemark site as static files, for a host
// that serves files and nothing else (GitHub Pages, Cloudflare's static
// assets, Netlify, an S3 bucket, nginx): the home page, the lessons, every
// bundled scenario's page and embed page, the embed page and sandbox for
// scenarios carried in a link (#tdm=…), the browser's engine module and
// scripts, pictures, oEmbed descriptions and a _headers file.
//
// Every page is rendered by the site's own handler (web/site), as the
// server would answer it, with web.Published in the request's context so
// that its absolute links start with the copy's address and it leaves out
// or explains what needs a server. Its links to the site are then made to
// work under the copy's path (https://example.github.io/tidemark): every
// address in an attribute that starts with "/" gets the path in front,
// and a page's address a trailing slash, since each page is the index.html
// of a directory. docs/deploy.md describes the layout.
package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/chainpage"
	"github.com/tidemark/tidemark/web/docpage"
	"github.com/tidemark/tidemark/web/lessonpage"
	"github.com/tidemark/tidemark/web/pages"
	"github.com/tidemark/tidemark/web/site"
)

// Options says where a copy goes and where it will be served.
type Options struct {
	// BaseURL is the address the copy will be served at: scheme, host and
	// the path of the directory, without a query, such as
	// https://example.github.io/tidemark.
	BaseURL string
	// Out is the directory to write. It must not exist, be empty, or hold
	// an earlier copy (which is replaced whole).
	Out string
	// Logger receives what the pages log; nil is slog.Default().
	Logger *slog.Logger
}

// Report counts what Site wrote.
type Report struct {
	Pages, Pictures, Files int
	Bytes                  int64
}

// marker names the file that says a directory holds a copy, so that a
// later export may replace it; a directory without it is never emptied.
const marker = ".tidemark-export"

// ErrNoModule is returned when the engine's module has not been built.
var ErrNoModule = errors.New("the engine's module (web/static/tidemark.wasm) is not built; run `make wasm` first")

// Site writes the copy.
func Site(opts Options) (Report, error) {
	base, prefix, err := ParseBase(opts.BaseURL)
	if err != nil {
		return Report{}, err
	}
	if _, ok := web.LookupAsset("tidemark.wasm"); !ok {
		return Report{}, ErrNoModule
	}
	siteOpts, err := site.Options(opts.Logger)
	if err != nil {
		return Report{}, err
	}
	h, err := web.NewHandler(siteOpts)
	if err != nil {
		return Report{}, err
	}
	if err := prepare(opts.Out); err != nil {
		return Report{}, err
	}
	x := &exporter{out: opts.Out, base: base, prefix: prefix, h: h, dirs: map[string]bool{}}

	// The pages, each the index.html of its directory.
	// The chain builder's page is its default chain here: a host of files
	// cannot answer another chain's query (docs/deploy.md).
	paths := []string{"/", "/play", "/embed/", chainpage.Path}
	paths = append(paths, docpage.Paths()...)
	lessonPaths := lessonpage.Paths()
	paths = append(paths, lessonPaths...)
	all, err := lessons.Scenarios()
	if err != nil {
		return Report{}, err
	}
	for _, sc := range all {
		paths = append(paths, "/scenarios/"+sc.ID, "/embed/"+sc.ID)
	}
	for _, p := range paths {
		x.dirs[strings.TrimSuffix(p, "/")] = true
		if p != "/" && !strings.HasPrefix(p, "/embed/") {
			x.pages = append(x.pages, p)
		}
	}
	for _, p := range paths {
		if err := x.page(p, path.Join(p, "index.html"), http.StatusOK); err != nil {
			return x.report, err
		}
	}
	if err := x.page("/this-page-does-not-exist", "404.html", http.StatusNotFound); err != nil {
		return x.report, err
	}
	// The not-found page for embeds, which fits in an author's iframe: a
	// host that serves the nearest 404.html (Cloudflare) sends it for a
	// mistyped embed id, and the copy's 404.html sends the browser to it.
	if err := x.page("/embed/"+pages.EmbedNotFoundFile, "embed/"+pages.EmbedNotFoundFile, http.StatusNotFound); err != nil {
		return x.report, err
	}

	// Pictures of how each scenario ends, under every combination of knobs.
	pics, err := pages.StaticPictures()
	if err != nil {
		return x.report, err
	}
	for _, p := range pics {
		body, err := x.get("/picture/"+p, http.StatusOK)
		if err != nil {
			return x.report, err
		}
		if err := x.write(path.Join("picture", p), body); err != nil {
			return x.report, err
		}
		x.report.Pictures++
	}

	// oEmbed descriptions, which the pages' discovery links point at.
	describe := func(page, file string) error {
		body, err := x.get("/oembed?"+url.Values{"url": {base + page + "/"}, "format": {"json"}}.Encode(), http.StatusOK)
		if err != nil {
			return err
		}
		return x.write(path.Join("oembed", file), body)
	}
	for _, sc := range all {
		if err := describe("/scenarios/"+sc.ID, "scenarios/"+sc.ID+".json"); err != nil {
			return x.report, err
		}
	}
	for _, p := range lessonPaths {
		if err := describe(p, strings.TrimPrefix(p, "/")+".json"); err != nil {
			return x.report, err
		}
	}

	// The static files, by hashed name (the pages' links) and plain name
	// (documentation authors' stable links, such as embed.js), except the
	// engine's modules (one per set of worlds), which only the pages load:
	// a second copy of 4 MB is no use to anyone.
	files, err := web.StaticFiles()
	if err != nil {
		return x.report, err
	}
	for _, f := range files {
		names := []string{f.Hashed, f.Name}
		if strings.HasSuffix(f.Name, ".wasm") {
			names = names[:1]
		}
		for _, name := range names {
			if err := x.write(path.Join("static", name), f.Data); err != nil {
				return x.report, err
			}
		}
	}
	if err := x.write("_headers", []byte(web.HeadersFile(web.StaticHeaderRules(prefix, files)))); err != nil {
		return x.report, err
	}
	// GitHub Pages runs Jekyll unless told not to, and Jekyll leaves out
	// files whose names start with "_".
	if err := x.write(".nojekyll", nil); err != nil {
		return x.report, err
	}
	if err := x.write(marker, []byte("A copy of the Tidemark site for "+base+", written by `tidemark export`.\n")); err != nil {
		return x.report, err
	}
	return x.report, nil
}

// ParseBase checks a site's address and returns it without a trailing
// slash, and its path ("" at the root of a host).
func ParseBase(raw string) (base, prefix string, err error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return "", "", fmt.Errorf("base URL %q: %w", raw, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return "", "", fmt.Errorf("base URL %q: expected an absolute http or https address such as https://example.github.io/tidemark", raw)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return "", "", fmt.Errorf("base URL %q: expected no query, fragment or user name, only scheme, host and path", raw)
	case strings.ContainsAny(u.Path, `"'<> `):
		return "", "", fmt.Errorf("base URL %q: its path has a character a link cannot carry as it is", raw)
	}
	prefix = strings.TrimSuffix(u.EscapedPath(), "/")
	return u.Scheme + "://" + u.Host + prefix, prefix, nil
}

// prepare makes out an empty directory, removing an earlier copy there.
func prepare(out string) error {
	if out == "" {
		return errors.New("no output directory given")
	}
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(out, 0o755)
	case err != nil:
		return err
	case len(entries) == 0:
		return nil
	}
	if _, err := os.Stat(filepath.Join(out, marker)); err != nil {
		return fmt.Errorf("%s is not empty and holds no earlier copy of the site (no %s); choose an empty or new directory", out, marker)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(out, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

type exporter struct {
	out, base, prefix string
	h                 http.Handler
	dirs              map[string]bool // the paths of pages, without a trailing slash ("" is the home page)
	pages             []string        // the pages a reader would ask for by address (not embeds), for the not-found page
	report            Report
}

// get answers a GET of target as the site would for the copy.
func (x *exporter) get(target string, want int) ([]byte, error) {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	u, _ := url.Parse(x.base)
	req.Host = u.Host
	req = req.WithContext(web.WithPublished(context.Background(), web.Published{BaseURL: x.base, Pages: x.pages}))
	rec := httptest.NewRecorder()
	x.h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Result().Body)
	if rec.Code != want {
		return nil, fmt.Errorf("export %s: the site answered %d, expected %d: %.200s", target, rec.Code, want, body)
	}
	return body, nil
}

// page writes the page at target to file, its links made to work in the copy.
func (x *exporter) page(target, file string, want int) error {
	body, err := x.get(target, want)
	if err != nil {
		return err
	}
	body, err = Rewrite(body, x.prefix, x.dirs)
	if err != nil {
		return fmt.Errorf("export %s: %w", target, err)
	}
	x.report.Pages++
	return x.write(file, body)
}

func (x *exporter) write(name string, data []byte) error {
	file := filepath.Join(x.out, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return err
	}
	x.report.Files++
	x.report.Bytes += int64(len(data))
	return nil
}

// urlAttrs are the attributes whose value is an address; so is any data-
// attribute whose name ends in -url.
var urlAttrs = map[string]bool{"href": true, "src": true, "action": true, "poster": true, "data-base": true, "data-tidemark-wasm": true}

// Rewrite makes a page's links to the site work in a copy served under
// prefix: an address in an attribute that starts with "/" (not "//") gets
// prefix in front, and when its path is one of dirs (a page, which the
// copy holds as the index.html of a directory) a trailing slash. It also
// states the pages' Content-Security-Policy in a <meta> element after the
// charset, for hosts that send no headers of the copy's choosing. Tags it
// leaves alone, text and comments are copied byte for byte.
func Rewrite(page []byte, prefix string, dirs map[string]bool) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(page) + len(page)/50)
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if errors.Is(z.Err(), io.EOF) {
				return out.Bytes(), nil
			}
			return nil, z.Err()
		case html.StartTagToken, html.SelfClosingTagToken:
			raw := append([]byte(nil), z.Raw()...)
			tok := z.Token()
			changed := false
			for i, a := range tok.Attr {
				if !urlAttrs[a.Key] && !(strings.HasPrefix(a.Key, "data-") && strings.HasSuffix(a.Key, "-url")) {
					continue
				}
				if v, ok := relink(a.Val, prefix, dirs); ok {
					tok.Attr[i].Val, changed = v, true
				}
			}
			if changed {
				out.WriteString(tok.String())
			} else {
				out.Write(raw)
			}
			if tok.Data == "meta" && hasAttr(tok, "charset") {
				out.WriteString(`<meta http-equiv="Content-Security-Policy" content="` + html.EscapeString(web.MetaPolicy()) + `"/>`)
			}
		default:
			out.Write(z.Raw())
		}
	}
}

func hasAttr(t html.Token, key string) bool {
	for _, a := range t.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// relink returns v made to work under prefix, and whether v is an address
// of the site at all.
func relink(v, prefix string, dirs map[string]bool) (string, bool) {
	if !strings.HasPrefix(v, "/") || strings.HasPrefix(v, "//") {
		return v, false
	}
	p, rest := v, ""
	if i := strings.IndexAny(v, "?#"); i >= 0 {
		p, rest = v[:i], v[i:]
	}
	if dirs[strings.TrimSuffix(p, "/")] && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return prefix + p + rest, true
}
