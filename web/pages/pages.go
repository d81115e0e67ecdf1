// Package pages builds the site's scenario pages: one bundled scenario on a
// page of its own, the same widget alone for an iframe, a static SVG picture of a
// scenario at a step (for a README, where scripts are not allowed), and the
// sandbox where a visitor writes a scenario of their own. It turns requests into view
// structs; the simulation is the engine's and the drawing is the widget's.
package pages

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
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
//
// A scenario page is a pure function of the build, its query and the
// headers its links to the site are built from (see origin), so the site
// keeps it once drawn; the embed page and pictures may be framed and
// embedded on other sites. The sandbox's first text is the build's too.
func Routes() []web.Page {
	return append([]web.Page{
		{Pattern: "GET /scenarios/{id...}", Render: scenarioPage(false), Reuse: true, Vary: OriginHeaders},
		{Pattern: "GET /embed/{id...}", Render: scenarioPage(true), Reuse: true, Vary: OriginHeaders, Embeddable: true},
		{Pattern: "GET /embed/{$}", Render: linkedEmbedPage, Reuse: true, Embeddable: true},
		{Pattern: "GET /play", Render: playPage, Reuse: true},
		{Pattern: "GET /play/{$}", Render: playPage, Reuse: true}, // a static copy's address of it
	}, DynamicRoutes()...)
}

// DynamicRoutes returns the routes of Routes whose answers a copy of the
// site in static files cannot hold (see package web/export): pictures of
// any step and of a scenario in a link, /oembed, and the sandbox's posts.
// A Cloudflare Worker that serves such a copy as its static assets
// registers only these (cmd/serve), and so does not carry the code that
// draws the other pages.
func DynamicRoutes() []web.Page {
	return []web.Page{
		{Pattern: "GET /picture/{id...}", Handler: http.HandlerFunc(picturePage), Embeddable: true},
		{Pattern: "GET " + linkedPicture, Handler: http.HandlerFunc(linkedPicturePage), Embeddable: true},
		{Pattern: "GET " + oembedPath, Handler: http.HandlerFunc(oembedPage)},
		{Pattern: "POST /play", Render: playPage},
	}
}

// OriginHeaders are the request headers origin reads (web.SiteURL): a page
// that builds absolute links to the site varies by them.
var OriginHeaders = web.OriginHeaders

// Scripts are the page scripts a widget needs, in load order.
var Scripts = []string{"wasm_exec.js", "app.js", "widget.js"}

// EmbedScripts are the scripts of the embed page: a widget's, and frame.js,
// which tells a page that framed it through embed.js how tall it is.
var EmbedScripts = append(slices.Clip(Scripts), "frame.js")

// LinkedScripts are the scripts of the embed page of a scenario carried in
// its address: a widget's, share.js, which unpacks the scenario, and frame.js.
var LinkedScripts = append(slices.Clip(Scripts), "share.js", "frame.js")

// PlayScripts are the sandbox's scripts: a widget's, share.js for links
// that carry the text, and play.js.
var PlayScripts = append(slices.Clip(Scripts), "share.js", "play.js")

// The paths the sandbox's script builds links from; see PlayView.
const (
	playPath      = "/play"
	linkedPath    = "/embed/"
	embedScript   = "/static/embed.js"
	linkedPicture = "/picture.svg"
)

// DownloadBudget is the most, in bytes, that a page with a widget may make
// the browser download to become interactive: the engine's module and the
// page's scripts, brotli-compressed (KB is 1,000 bytes). It holds the pages
// that load the build of every world (the sandbox, a linked embed, a stream
// that reads the source database, a lesson chapter that mixes it with a
// stream); HWMDownloadBudget, LogDownloadBudget and StreamDownloadBudget
// hold the pages of fewer worlds. Each is the largest page of its kind plus about 5 KB, so
// that the test catches the next regression, or the target where a kind of
// page meets it; docs/performance.md says how they were measured and what
// they are headed for (760 KB for any page, 630 KB for a page of the
// high-water-mark world).
const DownloadBudget = 977_000

// LogDownloadBudget is DownloadBudget for a page whose scenarios use the
// log world but no stream, which loads the build of the high-water-mark
// and log worlds (see ModuleFor). It is the target for any page, 760 KB,
// which these pages meet since the modules lost their line tables, their
// inline trees and their long names.
const LogDownloadBudget = 760_000

// HWMDownloadBudget is DownloadBudget for a page whose scenarios are all of
// the high-water-mark world, which loads the build of that world alone. It
// is that world's target, 630 KB, which its pages meet since the modules
// lost their inline trees and long function names.
const HWMDownloadBudget = 630_000

// StreamDownloadBudget is DownloadBudget for a page whose streams read
// topics that producers write, with no source database, which loads the
// build of the log and stream worlds (see ModuleFor): a stream's page, and
// a lesson chapter of log scenarios and such streams. Its module alone
// meets the stream world's target of 850 KB (the size test holds it there);
// the page, with its scripts, is the largest such page (a lesson chapter,
// whose lesson.js adds 7 KB) plus about 5 KB, as the others are, and still
// about 100 KB over the 760 KB target for any page.
const StreamDownloadBudget = 873_000

// WidgetLayout returns the frame of a page that shows widgets: the named
// scripts, and the engine's module preloaded from the head, so that its
// download starts with the HTML rather than when app.js runs.
//
// The module preloaded is the build of every world; a page that knows its
// scenarios preloads a smaller one with UseModule.
func WidgetLayout(title string, scripts ...string) templates.LayoutView {
	v := web.NewLayoutView(title, scripts...)
	if u, ok := ModuleURL(ModuleAll); ok {
		v.Modules = []string{u}
	}
	return v
}

// UseModule makes layout preload the module at url (see ModuleURL) instead
// of the one WidgetLayout chose.
func UseModule(layout *templates.LayoutView, url string) {
	if url != "" && len(layout.Modules) > 0 {
		layout.Modules = []string{url}
	}
}

// Widget runs a scenario for a link's query and draws its widget. The
// problems name what in the query was wrong; the widget shows them.
//
// The run is the server's (see simulate): a bundled scenario's is kept and
// shared; another is run within ServerBudget, SimulationDeadline and
// MaxSimulations, holding its run slot until its widget is drawn, and an
// error says which it passed.
//
// unread is why part of the link's query could not be read (see
// url.ParseQuery), or nil; the widget says so before its other problems.
func Widget(ctx context.Context, f *scenario.File, q url.Values, unread error, base, id string, embedded bool) (*engine.Trace, templates.WidgetHost, error) {
	ctx, release, err := holdForDrawing(ctx, f)
	if err != nil {
		return nil, templates.WidgetHost{}, err
	}
	defer release()
	t, st, problems, err := run(ctx, f, q)
	if err != nil {
		return nil, templates.WidgetHost{}, err
	}
	beforeDrawing()
	st.BasePath, st.ID, st.Embedded = base, id, embedded
	if p := st.NotPresentingIn(embedded); p != "" {
		problems = append(problems, p) // presenter mode is the scenario page's
	}
	st.Message = widget.WithUnreadNote(unread, widget.Sentences(problems))
	module := ModuleFor(t)
	wasm, _ := ModuleURL(module)
	host := templates.WidgetHost{
		HTML: widget.Render(t, st), WasmURL: wasm, Module: module, Source: f.Source, Name: f.Name,
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
func run(ctx context.Context, f *scenario.File, q url.Values) (*engine.Trace, widget.State, []string, error) {
	knobs, st, problems := widget.FromQuery(f, q)
	seed, problem := widget.SeedOf(q)
	if problem != "" {
		problems = append(problems, problem)
	}
	t, _, err := simulate(ctx, f, knobs, seed)
	if err != nil {
		return nil, st, nil, err
	}
	if len(st.Faults) > 0 {
		// The link's faults fork the run; the run without them is drawn
		// beside the fork, as in the browser.
		fork, skipped, err := simulate(ctx, f, knobs, seed, st.Faults...)
		for _, s := range skipped {
			problems = append(problems, widget.SkippedFault(s.fault, s.err))
		}
		switch {
		case errors.Is(err, web.ErrBusy):
			return nil, st, nil, err
		case err != nil:
			// A fork past the budget: the link's, not the scenario's.
			problems = append(problems, "the link's faults could not be applied ("+err.Error()+"), so the scenario runs without them")
			st.Faults = nil
		case len(fork.Faults) == 0:
			// None applied: the page is the run without them.
			st.Faults = nil
		default:
			t, st.Original = fork, t
			st.Faults = fork.Faults
		}
	}
	if st.Step > t.Steps() {
		problems = append(problems, widget.PastEnd(st.Step, t.Steps()))
		st.Step = t.Steps()
	}
	return t, st, problems, nil
}

// EmbedNotFoundFile is the name, under /embed/, of a static copy's
// not-found page for its embeds (see package web/export): a host that
// serves the nearest 404.html (Cloudflare) sends it for a mistyped id, and
// the copy's own 404.html sends the browser to it. The server answers
// /embed/404.html with it too, so a copy's address works against a server.
const EmbedNotFoundFile = "404.html"

func scenarioPage(embed bool) func(*http.Request) (templ.Component, error) {
	return func(r *http.Request) (templ.Component, error) {
		// A copy in static files links each page as a directory
		// (docs/deploy.md); the server answers its links too.
		id := strings.TrimSuffix(r.PathValue("id"), "/")
		sc, ok := lessons.Lookup(id)
		if !ok {
			err := fmt.Errorf("scenario %q: %w", id, web.ErrNotFound)
			if embed {
				// In someone else's page: a note the size of one, not the
				// site's not-found page.
				v := templates.EmbedNotFoundView{ID: id}
				scripts := []string{"frame.js"}
				if id != EmbedNotFoundFile {
					v.Near = lessons.Near(id)
				} else {
					// A static copy's not-found page for its embeds: the
					// address names the id, which near.js reads.
					v.ID = ""
					scripts = append(scripts, "near.js")
					all, lerr := lessons.Scenarios()
					if lerr != nil {
						return nil, lerr
					}
					for _, sc := range all {
						v.Known = append(v.Known, sc.ID)
					}
				}
				v.Layout = web.NewLayoutView("No such scenario", scripts...)
				return templates.EmbedNotFound(v), err
			}
			// The site's not-found page, naming the ids the address most
			// likely meant, as the embed's note does.
			near := lessons.Near(id)
			if len(near) == 0 {
				return nil, err
			}
			v := templates.NotFoundView{Layout: web.NewLayoutView("Not found", "app.js"), What: fmt.Sprintf("scenario %q", id)}
			if _, ok := web.PublishedFrom(r.Context()); ok {
				v.EmbedNotFoundURL = "/embed/" + EmbedNotFoundFile
			}
			for _, n := range near {
				v.Near = append(v.Near, templates.NavLink{Label: n, Href: "/scenarios/" + n})
			}
			return templates.NotFound(v), err
		}
		base := "/scenarios/" + id
		if embed {
			base = "/embed/" + id
		}
		q, unread := url.ParseQuery(r.URL.RawQuery)
		t, host, err := Widget(r.Context(), sc.File, q, unread, base, "tm", embed)
		if err != nil {
			return nil, fmt.Errorf("bundled scenario %s: %w", id, err)
		}
		scripts := Scripts
		if embed {
			scripts = EmbedScripts
		}
		v := templates.ScenarioView{
			Layout: WidgetLayout(sc.Title, scripts...),
			ID:     sc.ID, Title: sc.Title, Source: string(sc.Source), Widget: host,
			EmbedURL: "/embed/" + id, PageURL: "/scenarios/" + id,
		}
		UseModule(&v.Layout, host.WasmURL)
		v.Layout.Description = sc.About
		// The step the widget opened at: the link's last step=, as FromQuery
		// reads it, within the run.
		_, st, _ := widget.FromQuery(sc.File, q)
		sn := widget.SnippetsFor(origin(r), t, max(0, min(st.Step, t.Steps())))
		v.Embed = templates.EmbedSnippets{IFrame: sn.IFrame, Script: sn.Script, Markdown: sn.Markdown, Image: sn.Image, Origin: origin(r)}
		if _, static := web.PublishedFrom(r.Context()); static {
			staticSnippets(&v.Embed, origin(r), sc.ID, sc.Title, sc.File, t.CountsAt(t.Steps()))
		}
		if embed {
			return templates.EmbedPage(v), nil
		}
		v.UsedIn, v.Next = lessonContext(sc.ID)
		v.Layout.Preview = Preview(r, "/scenarios/"+id, q.Encode(), "website")
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

// linkedEmbedPage answers GET /embed/: the embed page of a scenario
// carried in the address's fragment (#tdm=…), which the browser unpacks.
func linkedEmbedPage(r *http.Request) (templ.Component, error) {
	v := templates.LinkedEmbedView{Layout: WidgetLayout("A scenario from a link", LinkedScripts...), PlayURL: playPath}
	v.Layout.Stylesheets = []string{web.AssetURL("play.css")}
	// The build is the smallest that runs the text, which only the browser
	// sees: share.js picks it from Builds once it has read the address, so
	// the head preloads none (an author's embed of the high-water-mark world
	// downloads that world's build, a third less than every world's).
	v.Layout.Modules = nil
	v.WasmURL, _ = ModuleURL(ModuleAll)
	v.Builds = Picker()
	return templates.LinkedEmbedPage(v), nil
}

func playPage(r *http.Request) (templ.Component, error) {
	v := templates.PlayView{Layout: WidgetLayout("Sandbox", PlayScripts...),
		PageURL: playPath, EmbedURL: linkedPath, ScriptURL: embedScript, PictureURL: linkedPicture}
	v.Layout.Stylesheets = []string{web.AssetURL("play.css")}
	_, v.Static = web.PublishedFrom(r.Context())
	for i := range v.Layout.Nav {
		v.Layout.Nav[i].Current = v.Layout.Nav[i].Href == "/play"
	}
	v.WasmURL, _ = ModuleURL(ModuleAll)
	// The starting text is read only when no text was posted: a post
	// should not pay for reading a bundled scenario (on a Cloudflare
	// Worker, every request starts a fresh program).
	var src string
	if r.Method == http.MethodPost {
		v.Posted = true
		// A form's encoding writes a byte as up to three (%XX), and a
		// browser sends each line's end as CR LF (%0D%0A), six bytes for
		// the one it becomes below; so a text within MaxSource may take
		// six times as much on the wire. The decoded text is held to
		// MaxSource below.
		r.Body = http.MaxBytesReader(nil, r.Body, 6*MaxSource+4096)
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if ct != "application/x-www-form-urlencoded" {
			// ParseForm reads no other body, and would leave an empty text
			// to be refused as a scenario with no commands.
			v.Error = "the scenario was sent as " + widget.Clip(cmp.Or(ct, "a body of no type")) + "; this page reads a form sent as application/x-www-form-urlencoded with the text in its src field (curl --data-urlencode src@FILE)"
		} else if err := r.ParseForm(); err != nil {
			// The text was not read, so there is none to show: say so,
			// rather than put the starting text where the visitor's was.
			v.Error = "the scenario is too large or the form is malformed, so it was not read; keep it under 64 KB (your browser's Back button returns to the text)"
		} else if _, ok := r.PostForm["src"]; !ok {
			v.Error = "the form has no src field, which holds the scenario's text"
		} else {
			src = strings.ReplaceAll(r.PostForm.Get("src"), "\r\n", "\n")
		}
	} else {
		src = starter()
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
		_, host, err = Widget(r.Context(), f, url.Values{}, nil, "/play", "play", false)
		if err == nil {
			v.Widget = host
			v.Widget.WasmURL, v.Widget.Module = v.WasmURL, ModuleAll // the sandbox runs whatever is typed next
			return templates.PlayPage(v), nil
		}
	}
	v.Error = limitMessage(err)
	v.ErrorLine = caret(src, err)
	if errors.Is(err, web.ErrBusy) {
		// 503 with Retry-After, and the visitor's text kept in the page.
		return templates.PlayPage(v), err
	}
	return templates.PlayPage(v), nil
}

// caret shows the line an error points at with a caret under its column.
func caret(src string, err error) string {
	var pos scenario.Pos
	var se *scenario.Error
	var be *engine.BudgetError
	switch {
	case errors.As(err, &se):
		pos = se.Pos
	case errors.As(err, &be):
		pos = be.Pos
	default:
		return ""
	}
	lines := strings.Split(src, "\n")
	if pos.Line < 1 || pos.Line > len(lines) {
		return ""
	}
	line := strings.TrimRight(lines[pos.Line-1], "\r")
	prefix := fmt.Sprintf("%d | ", pos.Line)
	col := max(1, min(pos.Col, utf8.RuneCountInString(line)+1))
	// The space before the caret keeps the line's tabs (a column counts a
	// tab as one character), so the caret stands under its character
	// however wide the page draws a tab.
	var b strings.Builder
	b.WriteString(prefix + line + "\n" + strings.Repeat(" ", len(prefix)))
	for _, c := range line {
		if col--; col < 1 {
			break
		}
		if c == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	b.WriteByte('^')
	return b.String()
}
