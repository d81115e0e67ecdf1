//go:build !js

package assetpack

import (
	"bytes"
	"compress/gzip"
	"fmt"

	"github.com/andybalholm/brotli"
)

// The compressors are left out of a GOOS=js build: on Cloudflare Workers
// the platform compresses responses, and brotli's encoder alone would add
// about half a megabyte to the Worker.

// Brotli compresses b at the given quality (0–11).
func Brotli(b []byte, quality int) ([]byte, error) {
	var buf bytes.Buffer
	w := brotli.NewWriterLevel(&buf, quality)
	if _, err := w.Write(b); err != nil {
		return nil, fmt.Errorf("assetpack: brotli: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("assetpack: brotli: %w", err)
	}
	return buf.Bytes(), nil
}

// Gzip compresses b at the best gzip compression level.
func Gzip(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("assetpack: gzip: %w", err)
	}
	if _, err := w.Write(b); err != nil {
		return nil, fmt.Errorf("assetpack: gzip: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("assetpack: gzip: %w", err)
	}
	return buf.Bytes(), nil
}
