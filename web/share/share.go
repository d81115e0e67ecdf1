// Package share carries a scenario's text in a link, so that a scenario
// written by hand can be shared, embedded and pictured without any server
// storing it. The text travels compressed in the link's fragment, which
// browsers never send to a server:
//
//	https://HOST/play#tdm=PAYLOAD          opens the text in the sandbox
//	https://HOST/embed/?step=14#tdm=PAYLOAD shows it as a widget
//	https://HOST/picture.svg?src=PAYLOAD   draws it (a server receives the payload as a query)
//
// PAYLOAD is the text as UTF-8, compressed with raw DEFLATE (RFC 1951, what
// the browser's CompressionStream("deflate-raw") writes) and written in
// unpadded base64url (RFC 4648, section 5). web/static/share.js and
// web/static/embed.js encode and decode the same payload in the browser;
// this package is the same code for the server, the command line and tests.
//
// Both ends are bounded: a payload longer than MaxPayload characters, or one
// that unpacks to more than MaxText bytes, is refused with an error that says
// so, as is a payload that is not base64url, not DEFLATE or not UTF-8.
package share

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"io"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidemark/tidemark/engine/prose"
)

// Key is the name of the fragment's parameter: #tdm=PAYLOAD.
const Key = "tdm"

// MaxPayload bounds the length of a payload in characters. A link must
// survive chat tools, documentation sites and proxies: Cloudflare refuses a
// URL over 16 KB, so a payload stays well under that with room for the rest
// of the link. It holds about 9 KB of compressed text, which is a scenario
// of 30 to 60 KB as people write them.
const MaxPayload = 12 << 10

// MaxText bounds the text a payload unpacks to: the sandbox's own limit on
// a scenario (64 KB). A payload that would unpack to more is refused before
// it is unpacked further, so a small payload cannot blow up into a large one.
const MaxText = 64 << 10

// Errors a payload can fail with; every error Decode returns wraps one.
var (
	ErrEmpty    = errors.New("the link holds no scenario")
	ErrTooLong  = errors.New("the link's scenario is too long")
	ErrDamaged  = errors.New("the link's scenario is damaged")
	ErrTooLarge = errors.New("the link's scenario is too large")
)

// Encode returns the payload that carries text. It fails when the text is
// larger than MaxText or its payload longer than MaxPayload: such a scenario
// is shared as a file instead (embed.js's data-source, or the sandbox's own
// text box).
func Encode(text string) (string, error) {
	if len(text) > MaxText {
		return "", tooLarge(len(text))
	}
	var buf bytes.Buffer
	zw, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		return "", err
	}
	if _, err := io.WriteString(zw, text); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	payload := base64.RawURLEncoding.EncodeToString(buf.Bytes())
	if len(payload) > MaxPayload {
		return "", tooLong(len(payload))
	}
	return payload, nil
}

// Fragment returns the fragment, without its "#", that carries text:
// "tdm=PAYLOAD".
func Fragment(text string) (string, error) {
	p, err := Encode(text)
	if err != nil {
		return "", err
	}
	return Key + "=" + p, nil
}

// Decode returns the text a payload carries.
func Decode(payload string) (string, error) {
	// A padded payload (from a tool that pads base64) is read all the same.
	payload = strings.TrimRight(payload, "=")
	switch {
	case payload == "":
		return "", ErrEmpty
	case len(payload) > MaxPayload:
		return "", tooLong(len(payload))
	}
	for i := 0; i < len(payload); i++ {
		if c := payload[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "", damaged("character " + strconv.Itoa(i+1) + " (" + prose.QuoteRune(rune(c)) + ") is not one a link's scenario is written in; was the link cut short or changed on the way?")
		}
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return "", damaged("its length does not fit the encoding; was the link cut short?")
	}
	// A bytes.Reader is an io.ByteReader, so flate reads no further than
	// the end of the compressed text and br.Len() is what follows it.
	br := bytes.NewReader(raw)
	zr := flate.NewReader(br)
	defer zr.Close()
	text, err := io.ReadAll(io.LimitReader(zr, MaxText+1))
	switch {
	case len(text) > MaxText:
		return "", &Error{Kind: ErrTooLarge, Why: "it unpacks to more than " + strconv.Itoa(MaxText) + " bytes, the most a scenario may be"}
	case err != nil:
		return "", damaged("its compressed text cannot be unpacked; was the link cut short or changed on the way?")
	case br.Len() > 0:
		// The browser's DecompressionStream refuses bytes after the end
		// of the compressed text; so does the server, so that a link
		// reads the same on both.
		return "", damaged("it has " + strconv.Itoa(br.Len()) + " bytes after the end of its compressed text; was the link changed on the way?")
	case !utf8.Valid(text):
		return "", damaged("it unpacks to something that is not text")
	}
	return string(text), nil
}

// ParseFragment returns the text a link's fragment carries ("tdm=PAYLOAD",
// with or without its "#"). Other parameters in the fragment are ignored;
// a fragment without tdm= is ErrEmpty.
func ParseFragment(fragment string) (string, error) {
	if v, ok := fragmentParam(fragment, Key); ok {
		return Decode(v)
	}
	return "", ErrEmpty
}

// fragmentParam returns the value of the first name= in a link's fragment
// (parameters joined by "&", with or without its "#"), as it stands there.
func fragmentParam(fragment, name string) (string, bool) {
	for part := range strings.SplitSeq(strings.TrimPrefix(fragment, "#"), "&") {
		if v, ok := strings.CutPrefix(part, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// Unnamed is the file name the errors of a scenario from a link give
// when the link names no file (file=, see FileOf).
const Unnamed = "linked.tdm"

// FileOf returns the file name a link's fragment gives its scenario
// ("file=late-commit.tdm&tdm=…", as embed.js writes for data-source), for
// its errors to name, or Unnamed. As share.js does, it takes only a plain
// file name (a letter or digit, then up to 99 of letters, digits, ".",
// "_" and "-", after the last "/"): it is shown to a reader and comes from
// whoever wrote the link.
func FileOf(fragment string) string {
	v, ok := fragmentParam(fragment, "file")
	if !ok {
		return Unnamed
	}
	name, err := url.PathUnescape(v)
	if err != nil {
		return Unnamed
	}
	if name = name[strings.LastIndexByte(name, '/')+1:]; plainName(name) {
		return name
	}
	return Unnamed
}

func plainName(s string) bool {
	if len(s) == 0 || len(s) > 100 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

func tooLong(n int) error {
	return &Error{Kind: ErrTooLong, Why: "it is " + strconv.Itoa(n) + " characters long, and a link carries at most " + strconv.Itoa(MaxPayload) + "; share it as a file instead"}
}

func tooLarge(n int) error {
	return &Error{Kind: ErrTooLarge, Why: "it is " + strconv.Itoa(n) + " bytes, and a link carries at most " + strconv.Itoa(MaxText)}
}

func damaged(why string) error {
	return &Error{Kind: ErrDamaged, Why: why}
}

// Error is why a payload could not be made or read: Kind is one of
// ErrTooLong, ErrTooLarge and ErrDamaged, and Why says more, as the end of
// a sentence.
type Error struct {
	Kind error
	Why  string
}

func (e *Error) Error() string { return e.Kind.Error() + ": " + e.Why }
func (e *Error) Unwrap() error { return e.Kind }
