package pages_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/lessons/course"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
	"github.com/tidemark/tidemark/web/pages"
	"github.com/tidemark/tidemark/web/share"
)

func handler(t *testing.T) http.Handler {
	t.Helper()
	cat, err := pages.Catalog()
	require.NoError(t, err)
	h, err := web.NewHandler(web.Options{Scenarios: cat, Pages: pages.Routes()})
	require.NoError(t, err)
	return h
}

func do(h http.Handler, req *http.Request) (*httptest.ResponseRecorder, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec, rec.Body.String()
}

func get(t *testing.T, h http.Handler, target string) (int, htmltest.Doc) {
	t.Helper()
	rec, body := do(h, httptest.NewRequest(http.MethodGet, target, nil))
	return rec.Code, htmltest.Parse(t, body)
}

func post(t *testing.T, h http.Handler, src string) (int, htmltest.Doc) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/play", strings.NewReader(url.Values{"src": {src}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec, body := do(h, req)
	return rec.Code, htmltest.Parse(t, body)
}

func TestScenarioPage(t *testing.T) {
	h := handler(t)
	code, d := get(t, h, "/scenarios/hwm/visibility-gap")
	require.Equal(t, http.StatusOK, code)
	w := d.One(t, "widget")
	assert.Equal(t, "hwm/visibility-gap", htmltest.Attr(w, "data-scenario"))
	assert.Equal(t, "0", htmltest.Attr(w, "data-step"))
	assert.Equal(t, "24", htmltest.Attr(w, "data-steps"))
	assert.Equal(t, "A timestamp mark skips rows that commit late", htmltest.Text(d.One(t, "page-title")))
	assert.True(t, htmltest.HasAttr(d.One(t, "message"), "hidden"), "a clean link shows no message")

	host := d.One(t, "widget-host")
	sc, _ := lessons.Lookup("hwm/visibility-gap")
	assert.Equal(t, string(sc.Source), htmltest.Attr(host, "data-source"), "the browser re-runs the very same text")
	assert.Equal(t, "/scenarios/hwm/visibility-gap", htmltest.Attr(host, "data-base"))
	assert.Equal(t, "tm", htmltest.Attr(host, "data-id"))
	assert.Empty(t, htmltest.Attr(host, "data-embedded"))
	if u, built := web.LookupAsset(pages.ModuleHWM); built {
		assert.Equal(t, u, htmltest.Attr(host, "data-tidemark-wasm"), "a page of the high-water-mark world loads that world's build")
	}
	var scripts []string
	for _, s := range d.ByTag("script") {
		scripts = append(scripts, htmltest.Attr(s, "src"))
	}
	want := make([]string, len(pages.Scripts))
	for i, s := range pages.Scripts {
		want[i] = web.AssetURL(s)
	}
	assert.Equal(t, want, scripts, "the page loads the widget's scripts in order")
	assert.Contains(t, htmltest.Text(d.One(t, "verdict")), "2 rows missing")
	assert.Empty(t, d.CSPViolations())
}

// TestScenarioPageLinksToItsLessons checks a scenario page names the lesson
// sections that play it, each a link to the section in its chapter, and
// links on to the next scenario; one no lesson plays says so.
func TestScenarioPageLinksToItsLessons(t *testing.T) {
	h := handler(t)
	code, d := get(t, h, "/scenarios/hwm/visibility-gap")
	require.Equal(t, http.StatusOK, code)
	var hrefs []string
	for _, a := range d.ByTestID("scenario-use") {
		hrefs = append(hrefs, htmltest.Attr(a, "href"))
	}
	assert.Equal(t, []string{"/lessons/high-water-mark/position-or-timestamp#visibility-gap", "/lessons/high-water-mark/checks#checks"}, hrefs)
	assert.Contains(t, htmltest.Text(d.ByTestID("scenario-use")[0]), "The high-water mark")
	next, ok := course.NextScenario("hwm/visibility-gap")
	require.True(t, ok)
	assert.Equal(t, "/scenarios/"+next, htmltest.Attr(d.One(t, "scenario-next"), "href"))

	// A log-world scenario links to lesson two's chapter.
	code, d = get(t, h, "/scenarios/dist/dual-write")
	require.Equal(t, http.StatusOK, code)
	hrefs = nil
	for _, a := range d.ByTestID("scenario-use") {
		hrefs = append(hrefs, htmltest.Attr(a, "href"))
	}
	assert.Equal(t, []string{"/lessons/guarantee-chain/the-chain#hop-producer"}, hrefs)
	assert.Empty(t, d.ByTestID("scenario-uses-none"))

	// A scenario no lesson plays says so. Every bundled scenario is played
	// by a lesson today; when one is not, its page is checked here (the
	// template's side of it is held by TestScenarioContext in templates).
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, sc := range all {
		if len(course.Uses(sc.ID)) > 0 {
			continue
		}
		code, d = get(t, h, "/scenarios/"+sc.ID)
		require.Equal(t, http.StatusOK, code)
		assert.Empty(t, d.ByTestID("scenario-use"))
		assert.Len(t, d.ByTestID("scenario-uses-none"), 1)
		break
	}

	// The embed page, inside someone else's docs, carries none of it.
	code, d = get(t, h, "/embed/hwm/visibility-gap")
	require.Equal(t, http.StatusOK, code)
	assert.Empty(t, d.ByTestID("scenario-context"))
}

func TestScenarioPageQuery(t *testing.T) {
	h := handler(t)
	code, d := get(t, h, "/scenarios/hwm/visibility-gap?step=14&mark=lsn")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "14", htmltest.Attr(d.One(t, "widget"), "data-step"))
	assert.True(t, htmltest.HasAttr(d.One(t, "knob-mark-lsn"), "checked"))
	assert.False(t, htmltest.HasAttr(d.One(t, "knob-mark-timestamp"), "checked"))
	assert.Contains(t, htmltest.Text(d.One(t, "narration")), "Step 14 of 24")
	assert.Contains(t, htmltest.Attr(d.One(t, "btn-forward"), "href"), "mark=lsn")
	assert.Equal(t, "In the end: the target matches the source.", htmltest.Text(d.One(t, "verdict")), "the ending follows the knobs")
	assert.True(t, htmltest.HasAttr(d.One(t, "message"), "hidden"))

	for _, tc := range []struct{ query, says, step string }{
		{"mark=bogus", `knob mark cannot be "bogus"`, "0"},
		{"colour=red&step=3", `no knob "colour"`, "3"},
		{"step=x", "step=x is not a step number", "0"},
		{"step=999", "Step 999 is past the end; this scenario has 24 steps", "24"},
		{"seed=abc", "seed=abc is not a seed (a whole number from 0 up)", "0"},
		{"seed=" + strings.Repeat("x", 100_000), "seed=" + strings.Repeat("x", 40) + "… is not a seed (a whole number from 0 up)", "0"},
		{"step=5&mark=lsn;x=1", "Part of this page's address could not be read (invalid semicolon separator in query), so it was left out", "5"},
		{"step=4&a=%zz", `Part of this page's address could not be read (invalid URL escape "%zz"), so it was left out`, "4"},
	} {
		code, d := get(t, h, "/scenarios/hwm/visibility-gap?"+tc.query)
		require.Equal(t, http.StatusOK, code, tc.query)
		msg := d.One(t, "message")
		assert.False(t, htmltest.HasAttr(msg, "hidden"), tc.query)
		assert.Contains(t, htmltest.Text(msg), tc.says, tc.query)
		assert.Equal(t, tc.step, htmltest.Attr(d.One(t, "widget"), "data-step"), tc.query)
		assert.True(t, htmltest.HasAttr(d.One(t, "knob-mark-timestamp"), "checked"), "%s: a bad value falls back to the default", tc.query)
	}
}

// TestRepeatedStepOneRule: with step= given twice, the widget and the
// embed snippets open at the same step, the last given.
func TestRepeatedStepOneRule(t *testing.T) {
	h := handler(t)
	_, d := get(t, h, "/scenarios/hwm/visibility-gap?step=3&step=10")
	assert.Equal(t, "10", htmltest.Attr(d.One(t, "widget"), "data-step"))
	for _, kind := range []string{"iframe", "markdown"} {
		text := htmltest.Text(d.One(t, "snippet-"+kind))
		assert.Contains(t, text, "step=10", kind)
		assert.NotContains(t, text, "step=3", kind)
	}
}

// TestUnreadableQueryIsKeptApart: a page kept for a link is not served for
// the same link with a pair that cannot be read, nor the other way round.
func TestUnreadableQueryIsKeptApart(t *testing.T) {
	h := handler(t)
	for range 2 {
		_, d := get(t, h, "/scenarios/hwm/visibility-gap?step=5")
		assert.True(t, htmltest.HasAttr(d.One(t, "message"), "hidden"))
		_, d = get(t, h, "/scenarios/hwm/visibility-gap?step=5&x=1;y=2")
		assert.False(t, htmltest.HasAttr(d.One(t, "message"), "hidden"))
	}
}

func TestScenarioNotFound(t *testing.T) {
	h := handler(t)
	for _, path := range []string{"/scenarios/hwm/no-such-thing", "/embed/nope", "/scenarios/"} {
		rec, body := do(h, httptest.NewRequest(http.MethodGet, path, nil))
		assert.Equal(t, http.StatusNotFound, rec.Code, path)
		assert.NotContains(t, body, `data-testid="widget"`, path)
	}
	rec, body := do(h, httptest.NewRequest(http.MethodGet, "/scenarios/hwm/no-such-thing", nil))
	require.Equal(t, http.StatusNotFound, rec.Code)
	assert.Contains(t, body, "hwm/no-such-thing")
}

func TestEmbedPage(t *testing.T) {
	h := handler(t)
	rec, body := do(h, httptest.NewRequest(http.MethodGet, "/embed/hwm/visibility-gap?step=5", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	d := htmltest.Parse(t, body)
	w := d.One(t, "widget")
	assert.Equal(t, "5", htmltest.Attr(w, "data-step"))
	host := d.One(t, "widget-host")
	assert.Equal(t, "on", htmltest.Attr(host, "data-embedded"))
	assert.Equal(t, "/embed/hwm/visibility-gap", htmltest.Attr(host, "data-base"))
	assert.True(t, strings.HasPrefix(htmltest.Attr(d.One(t, "btn-forward"), "href"), "/embed/hwm/visibility-gap?"), "links stay inside the frame")
	assert.Equal(t, "A timestamp mark skips rows that commit late", htmltest.Text(d.One(t, "page-title")), "an embed names its scenario once")
	assert.Len(t, d.ByTag("h1"), 1)
	for _, h := range d.ByTag("h2") {
		// Only the heading that puts the widget's panels one level down.
		assert.Equal(t, "tm-visually-hidden", htmltest.Attr(h, "class"), "the widget draws no second title")
		assert.Equal(t, "The scenario, step by step", htmltest.Text(h))
	}
	assert.Empty(t, d.CSPViolations())
	// A link asking an embed to present is told where presenting is.
	rec, body = do(h, httptest.NewRequest(http.MethodGet, "/embed/hwm/visibility-gap?step=5&present", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	d = htmltest.Parse(t, body)
	assert.Equal(t, "An embedded scenario does not present; open it on its own page to present it.", htmltest.Text(d.One(t, "message")))
	assert.Empty(t, htmltest.Attr(d.One(t, "widget"), "data-present"))
	// Every bundled scenario embeds.
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, sc := range all {
		rec, _ := do(h, httptest.NewRequest(http.MethodGet, "/embed/"+sc.ID, nil))
		assert.Equal(t, http.StatusOK, rec.Code, sc.ID)
	}
}

func TestPlayGet(t *testing.T) {
	h := handler(t)
	code, d := get(t, h, "/play")
	require.Equal(t, http.StatusOK, code)
	src := d.One(t, "play-src")
	assert.Contains(t, htmltest.Text(src), "scenario hwm/visibility-gap", "the sandbox starts from the opening scenario")
	assert.Nil(t, d.One(t, "play-error").FirstChild, "no error: the live region is there, empty")
	assert.Equal(t, "hwm/visibility-gap", htmltest.Attr(d.One(t, "widget"), "data-scenario"), "the starter plays at once")
	assert.Equal(t, "/play", htmltest.Attr(d.One(t, "widget-host"), "data-base"))
	assert.Empty(t, d.CSPViolations())
}

func TestPlayPostBroken(t *testing.T) {
	h := handler(t)
	broken := "scenario sandbox/x \"Broken\"\nsource orders key=order_id\ntxn T1 begin=10:00:05 commit=10:00:01 insert order_id=1\n"
	code, d := post(t, h, broken)
	require.Equal(t, http.StatusOK, code)
	box := d.One(t, "play-error")
	assert.False(t, htmltest.HasAttr(box, "hidden"))
	msg := htmltest.Text(box)
	assert.Regexp(t, `play\.tdm:3:\d+: `, msg, "the error names file:line:column")
	assert.Contains(t, msg, "before it begins")
	var caret string
	for _, pre := range d.ByTag("pre") {
		if strings.Contains(htmltest.Attr(pre, "class"), "play-caret") {
			caret += rawText(pre)
		}
	}
	lines := strings.Split(caret, "\n")
	require.Len(t, lines, 2, "the caret block is the line and a caret: %q", caret)
	assert.Equal(t, "3 | txn T1 begin=10:00:05 commit=10:00:01 insert order_id=1", lines[0])
	assert.Equal(t, "^", strings.TrimSpace(lines[1]))
	col := strings.Index(lines[1], "^") - len("3 | ") + 1
	assert.Contains(t, msg, "play.tdm:3:"+strconv.Itoa(col)+":", "the caret sits under the reported column")
	assert.Empty(t, d.ByTestID("widget"))
	assert.Equal(t, broken, rawText(d.One(t, "play-src")), "the visitor's text is kept")

	// A line written with tabs keeps them before the caret, so the caret
	// stands under its column however wide a tab is drawn.
	tabbed := strings.Replace(broken, "txn T1 begin=10:00:05 commit", "txn\tT1\tbegin=10:00:05\tcommit", 1)
	_, d = post(t, h, tabbed)
	msg = htmltest.Text(d.One(t, "play-error"))
	caret = ""
	for _, pre := range d.ByTag("pre") {
		if strings.Contains(htmltest.Attr(pre, "class"), "play-caret") {
			caret += rawText(pre)
		}
	}
	lines = strings.Split(caret, "\n")
	require.Len(t, lines, 2, caret)
	line, under := strings.TrimPrefix(lines[0], "3 | "), strings.TrimPrefix(lines[1], "    ")
	require.True(t, strings.HasSuffix(under, "^"), under)
	lead := strings.TrimSuffix(under, "^")
	assert.Contains(t, msg, "play.tdm:3:"+strconv.Itoa(len(lead)+1)+":", "the caret sits under the reported column")
	for i, c := range []byte(lead) {
		assert.Equal(t, line[i] == '\t', c == '\t', "column %d: a tab in the line is a tab before the caret", i+1)
	}
	assert.Equal(t, 3, strings.Count(lead, "\t"))

	// A build error (unknown pipeline) is shown the same way.
	code, d = post(t, h, "scenario sandbox/y \"Y\"\nsource orders key=order_id\nrun extract at=10:00:01\n")
	require.Equal(t, http.StatusOK, code)
	assert.Regexp(t, `play\.tdm:3:\d+: `, htmltest.Text(d.One(t, "play-error")))
}

func TestPlayPostValid(t *testing.T) {
	h := handler(t)
	src := "scenario sandbox/x \"Mine\"\r\nsource orders key=order_id\r\ntxn T1 begin=10:00:05 commit=10:00:06 insert order_id=1\r\n" +
		"target fct key=order_id\r\npipeline extract from=orders to=fct\r\nrun extract at=10:00:07\r\n"
	code, d := post(t, h, src)
	require.Equal(t, http.StatusOK, code)
	assert.Nil(t, d.One(t, "play-error").FirstChild, "no error: the live region is there, empty")
	w := d.One(t, "widget")
	assert.Equal(t, "sandbox/x", htmltest.Attr(w, "data-scenario"))
	host := d.One(t, "widget-host")
	assert.Equal(t, "/play", htmltest.Attr(host, "data-base"))
	assert.Equal(t, "play", htmltest.Attr(host, "data-id"))
	assert.NotContains(t, htmltest.Attr(host, "data-source"), "\r", "line endings are normalised")
	assert.Empty(t, d.CSPViolations())
}

func TestPlayPostOversized(t *testing.T) {
	h := handler(t)
	// Far over the limit: the body is cut off and the form refused.
	code, d := post(t, h, strings.Repeat("a", 1<<20))
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, htmltest.Text(d.One(t, "play-error")), "too large")
	assert.Empty(t, d.ByTestID("widget"))
	assert.Less(t, len(htmltest.Text(d.One(t, "play-src"))), pages.MaxSource+1, "the refused text is not echoed back whole")

	// Just over: the form parses but the scenario is refused.
	code, d = post(t, h, strings.Repeat("a", pages.MaxSource+10))
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, htmltest.Text(d.One(t, "play-error")), "larger than 64 KB")
	assert.Empty(t, d.ByTestID("widget"))

	// Text that its encoding triples (every character but a few ASCII ones
	// is written %XX) is taken up to MaxSource as written.
	comment := "# " + strings.Repeat("é—", (pages.MaxSource-400)/5) + "\n"
	src := comment + "scenario sandbox/x \"Mine\"\nsource orders key=order_id\ntxn T1 begin=10:00:05 commit=10:00:06 insert order_id=1\n" +
		"target fct key=order_id\npipeline extract from=orders to=fct\nrun extract at=10:00:07\n"
	require.LessOrEqual(t, len(src), pages.MaxSource)
	require.Greater(t, len(url.Values{"src": {src}}.Encode()), 2*pages.MaxSource, "the form is over twice the text")
	code, d = post(t, h, src)
	require.Equal(t, http.StatusOK, code)
	assert.Nil(t, d.One(t, "play-error").FirstChild, "no error: the live region is there, empty", htmltest.Text(d.One(t, "play-error")))
	assert.Equal(t, "sandbox/x", htmltest.Attr(d.One(t, "widget"), "data-scenario"))

	// A browser sends a textarea's line ends as CR LF, %0D%0A on the wire:
	// six bytes for each byte of the text once its line ends are LF. A
	// text within MaxSource that is mostly blank lines is still read.
	blank := strings.ReplaceAll(strings.Repeat("\n", pages.MaxSource-400)+src[len(comment):], "\n", "\r\n")
	require.LessOrEqual(t, len(strings.ReplaceAll(blank, "\r\n", "\n")), pages.MaxSource)
	require.Greater(t, len(url.Values{"src": {blank}}.Encode()), 5*pages.MaxSource, "the form is over five times the text")
	code, d = post(t, h, blank)
	require.Equal(t, http.StatusOK, code)
	assert.Nil(t, d.One(t, "play-error").FirstChild, "no error: the live region is there, empty", htmltest.Text(d.One(t, "play-error")))
	assert.Equal(t, "sandbox/x", htmltest.Attr(d.One(t, "widget"), "data-scenario"))

	// A body that was not read is not replaced by the starting text.
	code, d = post(t, h, strings.Repeat("é", 2*pages.MaxSource))
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, htmltest.Text(d.One(t, "play-error")), "was not read")
	assert.Empty(t, strings.TrimSpace(htmltest.Text(d.One(t, "play-src"))), "no other text stands in for the visitor's")

	// A malformed form body is refused with the same message, not a 500.
	req := httptest.NewRequest(http.MethodPost, "/play", strings.NewReader("src=%zz"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec, body := do(h, req)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, body, "malformed")

	// A text sent in a multipart form (curl -F) or as JSON is not read, and
	// the page says how to send it rather than that the text is empty.
	for _, ct := range []string{"multipart/form-data; boundary=x", "application/json", ""} {
		req = httptest.NewRequest(http.MethodPost, "/play", strings.NewReader("--x\r\nContent-Disposition: form-data; name=\"src\"\r\n\r\nscenario a/b \"B\"\r\n--x--\r\n"))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		rec, body = do(h, req)
		require.Equal(t, http.StatusOK, rec.Code, ct)
		d := htmltest.Parse(t, body)
		assert.Contains(t, htmltest.Text(d.One(t, "play-error")), "this page reads a form sent as application/x-www-form-urlencoded with the text in its src field", ct)
		assert.NotContains(t, htmltest.Text(d.One(t, "play-error")), "no commands", ct)
	}
	// A form without src= says so.
	req = httptest.NewRequest(http.MethodPost, "/play", strings.NewReader("text=scenario"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	_, body = do(h, req)
	assert.Contains(t, htmltest.Text(htmltest.Parse(t, body).One(t, "play-error")), "the form has no src field")
}

// rawText is the text inside n as written, white space and all.
func rawText(n *html.Node) string {
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// TestPlayPostTooMuchWork refuses, with a message and the text kept, a short
// scenario that asks the server to simulate millions of events.
func TestPlayPostTooMuchWork(t *testing.T) {
	h := handler(t)
	src := "scenario sandbox/big \"Big\"\nsource orders key=order_id\ntarget fct key=order_id\npipeline extract from=orders to=fct\n" +
		"workload orders txns=5000000 from=10:00:00 every=1ms\nrun extract at=23:00:00\n"
	code, d := post(t, h, src)
	require.Equal(t, http.StatusOK, code)
	msg := htmltest.Text(d.One(t, "play-error"))
	assert.Contains(t, msg, "play.tdm:5:1: this scenario would schedule more than 200000 events, rows, keys, partitions and runs; the limit here is 200000. That is the server's limit; your browser's is 2000000")
	assert.Contains(t, msg, "5 | workload orders txns=5000000", "the caret shows the line")
	assert.Empty(t, d.ByTestID("widget"))
	assert.Contains(t, htmltest.Text(d.One(t, "play-src")), "txns=5000000", "the visitor's text is kept")
}

// TestScenarioPageFaultsInTheLink: a link's faults fork the run on the
// server as in the browser, the comparison with the run without them is
// drawn, and every link and snippet carries them on.
func TestScenarioPageFaultsInTheLink(t *testing.T) {
	h := handler(t)
	base := "/scenarios/hwm/advance-order?advance=after&sink=append&crash=none"
	_, plain := get(t, h, base+"&step=10")
	assert.Empty(t, plain.ByTestID("panel-compare"))
	// The second run's write is at step 11 with these knobs: crash right after it.
	code, d := get(t, h, base+"&step=18&fault=11~crash")
	require.Equal(t, http.StatusOK, code)
	assert.True(t, htmltest.HasAttr(d.One(t, "message"), "hidden"), htmltest.Text(d.One(t, "message")))
	d.One(t, "panel-compare")
	assert.Contains(t, htmltest.Attr(d.One(t, "btn-back"), "href"), "fault=11~crash")
	assert.Contains(t, htmltest.Text(d.One(t, "snippet-iframe")), "fault=11~crash")
	assert.Contains(t, htmltest.Text(d.One(t, "snippet-markdown")), "fault=11~crash")
	assert.Contains(t, htmltest.Text(d.One(t, "timeline")), "crashes")

	// Two faults after one step, the first a clock jump that narrates
	// itself as a step: both apply, one after the other.
	_, two := get(t, h, "/scenarios/hwm/visibility-gap?step=6&fault=3~jump~5s&fault=3~jump~5s")
	assert.True(t, htmltest.HasAttr(two.One(t, "message"), "hidden"), htmltest.Text(two.One(t, "message")))
	assert.Equal(t, 2, strings.Count(htmltest.Text(two.One(t, "timeline")), "clock is stepped forward by 5s"), htmltest.Text(two.One(t, "timeline")))

	// A fault that cannot apply is dropped, and the page says so.
	_, bad := get(t, h, base+"&fault=1~crash")
	assert.Contains(t, htmltest.Text(bad.One(t, "message")), "The link's fault=1~crash could not be applied")
	assert.Empty(t, bad.ByTestID("panel-compare"))
	// Only the fault that cannot apply is left out: the link's others
	// still fork the run, and the message names the one left out.
	_, some := get(t, h, "/scenarios/hwm/visibility-gap?step=13&fault=3~crash&fault=11~crash")
	assert.Contains(t, htmltest.Text(some.One(t, "message")), "The link's fault=3~crash could not be applied")
	assert.NotContains(t, htmltest.Text(some.One(t, "message")), "fault=11~crash")
	assert.NotEmpty(t, some.ByTestID("panel-compare"), "the crash at step 11 still applies")
	assert.Contains(t, htmltest.Attr(some.One(t, "btn-back"), "href"), "fault=11~crash")
	assert.NotContains(t, htmltest.Attr(some.One(t, "btn-back"), "href"), "fault=3~crash")
	_, nonsense := get(t, h, base+"&fault=soon~explode")
	assert.Contains(t, htmltest.Text(nonsense.One(t, "message")), "The link's fault=soon~explode does not start with a step number; ignoring it.")
}

// TestScenarioPagePresenterMode: ?present draws the widget for a room, its
// links keep presenting, and ?present=notes is the presenter's window with
// the scenario's notes; an embed never presents.
func TestScenarioPagePresenterMode(t *testing.T) {
	h := handler(t)
	_, d := get(t, h, "/scenarios/hwm/visibility-gap?step=3")
	assert.Empty(t, htmltest.Attr(d.One(t, "widget"), "data-present"))
	assert.Contains(t, htmltest.Attr(d.One(t, "btn-present"), "href"), "present=on")
	// The notes window has a link of its own, out of presenter mode, with
	// the page's step and settings.
	_, d = get(t, h, "/scenarios/hwm/visibility-gap?step=3&mark=lsn")
	notesLink := d.One(t, "btn-notes")
	assert.Equal(t, "/scenarios/hwm/visibility-gap?mark=lsn&present=notes&step=3", htmltest.Attr(notesLink, "href"))
	assert.Equal(t, "_blank", htmltest.Attr(notesLink, "target"))
	assert.True(t, strings.HasPrefix(htmltest.Attr(notesLink, "aria-label"), strings.TrimSpace(htmltest.Text(notesLink)[len("✎"):])), "its name begins with the word it shows")
	_, d = get(t, h, "/scenarios/hwm/visibility-gap?step=3&present")
	assert.Empty(t, d.ByTestID("btn-notes"), "the room never sees the notes' link")
	assert.Equal(t, "on", htmltest.Attr(d.One(t, "widget"), "data-present"))
	assert.Contains(t, htmltest.Attr(d.One(t, "btn-forward"), "href"), "present=on")
	assert.NotContains(t, htmltest.Attr(d.One(t, "btn-present"), "href"), "present", "the button leaves presenter mode")
	assert.Empty(t, d.ByTestID("notes"), "the room's window has no notes")
	_, d = get(t, h, "/scenarios/hwm/visibility-gap?step=3&present=notes")
	assert.Equal(t, "notes", htmltest.Attr(d.One(t, "widget"), "data-present"))
	notes := d.One(t, "notes")
	assert.Contains(t, htmltest.Text(notes), "Notes for step 3")
	assert.Contains(t, htmltest.Text(notes), "Next: Step 4 of 24")
	_, e := get(t, h, "/embed/hwm/visibility-gap?present")
	assert.Empty(t, htmltest.Attr(e.One(t, "widget"), "data-present"))
}

// TestOneNameForTheSandbox: /play is the sandbox, linked from every page's
// navigation and from each scenario page, which opens a copy of its file there.
func TestOneNameForTheSandbox(t *testing.T) {
	h := handler(t)
	_, d := get(t, h, "/scenarios/hwm/visibility-gap")
	var nav []string
	for _, a := range d.ByTag("a") {
		if htmltest.Attr(a, "href") == "/play" {
			nav = append(nav, htmltest.Text(a))
		}
	}
	assert.Equal(t, []string{"Sandbox"}, nav)
	form := d.One(t, "to-sandbox")
	assert.Equal(t, "/play", htmltest.Attr(form, "action"))
	assert.Contains(t, htmltest.Text(form), "sandbox")
	sc, _ := lessons.Lookup("hwm/visibility-gap")
	code, p := post(t, h, string(sc.Source))
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "Sandbox", htmltest.Text(p.One(t, "page-title")))
	assert.Equal(t, "hwm/visibility-gap", htmltest.Attr(p.One(t, "widget"), "data-scenario"))
	var current []string
	for _, a := range p.ByTag("a") {
		if htmltest.Attr(a, "aria-current") == "page" {
			current = append(current, htmltest.Text(a))
		}
	}
	assert.Equal(t, []string{"Sandbox"}, current)
}

// TestPlayRefusesWhatTookTheServerDown posts each scenario of issue 9 that
// ended the server with "fatal error: out of memory", and gets a page back
// quickly: the error at its line, the text kept; the key range at the edge
// of int64 simply plays. The server goes on answering.
func TestPlayRefusesWhatTookTheServerDown(t *testing.T) {
	h := handler(t)
	head := "scenario sandbox/oom \"OOM\"\nsource orders key=order_id\ntarget fct key=order_id sink=append\npipeline extract from=orders to=fct mark=timestamp overlap=1h\n"
	for _, tc := range []struct {
		name, src, want string
	}{
		{"ten runs lines every millisecond", head + strings.Repeat("runs extract from=00:00:00 until=00:16:40 every=1ms\n", 10),
			"play.tdm:5:1: this scenario would schedule more than 200000 events, rows, keys, partitions and runs; the limit here is 200000"},
		{"667 inserts of 100000 rows", head + "begin T1 at=10:00:00\n" + strings.Repeat("insert T1 at=10:00:00 count=100000\n", 667) + "commit T1 at=10:00:01\n",
			"play.tdm:6:1: this scenario would schedule more than 200000 events, rows, keys, partitions and runs; the limit here is 200000"},
		{"a stream's filter of half a billion keys", "scenario sandbox/oom \"OOM\"\ntopic t partitions=4\nproducer p to=t\nstream s from=t\nfilter s keys=" + strings.TrimSuffix(strings.Repeat("1..99999,", 5000), ",") + "\n",
			"play.tdm:5:1: this scenario would schedule more than 200000 events, rows, keys, partitions and runs; the limit here is 200000"},
		{"work that only running shows", head + "txn T1 begin=10:00:00 commit=10:00:00 insert count=2000\nruns extract from=10:00:01 until=10:05:00 every=1s\n",
			"play.tdm: running stopped at "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			code, d := post(t, h, tc.src)
			assert.Less(t, time.Since(start), 5*time.Second)
			require.Equal(t, http.StatusOK, code)
			msg := htmltest.Text(d.One(t, "play-error"))
			assert.Contains(t, msg, tc.want)
			assert.Contains(t, msg, "That is the server's limit; your browser's is 2000000")
			assert.Empty(t, d.ByTestID("widget"))
			assert.Equal(t, strings.TrimSuffix(tc.src, "\n"), strings.TrimSuffix(rawText(d.One(t, "play-src")), "\n"), "the visitor's text is kept")
		})
	}
	code, d := post(t, h, head+"txn T1 begin=10:00:00 commit=10:00:00 insert order_id=9223372036854775807..9223372036854775807\nrun extract at=10:00:01\n")
	require.Equal(t, http.StatusOK, code)
	assert.NotEmpty(t, d.ByTestID("widget"), "a range of one key at the edge of int64 plays")
	rec, _ := do(h, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	assert.Equal(t, http.StatusOK, rec.Code)
}

// TestScenarioPagesAreKeptAndRevalidate: a scenario page drawn once is
// answered from what was kept (the same bytes, the same ETag), and a
// browser that has it gets 304.
func TestScenarioPagesAreKeptAndRevalidate(t *testing.T) {
	h := handler(t)
	target := "/scenarios/hwm/visibility-gap?step=4&mark=lsn"
	first, body := do(h, httptest.NewRequest(http.MethodGet, target, nil))
	require.Equal(t, http.StatusOK, first.Code)
	etag := first.Header().Get("ETag")
	require.NotEmpty(t, etag)
	again, body2 := do(h, httptest.NewRequest(http.MethodGet, "/scenarios/hwm/visibility-gap?mark=lsn&step=4", nil))
	assert.Equal(t, etag, again.Header().Get("ETag"), "the same query in another order is the same page")
	assert.Equal(t, body, body2)
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("If-None-Match", etag)
	rec, _ := do(h, req)
	assert.Equal(t, http.StatusNotModified, rec.Code)
	for _, v := range []string{"Host", "X-Forwarded-Proto", "Forwarded", "Accept-Encoding"} {
		assert.Contains(t, first.Header().Values("Vary"), v)
	}
}

// TestFramingIsForEmbedsAndPicturesOnly: the embed page and pictures may be
// framed by any site; the scenario page, the sandbox and the home page only
// by this one.
func TestFramingIsForEmbedsAndPicturesOnly(t *testing.T) {
	h := handler(t)
	payload, err := share.Encode("scenario mine/frame \"F\"\nsource orders key=order_id\ntarget fct key=order_id\npipeline extract from=orders to=fct\n" +
		"txn T1 begin=10:00:00 commit=10:00:01 insert order_id=1\nrun extract at=10:00:02\n")
	require.NoError(t, err)
	for target, ancestors := range map[string]string{
		"/embed/hwm/visibility-gap":            "*",
		"/embed/":                              "*", // a linked scenario's embed page
		"/picture/hwm/visibility-gap.svg":      "*",
		"/picture/hwm/no-such.svg":             "*",
		"/picture.svg?src=" + payload:          "*",
		"/picture.svg?src=abc*":                "*", // a damaged link's picture
		"/scenarios/hwm/visibility-gap":        "'self'",
		"/play":                                "'self'",
		"/":                                    "'self'",
		"/scenarios/hwm/no-such-scenario-ever": "'self'",
	} {
		rec, _ := do(h, httptest.NewRequest(http.MethodGet, target, nil))
		csp := rec.Header().Get("Content-Security-Policy")
		assert.True(t, strings.HasSuffix(csp, "frame-ancestors "+ancestors), "%s: %s", target, csp)
		if ancestors == "*" {
			assert.Empty(t, rec.Header().Get("X-Frame-Options"), target)
		} else {
			assert.Equal(t, "SAMEORIGIN", rec.Header().Get("X-Frame-Options"), target)
		}
		if strings.HasPrefix(target, "/picture") {
			assert.Equal(t, "image/svg+xml", rec.Header().Get("Content-Type"), target)
			assert.True(t, strings.HasPrefix(csp, "default-src 'none'; sandbox;"), "%s: %s", target, csp)
		}
	}
}

// TestEmbedOfAMistypedID: an embed of an id no bundled scenario has is a
// short note sized like an embed (frame.js), which may be framed anywhere
// and names the id the author most likely meant; never the site's
// not-found page, with its header and links, inside someone's docs.
func TestEmbedOfAMistypedID(t *testing.T) {
	h := handler(t)
	rec, body := do(h, httptest.NewRequest(http.MethodGet, "/embed/hwm/visibilty-gap", nil))
	require.Equal(t, http.StatusNotFound, rec.Code)
	assert.Contains(t, rec.Header().Get("Content-Security-Policy"), "frame-ancestors *")
	d := htmltest.Parse(t, body)
	assert.Equal(t, "No Tidemark scenario is named “hwm/visibilty-gap”. Did you mean hwm/visibility-gap?", htmltest.Text(d.One(t, "not-found-what")))
	assert.NotContains(t, body, "site-header")
	assert.Contains(t, body, "/static/frame.")

	// The scenario page of the same id is the site's not-found page.
	code, page := get(t, h, "/scenarios/hwm/visibilty-gap")
	assert.Equal(t, http.StatusNotFound, code)
	assert.Contains(t, htmltest.Text(page.One(t, "not-found-what")), `scenario "hwm/visibilty-gap"`)
	// ... which names, and links, the scenario the address most likely meant.
	near := page.One(t, "not-found-near")
	assert.Equal(t, "Did you mean hwm/visibility-gap ?", htmltest.Text(near))
	a := htmltest.All(near, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "a" })
	require.Len(t, a, 1)
	assert.Equal(t, "/scenarios/hwm/visibility-gap", htmltest.Attr(a[0], "href"))
}
