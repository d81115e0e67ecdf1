//go:build !js

// Command workerassets lays out the files of web/static as Workers static
// assets, for the Cloudflare Worker (see cmd/serve/worker.go): each file
// under its plain and its content-hashed name in DIR/static, and a _headers
// file giving them the headers the Go server gives them (a hashed name is
// immutable, a plain one is revalidated; nosniff; the SVG policy for SVG).
// It prints the hashed names, comma-separated, for `make worker` to link
// into the Worker as web.AssetNames.
//
// Compressed siblings (*.br, *.gz) are left out: the platform compresses.
//
// Usage:
//
//	go run ./web/internal/workerassets -out build/worker/assets web/static
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/web/internal/assetpack"
)

func main() {
	out := flag.String("out", "", "the assets directory to write (its static/ and _headers are replaced)")
	flag.Parse()
	if *out == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: workerassets -out DIR STATICDIR")
		os.Exit(2)
	}
	names, err := layOut(flag.Arg(0), *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "workerassets:", err)
		os.Exit(1)
	}
	fmt.Println(strings.Join(names, ","))
}

// Header values, as web serves them (web/assets.go, web/security.go).
const (
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "no-cache"
	svgPolicy       = "default-src 'none'; sandbox; frame-ancestors 'self'"
)

// layOut copies the files of src into dst/static under both names, writes
// dst/_headers, and returns the hashed names, sorted.
func layOut(src, dst string) ([]string, error) {
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(filepath.Join(dst, "static")); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dst, "static"), 0o755); err != nil {
		return nil, err
	}
	var names []string
	var headers strings.Builder
	headers.WriteString("# Written by web/internal/workerassets for `make worker`: the headers the\n# Go server gives these files.\n")
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasSuffix(name, assetpack.BrotliSuffix) || strings.HasSuffix(name, assetpack.GzipSuffix) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return nil, err
		}
		hash, err := assetpack.Hash(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		hashed := assetpack.HashedName(name, hash)
		for _, f := range []struct{ file, cache string }{{name, cacheRevalidate}, {hashed, cacheImmutable}} {
			file, cache := f.file, f.cache
			if err := os.WriteFile(filepath.Join(dst, "static", file), b, 0o644); err != nil {
				return nil, err
			}
			fmt.Fprintf(&headers, "/static/%s\n  Cache-Control: %s\n  X-Content-Type-Options: nosniff\n", file, cache)
			if filepath.Ext(name) == ".svg" {
				fmt.Fprintf(&headers, "  Content-Security-Policy: %s\n", svgPolicy)
			}
		}
		names = append(names, hashed)
	}
	slices.Sort(names)
	if err := os.WriteFile(filepath.Join(dst, "_headers"), []byte(headers.String()), 0o644); err != nil {
		return nil, err
	}
	return names, nil
}
