package widget_test

import (
	"math/rand/v2"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/templates/widget"
)

// The widget encodes and parses queries itself so the browser module does
// not link net/url; it must agree with net/url exactly.

func TestEncodeMatchesNetURL(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	alphabet := []rune("aZ09-_.~ +&=%?#;/:@!$'()*,é💥\x00\x7f")
	word := func() string {
		out := make([]rune, r.IntN(6))
		for i := range out {
			out[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(out)
	}
	for range 2000 {
		v := url.Values{}
		for range r.IntN(4) {
			k := word()
			for range 1 + r.IntN(2) {
				v.Add(k, word())
			}
		}
		require.Equal(t, v.Encode(), widget.Encode(v), "%q", v)
		back, err := widget.ParseQuery(v.Encode())
		require.NoError(t, err)
		want, _ := url.ParseQuery(v.Encode())
		assert.Equal(t, map[string][]string(want), back)
	}
	assert.Equal(t, "mark=lsn&step=14&truth=off", widget.Encode(widget.Values{"truth": {"off"}, "step": {"14"}, "mark": {"lsn"}}))
}

func TestParseQueryMatchesNetURL(t *testing.T) {
	for _, q := range []string{
		"", "a", "a=", "=b", "a=1&a=2", "a=1&&b=2", "a=%41%4a%4A+b", "a=%", "a=%4", "a=%zz&b=2", "%zz=1&b=2",
		"a=1;b=2", "a=1&b=2;c=3&d=4", "step=14&mark=lsn&truth=off&explain=3", "x=%E2%9C%96&y=a%2Bb", "a+b=c+d", "&&&", "a=b=c",
	} {
		want, werr := url.ParseQuery(q)
		got, err := widget.ParseQuery(q)
		assert.Equal(t, map[string][]string(want), got, "%q", q)
		assert.Equal(t, werr != nil, err != nil, "%q: error %v, net/url says %v", q, err, werr)
		if werr != nil && err != nil {
			if _, ok := werr.(url.EscapeError); ok {
				assert.Equal(t, werr.Error(), err.Error(), q)
			}
		}
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"a=1&b=%20", "a=%zz;b", "step=3&mark=lsn"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		want, werr := url.ParseQuery(q)
		got, err := widget.ParseQuery(q)
		if (werr != nil) != (err != nil) {
			t.Fatalf("%q: error %v, net/url says %v", q, err, werr)
		}
		if len(want) != len(got) {
			t.Fatalf("%q: %q, net/url says %q", q, got, want)
		}
		for k, vs := range want {
			if len(got[k]) != len(vs) {
				t.Fatalf("%q: %q, net/url says %q", q, got, want)
			}
			for i := range vs {
				if got[k][i] != vs[i] {
					t.Fatalf("%q: %q, net/url says %q", q, got, want)
				}
			}
		}
		if enc := widget.Encode(got); enc != url.Values(got).Encode() {
			t.Fatalf("Encode(%q) = %q, net/url says %q", got, enc, url.Values(got).Encode())
		}
	})
}
