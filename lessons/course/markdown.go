package course

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown is the parser of lesson files: CommonMark with GitHub's tables,
// attributes on headings ({#id}), the directives and glossary references.
// A goldmark parser may be used by several goroutines at once. It is built
// when a lesson is first read, not when the program starts: a Cloudflare
// Worker starts a program for each request, and most never read a lesson.
var markdown = sync.OnceValue(func() parser.Parser {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table),
		goldmark.WithParserOptions(
			parser.WithAttribute(),
			parser.WithBlockParsers(util.Prioritized(directiveParser{}, 50)),
			parser.WithInlineParsers(util.Prioritized(termParser{}, 50)),
		),
	).Parser()
})

// source is one lesson file and where its lines start.
type source struct {
	name  string
	data  []byte
	lines []int // the byte offset where each line starts
}

func newSource(name string, data []byte) *source {
	s := &source{name: name, data: data, lines: []int{0}}
	for i, c := range data {
		if c == '\n' {
			s.lines = append(s.lines, i+1)
		}
	}
	return s
}

// at returns the position of byte offset off.
func (s *source) at(off int) Pos {
	off = max(0, min(off, len(s.data)))
	i := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off }) - 1
	return Pos{File: s.name, Line: i + 1, Col: utf8.RuneCount(s.data[s.lines[i]:off]) + 1}
}

// parse parses the file with goldmark.
func (s *source) parse() ast.Node { return markdown().Parse(text.NewReader(s.data)) }

// startOf returns the byte offset where n starts in its source, or -1 when
// goldmark recorded none. A block starts where its first line does (a
// heading at its "#"), inline text where its characters do.
func startOf(n ast.Node) int {
	switch n := n.(type) {
	case *ast.Text:
		return n.Segment.Start
	case *directiveNode:
		return n.header.Start - 3
	case *termNode:
		return n.start
	case *ast.RawHTML:
		if n.Segments.Len() > 0 {
			return n.Segments.At(0).Start
		}
	}
	if n.Type() == ast.TypeBlock {
		if p := n.Pos(); p >= 0 {
			return p
		}
		if n.Lines().Len() > 0 {
			return n.Lines().At(0).Start
		}
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if o := startOf(c); o >= 0 {
			return o
		}
	}
	return -1
}

// reader turns one parsed file into lesson content, recording problems.
type reader struct {
	src   *source
	e     *errs
	gl    map[string]Term // the lesson's glossary, for references
	links []link          // links within the lesson, checked once every chapter is read
}

// link is a link to an anchor of the lesson (#id), and where it is written.
type link struct {
	href string
	pos  Pos
}

func (r *reader) pos(n ast.Node) Pos {
	if o := startOf(n); o >= 0 {
		return r.src.at(o)
	}
	return Pos{File: r.src.name, Line: 1}
}

// blockText returns the plain text of a block's inline content, for a
// heading's title.
func (r *reader) blockText(n ast.Node) string {
	return r.rich(n, r.src.data, r.src.at).Plain()
}

// rich converts the inline children of n into Rich. data is the text the
// segments point into and at gives the file position of an offset in it.
func (r *reader) rich(n ast.Node, data []byte, at func(int) Pos) Rich {
	var out Rich
	add := func(s string) {
		if s == "" {
			return
		}
		if len(out) > 0 && out[len(out)-1].Kind == KindText {
			out[len(out)-1].Text += s
			return
		}
		out = append(out, Span{Kind: KindText, Text: s})
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(data)
			if !c.IsRaw() {
				v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
			}
			s := string(v)
			r.strays(s, at(c.Segment.Start))
			add(s)
			if c.SoftLineBreak() || c.HardLineBreak() {
				add(" ")
			}
		case *ast.String:
			add(string(c.Value))
		case *ast.CodeSpan:
			var b strings.Builder
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if tx, ok := t.(*ast.Text); ok {
					b.Write(bytes.ReplaceAll(tx.Segment.Value(data), []byte("\n"), []byte(" ")))
				}
			}
			out = append(out, Span{Kind: KindCode, Text: b.String()})
		case *ast.Emphasis:
			kind := KindEmph
			if c.Level >= 2 {
				kind = KindStrong
			}
			out = append(out, Span{Kind: kind, Kids: r.rich(c, data, at)})
		case *ast.Link:
			dest := string(c.Destination)
			r.checkHref(dest, at(startOf(c)))
			out = append(out, Span{Kind: KindLink, Ref: dest, Kids: r.rich(c, data, at)})
		case *ast.AutoLink:
			u := string(c.URL(data))
			r.checkHref(u, at(startOf(c)))
			out = append(out, Span{Kind: KindLink, Ref: u, Kids: Text(string(c.Label(data)))})
		case *termNode:
			out = append(out, r.term(c, data, at, at(c.start)))
		case *ast.RawHTML:
			r.e.at(at(startOf(c)), "HTML is not allowed in a lesson; write Markdown, or a directive for what Markdown cannot say")
		case *ast.Image:
			r.e.at(at(startOf(c)), "images are not part of the lesson format; embed a scenario or a plot instead")
		default:
			r.e.at(at(startOf(c)), "%s is not part of the lesson format", c.Kind())
		}
	}
	// Trailing spaces from a line break at the end are dropped.
	if len(out) > 0 && out[len(out)-1].Kind == KindText {
		out[len(out)-1].Text = strings.TrimRight(out[len(out)-1].Text, " ")
		if out[len(out)-1].Text == "" {
			out = out[:len(out)-1]
		}
	}
	return out
}

// term converts a glossary reference, checking the term exists.
func (r *reader) term(c *termNode, data []byte, at func(int) Pos, p Pos) Span {
	s := Span{Kind: KindTerm, Ref: c.id}
	if c.FirstChild() != nil {
		s.Kids = r.rich(c, data, at)
	}
	t, ok := r.gl[c.id]
	if !ok {
		r.e.at(p, "{%s} names no term of this lesson's glossary%s", c.id, suggest(c.id, r.termIDs()))
		return s
	}
	if s.Kids == nil {
		s.Kids = Text(t.Name)
	}
	return s
}

func (r *reader) termIDs() []string {
	ids := make([]string, 0, len(r.gl))
	for id := range r.gl {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// strays reports markup left in text that goldmark read as plain
// characters: a brace pair that is not a glossary reference, emphasis
// marks that did not pair up.
func (r *reader) strays(s string, p Pos) {
	if i := strings.IndexByte(s, '{'); i >= 0 && strings.IndexByte(s[i:], '}') > 0 {
		q := p
		q.Col += utf8.RuneCountInString(s[:i])
		r.e.at(q, "%q is not a glossary reference; write {term-id} or {term-id|the words to show}, with a term of the glossary", truncate(s[i:i+strings.IndexByte(s[i:], '}')+1], 40))
	}
	for _, m := range []string{"**", "__"} {
		if i := strings.Index(s, m); i >= 0 {
			q := p
			q.Col += utf8.RuneCountInString(s[:i])
			r.e.at(q, "%q does not pair up, so it would show as written; close the emphasis, or escape it as \\%c", m, m[0])
		}
	}
}

// checkHref accepts links within the lesson (#id, checked once every
// chapter is read), to the site (/…) and to the web (https://…).
func (r *reader) checkHref(h string, p Pos) {
	switch {
	case strings.HasPrefix(h, "#") && len(h) > 1:
		r.links = append(r.links, link{h, p})
	case
		strings.HasPrefix(h, "/") && !strings.HasPrefix(h, "//"),
		strings.HasPrefix(h, "https://"), strings.HasPrefix(h, "http://"), strings.HasPrefix(h, "mailto:"):
	default:
		r.e.at(p, "link %q: a link goes to a section of the lesson (#id), a page of the site (/…) or a web address (https://…)", truncate(h, 60))
	}
}

// inline parses a field's value as one paragraph of Markdown.
func (r *reader) inline(f field) Rich {
	if strings.TrimSpace(f.value) == "" {
		return nil
	}
	data := []byte(f.value)
	doc := markdown().Parse(text.NewReader(data))
	at := func(off int) Pos { return f.at(off) }
	c := doc.FirstChild()
	if c == nil {
		return nil
	}
	para, ok := c.(*ast.Paragraph)
	if !ok || c.NextSibling() != nil {
		r.e.at(f.pos, "%s: a field holds one paragraph of text; lists, headings and code blocks belong outside the directive", f.name)
		return nil
	}
	return r.rich(para, data, at)
}

// plainField is a field whose value is shown as plain text (a caption read
// out as an aria-label, a title): its Markdown is read and the marks
// dropped.
func (r *reader) plainField(f field) string { return r.inline(f).Plain() }

// suggest returns ", such as …" naming up to a few of the known names that
// share a prefix with got, or all when there are few.
func suggest(got string, known []string) string {
	if len(known) == 0 {
		return ""
	}
	var near []string
	for _, k := range known {
		if len(got) >= 3 && len(k) >= 3 && k[:3] == got[:3] {
			near = append(near, k)
		}
	}
	switch {
	case len(near) > 0:
		return "; did you mean " + strings.Join(near, " or ") + "?"
	case len(known) <= 12:
		return "; known: " + strings.Join(known, ", ")
	}
	return ""
}

// directiveOf reads a directive node into its fields.
func (r *reader) directiveOf(n *directiveNode) (*directive, bool) {
	data := r.src.data
	header := string(n.header.Value(data))
	headerAt := func(off int) Pos { return r.src.at(n.header.Start + off) }
	body := make([]bodyLine, 0, n.Lines().Len())
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		body = append(body, bodyLine{text: string(seg.Value(data)), pos: r.src.at(seg.Start)})
	}
	if !n.closed {
		r.e.at(headerAt(-3), "directive %q is never closed; end it with a line holding just \":::\"", truncate(strings.TrimSpace(header), 30))
		return nil, false
	}
	return readDirective(header, headerAt, body, r.e)
}

// sectionAttrs reads a section heading's attributes: {#id} and, for the
// record, seed="heading|heading".
func (r *reader) sectionAttrs(h *ast.Heading) (id string, seeds []string) {
	p := r.pos(h)
	for _, a := range h.Attributes() {
		name := string(a.Name)
		v, _ := a.Value.([]byte)
		switch name {
		case "id":
			id = string(v)
		case "seed":
			for _, s := range strings.Split(string(v), "|") {
				if s = strings.TrimSpace(s); s != "" {
					seeds = append(seeds, s)
				}
			}
		default:
			r.e.at(p, "heading attribute %q is not part of the lesson format; a section heading takes {#id} and, optionally, seed=\"…\"", name)
		}
	}
	if id == "" {
		r.e.at(p, "section %q has no id; end its heading with {#an-id}, which the page's address and the learner's progress use", truncate(r.blockText(h), 40))
	} else if !isID(id) {
		r.e.at(p, "section id %q: use lower-case letters, digits and hyphens, at most 64", truncate(id, 70))
		id = ""
	}
	return id, seeds
}
