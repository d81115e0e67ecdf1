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
	"fmt"
	"path"

	"github.com/tdewolff/minify/v2"
	"github.com/tdewolff/minify/v2/js"
)

// mediaTypes names the minifier of each file extension File shrinks.
var mediaTypes = map[string]string{
	".js": "application/javascript",
}

// m is the minifier, safe for concurrent use once set up.
var m = func() *minify.M {
	m := minify.New()
	m.AddFunc(mediaTypes[".js"], js.Minify)
	return m
}()

// File returns body minified when name is a JavaScript file, and
// body itself otherwise. A file the minifier cannot read is an error that
// names it: a syntax error in a committed script should stop the server
// from starting, not reach a browser.
func File(name string, body []byte) ([]byte, error) {
	mt, ok := mediaTypes[path.Ext(name)]
	if !ok {
		return body, nil
	}
	out, err := m.Bytes(mt, body)
	if err != nil {
		return nil, fmt.Errorf("shrink %s: %w", name, err)
	}
	return out, nil
}
