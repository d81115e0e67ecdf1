package course

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// A directive is what a lesson file says that Markdown cannot: a block
// that opens with a line ":::name arguments", holds lines of fields, and
// closes with a line ":::" (docs/lessons.md has every directive):
//
//	::: embed hwm/visibility-gap mark=lsn step=9
//	caption: The same four transactions with a log-position mark.
//	:::
//
// The goldmark block parser below keeps a directive's lines as they are;
// readDirective then splits them into fields.

// kindDirective is the goldmark node kind of a directive.
var kindDirective = ast.NewNodeKind("Directive")

// directiveNode is a directive as goldmark parsed it: the opening line's
// text after ":::", and the body lines, unparsed.
type directiveNode struct {
	ast.BaseBlock
	header text.Segment
	closed bool // a closing ":::" line was found
}

func (n *directiveNode) Kind() ast.NodeKind { return kindDirective }

// IsRaw reports that goldmark must not parse the body as Markdown.
func (n *directiveNode) IsRaw() bool { return true }

func (n *directiveNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Header": string(n.header.Value(src))}, nil)
}

// directiveParser opens a directive at a line that starts with ":::" and a
// name, at the top level of a file, and keeps every following line until a
// line that is ":::" alone.
type directiveParser struct{}

func (directiveParser) Trigger() []byte { return []byte{':'} }

func (directiveParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	if parent.Kind() != ast.KindDocument {
		return nil, parser.NoChildren
	}
	line, seg := reader.PeekLine()
	if pc.BlockOffset() != 0 || !bytes.HasPrefix(line, []byte(":::")) {
		return nil, parser.NoChildren
	}
	rest := bytes.TrimRight(line[3:], " \t\r\n")
	if len(bytes.TrimLeft(rest, " \t")) == 0 {
		// A closing line with nothing open: left as text, and reported.
		return nil, parser.NoChildren
	}
	n := &directiveNode{header: text.NewSegment(seg.Start+3, seg.Start+3+len(rest))}
	reader.AdvanceToEOL()
	return n, parser.NoChildren
}

func (directiveParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	line, seg := reader.PeekLine()
	if line == nil {
		return parser.Close
	}
	if string(bytes.TrimRight(line, " \t\r\n")) == ":::" {
		node.(*directiveNode).closed = true
		reader.AdvanceToEOL()
		return parser.Close
	}
	node.Lines().Append(seg)
	reader.AdvanceToEOL()
	return parser.Continue | parser.NoChildren
}

func (directiveParser) Close(ast.Node, text.Reader, parser.Context) {}
func (directiveParser) CanInterruptParagraph() bool                 { return true }
func (directiveParser) CanAcceptIndentedLine() bool                 { return false }

// kindTerm is the goldmark node kind of a glossary reference.
var kindTerm = ast.NewNodeKind("Term")

// termNode is a glossary reference, {id} or {id|shown words}. Its child,
// when there is one, is the text shown instead of the term's name.
type termNode struct {
	ast.BaseInline
	id    string
	start int // the offset of its "{"
}

func (n *termNode) Kind() ast.NodeKind { return kindTerm }

func (n *termNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"ID": n.id}, nil)
}

// termParser reads a glossary reference: "{", a term id, optionally "|"
// and the words to show, and "}" on the same line. Anything else that
// starts with "{" is left as text (and reported as a stray brace).
type termParser struct{}

func (termParser) Trigger() []byte { return []byte{'{'} }

func (termParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	end := bytes.IndexByte(line, '}')
	if end < 0 {
		return nil
	}
	body := line[1:end]
	id, shown, bar := bytes.Cut(body, []byte("|"))
	if !isID(string(id)) {
		return nil
	}
	n := &termNode{id: string(id), start: seg.Start}
	if bar {
		if len(bytes.TrimSpace(shown)) == 0 || bytes.ContainsAny(shown, "{|") {
			return nil
		}
		start := seg.Start + 1 + len(id) + 1
		n.AppendChild(n, ast.NewTextSegment(text.NewSegment(start, start+len(shown))))
	}
	block.Advance(end + 1)
	return n
}

// isID reports whether s is an id of the lesson format: lower-case
// letters, digits and inner hyphens, 1 to 64 characters, starting with a
// letter or digit. Progress is stored under ids of this shape.
func isID(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// directive is a directive split into its name, its arguments and its
// fields.
type directive struct {
	name   string
	args   string // the opening line after the name
	argsAt func(off int) Pos
	pos    Pos // of the ":::" that opens it
	fields []field
}

// field is one "name arg: value" entry of a directive's body. A value runs
// on over the lines that follow it indented by a space or a tab.
type field struct {
	name  string
	arg   string // the word between the name and the colon, as in "option a:"
	pos   Pos    // of the name
	value string // its lines joined with "\n", each trimmed
	lines []valueLine
}

// valueLine records where one line of a field's value starts in the file,
// so an offset into the value can be turned back into a file position.
type valueLine struct {
	off int // where the line starts in value
	pos Pos
}

// at returns the file position of offset off in the field's value.
func (f field) at(off int) Pos {
	if len(f.lines) == 0 {
		return f.pos
	}
	i := len(f.lines) - 1
	for i > 0 && f.lines[i].off > off {
		i--
	}
	l := f.lines[i]
	p := l.pos
	if off > l.off && off <= len(f.value) {
		p.Col += utf8.RuneCountInString(f.value[l.off:off])
	}
	return p
}

// bodyLine is one line of a directive's body and where it starts.
type bodyLine struct {
	text string
	pos  Pos
}

// readDirective splits a directive into its name, arguments and fields.
// header is the opening line after ":::"; headerAt gives the position of
// an offset into it.
func readDirective(header string, headerAt func(int) Pos, body []bodyLine, e *errs) (*directive, bool) {
	lead := len(header) - len(strings.TrimLeft(header, " \t"))
	h := header[lead:]
	nameEnd := strings.IndexAny(h, " \t")
	if nameEnd < 0 {
		nameEnd = len(h)
	}
	d := &directive{name: h[:nameEnd], pos: headerAt(0)}
	d.pos.Col = max(1, d.pos.Col-3)
	if !isWord(d.name) {
		e.at(headerAt(lead), "a directive starts with \":::\" and a name, such as \":::embed\"; got %q", truncate(h, 40))
		return nil, false
	}
	rest := h[nameEnd:]
	argLead := len(rest) - len(strings.TrimLeft(rest, " \t"))
	d.args = strings.TrimSpace(rest)
	argBase := lead + nameEnd + argLead
	d.argsAt = func(off int) Pos { return headerAt(argBase + off) }

	ok := true
	var cur *field
	for _, ln := range body {
		line := strings.TrimRight(ln.text, " \t\r\n")
		if strings.TrimSpace(line) == "" {
			cur = nil // a blank line ends a value
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if cur == nil {
				e.at(ln.pos, "this indented line continues no field; a field starts at the beginning of a line, as \"caption: …\"")
				ok = false
				continue
			}
			trimmed := strings.TrimLeft(line, " \t")
			p := ln.pos
			p.Col += utf8.RuneCountInString(line[:len(line)-len(trimmed)])
			cur.value += "\n"
			cur.lines = append(cur.lines, valueLine{off: len(cur.value), pos: p})
			cur.value += trimmed
			continue
		}
		f, good := readField(line, ln.pos, e)
		if !good {
			ok = false
			cur = nil
			continue
		}
		d.fields = append(d.fields, f)
		cur = &d.fields[len(d.fields)-1]
	}
	return d, ok
}

// readField reads the first line of a field: "name: value" or
// "name arg: value".
func readField(line string, p Pos, e *errs) (field, bool) {
	colon := strings.IndexByte(line, ':')
	if colon < 0 {
		e.at(p, "expected a field, as \"caption: …\", or \":::\" to end the directive; got %q", truncate(line, 40))
		return field{}, false
	}
	head := strings.Fields(line[:colon])
	if len(head) == 0 || len(head) > 2 || !isWord(head[0]) || len(head) == 2 && !isArg(head[1]) {
		e.at(p, "expected a field name before the colon, as \"caption:\" or \"option a:\"; got %q", truncate(line[:colon], 40))
		return field{}, false
	}
	f := field{name: head[0], pos: p}
	if len(head) == 2 {
		f.arg = head[1]
	}
	v := line[colon+1:]
	trimmed := strings.TrimLeft(v, " \t")
	vp := p
	vp.Col += utf8.RuneCountInString(line[:colon+1+len(v)-len(trimmed)])
	f.value = trimmed
	f.lines = []valueLine{{off: 0, pos: vp}}
	return f, true
}

// isWord reports whether s is a directive or field name: lower-case
// letters, digits and hyphens, starting with a letter.
func isWord(s string) bool {
	return s != "" && s[0] >= 'a' && s[0] <= 'z' && isID(s)
}

// isArg reports whether s can be the argument of a field: an option id or
// a knob value such as "10s" or "10:00:30" (without the colon, which ends
// the name) — letters, digits, '-', '.', '_'.
func isArg(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return false
		}
	}
	return s != ""
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// tok is one word of a directive's arguments or of a field such as
// "embed:": a bare word, key=value, or a "quoted string" (its quotes
// removed, \" and \\ unescaped).
type tok struct {
	key, value string // key is "" for a bare word or a quoted string
	quoted     bool
	off        int // where the token starts
}

// tokens splits s into tokens. The rules are those of scenario files
// (docs/scenarios.md, "Lexical rules"): words are separated by spaces or
// tabs; a quoted string closes on the same line; a value may be quoted.
func tokens(s string, at func(int) Pos, e *errs) ([]tok, bool) {
	var out []tok
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
			i++
		}
		if i >= len(s) {
			return out, true
		}
		start := i
		t := tok{off: start}
		if s[i] != '"' {
			for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '"' && s[i] != '=' {
				i++
			}
			word := s[start:i]
			if i < len(s) && s[i] == '=' {
				if word == "" {
					e.at(at(start), "expected a name before \"=\"")
					return nil, false
				}
				t.key = word
				i++
				if i >= len(s) || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' {
					e.at(at(i), "expected a value after %q", word+"=")
					return nil, false
				}
			} else {
				t.value = word
				if i < len(s) && s[i] == '"' {
					e.at(at(i), "a quote cannot start in the middle of a word; put a space before it")
					return nil, false
				}
				out = append(out, t)
				continue
			}
		}
		if s[i] == '"' {
			v, n, ok := unquote(s[i:])
			if !ok {
				e.at(at(i), "this quoted string does not close on its line")
				return nil, false
			}
			t.value, t.quoted = v, true
			i += n
		} else {
			vs := i
			for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '"' {
				i++
			}
			t.value = s[vs:i]
		}
		if i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' {
			e.at(at(i), "expected a space after %q", s[start:i])
			return nil, false
		}
		out = append(out, t)
	}
}

// unquote reads a quoted string at the start of s and returns its value
// and how many bytes it took.
func unquote(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return b.String(), i + 1, true
		case '\n':
			return "", 0, false
		case '\\':
			if i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
				i++
			}
		}
		b.WriteByte(s[i])
	}
	return "", 0, false
}

// fieldNames lists names for an "expected one of" message.
func fieldNames(names ...string) string { return strings.Join(names, ", ") }
