package share

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/lessons"
)

// TestRoundTrip: every bundled scenario survives a trip through a link.
func TestRoundTrip(t *testing.T) {
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, sc := range all {
		frag, err := Fragment(string(sc.Source))
		require.NoError(t, err, sc.ID)
		assert.True(t, strings.HasPrefix(frag, "tdm="), frag)
		assert.Less(t, len(frag), len(sc.Source), "%s: the link is shorter than the text", sc.ID)
		got, err := ParseFragment("#" + frag)
		require.NoError(t, err, sc.ID)
		assert.Equal(t, string(sc.Source), got, sc.ID)
	}
}

// TestDecodesTheBrowsersPayload reads what CompressionStream("deflate-raw")
// and base64url wrote in a browser (node 20's, which is Chromium's V8 and
// zlib) for a text with letters outside ASCII.
func TestDecodesTheBrowsersPayload(t *testing.T) {
	const fromBrowser = "K05OzUssysxXSEnNzdevUFA6PCfv8Prk_JRUhUdzJitxZeflJynkJhZlK9gqlGTmphaXJOYWKNQo5BTncQEA"
	got, err := Decode(fromBrowser)
	require.NoError(t, err)
	assert.Equal(t, "scenario demo/x \"Ünïcode ✓\"\nknob mark = timestamp | lsn\n", got)
}

// TestFragmentParameters: the payload is found among other parameters,
// with or without the "#", padded or not.
func TestFragmentParameters(t *testing.T) {
	p, err := Encode("scenario a/b \"B\"\n")
	require.NoError(t, err)
	for _, frag := range []string{"tdm=" + p, "#tdm=" + p, "#x=1&tdm=" + p + "&y=2", "tdm=" + p + "=="} {
		got, err := ParseFragment(frag)
		require.NoError(t, err, frag)
		assert.Equal(t, "scenario a/b \"B\"\n", got)
	}
	_, err = ParseFragment("#main")
	assert.ErrorIs(t, err, ErrEmpty)
	_, err = ParseFragment("")
	assert.ErrorIs(t, err, ErrEmpty)
}

// TestBadPayloads: each way a payload can be wrong gets its own error, and
// a message that says what happened.
func TestBadPayloads(t *testing.T) {
	good, err := Encode(strings.Repeat("txn T1 begin=10:00:00 commit=10:00:01 insert order_id=1\n", 20))
	require.NoError(t, err)
	deflatedThen := func(b, tail []byte) string {
		var buf bytes.Buffer
		zw, _ := flate.NewWriter(&buf, flate.BestCompression)
		_, _ = zw.Write(b)
		_ = zw.Close()
		buf.Write(tail)
		return base64.RawURLEncoding.EncodeToString(buf.Bytes())
	}
	deflated := func(b []byte) string { return deflatedThen(b, nil) }
	for _, tc := range []struct {
		name, payload string
		kind          error
		says          string
	}{
		{"empty", "", ErrEmpty, "no scenario"},
		{"cut short", good[:len(good)/2], ErrDamaged, "cannot be unpacked"},
		{"a character outside base64url", good[:10] + "+" + good[11:], ErrDamaged, `character 11 ('+')`},
		{"a length base64 cannot have", good[:1], ErrDamaged, "length does not fit"},
		{"not DEFLATE", base64.RawURLEncoding.EncodeToString([]byte("plain text, not compressed")), ErrDamaged, "cannot be unpacked"},
		{"not text", deflated([]byte{0xff, 0xfe, 0x00}), ErrDamaged, "not text"},
		{"bytes after the compressed text", deflatedThen([]byte("scenario a/b \"B\"\n"), []byte{1, 2, 3}), ErrDamaged, "3 bytes after the end of its compressed text"},
		{"too long", strings.Repeat("A", MaxPayload+1), ErrTooLong, "12288"},
		{"a small payload that unpacks to too much", deflated(bytes.Repeat([]byte("x"), MaxText+1)), ErrTooLarge, "more than 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.payload)
			require.Error(t, err)
			assert.Empty(t, got)
			assert.ErrorIs(t, err, tc.kind)
			assert.Contains(t, err.Error(), tc.says)
		})
	}
}

// TestEncodeRefusesWhatALinkCannotCarry: text over MaxText, and text
// that does not compress into MaxPayload characters.
func TestEncodeRefusesWhatALinkCannotCarry(t *testing.T) {
	_, err := Encode(strings.Repeat("a", MaxText+1))
	assert.ErrorIs(t, err, ErrTooLarge)
	// Random-looking text hardly compresses: 60 KB of it is too long a link.
	var b strings.Builder
	x := uint32(1)
	for b.Len() < 60<<10 {
		x = x*1664525 + 1013904223
		b.WriteByte("abcdefghijklmnopqrstuvwxyz0123456789 \n"[x>>26%38])
	}
	_, err = Encode(b.String())
	assert.ErrorIs(t, err, ErrTooLong)
	var se *Error
	require.True(t, errors.As(err, &se))
	assert.Contains(t, se.Why, "share it as a file")
}

// FuzzDecode: no payload makes Decode panic or return more than MaxText,
// and what it returns is text that encodes back to a payload carrying it.
func FuzzDecode(f *testing.F) {
	f.Add("K05OzUssysxXSEnNzdevUFA6PCfv8Prk_JRUhUdzJitxZeflJynkJhZlK9gqlGTmphaXJOYWKNQo5BTncQEA")
	f.Add("")
	f.Add("AwA")
	f.Add("____")
	f.Fuzz(func(t *testing.T, payload string) {
		text, err := Decode(payload)
		if err != nil {
			return
		}
		if len(text) > MaxText {
			t.Fatalf("decoded %d bytes, more than MaxText", len(text))
		}
		p, err := Encode(text)
		if err != nil {
			return // it may compress worse than the payload it came from
		}
		back, err := Decode(p)
		if err != nil || back != text {
			t.Fatalf("round trip of %q: %q, %v", text, back, err)
		}
	})
}

// TestFileOf: a link's file= names its scenario's file, as share.js reads
// it; anything but a plain file name is left for the default.
func TestFileOf(t *testing.T) {
	for frag, want := range map[string]string{
		"#file=late-commit.tdm&tdm=abc":     "late-commit.tdm",
		"tdm=abc&file=docs%2Fretry-dup.tdm": "retry-dup.tdm",
		"#tdm=abc":                          Unnamed,
		"#file=&tdm=abc":                    Unnamed,
		"#file=.hidden&tdm=abc":             Unnamed,
		"#file=a%20b.tdm&tdm=abc":           Unnamed,
		"#file=%ZZ&tdm=abc":                 Unnamed,
		"#file=<b>.tdm&tdm=abc":             Unnamed,
		"#file=" + strings.Repeat("a", 101): Unnamed,
		"#file=" + strings.Repeat("a", 100): strings.Repeat("a", 100),
		"#file=.hidden&file=ok.tdm&tdm=abc": Unnamed,
		"#file=ok.tdm&file=other.tdm":       "ok.tdm",
	} {
		assert.Equal(t, want, FileOf(frag), frag)
	}
}
