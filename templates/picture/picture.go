// Package picture draws a scenario at one step as a standalone SVG document:
// a static picture for documentation where scripts are not allowed (a GitHub
// README, a wiki, a slide).
//
// The picture is made to survive being shown through an <img> tag on a site
// we do not control: no scripts, no external fonts or images, no
// foreignObject, no <style> element (colours are presentation attributes,
// which no Content-Security-Policy blocks), fonts every system has, a white
// background so it reads on a dark page, and every verdict written as a word
// as well as a glyph. The chart is the very one the scenario page draws
// (widget.SourceChart), so a picture and a page cannot disagree.
package picture

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/templates/widget"
)

// View is what a picture shows.
type View struct {
	// Trace is the scenario run with the chosen knobs.
	Trace *engine.Trace
	// Step is the step drawn (0 is before the first event).
	Step int
	// ShowTruth writes the truth line (the rows no check can see).
	ShowTruth bool
	// Problems name what in the request was wrong and what was drawn
	// instead; the picture states them.
	Problems []string
	// Link, when set, is the address of the interactive scenario, written
	// at the foot of the picture (a picture in an <img> cannot be clicked).
	Link string
	// Original, when the link's faults forked the run (Trace), is the run
	// without them: the picture says what the faults changed.
	Original *engine.Trace
}

// Geometry, in user units (CSS pixels at 100%).
const (
	width   = 680.0
	margin  = 20.0
	content = width - 2*margin
)

// Colours: the site's light scheme, with text dark enough on white to pass
// WCAG AA at the sizes used.
const (
	colText   = "#1b1f23"
	colMuted  = "#4a5560"
	colBorder = "#c9d1d9"
	colNote   = "#9a3412"
)

// fontBody is a stack of fonts present on every system, ending in the
// generic family.
const fontBody = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'DejaVu Sans', sans-serif"

// maxLines bounds one paragraph of the picture; a longer one ends in "…".
const maxLines = 8

// doc accumulates the body of a picture and its height.
type doc struct {
	b strings.Builder
	y float64 // the top of the next line
}

// para writes s wrapped to the picture's width, in lines of the given size,
// with extra attributes (name, value pairs) on each <text>.
func (d *doc) para(s string, size float64, attrs ...string) {
	lines := wrap(s, int(content/(0.55*size)))
	if len(lines) > maxLines {
		lines = append(lines[:maxLines-1], lines[maxLines-1]+" …")
	}
	lh := size * 1.4
	for _, line := range lines {
		d.y += lh
		d.b.WriteString(`<text x="` + num(margin) + `" y="` + num(d.y-size*0.35) + `" font-size="` + num(size) + `"`)
		for i := 0; i+1 < len(attrs); i += 2 {
			d.b.WriteString(" " + attrs[i] + `="` + Escape(attrs[i+1]) + `"`)
		}
		d.b.WriteString(">" + Escape(line) + "</text>\n")
	}
}

func (d *doc) gap(h float64) { d.y += h }

// Render draws v as a complete SVG document.
func Render(v View) string {
	t := v.Trace
	step := max(0, min(v.Step, t.Steps()))
	title := t.File.Title
	narration := widget.Narration(t, step)
	checks := t.ChecksAt(step)

	var d doc
	d.gap(8)
	d.para(title, 20, "font-weight", "700")
	d.para(subtitle(t, step), 13, "fill", colMuted)
	for _, p := range v.Problems {
		d.para("Note: "+p+".", 13, "fill", colNote)
	}
	if ht := hwm.Of(t); ht != nil && len(ht.Txns) > 0 {
		d.gap(8)
		svg, _, h := widget.SourceChart(t, step, widget.ChartOptions{Standalone: true, X: margin, Y: d.y})
		d.b.WriteString(svg + "\n")
		d.gap(h)
		for _, line := range sourceLegend(ht) {
			d.para(line, 11, "fill", colMuted)
		}
	}
	var streams []string
	if svg, _, h := widget.StreamChart(t, step, widget.ChartOptions{Standalone: true, X: margin, Y: d.y + 8}); svg != "" {
		d.gap(8)
		d.b.WriteString(svg + "\n")
		d.gap(h)
		streams = widget.StreamText(t, step)
		for _, s := range streams {
			d.para(s, 13)
		}
	} else if svg, _, h := widget.LogChart(t, step, widget.ChartOptions{Standalone: true, X: margin, Y: d.y + 8}); svg != "" {
		// The log's partitions, where no stream chart draws them already.
		d.gap(8)
		d.b.WriteString(svg + "\n")
		d.gap(h)
	}
	d.gap(4)
	d.para(narration, 15)
	var truth string
	if v.ShowTruth {
		truth = "Truth: " + widget.TruthAt(t, step)
		d.gap(4)
		d.para(truth, 15, "font-weight", "700")
		if v.Original != nil && len(t.Faults) > 0 {
			// The fork's truth beside the run's without its faults, as
			// the page's comparison shows them.
			without := "Without the link's faults: " + widget.TruthAt(v.Original, step)
			truth += " " + without
			d.para(without, 14)
		}
	}
	var verdicts []string
	if len(checks) > 0 {
		d.gap(6)
		d.para("Checks a team could run:", 15, "font-weight", "700")
		for _, c := range checks {
			line := widget.CheckStatus(c.Status) + " — " + c.Name + ": " + c.Detail
			verdicts = append(verdicts, line+".")
			d.para(line, 14)
		}
	}
	d.gap(6)
	foot := "Tidemark · scenario " + t.File.ID
	if v.Link != "" {
		foot = "Tidemark · play it at " + v.Link
		if at, _, ok := strings.Cut(v.Link, "#"); ok && len(v.Link) > maxFootLink {
			// A scenario of the author's own travels in the link's
			// fragment, thousands of characters no one types from a
			// picture: the foot names the page it opens.
			foot = "Tidemark · play it at " + at + " with the scenario the picture's link carries"
		}
	}
	d.para(foot, 12, "fill", colMuted)
	d.gap(12)

	desc := append([]string{subtitle(t, step) + ".", narration}, streams...)
	for _, p := range v.Problems {
		desc = append(desc, "Note: "+p+".")
	}
	if truth != "" {
		desc = append(desc, truth)
	}
	desc = append(desc, verdicts...)
	return document(d.y, "Tidemark: "+title+", step "+strconv.Itoa(step)+" of "+strconv.Itoa(t.Steps()),
		strings.Join(desc, " "), d.b.String())
}

// maxFootLink is the longest link the foot prints whole.
const maxFootLink = 160

// sourceLegend says what the source chart's shapes mean, as the stage's
// legend does: a picture is seen without the page around it, and the
// chart's marks would otherwise tell by shape and colour alone. Two lines,
// each short enough not to wrap, so that no glyph is parted from its words.
func sourceLegend(ht *hwm.Trace) []string {
	marks := "◆ updated_at; │ now"
	for _, m := range ht.Marks {
		if m.Kind.IsTimestamp() {
			marks += "; ┆ timestamp mark: updated_at at or left of it is not read again"
		} else {
			marks += "; ┊ lsn mark: commits left of it are not read again"
		}
		break
	}
	return []string{"▭ transaction, begin to commit (dashed: open; dotted: rolled back), labelled name · key · lsn", marks}
}

// Message draws a small picture that says something went wrong, for a
// scenario that does not exist or could not be drawn.
func Message(heading, detail string) string {
	var d doc
	d.gap(8)
	d.para(heading, 18, "font-weight", "700")
	d.para(detail, 14)
	d.para("Tidemark", 12, "fill", colMuted)
	d.gap(12)
	return document(d.y, "Tidemark: "+heading, detail, d.b.String())
}

// subtitle names the scenario, the step, the knob settings and the faults
// the link injected.
func subtitle(t *engine.Trace, step int) string {
	s := "Scenario " + t.File.ID + " · step " + strconv.Itoa(step) + " of " + strconv.Itoa(t.Steps())
	var knobs []string
	for _, k := range t.File.Knobs {
		knobs = append(knobs, k.Name+" = "+t.Settings[k.Name])
	}
	if len(knobs) > 0 {
		s += " · " + strings.Join(knobs, ", ")
	}
	if len(t.Faults) > 0 {
		faults := make([]string, len(t.Faults))
		for i, f := range t.Faults {
			faults[i] = widget.FaultText(f)
		}
		s += " · faults " + strings.Join(faults, ", ")
	}
	return s
}

// document wraps a picture's body with the root element, its accessible
// name and description, and a white background.
func document(height float64, title, desc, body string) string {
	h := num(height)
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="` + num(width) + `" height="` + h +
		`" viewBox="0 0 ` + num(width) + " " + h + `" role="img" aria-labelledby="tm-title tm-desc" font-family="` +
		Escape(fontBody) + `" fill="` + colText + `">` + "\n")
	b.WriteString(`<title id="tm-title">` + Escape(title) + "</title>\n")
	b.WriteString(`<desc id="tm-desc">` + Escape(desc) + "</desc>\n")
	b.WriteString(`<rect x="0.5" y="0.5" width="` + num(width-1) + `" height="` + num(height-1) +
		`" rx="6" fill="#ffffff" stroke="` + colBorder + `"/>` + "\n")
	b.WriteString(body)
	b.WriteString("</svg>\n")
	return b.String()
}

// Escape makes s safe as XML text or as a double- or single-quoted
// attribute value: it escapes the five special characters and replaces
// what XML 1.0 cannot carry at all (control characters other than tab,
// newline and carriage return, invalid UTF-8, U+FFFE and U+FFFF) with
// U+FFFD.
func Escape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '\'':
			b.WriteString("&apos;")
		case r == utf8.RuneError && size == 1,
			r < 0x20 && r != '\t' && r != '\n' && r != '\r',
			r == 0xFFFE, r == 0xFFFF:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// wrap breaks s into lines of at most n runes at spaces, splitting a word
// only when it is longer than a line.
func wrap(s string, n int) []string {
	n = max(n, 8)
	var lines []string
	var cur []rune
	// A word longer than a line (a link's packed scenario) is cut into
	// pieces a fifth shorter: its letters and digits are wider on average
	// than prose's, which n allows for.
	piece := max(8, n*4/5)
	for _, word := range strings.Fields(s) {
		w := []rune(word)
		for len(w) > n {
			if len(cur) > 0 {
				lines = append(lines, string(cur))
				cur = nil
			}
			lines = append(lines, string(w[:piece]))
			w = w[piece:]
		}
		switch {
		case len(cur) == 0:
			cur = w
		case len(cur)+1+len(w) <= n:
			cur = append(append(cur, ' '), w...)
		default:
			lines = append(lines, string(cur))
			cur = w
		}
	}
	if len(cur) > 0 || len(lines) == 0 {
		lines = append(lines, string(cur))
	}
	return lines
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
