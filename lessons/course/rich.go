package course

import (
	"strings"
)

// Rich is a run of inline text with its markup: what a paragraph, a list
// item, a caption or an option of a prediction holds.
type Rich []Span

// Span is one piece of inline text.
type Span struct {
	Kind SpanKind
	Text string // the text of a KindText or KindCode span
	// Ref is the href of a KindLink span and the term id of a KindTerm span.
	Ref string
	// Kids are what a KindStrong, KindEmph, KindLink or KindTerm span
	// shows. A term's kids are its glossary name unless the text chose
	// other words ({lsn|positions}).
	Kids Rich
}

// SpanKind says what a Span is.
type SpanKind uint8

// Span kinds.
const (
	KindText SpanKind = iota
	KindCode
	KindStrong
	KindEmph
	KindLink
	KindTerm
)

// Plain returns the text of r without its markup, for places that take
// plain text (a title attribute, a meta description, an aria-label).
func (r Rich) Plain() string {
	var b strings.Builder
	r.plain(&b)
	return b.String()
}

func (r Rich) plain(b *strings.Builder) {
	for _, s := range r {
		switch s.Kind {
		case KindText, KindCode:
			b.WriteString(s.Text)
		default:
			s.Kids.plain(b)
		}
	}
}

// Terms returns the ids of the glossary terms r refers to, in order.
func (r Rich) Terms() []string {
	var out []string
	r.walk(func(s Span) {
		if s.Kind == KindTerm {
			out = append(out, s.Ref)
		}
	})
	return out
}

func (r Rich) walk(f func(Span)) {
	for _, s := range r {
		f(s)
		s.Kids.walk(f)
	}
}

// Text returns plain text as Rich.
func Text(s string) Rich {
	if s == "" {
		return nil
	}
	return Rich{{Kind: KindText, Text: s}}
}
