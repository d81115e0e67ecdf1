package pages_test

import (
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/templates/widget"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
)

// svgDoc is a picture read back with encoding/xml: every element's name,
// the text of each <text> line, and the document's title and description.
type svgDoc struct {
	root     xml.Name
	elements map[string]int
	lines    []string // the content of each <text>, in order
	title    string
	desc     string
	attrs    []xml.Attr
}

// text is the picture's visible text, its lines joined by spaces, so a
// sentence wrapped over several lines reads whole.
func (d svgDoc) text() string { return strings.Join(d.lines, " ") }

// parseSVG decodes the whole document, failing the test on any XML error.
func parseSVG(t *testing.T, body string) svgDoc {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(body))
	d := svgDoc{elements: map[string]int{}}
	var stack []string
	var cur strings.Builder
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "the picture is not well-formed XML:\n%s", body)
		switch tok := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 {
				d.root = tok.Name
			}
			stack = append(stack, tok.Name.Local)
			d.elements[tok.Name.Local]++
			d.attrs = append(d.attrs, tok.Attr...)
			cur.Reset()
		case xml.CharData:
			cur.Write(tok)
		case xml.EndElement:
			switch tok.Name.Local {
			case "text":
				d.lines = append(d.lines, cur.String())
			case "title":
				d.title = cur.String()
			case "desc":
				d.desc = cur.String()
			}
			stack = stack[:len(stack)-1]
			cur.Reset()
		}
	}
	require.Empty(t, stack, "unclosed elements")
	return d
}

func getPicture(t *testing.T, h http.Handler, target string) (*httptest.ResponseRecorder, svgDoc) {
	t.Helper()
	rec, body := do(h, httptest.NewRequest(http.MethodGet, target, nil))
	assert.Equal(t, "image/svg+xml", rec.Header().Get("Content-Type"), target)
	assert.NotEmpty(t, rec.Header().Get("Content-Security-Policy"), "the site's security headers stay")
	assert.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
	return rec, parseSVG(t, body)
}

// runBundled runs a bundled scenario with knobs, as a link would.
func runBundled(t *testing.T, id string, knobs map[string]string) *engine.Trace {
	t.Helper()
	sc, ok := lessons.Lookup(id)
	require.True(t, ok, id)
	w, err := engine.Build(sc.File, knobs, 1, worlds.All())
	require.NoError(t, err)
	return w.Run()
}

func TestPicture(t *testing.T) {
	h := handler(t)
	rec, d := getPicture(t, h, "/picture/hwm/visibility-gap.svg?step=14&mark=lsn")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "public, max-age=3600", rec.Header().Get("Cache-Control"))

	assert.Equal(t, xml.Name{Space: "http://www.w3.org/2000/svg", Local: "svg"}, d.root)
	tr := runBundled(t, "hwm/visibility-gap", map[string]string{"mark": "lsn"})
	text := d.text()
	assert.Contains(t, text, "A timestamp mark skips rows that commit late", "the title")
	assert.Contains(t, text, widget.Narration(tr, 14), "the step's narration")
	// Order 3 is not in the target at step 14, and a later step writes it
	// under an lsn mark: on its way, not lost, as the widget's stage says.
	assert.Contains(t, text, "Truth: not in the target yet: 3.")
	_, lost := getPicture(t, h, "/picture/hwm/visibility-gap.svg?step=14")
	assert.Contains(t, lost.text(), "Truth: not in the target: 3.", "lost for good under a timestamp mark")
	checks := tr.ChecksAt(14)
	require.NotEmpty(t, checks)
	for _, c := range checks {
		// Each verdict in words, not only colour.
		assert.Contains(t, text, widget.CheckStatus(c.Status)+" — "+c.Name+": ", c.Name)
	}
	assert.Contains(t, text, "mark = lsn", "the picture names the knobs it was drawn with")
	// The chart's shapes said in words, as the stage's legend says them.
	assert.Contains(t, text, "◆ updated_at")
	assert.Contains(t, text, "┊ lsn mark: commits left of it are not read again")
	_, dts := getPicture(t, h, "/picture/hwm/visibility-gap.svg?step=14")
	assert.Contains(t, dts.text(), "┆ timestamp mark: updated_at at or left of it is not read again")
	assert.Contains(t, text, "step 14 of 24")
	assert.Contains(t, d.title, "A timestamp mark skips rows that commit late")
	assert.Contains(t, d.desc, widget.Narration(tr, 14), "a screen reader hears the narration")
	assert.Equal(t, 1, d.elements["title"])
	assert.Equal(t, 1, d.elements["desc"])
	assert.Positive(t, d.elements["rect"], "the chart's bars (and the white background)")

	// What a README host would refuse or could not load.
	for _, banned := range []string{"script", "foreignObject", "style", "image", "a", "use"} {
		assert.Zero(t, d.elements[banned], "a picture has no <%s>", banned)
	}
	for _, a := range d.attrs {
		assert.NotEqual(t, "href", a.Name.Local, "no links to anything")
		assert.NotEqual(t, "style", a.Name.Local, "no style attributes (the site's CSP blocks them)")
		assert.False(t, strings.HasPrefix(a.Name.Local, "on"), "no event handlers: %s", a.Name.Local)
	}
}

// TestPictureOfAStream: a stream scenario's picture draws its streams
// against event time and says what they show in words, within the same
// rules as any picture.
func TestPictureOfAStream(t *testing.T) {
	h := handler(t)
	rec, d := getPicture(t, h, "/picture/stream/idle-partition.svg?step=140")
	require.Equal(t, http.StatusOK, rec.Code)
	text := d.text()
	assert.Contains(t, text, "· tills ← sales", "the stream chart's heading")
	assert.Contains(t, text, "Stream tills reads sales", "its text equivalent")
	assert.Contains(t, text, ", idle", "the idle partition, in words")
	assert.Contains(t, d.desc, "Window per_minute:", "a screen reader hears the windows too")
	assert.Equal(t, 1, d.elements["title"])
	for _, banned := range []string{"script", "foreignObject", "style", "image", "a", "use"} {
		assert.Zero(t, d.elements[banned], "a picture has no <%s>", banned)
	}
}

// TestPictureOfALog: a log scenario's picture draws its partitions as the
// stage does (each offset's key, the log start and end, each group's
// committed offset), within the same rules as any picture; a stream
// scenario's, whose chart draws the partitions already, does not.
func TestPictureOfALog(t *testing.T) {
	h := handler(t)
	rec, d := getPicture(t, h, "/picture/dist/producer-retry.svg")
	require.Equal(t, http.StatusOK, rec.Code)
	text := d.text()
	assert.Contains(t, text, "topic orders · 3 partitions")
	for _, want := range []string{"p0", "p1", "p2", "start 0", "end 3", "billing committed 3; lag 0", "billing has committed nothing; lag 0", "▲ a group's committed offset"} {
		assert.Contains(t, text, want)
	}
	// orders-2 holds order 2 twice (the retry) and order 3: its keys, in
	// offset order.
	assert.Contains(t, text, "0 2 1 2 2 3")
	for _, banned := range []string{"script", "foreignObject", "style", "image", "a", "use"} {
		assert.Zero(t, d.elements[banned], "a picture has no <%s>", banned)
	}
	for _, a := range d.attrs {
		assert.NotEqual(t, "style", a.Name.Local)
	}
	// Retention's deleted offsets are drawn crossed out.
	_, d = getPicture(t, h, "/picture/dist/retention-lag.svg")
	assert.Contains(t, d.text(), "topic orders · 1 partition · retention 1m")
	assert.Contains(t, d.text(), "✕3")

	_, d = getPicture(t, h, "/picture/stream/idle-partition.svg")
	assert.NotContains(t, d.text(), "topic sales ·", "a stream's chart draws its partitions")
}

func TestPictureKnobs(t *testing.T) {
	h := handler(t)
	// Without a step, a picture shows how the scenario ends.
	_, ts := getPicture(t, h, "/picture/hwm/visibility-gap.svg")
	_, lsn := getPicture(t, h, "/picture/hwm/visibility-gap?mark=lsn")
	tsTrace := runBundled(t, "hwm/visibility-gap", nil)
	lsnTrace := runBundled(t, "hwm/visibility-gap", map[string]string{"mark": "lsn"})
	assert.Contains(t, ts.text(), "Truth: "+widget.TruthText(tsTrace.Final()))
	assert.Contains(t, lsn.text(), "Truth: "+widget.TruthText(lsnTrace.Final()))
	assert.NotEqual(t, widget.TruthText(tsTrace.Final()), widget.TruthText(lsnTrace.Final()), "the knob changes the ending")
	assert.Contains(t, ts.text(), "mark = timestamp")
	assert.Contains(t, lsn.text(), "mark = lsn")
	assert.Contains(t, ts.text(), "step 24 of 24")

	// truth=off leaves out the line no check could see.
	_, off := getPicture(t, h, "/picture/hwm/visibility-gap.svg?step=14&truth=off")
	assert.NotContains(t, off.text(), "Truth:")
	assert.Contains(t, off.text(), "truth=off", "and its link keeps it so")

	// A link's fault is named under the title, and the truth is said
	// beside the run's without it, as the page's comparison does.
	_, crash := getPicture(t, h, "/picture/hwm/visibility-gap.svg?fault=11~crash")
	assert.Contains(t, crash.text(), "faults 11~crash")
	orig := runBundled(t, "hwm/visibility-gap", nil)
	assert.Contains(t, crash.text(), "Without the link's faults: "+widget.TruthText(orig.Final()))
	assert.Contains(t, crash.text(), "fault=11~crash", "its link keeps the fault")
}

func TestPictureBadQuery(t *testing.T) {
	h := handler(t)
	rec, d := getPicture(t, h, "/picture/hwm/visibility-gap.svg?step=14&mark=bogus")
	require.Equal(t, http.StatusOK, rec.Code, "a bad knob still draws")
	assert.Contains(t, d.text(), `Note: the knob mark cannot be "bogus"; expected timestamp | lsn, so it stays timestamp.`)
	assert.Contains(t, d.text(), "mark = timestamp", "drawn with the default")
	assert.Contains(t, d.desc, `knob mark cannot be "bogus"`)

	rec, d = getPicture(t, h, "/picture/hwm/visibility-gap.svg?step=999&colour=red")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, d.text(), "step 999 is past the end")
	assert.Contains(t, d.text(), `this scenario has no knob "colour"`)

	// A step that is no step number draws the picture's default, the
	// last step, as a step past the end does, and says so.
	for _, bad := range []string{"-1", "abc"} {
		rec, d = getPicture(t, h, "/picture/hwm/visibility-gap.svg?step="+bad)
		require.Equal(t, http.StatusOK, rec.Code)
		assert.Contains(t, d.text(), "the link's step="+bad+" is not a step number; drawing the last step", bad)
		assert.NotContains(t, d.text(), "starting at step 0", bad)
		assert.Contains(t, d.desc, "step 24 of 24", "%s: the last step's picture", bad)
	}
}

func TestPictureNotFound(t *testing.T) {
	h := handler(t)
	rec, d := getPicture(t, h, "/picture/hwm/nope.svg?step=3")
	require.Equal(t, http.StatusNotFound, rec.Code)
	assert.Contains(t, d.text(), "No such scenario")
	assert.Contains(t, d.text(), `"hwm/nope"`)
	assert.NotEqual(t, "public, max-age=3600", rec.Header().Get("Cache-Control"), "a miss is not cached for an hour")

	// A mistyped id in a README's picture names what it most likely meant,
	// as the embed page does.
	rec, d = getPicture(t, h, "/picture/hwm/visiblity-gap.svg")
	require.Equal(t, http.StatusNotFound, rec.Code)
	assert.Contains(t, strings.Join(strings.Fields(d.text()), " "), "Did you mean hwm/visibility-gap?")
	assert.NotEqual(t, "public, max-age=3600", rec.Header().Get("Cache-Control"), "a miss is not cached for an hour")
}

// TestPictureEscapes checks text from a request reaches the picture as
// text: an id with markup in a 404.
func TestPictureEscapes(t *testing.T) {
	h := handler(t)
	rec, d := getPicture(t, h, "/picture/%3Cscript%3Ealert(1)%3C%2Fscript%3E&amp;.svg")
	require.Equal(t, http.StatusNotFound, rec.Code)
	assert.Zero(t, d.elements["script"])
	assert.Contains(t, d.text(), "<script>alert(1)</script>")
}

func TestEveryScenarioHasAPicture(t *testing.T) {
	h := handler(t)
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, sc := range all {
		rec, d := getPicture(t, h, "/picture/"+sc.ID+".svg")
		assert.Equal(t, http.StatusOK, rec.Code, sc.ID)
		assert.Contains(t, d.text(), sc.Title, sc.ID)
	}
}

func TestEmbedSnippets(t *testing.T) {
	h := handler(t)
	req := httptest.NewRequest(http.MethodGet, "/scenarios/hwm/visibility-gap?step=14&mark=lsn", nil)
	req.Host = "tidemark.example"
	rec, body := do(h, req)
	require.Equal(t, http.StatusOK, rec.Code)
	d := htmltest.Parse(t, body)
	d.One(t, "embed-snippets")
	snippet := func(id string) string { return htmltest.Text(d.One(t, id)) }
	assert.Equal(t, `<iframe src="http://tidemark.example/embed/hwm/visibility-gap?mark=lsn&amp;step=14" title="A timestamp mark skips rows that commit late — Tidemark" width="100%" height="800" loading="lazy" style="color-scheme: light"></iframe>`, snippet("snippet-iframe"))
	assert.Equal(t, `<script src="http://tidemark.example/static/embed.js" data-scenario="hwm/visibility-gap" data-step="14" data-knobs="mark=lsn" async></script>`, snippet("snippet-script"))
	// The picture links to the page at the same step and knobs.
	assert.Equal(t, `[![A timestamp mark skips rows that commit late, at step 14: not in the target yet: 3](http://tidemark.example/picture/hwm/visibility-gap.svg?mark=lsn&step=14)](http://tidemark.example/scenarios/hwm/visibility-gap?mark=lsn&step=14)`, snippet("snippet-markdown"))
	assert.Equal(t, `<a href="http://tidemark.example/scenarios/hwm/visibility-gap?mark=lsn&amp;step=14"><img src="http://tidemark.example/picture/hwm/visibility-gap.svg?mark=lsn&amp;step=14" alt="A timestamp mark skips rows that commit late, at step 14: not in the target yet: 3" width="680" style="max-width: 100%; height: auto"></a>`, snippet("snippet-image"))

	// A plain address: no query, and the picture shows the end. A strange
	// Host header does not reach the page.
	req = httptest.NewRequest(http.MethodGet, "/scenarios/hwm/visibility-gap", nil)
	req.Host = `evil"><b>`
	_, body = do(h, req)
	d = htmltest.Parse(t, body)
	assert.Equal(t, `<script src="/static/embed.js" data-scenario="hwm/visibility-gap" async></script>`, snippet("snippet-script"))
	assert.Equal(t, `[![A timestamp mark skips rows that commit late, how it ends: 2 rows not in the target](/picture/hwm/visibility-gap.svg)](/scenarios/hwm/visibility-gap)`, snippet("snippet-markdown"))
}

// Behind a proxy that ends TLS, the snippets still say https when the proxy
// says so, in either header it may use.
func TestEmbedSnippetsBehindAProxy(t *testing.T) {
	h := handler(t)
	for name, header := range map[string][2]string{
		"X-Forwarded-Proto":   {"X-Forwarded-Proto", "https"},
		"Forwarded":           {"Forwarded", `for=192.0.2.60;proto=https;by=203.0.113.43`},
		"Forwarded, quoted":   {"Forwarded", `proto="HTTPS", proto=http`},
		"Forwarded, by a hop": {"Forwarded", `for=192.0.2.60, proto=https`},
	} {
		req := httptest.NewRequest(http.MethodGet, "/scenarios/hwm/visibility-gap", nil)
		req.Host = "tidemark.example"
		req.Header.Set(header[0], header[1])
		_, body := do(h, req)
		src := htmltest.Text(htmltest.Parse(t, body).One(t, "snippet-script"))
		want := "https://tidemark.example/static/embed.js"
		if name == "Forwarded, by a hop" {
			// Only the first element speaks for the reader's request.
			want = "http://tidemark.example/static/embed.js"
		}
		assert.Contains(t, src, `src="`+want+`"`, name)
	}
}

// TestEmbedScriptsServed checks the scripts an author's page loads are
// served by their plain names, revalidated on each use, and that only the
// embed page loads frame.js.
func TestEmbedScriptsServed(t *testing.T) {
	h := handler(t)
	for _, name := range []string{"embed.js", "frame.js"} {
		rec, body := do(h, httptest.NewRequest(http.MethodGet, "/static/"+name, nil))
		require.Equal(t, http.StatusOK, rec.Code, name)
		assert.Equal(t, "text/javascript; charset=utf-8", rec.Header().Get("Content-Type"))
		assert.Equal(t, "no-cache", rec.Header().Get("Cache-Control"), "a plain name is revalidated, so authors get fixes")
		assert.Contains(t, body, "tidemark")
	}
	frame := web.AssetURL("frame.js")
	_, embed := get(t, h, "/embed/hwm/visibility-gap")
	_, page := get(t, h, "/scenarios/hwm/visibility-gap")
	scripts := func(d htmltest.Doc) []string {
		var out []string
		for _, s := range d.ByTag("script") {
			out = append(out, htmltest.Attr(s, "src"))
		}
		return out
	}
	assert.Contains(t, scripts(embed), frame)
	assert.NotContains(t, scripts(page), frame)
}

// TestPictureLinkKeepsItsSeedAndVaries: a picture's link back opens the
// same run (with its seed), and since shared caches keep the picture and
// the link is built from the request's host and scheme headers, the
// picture says it varies by them.
func TestPictureLinkKeepsItsSeedAndVaries(t *testing.T) {
	h := handler(t)
	req := httptest.NewRequest(http.MethodGet, "/picture/hwm/visibility-gap.svg?seed=5&step=3&mark=lsn", nil)
	req.Host = "tidemark.example"
	req.Header.Set("X-Forwarded-Proto", "https")
	rec, body := do(h, req)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, parseSVG(t, body).text(), "https://tidemark.example/scenarios/hwm/visibility-gap?mark=lsn&seed=5&step=3")
	assert.Equal(t, "public, max-age=3600", rec.Header().Get("Cache-Control"))
	for _, v := range []string{"Host", "X-Forwarded-Proto", "Forwarded"} {
		assert.Contains(t, rec.Header().Values("Vary"), v)
	}

	_, body = do(h, httptest.NewRequest(http.MethodGet, "/picture/hwm/visibility-gap.svg?step=3", nil))
	assert.NotContains(t, parseSVG(t, body).text(), "seed=", "the default seed is not spelled out")
}
