package web

import (
	"embed"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidemark/tidemark/web/internal/assetpack"
)

// static holds the files of web/static. The directory always contains the
// committed CSS and JavaScript, so the embed never comes up empty; the built
// tidemark.wasm and the copied wasm_exec.js are present only after `make wasm`.
//
//go:embed static
var static embed.FS

// staticDir is the directory inside static that holds the files.
const staticDir = "static"

// StaticPrefix is the URL path under which assets are served.
const StaticPrefix = "/static/"

// Cache-Control values. A hashed name changes whenever its content does, so a
// browser may keep it for a year without asking again. A plain name is served
// too (for documentation authors who need a stable URL, e.g. an embed script),
// but the browser must revalidate it with its ETag on every use.
const (
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "no-cache"
)

// bigAsset is the size above which run-time brotli drops from quality 11 to
// quality 9: at 11 a 1.8 MB wasm module takes about 5 s on one core, at 9 about
// 0.3 s for a result 10% larger. `make wasm` precompresses the module at 11.
const bigAsset = 256 << 10

// contentTypes fixes the Content-Type of the extensions we serve, rather than
// trusting the host's MIME tables (which differ between machines).
var contentTypes = map[string]string{
	".css":   "text/css; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".mjs":   "text/javascript; charset=utf-8",
	".wasm":  "application/wasm",
	".json":  "application/json",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".txt":   "text/plain; charset=utf-8",
	".woff2": "font/woff2",
}

// compressible lists the extensions worth compressing; images other than SVG
// and fonts are already compressed.
var compressible = map[string]bool{
	".css": true, ".js": true, ".mjs": true, ".wasm": true, ".json": true,
	".svg": true, ".txt": true, ".ico": true,
}

// asset is one file of web/static. Its hash and compressed forms are computed
// the first time they are needed: on Cloudflare Workers every request may
// start a fresh instance, which should pay only for the asset it serves.
type asset struct {
	name        string // e.g. "app.css"
	contentType string

	hashOnce sync.Once
	hash     string // full hexadecimal SHA-256 of the content
	hashErr  error

	br, gz encoding
}

// encoding is one compressed form of an asset. data stays nil when the form
// would not be smaller than the original.
type encoding struct {
	once sync.Once
	data []byte
	err  error
}

// assetTable indexes the files of web/static by their plain name.
type assetTable struct {
	byName map[string]*asset
	// siblings holds the names of build-time compressed files such as
	// "tidemark.3f9a1c2b.wasm.br".
	siblings map[string]bool
}

// assets loads the table of web/static once per process. Listing the embedded
// directory reads no file contents, so it is cheap.
var assets = sync.OnceValues(func() (*assetTable, error) {
	entries, err := static.ReadDir(staticDir)
	if err != nil {
		return nil, fmt.Errorf("web: list embedded %s: %w", staticDir, err)
	}
	t := &assetTable{byName: map[string]*asset{}, siblings: map[string]bool{}}
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir():
			continue // /static/{name} is one path segment
		case strings.HasSuffix(name, assetpack.BrotliSuffix), strings.HasSuffix(name, assetpack.GzipSuffix):
			t.siblings[name] = true
			continue
		}
		t.byName[name] = &asset{name: name, contentType: contentTypeOf(name)}
	}
	return t, nil
})

// contentTypeOf returns the Content-Type for a file name.
func contentTypeOf(name string) string {
	ext := path.Ext(name)
	if ct, ok := contentTypes[ext]; ok {
		return ct
	}
	if ct := mime.TypeByExtension(ext); ct != "" {
		return ct
	}
	return "application/octet-stream"
}

// AssetURL returns the content-hashed URL path of a file in web/static, e.g.
// AssetURL("app.css") == "/static/app.3f9a1c2b.css". For a file that does not
// exist (such as tidemark.wasm before `make wasm`) it returns the plain path,
// which answers 404; use LookupAsset to tell the two cases apart.
func AssetURL(name string) string {
	if u, ok := LookupAsset(name); ok {
		return u
	}
	return StaticPrefix + name
}

// LookupAsset returns the content-hashed URL path of a file in web/static and
// whether the file exists and could be read.
func LookupAsset(name string) (url string, ok bool) {
	t, err := assets()
	if err != nil {
		return "", false
	}
	a := t.byName[name]
	if a == nil {
		return "", false
	}
	hash, err := a.contentHash()
	if err != nil {
		return "", false
	}
	return StaticPrefix + assetpack.HashedName(name, hash), true
}

// open returns the embedded file of an asset as a seekable reader. Embedded
// files are read in place, without copying the content.
func (a *asset) open() (io.ReadSeeker, error) {
	f, err := static.Open(staticDir + "/" + a.name)
	if err != nil {
		return nil, fmt.Errorf("web: open asset %s: %w", a.name, err)
	}
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		return nil, fmt.Errorf("web: asset %s is not seekable", a.name)
	}
	return rs, nil
}

// contentHash returns the SHA-256 of the asset, computing it once.
func (a *asset) contentHash() (string, error) {
	a.hashOnce.Do(func() {
		rs, err := a.open()
		if err != nil {
			a.hashErr = err
			return
		}
		a.hash, a.hashErr = assetpack.Hash(rs)
	})
	return a.hash, a.hashErr
}

// hashedName returns the asset's content-hashed file name.
func (a *asset) hashedName() (string, error) {
	hash, err := a.contentHash()
	if err != nil {
		return "", err
	}
	return assetpack.HashedName(a.name, hash), nil
}

// compressible reports whether the asset's type is worth compressing.
func (a *asset) compressible() bool {
	return compressible[path.Ext(a.name)]
}

// content returns the whole uncompressed asset.
func (a *asset) content() ([]byte, error) {
	b, err := static.ReadFile(staticDir + "/" + a.name)
	if err != nil {
		return nil, fmt.Errorf("web: read asset %s: %w", a.name, err)
	}
	return b, nil
}

// compressed returns the asset in the given content coding ("br" or "gzip"),
// or nil when that form is not smaller than the original. It prefers a file
// that the build placed next to the asset and otherwise compresses once.
func (t *assetTable) compressed(a *asset, coding string) ([]byte, error) {
	if !a.compressible() {
		return nil, nil
	}
	enc, suffix := &a.br, assetpack.BrotliSuffix
	if coding == "gzip" {
		enc, suffix = &a.gz, assetpack.GzipSuffix
	}
	enc.once.Do(func() {
		hashed, err := a.hashedName()
		if err != nil {
			enc.err = err
			return
		}
		if t.siblings[hashed+suffix] {
			enc.data, enc.err = static.ReadFile(staticDir + "/" + hashed + suffix)
			return
		}
		orig, err := a.content()
		if err != nil {
			enc.err = err
			return
		}
		var data []byte
		if coding == "gzip" {
			data, err = assetpack.Gzip(orig)
		} else {
			quality := 11
			if len(orig) > bigAsset {
				quality = 9
			}
			data, err = assetpack.Brotli(orig, quality)
		}
		if err != nil {
			enc.err = fmt.Errorf("web: compress asset %s: %w", a.name, err)
			return
		}
		if len(data) < len(orig) {
			enc.data = data
		}
	})
	return enc.data, enc.err
}

// precompressAll computes every compressed form of every asset, two at a time
// (the machines we target have two cores).
func (t *assetTable) precompressAll() error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, 2)
	)
	for _, a := range t.byName {
		for _, coding := range []string{"br", "gzip"} {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				if _, err := t.compressed(a, coding); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// serveStatic answers GET /static/{name}. A hashed name is immutable; a plain
// name must be revalidated. Either way the response carries an ETag, so
// conditional requests get 304, and the body is brotli or gzip when the client
// accepts it and that form is smaller.
func (t *assetTable) serveStatic(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	a, cache := t.byName[name], cacheRevalidate
	if a == nil {
		original, short, ok := assetpack.SplitHashedName(name)
		if !ok || t.byName[original] == nil {
			http.NotFound(w, r)
			return
		}
		a, cache = t.byName[original], cacheImmutable
		hashed, err := a.hashedName()
		if err != nil {
			http.Error(w, "asset unavailable", http.StatusInternalServerError)
			return
		}
		if _, got, _ := assetpack.SplitHashedName(hashed); got != short {
			// A name from another build: better a 404 than the wrong file
			// cached for a year.
			http.NotFound(w, r)
			return
		}
	}
	hash, err := a.contentHash()
	if err != nil {
		http.Error(w, "asset unavailable", http.StatusInternalServerError)
		return
	}

	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", cache)
	etag := hash[:16]

	if a.compressible() {
		h.Add("Vary", "Accept-Encoding")
		for _, coding := range acceptedCodings(r.Header.Get("Accept-Encoding")) {
			data, err := t.compressed(a, coding)
			if err != nil {
				http.Error(w, "asset unavailable", http.StatusInternalServerError)
				return
			}
			if data == nil {
				continue
			}
			// Each representation gets its own strong ETag, as RFC 9110
			// requires. http.ServeContent would omit Content-Length for an
			// encoded body (and the wasm loader's progress needs it), so the
			// encoded case is answered here; it offers no ranges.
			etag = strconv.Quote(etag + "-" + coding)
			h.Set("Content-Encoding", coding)
			h.Set("ETag", etag)
			if noneMatch(r.Header.Get("If-None-Match"), etag) {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			h.Set("Content-Length", strconv.Itoa(len(data)))
			if r.Method != http.MethodHead {
				_, _ = w.Write(data)
			}
			return
		}
	}
	body, err := a.open()
	if err != nil {
		http.Error(w, "asset unavailable", http.StatusInternalServerError)
		return
	}
	h.Set("ETag", strconv.Quote(etag))
	// ServeContent answers If-None-Match and Range for the plain body.
	http.ServeContent(w, r, "", time.Time{}, body)
}

// noneMatch reports whether an If-None-Match header lists etag (or "*"),
// comparing weakly as RFC 9110 asks for this header.
func noneMatch(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}

// acceptedCodings returns the codings among "br" and "gzip" that an
// Accept-Encoding header allows, most preferred first (brotli wins ties).
func acceptedCodings(header string) []string {
	q := map[string]float64{}
	star, hasStar := 0.0, false
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		weight := 1.0
		for p := range strings.SplitSeq(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					weight = f
				}
			}
		}
		switch coding {
		case "":
		case "*":
			star, hasStar = weight, true
		default:
			q[coding] = weight
		}
	}
	weightOf := func(coding string) float64 {
		if w, ok := q[coding]; ok {
			return w
		}
		if hasStar {
			return star
		}
		return 0
	}
	br, gz := weightOf("br"), weightOf("gzip")
	var out []string
	switch {
	case br > 0 && br >= gz:
		out = append(out, "br")
		if gz > 0 {
			out = append(out, "gzip")
		}
	case gz > 0:
		out = append(out, "gzip")
		if br > 0 {
			out = append(out, "br")
		}
	}
	return out
}
