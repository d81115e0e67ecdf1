// Package course holds Tidemark's lessons as typed content — chapters of
// sections, prose blocks, embedded scenarios at the place the text needs
// them, predictions the engine grades, and a glossary — read from the
// Markdown lesson files in lessons/text (see docs/lessons.md for the format)
// and checked against the bundled scenarios.
//
// It is a package of its own, apart from the scenario catalog in lessons,
// so that the WebAssembly module can load scenarios without carrying the
// lesson text or the Markdown parser.
package course

import (
	"net/url"
	"slices"
)

// Lesson is one lesson: a contents page and a page per chapter.
//
// Invariants (checked when the lesson is loaded): chapter ids, section ids,
// prediction ids and plot ids are unique within the lesson; section ids
// never start with "term-" or "plot-"; every glossary reference names a
// term of the lesson's glossary.
type Lesson struct {
	Slug     string // the lesson lives at /lessons/{Slug}
	Title    string
	Lede     Rich   // one or two sentences under the title
	Summary  string // plain text for catalog cards and the meta description
	Source   string // the source document the lesson was written from, for the record
	Dir      string // the lesson's directory, as errors name it, e.g. lessons/text/high-water-mark
	Chapters []Chapter
	Glossary []Term
}

// Chapter is one page of a lesson: one or more main sections, each with
// the sections that belong to it.
type Chapter struct {
	ID       string // the page lives at /lessons/{Slug}/{ID}
	Title    string
	File     string // the file it was read from, as errors name it
	Sections []Section
}

// Section is one headed part of a chapter.
type Section struct {
	ID    string // the anchor, e.g. "visibility-gap"
	Level int    // 2 for a main section, 3 for a part of the main section before it
	Title string
	// Sources are the headings of the source document this section covers,
	// in their order there. They are a record for the lesson's tests and are
	// never shown.
	Sources []string
	Blocks  []Block
	Pos     Pos
}

// Block is one piece of a section's body. The set is closed: the marker
// method is unexported.
type Block interface{ block() }

// Para is a paragraph.
type Para struct{ Text Rich }

// List is a bulleted or numbered list of one-paragraph items.
type List struct {
	Ordered bool
	Items   []Rich
}

// Note is a short labelled aside: what a claim is specific to, or where
// the simulation simplifies.
type Note struct {
	Label string // "Source-specific", "Simplified", …
	Text  Rich
}

// Code is a block of code, shown as written.
type Code struct {
	Caption string
	Lang    string
	Text    string
}

// Table is a plain table with a caption.
type Table struct {
	Caption string
	Head    []Rich
	Rows    [][]Rich
}

// Compare is two options shown side by side, each with a scenario.
type Compare struct {
	Caption string
	Sides   [2]Side
}

// Side is one half of a Compare.
type Side struct {
	Title string
	Text  Rich
	Embed Embed
}

// Embeds shows one or more scenarios in a row: the embed directives that
// follow one another with nothing but blank lines between them.
type Embeds []Embed

// Embed is a scenario at a place in the text, with its knobs set, opened
// at a step.
type Embed struct {
	Scenario string
	Knobs    map[string]string
	Step     int // the step the widget opens at; 0 is before the first event
	Caption  Rich
	// Focus names the check the text is about, if any; the view marks it.
	Focus string
	Pos   Pos
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
	Expresses Rich
	Catches   Rich
	Misses    Rich
	// Caught and Missed run the check (their Focus) where it notices the
	// fault and where it stays quiet about a real one. Either may be empty
	// (no Scenario) when no bundled scenario shows it yet.
	Caught, Missed Embed
	Pos            Pos
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
	Pos      Pos
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
	Definition Rich
	Pos        Pos
}

// Anchor is the id of the term's entry on a page.
func (t Term) Anchor() string { return "term-" + t.ID }

// Term returns the glossary entry with id.
func (l *Lesson) Term(id string) (Term, bool) {
	i := slices.IndexFunc(l.Glossary, func(t Term) bool { return t.ID == id })
	if i < 0 {
		return Term{}, false
	}
	return l.Glossary[i], true
}

// Sections returns every section of the lesson, in page order across its
// chapters.
func (l *Lesson) Sections() []Section {
	var out []Section
	for _, c := range l.Chapters {
		out = append(out, c.Sections...)
	}
	return out
}

// MainSections returns the ids of the lesson's main (level 2) sections, in
// order: the sections a learner's progress counts.
func (l *Lesson) MainSections() []string {
	var out []string
	for _, s := range l.Sections() {
		if s.Level == 2 {
			out = append(out, s.ID)
		}
	}
	return out
}

// Chapter returns the chapter with id and its index.
func (l *Lesson) Chapter(id string) (*Chapter, int, bool) {
	for i := range l.Chapters {
		if l.Chapters[i].ID == id {
			return &l.Chapters[i], i, true
		}
	}
	return nil, -1, false
}

// ChapterOf returns the chapter that holds the section, prediction or plot
// anchored at id ("plot-load" for a plot).
func (l *Lesson) ChapterOf(id string) (*Chapter, bool) {
	for i := range l.Chapters {
		c := &l.Chapters[i]
		for _, s := range c.Sections {
			if s.ID == id {
				return c, true
			}
			for _, b := range s.Blocks {
				switch b := b.(type) {
				case Predict:
					if "predict-"+b.ID == id {
						return c, true
					}
				case Plot:
					if "plot-"+b.ID == id {
						return c, true
					}
				}
			}
		}
	}
	return nil, false
}

// Predictions returns every prediction of the chapter, in page order.
func (c *Chapter) Predictions() []Prediction {
	var out []Prediction
	for _, s := range c.Sections {
		for _, b := range s.Blocks {
			if p, ok := b.(Predict); ok {
				out = append(out, Prediction(p))
			}
		}
	}
	return out
}

// MainSections returns the ids of the chapter's main (level 2) sections.
func (c *Chapter) MainSections() []string {
	var out []string
	for _, s := range c.Sections {
		if s.Level == 2 {
			out = append(out, s.ID)
		}
	}
	return out
}

// Embeds returns every scenario the chapter draws, in page order,
// including those inside comparisons and the checks table (a prediction's
// scenario is not drawn).
func (c *Chapter) Embeds() []Embed {
	var out []Embed
	for _, s := range c.Sections {
		for _, b := range s.Blocks {
			out = append(out, blockEmbeds(b)...)
		}
	}
	return out
}

// blockEmbeds returns the embeds block b draws, in order.
func blockEmbeds(b Block) []Embed {
	switch b := b.(type) {
	case Embeds:
		return b
	case Compare:
		return []Embed{b.Sides[0].Embed, b.Sides[1].Embed}
	case Checks:
		var out []Embed
		for _, r := range b.Rows {
			for _, e := range []Embed{r.Caught, r.Missed} {
				if e.Scenario != "" {
					out = append(out, e)
				}
			}
		}
		return out
	}
	return nil
}

// Predictions returns every prediction of the lesson, in page order.
func (l *Lesson) Predictions() []Prediction {
	var out []Prediction
	for i := range l.Chapters {
		out = append(out, l.Chapters[i].Predictions()...)
	}
	return out
}

// Embeds returns every scenario the lesson draws, in page order.
func (l *Lesson) Embeds() []Embed {
	var out []Embed
	for i := range l.Chapters {
		out = append(out, l.Chapters[i].Embeds()...)
	}
	return out
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
