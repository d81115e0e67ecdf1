package widget

import (
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/prose"
)

// Snippets are ready-to-paste ways to show a scenario in someone else's
// documentation, as text: an iframe of the embed page, a script tag for
// embed.js (which makes the iframe and sizes it), and a static picture as
// Markdown and as HTML. The server draws them for the page it serves, and
// the browser draws them again from the same code as the learner steps,
// turns knobs and adds faults, so that they open what is on screen.
type Snippets struct {
	IFrame   string
	Script   string
	Markdown string
	Image    string
	// Alt is the picture's alternative text, unescaped: the title, the
	// step and what the truth holds there (Outcome). The sandbox, which
	// draws its own snippets, takes it from here.
	Alt string
}

// SnippetsFor returns the snippets that open t at step, with its knobs and
// faults; origin ("https://host", or "" for relative links) is where the
// site is served from.
func SnippetsFor(origin string, t *engine.Trace, step int) Snippets {
	return snippetsFor(origin, t, step, nil)
}

// snippetsFor is SnippetsFor with the stage's index of t, when the caller
// has one (see truthAt).
func snippetsFor(origin string, t *engine.Trace, step int, ix *stageIndex) Snippets {
	id, title := t.File.ID, t.File.Title
	q := ShareQuery(t, step, false)
	withQ := func(u string) string {
		if q == "" {
			return u
		}
		return u + "?" + q
	}
	script := `<script src="` + attr(origin+"/static/embed.js") + `" data-scenario="` + attr(id) + `"`
	if step > 0 {
		script += ` data-step="` + itoa(step) + `"`
	}
	if kq := Encode(shareValues(t)); kq != "" {
		script += ` data-knobs="` + attr(kq) + `"`
	}
	script += ` async></script>`
	pic := withQ(origin + "/picture/" + id + ".svg")
	page := withQ(origin + "/scenarios/" + id)
	// A picture's alternative text says what it shows happened, for a
	// reader who cannot see it: a README's picture is an <img>, whose
	// <desc> a screen reader does not reach.
	alt := title
	if step > 0 {
		// Which missing rows a later step writes, as the picture says: a
		// row on its way is no loss.
		alt += ", at step " + itoa(step) + ": " + strings.TrimSuffix(truthAt(t, step, ix), ".")
	} else {
		alt += ", how it ends: " + Outcome(t.CountsAt(t.Steps()))
	}
	return Snippets{
		IFrame: IFrameTag(withQ(origin+"/embed/"+id), title),
		Script: script,
		// The picture is a link to the page: a picture in an <img> cannot
		// be clicked inside, so the snippet makes the whole of it one.
		Markdown: `[![` + MarkdownAlt(alt) + `](` + pic + `)](` + page + `)`,
		Image:    `<a href="` + attr(page) + `">` + ImageTag(pic, alt) + `</a>`,
		Alt:      alt,
	}
}

// attr escapes s for an HTML attribute's value.
func attr(s string) string {
	var b builder
	b.escape(s)
	return b.String()
}

// IFrameTag is the snippet's iframe of the embed page at src, titled
// after the scenario. A browser draws a frame dark on a dark system
// unless the frame's element names a scheme, so a light page would show a
// dark embed: the iframe says light, as embed.js's frame does on a page
// that declares no scheme (docs/embedding.md).
func IFrameTag(src, title string) string {
	return `<iframe src="` + attr(src) + `" title="` + attr(title+" — Tidemark") +
		`" width="100%" height="800" loading="lazy" style="color-scheme: light"></iframe>`
}

// ImageTag is the snippet's picture at src, 680 px wide or the width of
// its column when that is narrower.
func ImageTag(src, alt string) string {
	return `<img src="` + attr(src) + `" alt="` + attr(alt) + `" width="680" style="max-width: 100%; height: auto">`
}

// MarkdownAlt escapes alt for a Markdown image's brackets.
func MarkdownAlt(alt string) string {
	var md strings.Builder
	for _, r := range alt {
		if r == '\\' || r == '[' || r == ']' {
			md.WriteByte('\\')
		}
		md.WriteRune(r)
	}
	return md.String()
}

// shareValues are what a shared link carries besides the step: the knobs
// set away from their defaults, the seed when it is not the default 1, and
// the faults.
func shareValues(t *engine.Trace) Values {
	v := Values{}
	for _, k := range t.File.Knobs {
		if val := t.Settings[k.Name]; val != k.Default {
			v[k.Name] = []string{val}
		}
	}
	if t.Seed != 1 {
		v["seed"] = []string{strconv.FormatUint(t.Seed, 10)}
	}
	for _, f := range t.Faults {
		v["fault"] = append(v["fault"], FaultText(f))
	}
	return v
}

// Snippets returns the snippets for what the session shows.
func (s *Session) Snippets(origin string) (Snippets, bool) {
	if s.trace == nil || s.origRun != nil {
		return Snippets{}, false
	}
	return snippetsFor(origin, s.trace, s.st.Step, s.ix), true
}

// ShareQuery returns the query that opens t at step with its knobs and
// faults (without the step when it is 0, unless withZero).
func ShareQuery(t *engine.Trace, step int, withZero bool) string {
	v := shareValues(t)
	if step > 0 || withZero {
		v["step"] = []string{itoa(step)}
	}
	return Encode(v)
}

// Outcome says in a few words what the truth's counts c hold: how many
// rows the target lacks, holds more than once or holds in an old version.
func Outcome(c engine.Counts) string {
	var parts []string
	for _, p := range [...]struct {
		n    int32
		what string
	}{{c.Missing, " not in the target"}, {c.Duplicated, " duplicated"}, {c.Stale, " in an old version"}} {
		if p.n > 0 {
			parts = append(parts, prose.Count(int(p.n), "row", "rows")+p.what)
		}
	}
	if len(parts) == 0 {
		return "every row in the target once, in its latest version"
	}
	return strings.Join(parts, ", ")
}
