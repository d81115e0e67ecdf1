package widget

import (
	"errors"
	"strings"

	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sorted"
)

// Values are a link's query parameters. It is the type under net/url's
// Values, so the server passes its url.Values in as they are.
//
// The widget encodes and parses its links here rather than with net/url:
// the browser module would otherwise link net/url and what it brings along
// (net/netip, unique, weak), about 40 KB of the compressed download. Encode
// and ParseQuery agree with url.Values.Encode and url.ParseQuery byte for
// byte; the tests compare them.
type Values = map[string][]string

// get returns the first value of key, or "".
func get(v Values, key string) string {
	if vs := v[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Encode writes v as "a=1&b=2", sorted by key, as url.Values.Encode does.
func Encode(v Values) string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sorted.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, val := range v[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			queryEscape(&b, k)
			b.WriteByte('=')
			queryEscape(&b, val)
		}
	}
	return b.String()
}

// queryEscape writes s escaped as a query component: letters, digits and
// -_.~ as they are, a space as +, every other byte as %XX.
func queryEscape(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}

// ParseQuery parses a query such as "mark=lsn&step=14" (without its "?"),
// as url.ParseQuery does: it returns every pair it could read, and the first
// error (a bad %-escape or a semicolon) if there was one.
func ParseQuery(query string) (Values, error) {
	v := Values{}
	var first error
	for query != "" {
		var pair string
		pair, query, _ = strings.Cut(query, "&")
		if strings.Contains(pair, ";") {
			if first == nil {
				first = errors.New("invalid semicolon separator in query")
			}
			continue
		}
		if pair == "" {
			continue
		}
		key, value, _ := strings.Cut(pair, "=")
		key, err := queryUnescape(key)
		if err == nil {
			value, err = queryUnescape(value)
		}
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		v[key] = append(v[key], value)
	}
	return v, first
}

// queryUnescape undoes queryEscape: + is a space and %XX a byte.
func queryUnescape(s string) (string, error) {
	if !strings.ContainsAny(s, "%+") {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b.WriteByte(' ')
		case '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				bad := s[i:min(i+3, len(s))]
				return "", errors.New("invalid URL escape " + prose.Quote(bad))
			}
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
