package web

import (
	"mime"
	"path"
)

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
	hashed, ok := t.hashedName(name)
	if !ok {
		return "", false
	}
	return StaticPrefix + hashed, true
}
