package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// discard is a ResponseWriter that keeps nothing, reused across requests, so
// that a benchmark measures the handler alone.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

func benchmarkServe(b *testing.B, h http.Handler, target string, header ...string) {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}

func BenchmarkStatic(b *testing.B) {
	h, err := NewHandler(Options{Precompress: true})
	if err != nil {
		b.Fatal(err)
	}
	u := AssetURL("app.css")
	b.Run("identity", func(b *testing.B) { benchmarkServe(b, h, u) })
	b.Run("gzip", func(b *testing.B) { benchmarkServe(b, h, u, "Accept-Encoding", "gzip") })
	b.Run("br", func(b *testing.B) { benchmarkServe(b, h, u, "Accept-Encoding", "gzip, deflate, br, zstd") })
}

func BenchmarkPage(b *testing.B) {
	h, err := NewHandler(Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("identity", func(b *testing.B) { benchmarkServe(b, h, "/") })
	b.Run("gzip", func(b *testing.B) { benchmarkServe(b, h, "/", "Accept-Encoding", "gzip") })
}
