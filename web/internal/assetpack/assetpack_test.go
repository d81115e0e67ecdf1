package assetpack

import "testing"

func TestHashedNameRoundTrip(t *testing.T) {
	const hash = "3f9a1c2b5d6e7f8091a2b3c4d5e6f708"
	for _, tc := range []struct{ name, hashed string }{
		{"app.css", "app.3f9a1c2b.css"},
		{"wasm_exec.js", "wasm_exec.3f9a1c2b.js"},
		{"tidemark.wasm", "tidemark.3f9a1c2b.wasm"},
		{"min.app.js", "min.app.3f9a1c2b.js"},
		{"LICENSE", "LICENSE.3f9a1c2b"},
	} {
		if got := HashedName(tc.name, hash); got != tc.hashed {
			t.Errorf("HashedName(%q) = %q, want %q", tc.name, got, tc.hashed)
		}
		orig, short, ok := SplitHashedName(tc.hashed)
		if !ok || orig != tc.name || short != hash[:HashLen] {
			t.Errorf("SplitHashedName(%q) = %q, %q, %v", tc.hashed, orig, short, ok)
		}
	}
	for _, name := range []string{"app.css", "app.3F9A1C2B.css", "app.3f9a1c2.css", ".3f9a1c2b", "app.zzzzzzzz.css"} {
		if orig, _, ok := SplitHashedName(name); ok {
			t.Errorf("SplitHashedName(%q) = %q, want no hash", name, orig)
		}
	}
}
