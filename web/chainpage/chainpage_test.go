package chainpage

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/lessons/chain"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/htmltest"
	"github.com/tidemark/tidemark/web/share"
)

func get(t *testing.T, h http.Handler, target string) (int, htmltest.Doc) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	body, err := io.ReadAll(rec.Body)
	require.NoError(t, err)
	return rec.Code, htmltest.Parse(t, string(body))
}

func handler(t *testing.T) http.Handler {
	t.Helper()
	h, err := web.NewHandler(web.Options{Pages: Routes()})
	require.NoError(t, err)
	return h
}

func text(d htmltest.Doc, t *testing.T, id string) string { return htmltest.Text(d.One(t, id)) }

// TestEveryChainsPageIsConfirmedByTheEngine draws the page of every chain
// and checks that the guarantee it claims is the one the run shows, and
// that the form reproduces the chain: its checked radios are the query.
func TestEveryChainsPageIsConfirmedByTheEngine(t *testing.T) {
	h := handler(t)
	for _, c := range chain.All() {
		code, d := get(t, h, Path+"?"+c.Query())
		require.Equal(t, http.StatusOK, code, c.Query())
		assert.Equal(t, "true", htmltest.Attr(d.One(t, "chain-confirmed"), "data-confirmed"), "%s: %s", c.Query(), text(d, t, "chain-confirmed"))
		assert.Equal(t, c.Guarantee().Name(), text(d, t, "chain-guarantee"), c.Query())
		checked := map[string]string{}
		for _, in := range d.ByTag("input") {
			if htmltest.HasAttr(in, "checked") {
				checked[htmltest.Attr(in, "name")] = htmltest.Attr(in, "value")
			}
		}
		assert.Equal(t, map[string]string(c), checked, "the form's checked options are the chain")
		assert.Equal(t, Path+"?"+c.Query(), htmltest.Attr(d.One(t, "chain-link"), "href"))
		assert.Empty(t, d.CSPViolations())
	}
}

func TestTheStrongChainKeepsEveryRowOnce(t *testing.T) {
	code, d := get(t, handler(t), Path)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "exactly-once", text(d, t, "chain-guarantee"))
	assert.Equal(t, "No order is missing from fct_orders.", text(d, t, "chain-missing"))
	assert.Equal(t, "No order is in fct_orders twice.", text(d, t, "chain-doubled"))
	assert.Empty(t, d.ByTestID("chain-weakest"))
	assert.Empty(t, d.ByTestID("chain-error"))
	// The processing hop replays, and the sink's merge absorbs it.
	assert.Contains(t, text(d, t, "chain-absorbed"), "the sink absorbs those repeats")

	// Without JavaScript the form is a GET to this page: each hop a group
	// of radios named by the hop.
	form := d.One(t, "chain-form")
	assert.Equal(t, "get", htmltest.Attr(form, "method"))
	assert.Equal(t, Path+"#chain-result", htmltest.Attr(form, "action"), "the reloaded page opens at the result")
	names := map[string]int{}
	for _, in := range d.ByTag("input") {
		if htmltest.Attr(in, "type") == "radio" {
			names[htmltest.Attr(in, "name")]++
			id := htmltest.Attr(in, "id")
			assert.Len(t, htmltest.All(d.Root, func(n *html.Node) bool { return n.Data == "label" && htmltest.Attr(n, "for") == id }), 1, "radio %s has a label", id)
		}
	}
	assert.Equal(t, map[string]int{"source": 3, "transport": 2, "processing": 2, "sink": 3, "serving": 2}, names)
}

func TestAWeakChainShowsItsRows(t *testing.T) {
	code, d := get(t, handler(t), Path+"?source=retries&sink=two-phase")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "at-least-once", text(d, t, "chain-guarantee"))
	assert.Equal(t, "1 order is in fct_orders more than once: 1000 ×2.", text(d, t, "chain-doubled"))
	assert.Equal(t, "Set by: the source read.", text(d, t, "chain-weakest-list"))
	weak := d.ByTestID("chain-weakest")
	require.Len(t, weak, 1)

	code, d = get(t, handler(t), Path+"?transport=retention-short&processing=before&sink=append&serving=live")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "no guarantee", text(d, t, "chain-guarantee"))
	assert.Equal(t, "110 orders are missing from fct_orders: 80–90, 126–224.", text(d, t, "chain-missing"),
		"consecutive orders read as blocks")
	assert.Contains(t, text(d, t, "chain-torn"), "never held all at once")
	assert.Equal(t, "Set by: the processing.", text(d, t, "chain-weakest-list"))

	// A hop that loses and others that repeat make no guarantee together:
	// each of them sets it, and none alone.
	code, d = get(t, handler(t), Path+"?transport=retention-short&sink=append&serving=live")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "no guarantee", text(d, t, "chain-guarantee"))
	assert.Equal(t, "Set by: the transport, the processing and the sink.", text(d, t, "chain-weakest-list"))
	weak = d.ByTestID("chain-weakest")
	require.Len(t, weak, 3)
	assert.Equal(t, "— one of the weakest hops", htmltest.Text(weak[0]))
}

// The lesson's link to a chain with retries and an append sink says the
// page shows the producer's copy of order 1000 beside the blocks each
// restart writes again: the list must reach order 1000.
func TestTheDoubledOrdersShowTheBlocksAndTheProducersCopy(t *testing.T) {
	code, d := get(t, handler(t), Path+"?source=retries&transport=retention-long&processing=after&sink=append&serving=live")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "45 orders are in fct_orders more than once: 21–25 ×2, 41–79 ×2, 1000 ×2.", text(d, t, "chain-doubled"))
}

func TestRunsOfKeys(t *testing.T) {
	got, more := runs(map[string]int{"3": 2, "1": 2, "2": 2, "4": 3, "5": 3, "7": 3, "x": 2}, " ×")
	assert.Equal(t, []string{"1–3 ×2", "4–5 ×3", "7 ×3", "x ×2"}, got, "a run ends where the count changes or an order is skipped")
	assert.Zero(t, more)

	many := map[string]int{}
	for i := range 30 {
		many[strconv.Itoa(2*i)] = 1 // no two consecutive: a run each
	}
	many["61"], many["62"] = 1, 1 // 61–62 is the 31st run
	got, more = runs(many, "")
	require.Len(t, got, shown)
	assert.Equal(t, "0", got[0])
	assert.Equal(t, "22", got[shown-1])
	assert.Equal(t, 30-shown+2, more, "the keys of the runs left out: 18 lone ones and 61–62")
}

func TestALinkCarriesTheScenarioToTheSandbox(t *testing.T) {
	c := chain.Chain{chain.Source: "no-retries", chain.Transport: "retention-long", chain.Processing: "after", chain.Sink: "merge", chain.Serving: "live"}
	_, d := get(t, handler(t), Path+"?"+c.Query())
	href := htmltest.Attr(d.One(t, "chain-sandbox"), "href")
	require.True(t, strings.HasPrefix(href, "/play#"), href)
	src, err := share.ParseFragment(strings.TrimPrefix(href, "/play#"))
	require.NoError(t, err)
	assert.Equal(t, c.Scenario(), src)
	assert.Equal(t, strings.Join(strings.Fields(c.Scenario()), " "), text(d, t, "chain-scenario"), "the page shows the scenario")
}

func TestAnUnreadableChainSaysWhy(t *testing.T) {
	code, d := get(t, handler(t), Path+"?sink=upsert")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, text(d, t, "chain-error"), `hop sink cannot be "upsert"; expected merge | two-phase | append`)
	assert.Equal(t, "exactly-once", text(d, t, "chain-guarantee"), "the form falls back to the strong chain")
}

// spaceBeforePunctuation finds a space a reader sees before a comma, full
// stop, colon, semicolon or closing bracket, or after an opening one, as
// where a template's line break falls between two pieces of a sentence
// ("at-least-once , its repeats").
var spaceBeforePunctuation = regexp.MustCompile(`\s[,.;:!?)]|\(\s`)

// TestTextReadsWhole draws every chain's page and checks the words a
// reader sees have no space before their punctuation.
func TestTextReadsWhole(t *testing.T) {
	assert.True(t, spaceBeforePunctuation.MatchString("This hop: at-least-once , its repeats absorbed by the sink"), "the check misses the fault it is for")
	assert.False(t, spaceBeforePunctuation.MatchString("This hop: at-least-once, its repeats absorbed by the sink (every row once)."))
	h := handler(t)
	for _, c := range chain.All() {
		_, d := get(t, h, Path+"?"+c.Query())
		text := visibleText(d.One(t, "chain"))
		for _, m := range spaceBeforePunctuation.FindAllStringIndex(text, -1) {
			t.Errorf("%s: a space before punctuation: %q", c.Query(), text[max(0, m[0]-40):min(len(text), m[1]+20)])
		}
	}
}

// visibleText is the text of n as a reader sees it, without code, a line
// for each block and runs of spaces as one.
func visibleText(n *html.Node) string {
	lines := strings.Split(htmltest.VisibleText(n, ""), "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
