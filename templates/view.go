// Package templates holds the templ components of Tidemark's pages. Every
// component takes a plain view struct, filled in by the web package, and
// renders HTML with no inline scripts and no style attributes, because the
// site's Content-Security-Policy forbids both.
package templates

import "strings"

// SiteName is the name shown in titles and the header.
const SiteName = "Tidemark"

// LayoutView is what the frame around every page needs.
type LayoutView struct {
	// Title names the page. The document title becomes "Title — Tidemark",
	// or just "Tidemark" when Title is empty or equals SiteName.
	Title string
	// Description, when set, becomes the page's meta description.
	Description string
	// StylesheetURL is the URL of the site stylesheet (a hashed asset URL).
	StylesheetURL string
	// IconURL, when set, is the URL of an SVG favicon.
	IconURL string
	// Stylesheets are further stylesheet URLs, loaded after the site's.
	Stylesheets []string
	// Scripts are URLs loaded in order with <script src defer>, but for
	// AsyncScript.
	Scripts []string
	// AsyncScript, when set, is the one of Scripts loaded with <script src
	// async> instead: the module loader (app.js), which runs as soon as it
	// arrives, before the document is parsed, and starts compiling the
	// preloaded module (see Modules) while the page is still parsing; it
	// waits for the deferred scripts before it starts the module.
	AsyncScript string
	// Modules are URLs of WebAssembly modules a script will fetch with
	// fetch(url): the head asks for each with <link rel=preload as=fetch
	// crossorigin>, so the download starts with the HTML instead of after
	// the deferred scripts have run. crossorigin makes the preload's request
	// match fetch's (CORS mode, same-origin credentials), so the browser
	// hands the preloaded response to fetch rather than asking twice.
	Modules []string
	// Nav lists the links of the site navigation.
	Nav []NavLink
	// Preview, when its URL is set, describes the page to tools that turn
	// a pasted link into a card or a widget: OpenGraph tags, and the
	// address of the page's oEmbed description.
	Preview Preview
}

// Preview is how a page describes itself when its link is shared.
type Preview struct {
	// URL is the page's own address, absolute (og:url).
	URL string
	// Type is the OpenGraph type: "website", or "article" for a lesson.
	Type string
	// OEmbed, when set, is the absolute address of the page's oEmbed
	// description (JSON), for discovery.
	OEmbed string
}

// NavLink is one link of the site navigation.
type NavLink struct {
	Label string
	Href  string
	// Current marks the link of the page being shown (aria-current="page").
	Current bool
}

// DocumentTitle returns the text of the page's <title>.
func (v LayoutView) DocumentTitle() string {
	if v.Title == "" || v.Title == SiteName {
		return SiteName
	}
	return v.Title + " — " + SiteName
}

// CatalogItem is one lesson or scenario in a list of links.
type CatalogItem struct {
	// ID is the stable identifier, e.g. "hwm/visibility-gap".
	ID string
	// Title is the human title, e.g. "A timestamp mark skips late commits".
	Title string
	// Summary is one or two sentences saying what the learner will see.
	Summary string
	// Href is where the item's page lives.
	Href string
}

// HomeView is the home page.
type HomeView struct {
	Layout    LayoutView
	Lessons   []CatalogItem
	Scenarios []CatalogItem
}

// UnavailableView is the page shown with a 503: Why says what the server
// could not do, as a sentence.
type UnavailableView struct {
	Layout LayoutView
	Why    string
}

// NotFoundView is the page shown for a missing lesson, scenario or page.
type NotFoundView struct {
	Layout LayoutView
	// What names the thing that was asked for, e.g. `scenario "hwm/nope"`.
	What string
	// Near are the pages the address most likely meant (a chapter or a
	// scenario spelled a letter off), the closest first.
	Near []NavLink
	// Pages, in a static copy, are the paths of the pages it holds: its
	// one 404.html answers every missing address, so near.js offers the
	// ones nearest the address from this list, as the server would.
	Pages []string
	// Up, when its Href is set, is the nearest page that exists, such as
	// the contents of the lesson whose chapter was not found.
	Up NavLink
	// EmbedNotFoundURL, in a static copy, is the address of its not-found
	// page for embeds (/embed/404.html). The copy's 404.html is what most
	// hosts send for any missing file, a mistyped embed id among them;
	// app.js sends an address under /embed/ on to that page, which fits in
	// the author's iframe and names the id, rather than show this whole page
	// there.
	EmbedNotFoundURL string
}

// NearAfter is what follows the i'th of Near in "Did you mean a or b?":
// " or " between two, and the question mark after the last.
func (v NotFoundView) NearAfter(i int) string {
	if i == len(v.Near)-1 {
		return "?"
	}
	return " or "
}

// EmbedNotFoundView is the embed of a scenario id no bundled scenario has.
type EmbedNotFoundView struct {
	Layout LayoutView // its scripts: frame.js, and near.js in a static copy
	ID     string     // the id asked for; "" in a static copy's one embed/404.html
	Near   []string   // bundled ids close to ID, the closest first
	Known  []string   // with ID "": every bundled id, for the page's script to match
}

// Suggestion asks whether the author meant one of Near: " Did you mean a
// or b?", or "" when none is near.
func (v EmbedNotFoundView) Suggestion() string {
	if len(v.Near) == 0 {
		return ""
	}
	return " Did you mean " + strings.Join(v.Near, " or ") + "?"
}

// WidgetHost is a scenario widget and what the browser's engine needs to take
// it over: the scenario text, and where the module lives.
type WidgetHost struct {
	HTML     string // drawn by the widget package
	WasmURL  string // the address of Module
	Module   string // the build of the engine's module the scenario needs (web/pages.ModuleFor)
	Source   string // the scenario file's text
	Name     string // the file name used in error positions
	BasePath string // the page the widget's links point at
	ID       string // the widget's element-id prefix
	Embedded string // "on" inside a lesson or an iframe
	// Query, when OwnQuery is set, is the link query the browser opens the
	// widget with (knob settings such as "mark=lsn"), instead of the page's
	// own address. A lesson sets it on every embed: its page carries many
	// widgets, each with its own knobs, and its address belongs to none.
	Query    string
	OwnQuery bool
}

// ScenarioView is a scenario's page.
type ScenarioView struct {
	Layout   LayoutView
	ID       string
	Title    string
	Source   string
	Widget   WidgetHost
	EmbedURL string
	PageURL  string
	// Embed holds the snippets that put this scenario in someone else's
	// documentation.
	Embed EmbedSnippets
	// UsedIn lists the places in the lessons that play this scenario, each
	// a link back; Next is the scenario a learner meets after it, if any.
	UsedIn []ScenarioUse
	Next   *CatalogItem
}

// ScenarioUse is a section of a lesson that plays a scenario.
type ScenarioUse struct {
	Lesson, Chapter, Section string // titles
	Href                     string // the section in its chapter
}

// EmbedSnippets are ready-to-paste ways to show a scenario elsewhere, as
// text (the page escapes them once more to show them).
type EmbedSnippets struct {
	// Origin is the scheme and host the snippets point at ("" for
	// relative links); the page's script draws them again from it as the
	// learner steps and turns knobs.
	Origin   string
	IFrame   string // an <iframe> of the embed page
	Script   string // a <script> tag for embed.js, which makes the iframe and sizes it
	Markdown string // a Markdown image of the static picture, for a README
	Image    string // the same picture as an HTML <img>
	// Pictures, when set, says which pictures there are where the page is
	// a copy in static files, which cannot draw one for any step.
	Pictures string
}

// PlayView is the sandbox page.
type PlayView struct {
	Layout    LayoutView
	Source    string
	Posted    bool   // Source came with the request (a form), not from the build
	Error     string // the first error, as file:line:column: message
	ErrorLine string // the offending line with a caret under the column
	Widget    WidgetHost
	WasmURL   string
	// Static says the page is a copy in static files, with no server to
	// post to or to draw pictures.
	Static bool
	// The site's addresses the page's script builds links from, as paths:
	// the sandbox itself, the embed page of a linked scenario, embed.js by
	// its plain name, and the picture of a linked scenario.
	PageURL, EmbedURL, ScriptURL, PictureURL string
}

// LinkedEmbedView is the embed page of a scenario carried in its own
// address (#tdm=…), which the page's script unpacks and plays.
type LinkedEmbedView struct {
	Layout  LayoutView
	WasmURL string // the build of every world, for a text whose builds Builds cannot tell
	// Builds is the JSON from which the page's script picks the smallest
	// build that runs the text (web/pages.Picker), once it has the text.
	Builds  string
	PlayURL string // the sandbox, which the page links to with the same fragment
}
