// Package scenario reads Tidemark's plain-text scenario files.
//
// A scenario file is a list of commands, one per line, each a command word
// followed by arguments: bare words, key=value pairs and "quoted strings".
// A # starts a comment that runs to the end of the line. The first command
// names the scenario; knob lines declare the choices a learner can flip; the
// rest describe the world and its schedule and are given meaning by the
// engine, which reports its own errors at the positions this package records.
//
// This package knows the syntax and the knobs only. It never panics on any
// input: every problem is an *Error naming file:line:column.
package scenario

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sorted"
)

// Pos is a place in a scenario file. Line and Col count from 1; Col counts
// characters, not bytes.
type Pos struct {
	File string
	Line int
	Col  int
}

// String prints the position as file:line:column.
func (p Pos) String() string { return prose.F("%s:%d:%d", p.File, p.Line, p.Col) }

// Error is a problem in a scenario file, at a position.
type Error struct {
	_   nocmp.NoCompare
	Pos Pos
	Msg string
}

// Error prints file:line:column: message.
func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Errorf builds an *Error at pos. It is not inlined: a copy of its body
// in each of its 150 callers cost the browser module kilobytes for no
// speed worth having on a path that reports a mistake.
//
//go:noinline
func Errorf(pos Pos, format string, args ...any) *Error {
	copied, arg := false, 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		if i++; i < len(format) && format[i] == '%' {
			continue
		}
		for i < len(format) && !isVerb(format[i]) {
			i++
		}
		if i < len(format) && format[i] == 'q' && arg < len(args) {
			if v, ok := args[arg].(string); ok && len(v) > maxQuoted {
				if !copied {
					args, copied = append([]any(nil), args...), true // the caller's slice is left alone
				}
				args[arg] = clipped(v)
			}
		}
		arg++
	}
	return &Error{Pos: pos, Msg: prose.F(format, args...)}
}

func isVerb(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// maxQuoted is the longest text an error quotes back (%q: what the file
// said, as opposed to the engine's own words around it): a value
// of 28 KB quoted back in full helps nobody find it, and an error may be
// echoed in a page or a log.
const maxQuoted = 80

// clipped is v cut to at most its first 60 bytes (whole characters) with
// how long it was, for an error that repeats it.
func clipped(v string) string {
	cut := 60
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + "… (" + strconv.Itoa(len(v)) + " bytes)"
}

// Arg is one argument of a command: a bare word (Key is empty) or key=value.
type Arg struct {
	_        nocmp.NoCompare
	Key      string
	Value    string
	Quoted   bool // the value was written in double quotes
	FromKnob bool // the value holds a $knob reference, replaced by Bind
	Pos      Pos  // where the argument starts
	ValuePos Pos  // where its value starts
}

// Command is one non-empty line of a scenario file.
type Command struct {
	Name string
	Pos  Pos
	Args []Arg
}

// Knob is a named choice a learner can flip. Values lists the allowed values
// in the order written; Default is the first of them.
type Knob struct {
	Name    string
	Label   string // an optional human label, shown beside the toggle
	Values  []string
	Default string
	Pos     Pos
}

// File is a parsed scenario file.
//
// Invariants: ID and Title are non-empty; knob names are unique; every
// $reference in Commands names a declared knob.
type File struct {
	Name     string // the file name used in error positions
	ID       string
	Title    string
	About    string // free prose from about lines, joined by spaces
	Knobs    []Knob
	Commands []Command // every command after the header, in file order
	Source   string    // the file's text, unchanged
}

// The character classes of the format. They are spelled out rather than
// written as regular expressions because this package is compiled into the
// browser's engine, where the regexp package would cost more than the parser.
func lower(c byte) bool  { return c >= 'a' && c <= 'z' }
func letter(c byte) bool { return lower(c) || c >= 'A' && c <= 'Z' }
func digit(c byte) bool  { return c >= '0' && c <= '9' }

// isID matches lower-case words of letters, digits, - and _ joined by /,
// each word starting with a letter or digit: hwm/visibility-gap.
func isID(s string) bool {
	for _, w := range strings.Split(s, "/") {
		if w == "" || !(lower(w[0]) || digit(w[0])) {
			return false
		}
		for i := 1; i < len(w); i++ {
			if c := w[i]; !(lower(c) || digit(c) || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// isName matches a letter followed by letters, digits, - and _.
func isName(s string) bool {
	if s == "" || !letter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(letter(c) || digit(c) || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// isValue matches a knob value: letters, digits and . : + - _.
func isValue(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(letter(c) || digit(c) || strings.IndexByte("_.:+-", c) >= 0) {
			return false
		}
	}
	return true
}

// refs returns the [start, end) byte ranges of the $name references in s.
func refs(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) || !letter(s[i+1]) {
			continue
		}
		j := i + 2
		for j < len(s) && (letter(s[j]) || digit(s[j]) || s[j] == '-' || s[j] == '_') {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j - 1
	}
	return out
}

// expand replaces each $name reference in s by value(name).
func expand(s string, value func(string) string) string {
	rs := refs(s)
	if len(rs) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, r := range rs {
		b.WriteString(s[last:r[0]])
		b.WriteString(value(s[r[0]+1 : r[1]]))
		last = r[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// Parse reads a scenario file. name is used in error positions.
func Parse(name string, src []byte) (*File, error) {
	if !utf8.Valid(src) {
		line, col := firstInvalid(src)
		return nil, Errorf(Pos{name, line, col}, "the file is not valid UTF-8 text")
	}
	// A byte order mark, which some editors (Windows Notepad) write at the
	// start of a UTF-8 file, is no part of the text, as a browser's
	// Response.text() also drops it.
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		src = src[3:]
	}
	f := &File{Name: name, Source: string(src)}
	lines := strings.Split(string(src), "\n")
	for i, text := range lines {
		text = strings.TrimSuffix(text, "\r")
		if k := strings.IndexByte(text, '\r'); k >= 0 {
			// A carriage return left over: a line ending of old Mac files
			// (the whole file reads as one line), or a doubled one. Named,
			// where it would read as part of a word ("10:00:01\r").
			return nil, Errorf(Pos{name, i + 1, utf8.RuneCountInString(text[:k]) + 1}, "a carriage return (U+000D) here ends no line: save the file with LF or CRLF line endings")
		}
		cmd, err := lexLine(name, i+1, text)
		if err != nil {
			return nil, err
		}
		if cmd == nil {
			continue
		}
		if f.ID == "" && cmd.Name != "scenario" {
			return nil, Errorf(cmd.Pos, "expected the first command to be `scenario ID \"Title\"`, found %q", cmd.Name)
		}
		switch cmd.Name {
		case "scenario":
			if err := f.header(cmd); err != nil {
				return nil, err
			}
		case "about":
			if len(cmd.Args) != 1 || cmd.Args[0].Key != "" {
				return nil, Errorf(cmd.Pos, "expected `about \"text\"` with one quoted string")
			}
			f.About = strings.TrimSpace(f.About + " " + cmd.Args[0].Value)
		case "knob":
			k, err := parseKnob(name, i+1, text, cmd)
			if err != nil {
				return nil, err
			}
			if prev := f.Knob(k.Name); prev != nil {
				return nil, Errorf(k.Pos, "knob %q is already declared at %s", k.Name, prev.Pos)
			}
			f.Knobs = append(f.Knobs, k)
		default:
			f.Commands = append(f.Commands, *cmd)
		}
	}
	if f.ID == "" {
		return nil, Errorf(Pos{name, 1, 1}, "expected a `scenario ID \"Title\"` line; the file has no commands")
	}
	for _, c := range f.Commands {
		for _, a := range c.Args {
			for _, loc := range refs(a.Value) {
				ref := a.Value[loc[0]+1 : loc[1]]
				if f.Knob(ref) == nil {
					p := a.ValuePos
					p.Col += utf8.RuneCountInString(a.Value[:loc[0]])
					if a.Quoted {
						p.Col++
					}
					return nil, Errorf(p, "unknown knob $%s; declared knobs: %s", ref, f.knobNames())
				}
			}
		}
	}
	return f, nil
}

func (f *File) header(cmd *Command) error {
	if f.ID != "" {
		return Errorf(cmd.Pos, "expected one scenario line; this file already has one")
	}
	if len(cmd.Args) < 1 || cmd.Args[0].Key != "" || cmd.Args[0].Quoted {
		return Errorf(cmd.Pos, "expected `scenario ID \"Title\"`, with an id such as hwm/visibility-gap")
	}
	id := cmd.Args[0]
	if !isID(id.Value) {
		return Errorf(id.Pos, "expected a scenario id of lower-case words joined by / (such as hwm/visibility-gap), found %q", id.Value)
	}
	if len(cmd.Args) < 2 || !cmd.Args[1].Quoted || cmd.Args[1].Key != "" || strings.TrimSpace(cmd.Args[1].Value) == "" {
		// Where the title is missing: just after the id (an id is ASCII).
		p := Pos{File: id.Pos.File, Line: id.Pos.Line, Col: id.Pos.Col + len(id.Value)}
		if len(cmd.Args) > 1 {
			p = cmd.Args[1].Pos
		}
		return Errorf(p, "expected a quoted title after the id, as in scenario %s \"What it shows\"", id.Value)
	}
	if len(cmd.Args) > 2 {
		return Errorf(cmd.Args[2].Pos, "unexpected %q after the title; the line is scenario %s \"Title\" and nothing more", cmd.Args[2].Value, id.Value)
	}
	f.ID, f.Title = id.Value, cmd.Args[1].Value
	return nil
}

// parseKnob reads `knob NAME = v1 | v2 | v3 ["label"]`.
func parseKnob(file string, line int, text string, cmd *Command) (Knob, error) {
	usage := "expected `knob NAME = value | value ...` with an optional quoted label"
	var words []Arg
	label := ""
	for _, a := range cmd.Args {
		if a.Quoted && a.Key == "" {
			label = a.Value
			continue
		}
		if label != "" {
			return Knob{}, Errorf(a.Pos, "%s; the label comes last", usage)
		}
		// name=value tokens are split back into words.
		if a.Key != "" {
			words = append(words, Arg{Value: a.Key, Pos: a.Pos}, Arg{Value: "=", Pos: a.ValuePos}, Arg{Value: a.Value, Pos: a.ValuePos})
			continue
		}
		words = append(words, a)
	}
	// Re-split words around | so that `a|b` and `a | b` read alike.
	var toks []Arg
	for _, w := range words {
		rest, p := w.Value, w.Pos
		for rest != "" {
			i := strings.IndexAny(rest, "|=")
			if i < 0 {
				toks = append(toks, Arg{Value: rest, Pos: p})
				break
			}
			if i > 0 {
				toks = append(toks, Arg{Value: rest[:i], Pos: p})
			}
			q := p
			q.Col += utf8.RuneCountInString(rest[:i])
			toks = append(toks, Arg{Value: rest[i : i+1], Pos: q})
			p = q
			p.Col++
			rest = rest[i+1:]
		}
	}
	if len(toks) < 3 || toks[1].Value != "=" {
		p := cmd.Pos
		if len(toks) > 1 {
			p = toks[1].Pos
		}
		return Knob{}, Errorf(p, "%s", usage)
	}
	k := Knob{Name: toks[0].Value, Pos: toks[0].Pos, Label: label}
	if !isName(k.Name) {
		return Knob{}, Errorf(toks[0].Pos, "expected a knob name of letters, digits, - and _, found %q", k.Name)
	}
	wantValue := true
	for _, t := range toks[2:] {
		if wantValue {
			if t.Value == "|" || t.Value == "=" {
				return Knob{}, Errorf(t.Pos, "expected a value, found %q", t.Value)
			}
			if !isValue(t.Value) {
				return Knob{}, Errorf(t.Pos, "expected a knob value of letters, digits and . : + - _, found %q", t.Value)
			}
			if slices.Contains(k.Values, t.Value) {
				return Knob{}, Errorf(t.Pos, "value %q is listed twice for knob %s", t.Value, k.Name)
			}
			k.Values = append(k.Values, t.Value)
		} else if t.Value != "|" {
			return Knob{}, Errorf(t.Pos, "expected | between values, found %q", t.Value)
		}
		wantValue = !wantValue
	}
	if wantValue {
		return Knob{}, Errorf(toks[len(toks)-1].Pos, "expected a value after the last |")
	}
	k.Default = k.Values[0]
	return k, nil
}

// Knob returns the knob named name, or nil.
func (f *File) Knob(name string) *Knob {
	for i := range f.Knobs {
		if f.Knobs[i].Name == name {
			return &f.Knobs[i]
		}
	}
	return nil
}

func (f *File) knobNames() string {
	if len(f.Knobs) == 0 {
		return "none"
	}
	names := make([]string, len(f.Knobs))
	for i, k := range f.Knobs {
		names[i] = "$" + k.Name
	}
	return strings.Join(names, ", ")
}

// Settings holds a value for every knob of a file.
type Settings map[string]string

// Resolve checks the given knob values against the file and fills in the
// defaults. An unknown knob or value is an error that lists what is allowed.
func (f *File) Resolve(set map[string]string) (Settings, error) {
	out := Settings{}
	for _, k := range f.Knobs {
		out[k.Name] = k.Default
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sorted.Sort(names)
	for _, n := range names {
		v := set[n]
		k := f.Knob(n)
		if k == nil {
			return nil, prose.Errorf("scenario %s has no knob %q (knobs: %s)", f.ID, n, prose.ReplaceAll(f.knobNames(), "$", ""))
		}
		if !slices.Contains(k.Values, v) {
			return nil, prose.Errorf("knob %s cannot be %q; expected one of %s", n, v, strings.Join(k.Values, " | "))
		}
		out[n] = v
	}
	return out, nil
}

// UnusedKnobs returns the knobs that no line refers to as $NAME: their
// values change nothing.
func (f *File) UnusedKnobs() []Knob {
	used := map[string]bool{}
	for _, c := range f.Commands {
		for _, a := range c.Args {
			for _, r := range refs(a.Value) {
				used[a.Value[r[0]+1:r[1]]] = true
			}
		}
	}
	var out []Knob
	for _, k := range f.Knobs {
		if !used[k.Name] {
			out = append(out, k)
		}
	}
	return out
}

// Bind returns the commands with every $knob reference replaced by its value
// in s, which must come from Resolve.
func (f *File) Bind(s Settings) []Command {
	out := make([]Command, len(f.Commands))
	for i, c := range f.Commands {
		c.Args = slices.Clone(c.Args)
		for j, a := range c.Args {
			if strings.Contains(a.Value, "$") {
				c.Args[j].Value = expand(a.Value, func(name string) string { return s[name] })
				c.Args[j].FromKnob = true
			}
		}
		out[i] = c
	}
	return out
}

// lexLine splits one line into a command, or returns nil for a blank or
// comment-only line.
func lexLine(file string, line int, text string) (*Command, error) {
	runes := []rune(text)
	pos := func(i int) Pos { return Pos{file, line, i + 1} }
	var args []Arg
	i := 0
	for {
		for i < len(runes) && (runes[i] == ' ' || runes[i] == '\t') {
			i++
		}
		if i >= len(runes) || runes[i] == '#' {
			break
		}
		start := i
		var a Arg
		a.Pos = pos(start)
		if runes[i] == '"' {
			s, next, err := lexQuoted(runes, i, pos)
			if err != nil {
				return nil, err
			}
			a.Value, a.Quoted, a.ValuePos = s, true, pos(i)
			i = next
		} else {
			for i < len(runes) && runes[i] != ' ' && runes[i] != '\t' && runes[i] != '"' && runes[i] != '=' && runes[i] != '#' {
				i++
			}
			word := string(runes[start:i])
			if i < len(runes) && runes[i] == '=' && word != "" {
				a.Key = word
				i++
				a.ValuePos = pos(i)
				if i < len(runes) && runes[i] == '"' {
					s, next, err := lexQuoted(runes, i, pos)
					if err != nil {
						return nil, err
					}
					a.Value, a.Quoted = s, true
					i = next
				} else {
					vs := i
					for i < len(runes) && runes[i] != ' ' && runes[i] != '\t' && runes[i] != '"' && runes[i] != '#' {
						i++
					}
					a.Value = string(runes[vs:i])
					if a.Value == "" {
						return nil, Errorf(pos(vs), "expected a value after %s=", word)
					}
				}
			} else {
				if i < len(runes) && runes[i] == '=' {
					// A bare '=' (as in `knob mark = a | b`) is a word of its own.
					i++
				}
				if i == start {
					return nil, Errorf(pos(start), "unexpected %q", runes[start])
				}
				a.Value, a.ValuePos = string(runes[start:i]), pos(start)
			}
		}
		// A space that is not one (U+00A0 from a web page or a word
		// processor, and its kin) would join two words into one: name it
		// where it is, outside a quoted string.
		end := i
		if a.Quoted {
			end = start + len([]rune(a.Key))
		}
		for k := start; k < end; k++ {
			if name, odd := oddSpace(runes[k]); odd {
				return nil, Errorf(pos(k), "%s here looks like a space but is not one; type an ordinary space", name)
			}
		}
		if i < len(runes) && runes[i] != ' ' && runes[i] != '\t' && runes[i] != '#' {
			if !a.Quoted && a.Key == "" && a.Value == "=" && len(args) > 0 && args[0].Value != "knob" {
				// `at =10:00:02`: the key is a word of its own.
				if prev := args[len(args)-1]; len(args) > 1 && prev.Key == "" && !prev.Quoted {
					end := i
					for end < len(runes) && runes[end] != ' ' && runes[end] != '\t' && runes[end] != '#' {
						end++
					}
					return nil, Errorf(pos(start), "expected no space before \"=\": write %s=%s", prev.Value, string(runes[i:end]))
				}
				return nil, Errorf(pos(start), "expected a name before \"=\" with no space between, as in KEY=VALUE")
			}
			return nil, Errorf(pos(i), "expected a space after %q", string(runes[start:i]))
		}
		args = append(args, a)
	}
	if len(args) == 0 {
		return nil, nil
	}
	first := args[0]
	if first.Key == "" && !first.Quoted && !isName(first.Value) {
		return nil, Errorf(first.Pos, "expected a command word at the start of the line, a name such as source, found %q", first.Value)
	}
	if first.Key != "" || first.Quoted {
		return nil, Errorf(first.Pos, "expected a command word at the start of the line, found %q", string(runes[first.Pos.Col-1:min(len(runes), first.Pos.Col+19)]))
	}
	if first.Value != "knob" {
		// Only a knob line has an "=" of its own (knob mark = a | b); in
		// any other, `at = 10:00:02` would be read as three words and
		// reported as a missing at= at the start of the line.
		for j, x := range args {
			if x.Quoted || x.Key != "" || x.Value != "=" {
				continue
			}
			if j > 1 && j+1 < len(args) && args[j-1].Key == "" && !args[j-1].Quoted && args[j+1].Key == "" {
				return nil, Errorf(x.Pos, "expected no spaces around \"=\": write %s=%s", args[j-1].Value, args[j+1].Value)
			}
			return nil, Errorf(x.Pos, "expected no spaces around \"=\", as in KEY=VALUE")
		}
	}
	return &Command{Name: first.Value, Pos: first.Pos, Args: args[1:]}, nil
}

// oddSpace names r when it is a space other than the ordinary space and
// the tab, which separate a line's words: a no-break space (U+00A0), a
// zero-width one, and the other spaces of Unicode.
func oddSpace(r rune) (string, bool) {
	switch {
	case r == '\u00a0':
		return "a no-break space (U+00A0)", true
	case r == '\u200b' || r == '\u2060' || r == '\ufeff':
		return "an invisible character (" + codePoint(r) + ")", true
	case r == '\u1680' || r >= '\u2000' && r <= '\u200a' || r == '\u2028' || r == '\u2029' || r == '\u202f' || r == '\u205f' || r == '\u3000' || r == '\u0085' || r == '\v' || r == '\f':
		// Unicode's other spaces (unicode.IsSpace, less the ordinary two),
		// listed here: the scenario reader is in every page's module.
		return "a Unicode space (" + codePoint(r) + ")", true
	}
	return "", false
}

// codePoint writes r as U+XXXX.
func codePoint(r rune) string {
	h := []byte(strconv.FormatInt(int64(r), 16))
	for i, c := range h {
		if 'a' <= c && c <= 'f' {
			h[i] = c - 'a' + 'A' // upper case without strings.ToUpper's Unicode tables
		}
	}
	return "U+" + "0000"[:max(0, 4-len(h))] + string(h)
}

// lexQuoted reads a double-quoted string starting at runes[i] == '"'.
// It understands \" and \\ and returns the index after the closing quote.
func lexQuoted(runes []rune, i int, pos func(int) Pos) (string, int, error) {
	open := i
	var b strings.Builder
	for i++; i < len(runes); i++ {
		switch runes[i] {
		case '\\':
			if i+1 < len(runes) && (runes[i+1] == '"' || runes[i+1] == '\\') {
				i++
				b.WriteRune(runes[i])
				continue
			}
			return "", 0, Errorf(pos(i), `expected \" or \\ after a backslash in a quoted string`)
		case '"':
			return b.String(), i + 1, nil
		}
		b.WriteRune(runes[i])
	}
	return "", 0, Errorf(pos(open), "the quoted string is not closed; expected a \" before the end of the line")
}

func firstInvalid(src []byte) (line, col int) {
	line, col = 1, 1
	for len(src) > 0 {
		r, size := utf8.DecodeRune(src)
		if r == utf8.RuneError && size <= 1 {
			return line, col
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		src = src[size:]
	}
	return line, col
}

// KnobSettings lists every combination of the file's knob values, the
// first knob varying slowest, starting with every knob at its first value;
// a file without knobs has one, empty.
func (f *File) KnobSettings() []map[string]string {
	out := []map[string]string{{}}
	for _, k := range f.Knobs {
		next := make([]map[string]string, 0, len(out)*len(k.Values))
		for _, prev := range out {
			for _, v := range k.Values {
				m := make(map[string]string, len(prev)+1)
				for pk, pv := range prev {
					m[pk] = pv
				}
				m[k.Name] = v
				next = append(next, m)
			}
		}
		out = next
	}
	return out
}
