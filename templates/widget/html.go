package widget

import (
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/nocmp"
)

// builder is a small typed HTML writer. Attribute values and text are
// escaped; tag and attribute names are trusted constants of this package.
//
// It also records fragments: elements opened with fopen carry a
// data-frag key and are the units the browser replaces, inserts or moves
// when a step changes them (see diffStage). Fragments nest.
type builder struct {
	strings.Builder
	frags []frag
	stack []int // open fragments, innermost last
}

// frag is one fragment: its key and where its element's outer HTML lies in
// the builder's output.
type frag struct {
	_          nocmp.NoCompare
	key        string
	start, end int
	parent     int // the enclosing fragment, or -1
}

// fopen opens an element that is a fragment with key (unique in the
// stage). Close it with fclose.
func (b *builder) fopen(key, tag string, attrs ...string) {
	parent := -1
	if n := len(b.stack); n > 0 {
		parent = b.stack[n-1]
	}
	b.stack = append(b.stack, len(b.frags))
	b.frags = append(b.frags, frag{key: key, start: b.Len(), parent: parent})
	b.WriteByte('<')
	b.WriteString(tag)
	b.attrs(attrs)
	b.WriteString(` data-frag="`)
	b.escape(key)
	b.WriteString(`">`)
}

// splice appends what sub wrote, with its fragments, as if written here:
// its top-level fragments become children of the innermost open one.
func (b *builder) splice(sub *builder) {
	base, first, parent := b.Len(), len(b.frags), -1
	if n := len(b.stack); n > 0 {
		parent = b.stack[n-1]
	}
	for _, f := range sub.frags {
		f.start += base
		f.end += base
		if f.parent < 0 {
			f.parent = parent
		} else {
			f.parent += first
		}
		b.frags = append(b.frags, f)
	}
	b.WriteString(sub.String())
}

// fclose closes the innermost open fragment, an element of tag.
func (b *builder) fclose(tag string) {
	b.close(tag)
	n := len(b.stack) - 1
	b.frags[b.stack[n]].end = b.Len()
	b.stack = b.stack[:n]
}

// fvoid writes an empty element that is a fragment, such as an SVG line.
func (b *builder) fvoid(key, tag string, attrs ...string) {
	b.fopen(key, tag, attrs...)
	b.fclose(tag)
}

// open writes a start tag. attrs alternate name, value; an empty value
// writes a bare boolean attribute when the name ends in "?" and nothing otherwise.
func (b *builder) open(tag string, attrs ...string) {
	b.WriteByte('<')
	b.WriteString(tag)
	b.attrs(attrs)
	b.WriteByte('>')
}

func (b *builder) attrs(attrs []string) {
	for i := 0; i+1 < len(attrs); i += 2 {
		name, val := attrs[i], attrs[i+1]
		if strings.HasSuffix(name, "?") {
			if val != "" {
				b.WriteByte(' ')
				b.WriteString(strings.TrimSuffix(name, "?"))
			}
			continue
		}
		b.WriteByte(' ')
		b.WriteString(name)
		b.WriteString(`="`)
		b.escape(val)
		b.WriteByte('"')
	}
}

// void writes an element with no content, such as input or line.
func (b *builder) void(tag string, attrs ...string) {
	b.WriteByte('<')
	b.WriteString(tag)
	b.attrs(attrs)
	if svgTag(tag) {
		b.WriteString("/>")
		return
	}
	b.WriteByte('>')
}

func svgTag(tag string) bool {
	switch tag {
	case "line", "rect", "circle", "polyline", "path", "polygon", "use":
		return true
	}
	return false
}

func (b *builder) close(tag string) {
	b.WriteString("</")
	b.WriteString(tag)
	b.WriteByte('>')
}

// el writes an element holding escaped text.
func (b *builder) el(tag, text string, attrs ...string) {
	b.open(tag, attrs...)
	b.text(text)
	b.close(tag)
}

// table opens a table with a caption and a header row of column names and
// leaves its tbody open: the caller writes the rows, then closes tbody and table.
func (b *builder) table(caption string, cols []string, attrs ...string) {
	b.open("table", attrs...)
	b.el("caption", caption)
	b.open("thead")
	b.open("tr")
	for _, c := range cols {
		b.el("th", c, "scope", "col")
	}
	b.close("tr")
	b.close("thead")
	b.open("tbody")
}

func (b *builder) text(s string) { b.escape(s) }

// escape writes s with &, ', <, > and " escaped, as html.EscapeString
// does. It is written here so the browser module need not link package
// html and its table of entities (about 17 KB of the compressed download).
// It tells the five bytes from the rest by a table rather than by a
// switch: a stage's attributes and text are mostly digits and letters, and
// in wasm the switch's comparisons for each of their bytes took 3–8% of a
// step (BenchmarkStep).
func (b *builder) escape(s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		if !escaped[s[i]] {
			continue
		}
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '\'':
			esc = "&#39;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		default: // '"'
			esc = "&#34;"
		}
		b.WriteString(s[last:i])
		b.WriteString(esc)
		last = i + 1
	}
	b.WriteString(s[last:])
}

// escaped holds for the bytes escape escapes.
var escaped = [256]bool{'&': true, '\'': true, '<': true, '>': true, '"': true}

// itoa is strconv.Itoa, called as a function rather than copied into each
// of its many callers (the browser module's size; see docs/performance.md).
//
//go:noinline
func itoa(n int) string { return strconv.Itoa(n) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// pick returns a when cond holds and b otherwise.
func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// on returns "on" when cond holds, for boolean attributes.
func on(cond bool) string {
	if cond {
		return "on"
	}
	return ""
}

// replaceFirst is strings.Replace(s, old, new, 1) for an old that is not
// empty, without strings.Replace, which is 5 KB of the browser module.
func replaceFirst(s, old, new string) string {
	if before, after, ok := strings.Cut(s, old); ok {
		return before + new + after
	}
	return s
}

// button writes a button of the widget's own (class tm-btn) that does act
// when pressed, with more attributes after those: one call where each
// button would otherwise spell out its type and class.
func button(b *builder, text, act string, more ...string) {
	b.el("button", text, append([]string{"type", "button", "class", "tm-btn", "data-act", act}, more...)...)
}
