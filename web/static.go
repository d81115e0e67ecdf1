//go:build !js

package web

import (
	"bytes"
	"embed"
	"fmt"
	"maps"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tidemark/tidemark/web/internal/assetpack"
	"github.com/tidemark/tidemark/web/internal/shrink"
)

// static holds the files of web/static. The directory always contains the
// committed CSS and JavaScript, so the embed never comes up empty; the built
// tidemark.wasm and the copied wasm_exec.js are present only after `make wasm`.
//
// A GOOS=js build (the Cloudflare Worker) embeds none of them: there the
// files are Workers static assets (see static_js.go).
//
//go:embed static
var static embed.FS

// staticDir is the directory inside static that holds the files.
const staticDir = "static"

// bigAsset is the size above which run-time brotli drops from quality 11 to
// quality 9: at 11 a 1.8 MB wasm module takes about 5 s on one core, at 9 about
// 0.3 s for a result 10% larger. `make wasm` precompresses the module at 11.
const bigAsset = 256 << 10

// asset is one file of web/static, read and hashed when the table is
// loaded. Its compressed forms are made the first time they are asked for
// (or all at once by Options.Precompress).
type asset struct {
	name        string // e.g. "app.css"
	hashed      string // e.g. "app.3f9a1c2b.css"
	contentType []string
	compress    bool // worth compressing (see compressible)

	// identity is the file as is; its ETag is the first 16 hexadecimal
	// digits of its SHA-256.
	identity *variant
	br, gz   lazyVariant
}

// assetTable indexes the files of web/static by their plain and their
// hashed names.
type assetTable struct {
	byName   map[string]*asset
	byHashed map[string]*asset
	// siblings holds the names of build-time compressed files such as
	// "tidemark.3f9a1c2b.wasm.br".
	siblings map[string]bool
}

// assets loads the table of web/static once per process: it reads and
// hashes every file (a few megabytes, the wasm module included).
var assets = sync.OnceValues(func() (*assetTable, error) {
	entries, err := static.ReadDir(staticDir)
	if err != nil {
		return nil, fmt.Errorf("web: list embedded %s: %w", staticDir, err)
	}
	t := &assetTable{byName: map[string]*asset{}, byHashed: map[string]*asset{}, siblings: map[string]bool{}}
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir():
			continue // /static/{name} is one path segment
		case strings.HasSuffix(name, assetpack.BrotliSuffix), strings.HasSuffix(name, assetpack.GzipSuffix):
			t.siblings[name] = true
			continue
		}
		body, err := static.ReadFile(staticDir + "/" + name)
		if err != nil {
			return nil, fmt.Errorf("web: read asset %s: %w", name, err)
		}
		// Served minified, and hashed as served (workerassets does the same).
		if body, err = shrink.File(name, body); err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		hash, err := assetpack.Hash(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("web: hash asset %s: %w", name, err)
		}
		a := &asset{
			name:        name,
			hashed:      assetpack.HashedName(name, hash),
			contentType: one(contentTypeOf(name)),
			compress:    compressible[path.Ext(name)],
			identity:    newVariant(body, "", hash[:16]),
		}
		t.byName[name] = a
		t.byHashed[a.hashed] = a
	}
	return t, nil
})

// hashedName returns the content-hashed file name of a file in web/static.
func (t *assetTable) hashedName(name string) (string, bool) {
	a := t.byName[name]
	if a == nil {
		return "", false
	}
	return a.hashed, true
}

// compressed returns the asset in the given content coding ("br" or
// "gzip"), or nil when that form is not smaller than the original. It
// prefers a file that the build placed next to the asset and otherwise
// compresses once.
func (t *assetTable) compressed(a *asset, coding string) (*variant, error) {
	if !a.compress {
		return nil, nil
	}
	lazy, suffix := &a.br, assetpack.BrotliSuffix
	if coding == "gzip" {
		lazy, suffix = &a.gz, assetpack.GzipSuffix
	}
	lazy.once.Do(func() {
		orig := a.identity.body
		var data []byte
		var err error
		switch {
		case t.siblings[a.hashed+suffix]:
			data, err = static.ReadFile(staticDir + "/" + a.hashed + suffix)
		case coding == "gzip":
			data, err = assetpack.Gzip(orig)
		default:
			quality := 11
			if len(orig) > bigAsset {
				quality = 9
			}
			data, err = assetpack.Brotli(orig, quality)
		}
		if err != nil {
			lazy.err = fmt.Errorf("web: compress asset %s: %w", a.name, err)
			return
		}
		if len(data) < len(orig) {
			lazy.v = newVariant(data, coding, strings.Trim(a.identity.etag[0], `"`))
		}
	})
	return lazy.v, lazy.err
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

// staticFields are the request fields serveStatic reads.
var staticFields = []string{"Accept-Encoding", "If-None-Match", "Range", "If-Range"}

// serveStatic answers GET /static/{name}. A hashed name is immutable; a plain
// name must be revalidated. Either way the response carries an ETag, so
// conditional requests get 304, and the body is brotli or gzip when the client
// accepts it and that form is smaller.
//
// This is the hottest path of the server, so it writes the header map
// directly with values made once per asset (see encoding.go) and sends the
// body in one write with its Content-Length, whatever its encoding, a
// Range request's part included (see byteRange).
func (t *assetTable) serveStatic(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	a, cache := t.byHashed[name], immutable
	if a == nil {
		// A plain name, or a hashed name from another build: better a 404
		// than the wrong file cached for a year.
		if a = t.byName[name]; a == nil {
			http.NotFound(w, r)
			return
		}
		cache = noCache
	}
	// What follows reads these fields of the request and nothing else
	// of it but the method and the name: the response may be kept.
	keep(w, staticFields...)
	v := a.identity
	if a.compress {
		var err error
		v = chooseVariant(r.Header["Accept-Encoding"], v, func(coding string) *variant {
			c, cerr := t.compressed(a, coding)
			if cerr != nil {
				err = cerr
			}
			return c
		})
		if err != nil {
			http.Error(w, "asset unavailable", http.StatusInternalServerError)
			return
		}
	}
	h := w.Header()
	h[hdrContentType] = a.contentType
	h[hdrCacheControl] = cache
	if a.compress {
		h[hdrVary] = varyAcceptEncoding
	}
	h[hdrETag] = v.etag
	if v.matches(r.Header["If-None-Match"]) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body, status, length := v.body, http.StatusOK, v.length
	if v.encoding == nil {
		h[hdrAcceptRanges] = acceptBytes
		if first, last, ok := byteRange(r, v); ok {
			size := strconv.Itoa(len(v.body))
			if first > last {
				h[hdrContentRange] = []string{"bytes */" + size}
				http.Error(w, "416 requested range not satisfiable", http.StatusRequestedRangeNotSatisfiable)
				return
			}
			h[hdrContentRange] = []string{"bytes " + strconv.Itoa(first) + "-" + strconv.Itoa(last) + "/" + size}
			body, status = v.body[first:last+1], http.StatusPartialContent
			length = []string{strconv.Itoa(len(body))}
		}
	}
	if v.encoding != nil {
		h[hdrContentEncoding] = v.encoding
	}
	h[hdrContentLength] = length
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		// A part is a slice of the shared body: a Range request costs no
		// copy of the file, however many are in flight.
		_, _ = writeShared(w, body)
	}
}

// byteRange reads the Range field of a GET for v's plain body: ok when it
// asks for one range and If-Range, if any, names v's ETag, with first >
// last when that range lies past the end (416). Anything else (several
// ranges, a Range this does not read, a stale If-Range) gets the whole file,
// which a server may always send instead of parts (RFC 9110, 14.2): as
// multipart/byteranges each request would be a copy of the file in memory.
func byteRange(r *http.Request, v *variant) (first, last int, ok bool) {
	spec, found := strings.CutPrefix(r.Header.Get("Range"), "bytes=")
	if !found || r.Method != http.MethodGet || strings.Contains(spec, ",") {
		return 0, 0, false
	}
	if ir := r.Header.Get("If-Range"); ir != "" && ir != v.etag[0] {
		return 0, 0, false
	}
	a, b, found := strings.Cut(strings.TrimSpace(spec), "-")
	if !found {
		return 0, 0, false
	}
	// A position is digits only: Atoi alone would take a sign.
	num := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && s[0] != '+' && s[0] != '-'
	}
	size := len(v.body)
	if a == "" { // the last b bytes
		n, ok := num(b)
		if !ok || n == 0 {
			return 0, 0, false
		}
		return max(size-n, 0), size - 1, size > 0
	}
	f, ok := num(a)
	l := size - 1
	if b != "" {
		l, found = num(b)
		ok = ok && found && l >= f
	}
	switch {
	case !ok:
		return 0, 0, false
	case f >= size:
		return 1, 0, true // past the end: 416
	}
	return f, min(l, size-1), true
}

// StaticFiles returns every file of web/static, by plain name, without the
// compressed copies the build writes beside some (a static host compresses
// by itself). Data is shared with the handler: do not modify it.
func StaticFiles() ([]StaticFile, error) {
	t, err := assets()
	if err != nil {
		return nil, err
	}
	var out []StaticFile
	for _, name := range slices.Sorted(maps.Keys(t.byName)) {
		a := t.byName[name]
		out = append(out, StaticFile{Name: name, Hashed: a.hashed, Data: a.identity.body})
	}
	return out, nil
}
