// Package htmltest finds elements in rendered HTML for tests, by their
// data-testid attribute, and checks the page rules that the site's
// Content-Security-Policy implies.
package htmltest

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// Doc is a parsed HTML document.
type Doc struct {
	Root *html.Node
}

// Parse parses a whole HTML document, failing the test when it cannot.
func Parse(t testing.TB, s string) Doc {
	t.Helper()
	root, err := html.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatalf("htmltest: parse HTML: %v", err)
	}
	return Doc{Root: root}
}

// All returns the elements below n, in document order, for which match is
// true.
func All(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && match(d) {
			out = append(out, d)
		}
	}
	return out
}

// ByTestID returns every element whose data-testid is id.
func (d Doc) ByTestID(id string) []*html.Node {
	return All(d.Root, func(n *html.Node) bool { return Attr(n, "data-testid") == id })
}

// One returns the single element whose data-testid is id, failing the test
// when there is none or more than one.
func (d Doc) One(t testing.TB, id string) *html.Node {
	t.Helper()
	nodes := d.ByTestID(id)
	if len(nodes) != 1 {
		t.Fatalf("htmltest: want one element with data-testid=%q, found %d", id, len(nodes))
	}
	return nodes[0]
}

// ByTag returns every element with the given tag name, e.g. "script".
func (d Doc) ByTag(tag string) []*html.Node {
	return All(d.Root, func(n *html.Node) bool { return n.Data == tag })
}

// Attr returns the value of n's attribute key, or "" when it has none.
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// HasAttr reports whether n has the attribute key, whatever its value.
func HasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// Text returns the text inside n with runs of white space collapsed to one
// space.
func Text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
			b.WriteByte(' ')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// CSPViolations lists what in the document a Content-Security-Policy without
// 'unsafe-inline' would block: inline <script> bodies, <style> elements,
// style="" attributes and on* event-handler attributes.
func (d Doc) CSPViolations() []string {
	var out []string
	for n := range d.Root.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch {
		case n.Data == "script" && Attr(n, "src") == "":
			out = append(out, "inline <script>")
		case n.Data == "style":
			out = append(out, "<style> element")
		}
		for _, a := range n.Attr {
			switch {
			case a.Key == "style":
				out = append(out, fmt.Sprintf("style attribute on <%s>", n.Data))
			case strings.HasPrefix(a.Key, "on"):
				out = append(out, fmt.Sprintf("%s attribute on <%s>", a.Key, n.Data))
			case (a.Key == "href" || a.Key == "src") && strings.HasPrefix(strings.ToLower(strings.TrimSpace(a.Val)), "javascript:"):
				out = append(out, fmt.Sprintf("javascript: URL on <%s>", n.Data))
			}
		}
	}
	return out
}

// VisibleText is the text of n as a reader sees it: inline elements run
// on, block elements start on a line of their own, and scripts, styles,
// templates, hidden elements and what only the engine's module fills in
// (data-tidemark-wasm) are left out. Code and pictures (code, pre, svg)
// are replaced by code, which may be empty: a placeholder keeps the
// punctuation beside it where a reader sees it.
func VisibleText(n *html.Node, code string) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
			return
		case n.Type == html.ElementNode:
			switch n.Data {
			case "code", "pre", "svg":
				b.WriteString(code)
				return
			case "script", "style", "template":
				return
			}
			if HasAttr(n, "data-tidemark-wasm") || HasAttr(n, "hidden") {
				return
			}
			if !inline[n.Data] {
				b.WriteString("\n")
				defer b.WriteString("\n")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// inline are the elements VisibleText runs on with the text around them.
var inline = map[string]bool{"a": true, "strong": true, "em": true, "span": true, "abbr": true, "b": true, "i": true, "label": true, "small": true}
