package templates

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/web/htmltest"
)

// render renders c and parses the result.
func render(t *testing.T, c templ.Component) (htmltest.Doc, string) {
	t.Helper()
	var b strings.Builder
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatalf("render: %v", err)
	}
	return htmltest.Parse(t, b.String()), b.String()
}

func testLayout(title string) LayoutView {
	return LayoutView{
		Title:         title,
		StylesheetURL: "/static/app.0123abcd.css",
		IconURL:       "/static/favicon.0123abcd.svg",
		Scripts:       []string{"/static/wasm_exec.0123abcd.js", "/static/app.0123abcd.js", "/static/widget.0123abcd.js"},
		AsyncScript:   "/static/app.0123abcd.js",
		Nav: []NavLink{
			{Label: "Home", Href: "/", Current: true},
			{Label: "Lessons", Href: "/#lessons"},
		},
	}
}

func TestLayout(t *testing.T) {
	doc, raw := render(t, Home(HomeView{Layout: testLayout("Tidemark")}))

	if !strings.HasPrefix(raw, "<!doctype html>") && !strings.HasPrefix(raw, "<!DOCTYPE html>") {
		t.Errorf("page does not start with a doctype: %.40q", raw)
	}
	htmlEl := doc.ByTag("html")
	if len(htmlEl) != 1 || htmltest.Attr(htmlEl[0], "lang") != "en" {
		t.Errorf(`want <html lang="en">`)
	}
	if got := htmltest.Text(doc.ByTag("title")[0]); got != "Tidemark" {
		t.Errorf("title = %q, want %q", got, "Tidemark")
	}
	var viewport bool
	for _, m := range doc.ByTag("meta") {
		if htmltest.Attr(m, "name") == "viewport" && strings.Contains(htmltest.Attr(m, "content"), "width=device-width") {
			viewport = true
		}
	}
	if !viewport {
		t.Error("no meta viewport with width=device-width")
	}
	var stylesheets []string
	for _, l := range doc.ByTag("link") {
		if htmltest.Attr(l, "rel") == "stylesheet" {
			stylesheets = append(stylesheets, htmltest.Attr(l, "href"))
		}
	}
	if !slices.Equal(stylesheets, []string{"/static/app.0123abcd.css"}) {
		t.Errorf("stylesheets = %q", stylesheets)
	}

	var scripts []string
	for _, s := range doc.ByTag("script") {
		// The module loader runs as soon as it arrives; the others in order
		// once the document is parsed.
		src := htmltest.Attr(s, "src")
		if async := src == "/static/app.0123abcd.js"; htmltest.HasAttr(s, "async") != async || htmltest.HasAttr(s, "defer") == async {
			t.Errorf("script %q: async %v, defer %v; want only %s", src, htmltest.HasAttr(s, "async"), htmltest.HasAttr(s, "defer"), map[bool]string{true: "async", false: "defer"}[async])
		}
		scripts = append(scripts, src)
	}
	if want := testLayout("").Scripts; !slices.Equal(scripts, want) {
		t.Errorf("scripts = %q, want %q in order", scripts, want)
	}

	// Landmarks, and the skip link pointing at <main>.
	for _, tag := range []string{"header", "nav", "main", "footer"} {
		if n := len(doc.ByTag(tag)); n != 1 {
			t.Errorf("found %d <%s> elements, want 1", n, tag)
		}
	}
	skip := doc.One(t, "skip-link")
	main := doc.One(t, "main")
	if href := htmltest.Attr(skip, "href"); href != "#"+htmltest.Attr(main, "id") {
		t.Errorf("skip link goes to %q, main has id %q", href, htmltest.Attr(main, "id"))
	}

	var current []string
	for _, a := range htmltest.All(doc.One(t, "site-nav"), func(n *html.Node) bool { return n.Data == "a" }) {
		if htmltest.Attr(a, "aria-current") == "page" {
			current = append(current, htmltest.Text(a))
		}
	}
	if !slices.Equal(current, []string{"Home"}) {
		t.Errorf("aria-current links = %q, want [Home]", current)
	}
}

func TestDocumentTitle(t *testing.T) {
	for _, tc := range []struct{ title, want string }{
		{"", "Tidemark"},
		{"Tidemark", "Tidemark"},
		{"A timestamp mark skips late commits", "A timestamp mark skips late commits — Tidemark"},
	} {
		if got := (LayoutView{Title: tc.title}).DocumentTitle(); got != tc.want {
			t.Errorf("DocumentTitle(%q) = %q, want %q", tc.title, got, tc.want)
		}
	}
}

func TestHomeLists(t *testing.T) {
	lessons := []CatalogItem{
		{ID: "hwm", Title: "High-water marks", Summary: "Why a timestamp mark misses rows.", Href: "/lessons/hwm"},
		{ID: "offsets", Title: "Committed offsets", Summary: "When to save your place.", Href: "/lessons/offsets"},
	}
	scenarios := []CatalogItem{
		{ID: "hwm/visibility-gap", Title: "A timestamp mark skips late commits <b>", Href: "/scenarios/hwm/visibility-gap"},
	}
	doc, _ := render(t, Home(HomeView{Layout: testLayout(""), Lessons: lessons, Scenarios: scenarios}))

	doc.One(t, "lesson-list")
	items := doc.ByTestID("lesson-item")
	if len(items) != len(lessons) {
		t.Fatalf("found %d lesson items, want %d", len(items), len(lessons))
	}
	for i, it := range items {
		if got := htmltest.Attr(it, "data-id"); got != lessons[i].ID {
			t.Errorf("lesson %d: data-id = %q, want %q", i, got, lessons[i].ID)
		}
		links := htmltest.All(it, func(n *html.Node) bool { return n.Data == "a" })
		if len(links) != 1 || htmltest.Attr(links[0], "href") != lessons[i].Href || htmltest.Text(links[0]) != lessons[i].Title {
			t.Errorf("lesson %d: want one link %q to %q", i, lessons[i].Title, lessons[i].Href)
		}
		if !strings.Contains(htmltest.Text(it), lessons[i].Summary) {
			t.Errorf("lesson %d: summary %q missing", i, lessons[i].Summary)
		}
	}
	sc := doc.ByTestID("scenario-item")
	if len(sc) != 1 || !strings.Contains(htmltest.Text(sc[0]), "<b>") {
		t.Errorf("scenario title not shown as escaped text")
	}
	if n := len(doc.ByTestID("lesson-list-empty")); n != 0 {
		t.Errorf("empty note shown next to a full list")
	}
}

func TestHomeEmptyLists(t *testing.T) {
	doc, _ := render(t, Home(HomeView{Layout: testLayout("")}))
	doc.One(t, "lesson-list-empty")
	doc.One(t, "scenario-list-empty")
	if n := len(doc.ByTestID("lesson-list")); n != 0 {
		t.Errorf("found %d lesson lists, want none", n)
	}
}

func TestUnsafeHrefIsNeutralised(t *testing.T) {
	doc, _ := render(t, Home(HomeView{
		Layout:  testLayout(""),
		Lessons: []CatalogItem{{ID: "x", Title: "x", Href: "javascript:alert(1)"}},
	}))
	if v := doc.CSPViolations(); len(v) != 0 {
		t.Errorf("javascript: URL survived rendering: %q", v)
	}
}

func TestNotFound(t *testing.T) {
	doc, _ := render(t, NotFound(NotFoundView{Layout: testLayout("Not found"), What: `scenario "hwm/nope"`}))
	if got := htmltest.Text(doc.One(t, "not-found-what")); !strings.Contains(got, `scenario "hwm/nope"`) {
		t.Errorf("not-found text = %q", got)
	}
}

// TestNoInlineScriptOrStyle checks every page against the rules of the site's
// Content-Security-Policy, which has no 'unsafe-inline'.
func TestNoInlineScriptOrStyle(t *testing.T) {
	pages := map[string]templ.Component{
		"home":       Home(HomeView{Layout: testLayout(""), Lessons: []CatalogItem{{ID: "a", Title: "A", Href: "/a"}}}),
		"home-empty": Home(HomeView{Layout: testLayout("")}),
		"not-found":  NotFound(NotFoundView{Layout: testLayout("Not found")}),
	}
	for name, c := range pages {
		doc, _ := render(t, c)
		if v := doc.CSPViolations(); len(v) != 0 {
			t.Errorf("%s: %q", name, v)
		}
	}
}

// TestEmbedSnippets checks the scenario page shows each way to embed it as
// text to copy, escaped once for the page, with no script involved.
func TestEmbedSnippets(t *testing.T) {
	v := ScenarioView{
		Layout: testLayout("A scenario"), ID: "hwm/x", Title: "A scenario",
		Embed: EmbedSnippets{
			IFrame:   `<iframe src="https://h.example/embed/hwm/x?a=1&amp;step=2" title="A scenario — Tidemark"></iframe>`,
			Script:   `<script src="https://h.example/static/embed.js" data-scenario="hwm/x" async></script>`,
			Markdown: `![A scenario](https://h.example/picture/hwm/x.svg)`,
			Image:    `<img src="https://h.example/picture/hwm/x.svg" alt="A scenario">`,
		},
	}
	doc, raw := render(t, ScenarioPage(v))
	section := doc.One(t, "embed-snippets")
	if got := htmltest.Text(htmltest.All(section, func(n *html.Node) bool { return n.Data == "h2" })[0]); got != "Embed this scenario" {
		t.Errorf("heading = %q", got)
	}
	for id, want := range map[string]string{
		"snippet-iframe": v.Embed.IFrame, "snippet-script": v.Embed.Script,
		"snippet-markdown": v.Embed.Markdown, "snippet-image": v.Embed.Image,
	} {
		n := doc.One(t, id)
		if n.Data != "code" || n.Parent == nil || n.Parent.Data != "pre" {
			t.Errorf("%s is not a <pre><code>", id)
		}
		if got := htmltest.Text(n); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if strings.Contains(raw, `<script src="https://h.example`) || strings.Contains(raw, "<iframe") {
		t.Error("a snippet reached the page as markup instead of text")
	}
	if v := doc.CSPViolations(); len(v) != 0 {
		t.Errorf("CSP: %q", v)
	}
	// A view without snippets (a page that is not a bundled scenario) has
	// no empty section.
	doc, _ = render(t, ScenarioPage(ScenarioView{Layout: testLayout("B"), Title: "B"}))
	if len(doc.ByTestID("embed-snippets")) != 0 {
		t.Error("an empty embed section was drawn")
	}
}
