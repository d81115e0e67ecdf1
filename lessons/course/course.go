// Package course holds Tidemark's lessons as typed content: sections of
// prose blocks, embedded scenarios at the place the text needs them,
// predictions the engine grades, and a glossary.
//
// It is a package of its own, apart from the scenario catalog in lessons,
// so that the WebAssembly module can load scenarios without carrying the
// lesson text.
package course

import (
	"net/url"
	"slices"
	"strings"
)

// Lesson is one lesson page.
type Lesson struct {
	Slug     string // the page lives at /lessons/{Slug}
	Title    string
	Lede     string // one or two sentences under the title (inline markup)
	Summary  string // plain text for catalog cards and the meta description
	Source   string // the source document the lesson was written from, for the record
	Sections []Section
	Glossary []Term
}

// Section is one headed part of a lesson.
//
// Invariant: IDs are unique within a lesson and never collide with a
// glossary anchor ("term-…").
type Section struct {
	ID    string // the anchor, e.g. "visibility-gap"
	Level int    // 2 for a main section, 3 for a part of the one before
	Title string
	// Sources are the headings of the source document this section covers,
	// in their order there. Every heading maps to exactly one section.
	Sources []string
	Blocks  []Block
}

// Block is one piece of a section's body. The set is closed: the marker
// method is unexported.
type Block interface{ block() }

// Para is a paragraph in inline markup (see Parse).
type Para string

// List is a bulleted or numbered list; each item is inline markup.
type List struct {
	Ordered bool
	Items   []string
}

// Note is a short labelled aside: what a claim is specific to, or where
// the simulation simplifies.
type Note struct {
	Label string // "Source-specific", "Simplified", …
	Text  string // inline markup
}

// Code is a block of code, shown as written.
type Code struct {
	Caption string
	Lang    string
	Text    string
}

// Table is a plain table; cells are inline markup.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]string
}

// Compare is two options shown side by side, each with a scenario.
type Compare struct {
	Caption string
	Sides   [2]Side
}

// Side is one half of a Compare.
type Side struct {
	Title string
	Text  string // inline markup
	Embed Embed
}

// Embeds shows one or more scenarios in a row.
type Embeds []Embed

// Embed is a scenario at a place in the text, with its knobs set.
type Embed struct {
	Scenario string
	Knobs    map[string]string
	Caption  string // inline markup
	// Focus names the check the text is about, if any; the view marks it.
	Focus string
}

// Checks is the table of checks, each run against a scenario where it
// notices the fault and one where it does not.
type Checks struct {
	Caption string
	Rows    []CheckRow
}

// CheckRow is one check in a Checks table.
type CheckRow struct {
	Name      string // the check as the text names it
	Expresses string
	Catches   string
	Misses    string
	// Caught and Missed run the check (Embed.Focus) where it notices the
	// fault and where it stays quiet about a real one. Either may be empty
	// (no Scenario) when no bundled scenario shows it yet.
	Caught, Missed Embed
}

// Predict is a question the learner answers before seeing the scenario.
type Predict Prediction

// Plot is a chart of the rows a scenario loses as one of its knobs changes,
// with one line per value of a second knob. Its numbers are never written
// down: the page runs the engine for every pair of values when it is drawn.
type Plot struct {
	ID       string // unique within the lesson; the figure's anchor is "plot-{ID}"
	Caption  string // plain text: what the chart shows
	Scenario string
	X        string            // the knob along the horizontal axis, in its declared order
	XTitle   string            // the axis title, e.g. "Load"
	XLabels  map[string]string // how each value of X is shown ("100s" → "100x"); the value itself when absent
	Series   string            // the knob with one line per value, in its declared order; "" for one line
	Labels   map[string]string // how each value of Series is named in the legend
}

func (Para) block()    {}
func (List) block()    {}
func (Note) block()    {}
func (Code) block()    {}
func (Table) block()   {}
func (Compare) block() {}
func (Embeds) block()  {}
func (Checks) block()  {}
func (Predict) block() {}
func (Plot) block()    {}

// Term is a glossary entry.
type Term struct {
	ID         string // anchor suffix: the entry lives at #term-{ID}
	Name       string
	Definition string // inline markup
}

// Anchor is the id of the term's entry on the lesson page.
func (t Term) Anchor() string { return "term-" + t.ID }

// Term returns the glossary entry with id.
func (l *Lesson) Term(id string) (Term, bool) {
	i := slices.IndexFunc(l.Glossary, func(t Term) bool { return t.ID == id })
	if i < 0 {
		return Term{}, false
	}
	return l.Glossary[i], true
}

// Predictions returns every prediction of the lesson, in page order.
func (l *Lesson) Predictions() []Prediction {
	var out []Prediction
	for _, s := range l.Sections {
		for _, b := range s.Blocks {
			if p, ok := b.(Predict); ok {
				out = append(out, Prediction(p))
			}
		}
	}
	return out
}

// Embeds returns every scenario the lesson embeds, in page order,
// including those inside comparisons and the checks table.
func (l *Lesson) Embeds() []Embed {
	var out []Embed
	for _, s := range l.Sections {
		for _, b := range s.Blocks {
			switch b := b.(type) {
			case Embeds:
				out = append(out, b...)
			case Compare:
				out = append(out, b.Sides[0].Embed, b.Sides[1].Embed)
			case Checks:
				for _, r := range b.Rows {
					for _, e := range []Embed{r.Caught, r.Missed} {
						if e.Scenario != "" {
							out = append(out, e)
						}
					}
				}
			case Predict:
				out = append(out, Embed{Scenario: b.Scenario, Knobs: b.Knobs})
			}
		}
	}
	return out
}

// Lessons returns every lesson, in teaching order.
func Lessons() []*Lesson { return []*Lesson{HighWaterMark()} }

// Lookup returns the lesson with slug.
func Lookup(slug string) (*Lesson, bool) {
	for _, l := range Lessons() {
		if l.Slug == slug {
			return l, true
		}
	}
	return nil, false
}

// Inline is one run of inline text: plain text, code, a glossary term or a
// link within the page.
type Inline struct {
	Kind InlineKind
	Text string // what the reader sees
	Ref  string // the term id (KindTerm) or the href (KindLink)
}

// InlineKind says what an Inline is.
type InlineKind uint8

// Inline kinds.
const (
	KindText InlineKind = iota
	KindCode
	KindTerm
	KindLink
	KindStrong
)

// Parse reads inline markup:
//
//	`code`            code
//	{mvcc}            a link to the glossary entry mvcc, showing its name
//	{mvcc|row versions}  the same link, showing "row versions"
//	[the checks](#checks) a link within the page or the site
//	**words**         strong emphasis (plain text inside)
//
// A character that starts no construct, or a construct left unclosed, is
// plain text. Parse does not check that terms exist; the lesson's tests do.
func Parse(s string) []Inline {
	var out []Inline
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, Inline{Kind: KindText, Text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(s); {
		switch s[i] {
		case '*':
			if strings.HasPrefix(s[i:], "**") {
				if j := strings.Index(s[i+2:], "**"); j >= 0 {
					flush()
					out = append(out, Inline{Kind: KindStrong, Text: s[i+2 : i+2+j]})
					i += j + 4
					continue
				}
			}
		case '`':
			if j := strings.IndexByte(s[i+1:], '`'); j >= 0 {
				flush()
				out = append(out, Inline{Kind: KindCode, Text: s[i+1 : i+1+j]})
				i += j + 2
				continue
			}
		case '{':
			if j := strings.IndexByte(s[i+1:], '}'); j >= 0 {
				body := s[i+1 : i+1+j]
				id, shown, _ := strings.Cut(body, "|")
				if id != "" && !strings.ContainsAny(id, " {") {
					flush()
					out = append(out, Inline{Kind: KindTerm, Text: shown, Ref: id})
					i += j + 2
					continue
				}
			}
		case '[':
			if j := strings.Index(s[i:], "]("); j >= 0 {
				if k := strings.IndexByte(s[i+j:], ')'); k >= 0 {
					flush()
					out = append(out, Inline{Kind: KindLink, Text: s[i+1 : i+j], Ref: s[i+j+2 : i+j+k]})
					i += j + k + 1
					continue
				}
			}
		}
		text.WriteByte(s[i])
		i++
	}
	flush()
	return out
}

// Plain returns the text of inline markup without its markup, for places
// that take plain text (a title attribute, a meta description).
func Plain(s string, l *Lesson) string {
	var b strings.Builder
	for _, in := range Parse(s) {
		if in.Kind == KindTerm && in.Text == "" && l != nil {
			if t, ok := l.Term(in.Ref); ok {
				b.WriteString(t.Name)
				continue
			}
		}
		b.WriteString(in.Text)
	}
	return b.String()
}

// KnobQuery renders knob settings as an escaped URL query in knob-name
// order, e.g. "advance=before&sink=merge"; empty when there are none.
func KnobQuery(knobs map[string]string) string {
	v := url.Values{}
	for k, val := range knobs {
		v.Set(k, val)
	}
	return v.Encode()
}
