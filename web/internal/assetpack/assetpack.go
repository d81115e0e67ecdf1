// Package assetpack holds the naming and compression rules for static assets
// that both the web package (at run time) and the precompress command (at
// build time) must agree on.
package assetpack

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/andybalholm/brotli"
)

// HashLen is the number of hexadecimal digits of the content hash that go into
// a hashed asset name. Eight digits (32 bits) are plenty to tell apart the
// versions of one file; they are not a security boundary.
const HashLen = 8

// Hash returns the hexadecimal SHA-256 digest of everything r yields.
func Hash(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("assetpack: hash: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// HashedName inserts the first HashLen digits of hash before the extension of
// name: "app.css" with hash "3f9a1c2b…" becomes "app.3f9a1c2b.css". A name
// without an extension gets the hash appended: "LICENSE.3f9a1c2b".
func HashedName(name, hash string) string {
	short := hash
	if len(short) > HashLen {
		short = short[:HashLen]
	}
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + short + ext
}

// SplitHashedName undoes HashedName: it returns the original name and the
// short hash, and ok is false when name does not carry a hash segment.
func SplitHashedName(name string) (original, short string, ok bool) {
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	if seg := path.Ext(stem); isShortHash(seg) {
		return strings.TrimSuffix(stem, seg) + ext, seg[1:], true
	}
	// A name without an extension: the hash is the last segment.
	if isShortHash(ext) && stem != "" {
		return stem, ext[1:], true
	}
	return "", "", false
}

// isShortHash reports whether seg is "." followed by HashLen lower-case
// hexadecimal digits.
func isShortHash(seg string) bool {
	if len(seg) != HashLen+1 || seg[0] != '.' {
		return false
	}
	for _, c := range seg[1:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Compressed-file suffixes. A build step may place "<hashed name>.br" and
// "<hashed name>.gz" next to an asset; because the sibling's name carries the
// hash of the original, a stale sibling of an older build is never served.
const (
	BrotliSuffix = ".br"
	GzipSuffix   = ".gz"
)

// Brotli compresses b at the given quality (0–11). Its window is the
// format's default, 4 MiB, unless b is longer: then it grows, up to the
// 16 MiB the format allows (RFC 7932; every browser decodes it), so that
// the end of a browser module of 6 MB can refer to its start (1–2 KB less
// for the builds of streams and of every world).
func Brotli(b []byte, quality int) ([]byte, error) {
	var buf bytes.Buffer
	w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: quality, LGWin: window(len(b))})
	if _, err := w.Write(b); err != nil {
		return nil, fmt.Errorf("assetpack: brotli: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("assetpack: brotli: %w", err)
	}
	return buf.Bytes(), nil
}

// window is the base-2 logarithm of the brotli window for n bytes: 22, the
// format's default, or the least up to 24 whose window (2^bits - 16 bytes)
// holds all n.
func window(n int) int {
	bits := 22
	for bits < 24 && n > 1<<bits-16 {
		bits++
	}
	return bits
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
