package picture

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEscape(t *testing.T) {
	assert.Equal(t, "a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;", Escape(`a <b> & "c" 'd'`))
	assert.Equal(t, "tab\tok \uFFFD \uFFFD \uFFFD", Escape("tab\tok \x01 \xff \uFFFE"), "what XML cannot carry becomes U+FFFD")
}

func TestWrap(t *testing.T) {
	assert.Equal(t, []string{"one two", "three"}, wrap("one two three", 8))
	assert.Equal(t, []string{""}, wrap("", 10))
	long := strings.Repeat("x", 20)
	// A word longer than a line is cut into pieces a fifth shorter (a
	// link's letters are wider than prose's); its last piece shares a
	// line with the next word.
	assert.Equal(t, []string{"a", "xxxxxxxx", "xxxxxxxx", "xxxx b"}, wrap("a "+long+" b", 10))
}

func TestMessageIsXML(t *testing.T) {
	svg := Message("No such scenario", `named "<x>" & more`+"\x00")
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := dec.Token()
		if err != nil {
			require.Equal(t, "EOF", err.Error())
			break
		}
	}
	assert.Contains(t, svg, "&lt;x&gt;")
}
