// Package pages builds the site's scenario pages: one bundled scenario on a
// page of its own, the same widget alone for an iframe, a static SVG picture of a
// scenario at a step (for a README, where scripts are not allowed), and the
// sandbox where a visitor writes a scenario of their own. It turns requests into view
// structs; the simulation is the engine's and the drawing is the widget's.
package pages

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/a-h/templ"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/templates/widget"
	"github.com/tidemark/tidemark/web"
)

// MaxSource bounds a sandbox scenario, so one request cannot ask for unbounded work.
const MaxSource = 64 << 10

// MaxServerEvents bounds the events the server simulates to draw one page.
// A larger scenario (a pasted workload of millions of transactions) still
// runs in the visitor's browser, which advances it in chunks.
const MaxServerEvents = 200_000

// ErrTooLarge is returned for a scenario that plans more than MaxServerEvents.
var ErrTooLarge = errors.New("too large to draw on the server")

// Catalog lists the bundled scenarios for the home page.
func Catalog() ([]templates.CatalogItem, error) {
	all, err := lessons.Scenarios()
	if err != nil {
		return nil, err
	}
	out := make([]templates.CatalogItem, len(all))
	for i, s := range all {
		out[i] = templates.CatalogItem{ID: s.ID, Title: s.Title, Summary: s.About, Href: "/scenarios/" + s.ID}
	}
	return out, nil
}

// Routes returns the scenario, embed and sandbox pages.
func Routes() []web.Page {
	return []web.Page{
		{Pattern: "GET /scenarios/{id...}", Render: scenarioPage(false)},
		{Pattern: "GET /embed/{id...}", Render: scenarioPage(true)},
		{Pattern: "GET /picture/{id...}", Handler: http.HandlerFunc(picturePage)},
		{Pattern: "GET /play", Render: playPage},
		{Pattern: "POST /play", Render: playPage},
	}
}

// Scripts are the page scripts a widget needs, in load order.
var Scripts = []string{"wasm_exec.js", "app.js", "widget.js"}

// EmbedScripts are the scripts of the embed page: a widget's, and frame.js,
// which tells a page that framed it through embed.js how tall it is.
var EmbedScripts = append(slices.Clip(Scripts), "frame.js")

// Widget runs a scenario for a link's query and draws its widget. The
// problems name what in the query was wrong; the widget shows them.
func Widget(f *scenario.File, q url.Values, base, id string, embedded bool) (*engine.Trace, templates.WidgetHost, error) {
	t, st, problems, err := run(f, q)
	if err != nil {
		return nil, templates.WidgetHost{}, err
	}
	st.BasePath, st.ID, st.Embedded = base, id, embedded
	st.Message = strings.Join(problems, ". ")
	if embedded {
		st.Present = "" // presenter mode is the scenario page's
	}
	wasm, _ := web.LookupAsset("tidemark.wasm")
	host := templates.WidgetHost{
		HTML: widget.Render(t, st), WasmURL: wasm, Source: f.Source, Name: f.Name,
		BasePath: base, ID: id,
	}
	if embedded {
		host.Embedded = "on"
	}
	return t, host, nil
}

// run runs a scenario with the knobs, seed and step of a link's query. Each
// bad value in the query is named in problems and replaced by its default;
// an error means the scenario itself could not be run.
func run(f *scenario.File, q url.Values) (*engine.Trace, widget.State, []string, error) {
	knobs, st, problems := widget.FromQuery(f, q)
	seed := uint64(1)
	if v := q.Get("seed"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			problems = append(problems, "seed="+v+" is not a whole number; using seed 1")
		} else {
			seed = n
		}
	}
	w, err := engine.Build(f, knobs, seed)
	if err != nil {
		return nil, st, nil, err
	}
	if n := w.Planned(); n > MaxServerEvents {
		return nil, st, nil, fmt.Errorf("this scenario plans about %d events, more than the %d the server draws: %w; it still runs in your browser", n, MaxServerEvents, ErrTooLarge)
	}
	t := w.Run()
	if len(st.Faults) > 0 {
		// The link's faults fork the run; the run without them is drawn
		// beside the fork, as in the browser.
		fork, err := engine.RunWithFaults(f, knobs, seed, st.Faults)
		if err != nil {
			problems = append(problems, "the link's faults could not be applied ("+err.Error()+"), so the scenario runs without them")
		} else {
			t, st.Original = fork, t
		}
	}
	if st.Step > t.Steps() {
		problems = append(problems, widget.PastEnd(st.Step, t.Steps()))
		st.Step = t.Steps()
	}
	return t, st, problems, nil
}

func scenarioPage(embed bool) func(*http.Request) (templ.Component, error) {
	return func(r *http.Request) (templ.Component, error) {
		id := r.PathValue("id")
		sc, ok := lessons.Lookup(id)
		if !ok {
			return nil, fmt.Errorf("scenario %q: %w", id, web.ErrNotFound)
		}
		base := "/scenarios/" + id
		if embed {
			base = "/embed/" + id
		}
		t, host, err := Widget(sc.File, r.URL.Query(), base, "tm", embed)
		if err != nil {
			return nil, fmt.Errorf("bundled scenario %s: %w", id, err)
		}
		scripts := Scripts
		if embed {
			scripts = EmbedScripts
		}
		v := templates.ScenarioView{
			Layout: web.NewLayoutView(sc.Title, scripts...),
			ID:     sc.ID, Title: sc.Title, Source: string(sc.Source), Widget: host,
			EmbedURL: "/embed/" + id, PageURL: "/scenarios/" + id,
		}
		v.Layout.Description = sc.About
		step, _ := strconv.Atoi(r.URL.Query().Get("step"))
		sn := widget.SnippetsFor(origin(r), t, max(0, min(step, t.Steps())))
		v.Embed = templates.EmbedSnippets{IFrame: sn.IFrame, Script: sn.Script, Markdown: sn.Markdown, Image: sn.Image, Origin: origin(r)}
		if embed {
			return templates.EmbedPage(v), nil
		}
		return templates.ScenarioPage(v), nil
	}
}

// starter is the sandbox's first text: the opening scenario, ready to edit.
func starter() string {
	if sc, ok := lessons.Lookup("hwm/visibility-gap"); ok {
		return string(sc.Source)
	}
	return "scenario sandbox/mine \"My scenario\"\n"
}

func playPage(r *http.Request) (templ.Component, error) {
	v := templates.PlayView{Layout: web.NewLayoutView("Sandbox", Scripts...)}
	for i := range v.Layout.Nav {
		v.Layout.Nav[i].Current = v.Layout.Nav[i].Href == "/play"
	}
	v.WasmURL, _ = web.LookupAsset("tidemark.wasm")
	src := starter()
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(nil, r.Body, MaxSource+4096)
		if err := r.ParseForm(); err != nil {
			v.Error = "the scenario is too large or the form is malformed; keep it under 64 KB"
		} else {
			src = strings.ReplaceAll(r.PostForm.Get("src"), "\r\n", "\n")
		}
	}
	v.Source = src
	if v.Error != "" {
		return templates.PlayPage(v), nil
	}
	if len(src) > MaxSource {
		v.Error = "the scenario is larger than 64 KB; keep it smaller"
		return templates.PlayPage(v), nil
	}
	f, err := scenario.Parse("play.tdm", []byte(src))
	if err == nil {
		var host templates.WidgetHost
		_, host, err = Widget(f, url.Values{}, "/play", "play", false)
		if err == nil {
			v.Widget = host
			return templates.PlayPage(v), nil
		}
	}
	v.Error = err.Error()
	v.ErrorLine = caret(src, err)
	return templates.PlayPage(v), nil
}

// caret shows the line an error points at with a caret under its column.
func caret(src string, err error) string {
	se, ok := err.(*scenario.Error)
	if !ok {
		return ""
	}
	lines := strings.Split(src, "\n")
	if se.Pos.Line < 1 || se.Pos.Line > len(lines) {
		return ""
	}
	line := strings.TrimRight(lines[se.Pos.Line-1], "\r")
	prefix := fmt.Sprintf("%d | ", se.Pos.Line)
	col := max(1, min(se.Pos.Col, utf8.RuneCountInString(line)+1))
	return prefix + line + "\n" + strings.Repeat(" ", len(prefix)+col-1) + "^"
}
