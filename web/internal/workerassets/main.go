// Command workerassets prints the content-hashed names of the files of a
// static directory (web/static), comma-separated, for `make worker` to link
// into the Cloudflare Worker as web.AssetNames: the Worker embeds none of
// the files, which are Workers static assets (written by tidemark export),
// but its pages link to them by these names.
//
// Usage:
//
//	go run ./web/internal/workerassets web/static
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidemark/tidemark/web/internal/assetpack"
	"github.com/tidemark/tidemark/web/internal/shrink"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: workerassets STATICDIR")
		os.Exit(2)
	}
	names, err := hashedNames(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "workerassets:", err)
		os.Exit(1)
	}
	fmt.Println(strings.Join(names, ","))
}

// hashedNames returns the hashed name of every file of dir, in the order of
// their names, leaving out the compressed copies (*.br, *.gz) the build
// writes beside some.
func hashedNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasSuffix(name, assetpack.BrotliSuffix) || strings.HasSuffix(name, assetpack.GzipSuffix) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		// The native server hashes the bytes it serves, minified.
		if b, err = shrink.File(name, b); err != nil {
			return nil, err
		}
		hash, err := assetpack.Hash(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		names = append(names, assetpack.HashedName(name, hash))
	}
	return names, nil
}
