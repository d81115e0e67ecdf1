package course

import (
	"testing"

	"github.com/tidemark/tidemark/lessons/text"
)

// BenchmarkLoad reads and checks every bundled lesson, as a server (or a
// Cloudflare Worker, once per instance) does before its first lesson page.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(text.Files, text.Root, text.Order); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify runs the engine for every claim of each lesson, as its
// tests do.
func BenchmarkVerify(b *testing.B) {
	ls, err := Load(text.Files, text.Root, text.Order)
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range ls {
		b.Run(l.Slug, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Verify(l); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
