// Package shrink minifies the JavaScript of web/static before it is hashed
// and served: the scripts are kept readable in the repository (comments,
// whole names), and a learner downloads them without either. Style sheets
// are served as written: a CSS minifier's rewrites (the space dropped
// between two var() of a shorthand, for one) change what a browser
// computes in ways no test of behaviour sees, for a few kilobytes.
// The native server's asset table and `make worker`'s list of hashed names
// (web/internal/workerassets) both go through File, so a page rendered by
// the Worker links to the same bytes the static export holds.
package shrink

import (
	"bytes"
	"fmt"
	"path"

	"github.com/tdewolff/minify/v2"
	"github.com/tdewolff/minify/v2/js"
)

// m is the minifier, safe for concurrent use.
var m = minify.New()

// File returns body minified when name is a JavaScript file, and
// body itself otherwise. A file the minifier cannot read is an error that
// names it: a syntax error in a committed script should stop the server
// from starting, not reach a browser.
func File(name string, body []byte) ([]byte, error) {
	if path.Ext(name) != ".js" {
		return body, nil
	}
	var out bytes.Buffer
	err := js.Minify(m, &out, bytes.NewReader(body), nil)
	if err != nil {
		return nil, fmt.Errorf("shrink %s: %w", name, err)
	}
	return out.Bytes(), nil
}
