//go:build js

package web

import (
	"embed"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/tidemark/tidemark/web/internal/assetpack"
)

// On Cloudflare Workers (the only GOOS=js build of this package) the files
// of web/static are Workers static assets, which the platform serves before
// the Worker runs: the Worker embeds none of them (the wasm module alone
// would be three copies, plain and precompressed). It only needs their
// hashed names, to link to them; `make worker` lists them in AssetNames
// when it links the Worker (go build -ldflags "-X ...").

// AssetNames is the comma-separated list of the hashed names of the files
// of web/static ("app.3f9a1c2b.css,tidemark.0c1d2e3f.wasm,..."), set at link
// time by `make worker`.
var AssetNames string

// static is empty on GOOS=js; it exists so that the package's tests still
// type-check there (GOOS=js go vet).
var static embed.FS

// assetTable maps the plain name of each asset to its hashed name.
type assetTable struct {
	hashed map[string]string
}

var errNoAssetNames = errors.New("web: no asset names linked in; build the Worker with `make worker`, which sets web.AssetNames")

// assets reads AssetNames once.
var assets = sync.OnceValues(func() (*assetTable, error) {
	if AssetNames == "" {
		return nil, errNoAssetNames
	}
	t := &assetTable{hashed: map[string]string{}}
	for hashed := range strings.SplitSeq(AssetNames, ",") {
		original, _, ok := assetpack.SplitHashedName(hashed)
		if !ok {
			return nil, errors.New("web: AssetNames lists " + hashed + ", which carries no hash")
		}
		t.hashed[original] = hashed
	}
	return t, nil
})

func (t *assetTable) hashedName(name string) (string, bool) {
	h, ok := t.hashed[name]
	return h, ok
}

// precompressAll does nothing: the platform compresses.
func (t *assetTable) precompressAll() error { return nil }

// serveStatic answers 404: a file of web/static that exists is served by
// the platform before the request reaches the Worker.
func (t *assetTable) serveStatic(w http.ResponseWriter, r *http.Request) {
	http.NotFound(w, r)
}

// StaticFiles fails on GOOS=js: the Worker holds none of the files (see
// above); the copy of the site is made by a native build (tidemark export).
func StaticFiles() ([]StaticFile, error) {
	return nil, errors.New("web: a GOOS=js build holds no static file; export the site with a native build")
}
