// Command precompress writes the best brotli (quality 11) and gzip versions of
// the static files named on its command line next to them, named after the
// hashed asset name: web/static/tidemark.wasm becomes
// web/static/tidemark.<hash>.wasm.br and .gz. The web package serves these
// instead of compressing at run time, which for a large wasm module at brotli
// quality 11 takes seconds. Siblings of earlier builds are removed, and a file
// whose siblings are up to date is left alone.
//
// Usage:
//
//	go run ./web/internal/precompress web/static/tidemark.wasm
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidemark/tidemark/web/internal/assetpack"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: precompress FILE...")
		os.Exit(2)
	}
	for _, file := range os.Args[1:] {
		if err := precompress(file); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// precompress writes the brotli and gzip siblings of file.
func precompress(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("precompress: %w", err)
	}
	hash, err := assetpack.Hash(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("precompress: %s: %w", file, err)
	}
	dir, name := filepath.Dir(file), filepath.Base(file)
	base := filepath.Join(dir, assetpack.HashedName(name, hash))
	if err := removeStale(dir, name, base); err != nil {
		return err
	}
	if _, err := os.Stat(base + assetpack.BrotliSuffix); err == nil {
		if _, err := os.Stat(base + assetpack.GzipSuffix); err == nil {
			fmt.Printf("%s: up to date\n", file)
			return nil
		}
	}
	br, err := assetpack.Brotli(b, 11)
	if err != nil {
		return fmt.Errorf("precompress: %s: %w", file, err)
	}
	gz, err := assetpack.Gzip(b)
	if err != nil {
		return fmt.Errorf("precompress: %s: %w", file, err)
	}
	for _, out := range []struct {
		name string
		data []byte
	}{{base + assetpack.BrotliSuffix, br}, {base + assetpack.GzipSuffix, gz}} {
		if err := os.WriteFile(out.name, out.data, 0o644); err != nil {
			return fmt.Errorf("precompress: %w", err)
		}
		fmt.Printf("%s: %d bytes (%.0f%% of %d)\n", out.name, len(out.data), 100*float64(len(out.data))/float64(len(b)), len(b))
	}
	return nil
}

// removeStale deletes the compressed siblings that earlier builds wrote for
// name, keeping those of the current build (whose hashed name is base).
func removeStale(dir, name, base string) error {
	for _, suffix := range []string{assetpack.BrotliSuffix, assetpack.GzipSuffix} {
		matches, err := filepath.Glob(filepath.Join(dir, "*"+suffix))
		if err != nil {
			return fmt.Errorf("precompress: %w", err)
		}
		for _, m := range matches {
			original, _, ok := assetpack.SplitHashedName(strings.TrimSuffix(filepath.Base(m), suffix))
			if !ok || original != name || m == base+suffix {
				continue
			}
			if err := os.Remove(m); err != nil {
				return fmt.Errorf("precompress: %w", err)
			}
		}
	}
	return nil
}
