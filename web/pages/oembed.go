package pages

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/lessons/titles"
	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/templates/widget"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/share"
)

// oembedPath is the site's oEmbed endpoint (https://oembed.com): a tool
// given a link to a page of the site asks it how to show that page.
const oembedPath = "/oembed"

// The size of the iframe an oEmbed answer proposes, before a consumer's
// maxwidth and maxheight: the embed page's widget reads well at 680 pixels
// wide, and 800 tall holds its controls and the stage.
const (
	oembedWidth  = 680
	oembedHeight = 800
)

// OEmbedCache is how long a consumer may keep an oEmbed answer, in seconds.
const OEmbedCache = 3600

// Preview returns how the page at path (a path of the site, such as
// /scenarios/hwm/visibility-gap) with query describes itself when its link
// is shared: its address, its OpenGraph type, and its oEmbed description.
// A copy in static files (web.Published) points at the description the
// exporter wrote beside it (/oembed/PATH.json), since there is no endpoint
// to ask; it has no query, since a static page is drawn with none.
func Preview(r *http.Request, path, query, ogType string) templates.Preview {
	site := origin(r)
	if site == "" {
		return templates.Preview{}
	}
	if _, static := web.PublishedFrom(r.Context()); static {
		return templates.Preview{URL: site + path + "/", Type: ogType, OEmbed: site + oembedPath + path + ".json"}
	}
	page := site + path
	if query != "" {
		page += "?" + query
	}
	return templates.Preview{URL: page, Type: ogType,
		OEmbed: site + oembedPath + "?" + url.Values{"url": {page}, "format": {"json"}}.Encode()}
}

// oembed is an oEmbed answer (version 1.0): "rich" with an iframe of the
// embed page for a scenario, "link" for a lesson.
type oembed struct {
	Version      string `json:"version"`
	Type         string `json:"type"`
	Title        string `json:"title,omitempty"`
	ProviderName string `json:"provider_name"`
	ProviderURL  string `json:"provider_url"`
	CacheAge     int    `json:"cache_age"`
	HTML         string `json:"html,omitempty"`
	Width        int    `json:"width,omitempty"`
	Height       int    `json:"height,omitempty"`
}

// oembedPage answers GET /oembed?url=…&format=json for a page of this
// site: a scenario page or embed (/scenarios/ID, /embed/ID, with their
// query), a scenario carried in a link (/play#tdm=…, /embed/#tdm=…), or a
// lesson. As the specification asks, a format other than json is 501 Not
// Implemented, and a url this site has nothing to show for is 404 Not Found.
func oembedPage(w http.ResponseWriter, r *http.Request) {
	q, unread := url.ParseQuery(r.URL.RawQuery)
	w.Header().Set("Access-Control-Allow-Origin", "*") // consumers ask from their pages' scripts too
	for _, h := range OriginHeaders {
		w.Header().Add("Vary", h)
	}
	if f := q.Get("format"); f != "" && f != "json" {
		http.Error(w, "this site answers oEmbed requests in JSON only: format=json", http.StatusNotImplemented)
		return
	}
	raw := q.Get("url")
	if raw == "" {
		msg := "an oEmbed request needs url=, the address of a page of this site"
		if unread != nil {
			// The pair url.ParseQuery could not read is left out of q.
			msg += "; part of this request's address could not be read (" + unread.Error() + "), so url= may be badly percent-encoded"
		}
		http.Error(w, msg, http.StatusBadRequest)
		return
	}
	answer, ok := describe(r, raw)
	if !ok {
		http.Error(w, "this site has no page to embed at "+widget.Clip(raw), http.StatusNotFound)
		return
	}
	if answer.Type == "rich" {
		answer.Width, answer.Height = oembedWidth, oembedHeight
		if n, err := strconv.Atoi(q.Get("maxwidth")); err == nil && n > 0 {
			answer.Width = min(answer.Width, n)
		}
		if n, err := strconv.Atoi(q.Get("maxheight")); err == nil && n > 0 {
			answer.Height = min(answer.Height, n)
		}
		answer.HTML = strings.NewReplacer("{W}", strconv.Itoa(answer.Width), "{H}", strconv.Itoa(answer.Height)).Replace(answer.HTML)
	}
	body, err := json.Marshal(answer)
	if err != nil {
		http.Error(w, "the oEmbed answer could not be written", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(OEmbedCache))
	_, _ = w.Write(body)
}

// describe returns the oEmbed answer for the page at raw, with {W} and {H}
// standing for the iframe's size, and whether raw is a page of this site
// that has one.
func describe(r *http.Request, raw string) (oembed, bool) {
	site := origin(r)
	u, err := url.Parse(raw)
	s, serr := url.Parse(site)
	if err != nil || serr != nil || site == "" || !strings.EqualFold(u.Host, s.Host) || (u.Scheme != "http" && u.Scheme != "https") {
		return oembed{}, false
	}
	path, ok := strings.CutPrefix(u.Path, s.Path)
	if !ok {
		return oembed{}, false
	}
	_, static := web.PublishedFrom(r.Context())
	answer := oembed{Version: "1.0", ProviderName: templates.SiteName, ProviderURL: site + "/", CacheAge: OEmbedCache}
	iframe := func(src, title string) string {
		return `<iframe src="` + html.EscapeString(src) + `" width="{W}" height="{H}" title="` + html.EscapeString(title+" — "+templates.SiteName) +
			`" loading="lazy" style="border:0"></iframe>`
	}
	query := ""
	if u.RawQuery != "" {
		query = "?" + u.Query().Encode()
	}
	switch {
	case path == playPath || path == playPath+"/" || path == linkedPath || path == strings.TrimSuffix(linkedPath, "/"):
		// A scenario carried in the link's fragment, which a consumer
		// passes on whole.
		text, err := share.ParseFragment(u.Fragment)
		if err != nil {
			return oembed{}, false
		}
		f, err := scenario.Parse(share.Unnamed, []byte(text))
		if err != nil {
			return oembed{}, false
		}
		answer.Type, answer.Title = "rich", f.Title
		answer.HTML = iframe(site+linkedPath+query+"#"+share.Key+"="+mustPayload(u.Fragment), f.Title)
		return answer, true
	case strings.HasPrefix(path, "/scenarios/"), strings.HasPrefix(path, "/embed/"):
		id := strings.TrimSuffix(path[strings.Index(path[1:], "/")+2:], "/")
		sc, ok := lessons.Lookup(id)
		if !ok {
			return oembed{}, false
		}
		src := site + "/embed/" + sc.ID
		if static {
			src += "/"
		}
		answer.Type, answer.Title = "rich", sc.Title
		answer.HTML = iframe(src+query, sc.Title)
		return answer, true
	case strings.HasPrefix(path, "/lessons/"):
		slug, page, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(path, "/lessons/"), "/"), "/")
		// Titles only: the Worker answers this, and reading the lessons
		// would put their text and the Markdown parser in its module.
		lesson, chapters, ok := titles.Of(slug)
		if !ok {
			return oembed{}, false
		}
		answer.Type, answer.Title = "link", lesson
		switch page {
		case "":
		case "glossary":
			answer.Title = "Glossary — " + lesson
		default:
			chapter, ok := chapters[page]
			if !ok {
				return oembed{}, false
			}
			answer.Title = chapter + " — " + lesson
		}
		return answer, true
	}
	return oembed{}, false
}

// mustPayload returns the tdm= payload of a fragment that ParseFragment read.
func mustPayload(fragment string) string {
	for part := range strings.SplitSeq(fragment, "&") {
		if v, ok := strings.CutPrefix(part, share.Key+"="); ok {
			return v
		}
	}
	return ""
}
