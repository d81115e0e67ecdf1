// Package chainpage serves the chain builder (GET /chain): the learner
// picks an option for each hop of a pipeline, and the page shows each hop's
// guarantee, the chain's, and what the engine found when it ran the chain
// as a scenario. Every choice is a query parameter, so the form works
// without JavaScript and the page's address is the chain (see package
// lessons/chain for the model).
package chainpage

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/lessons/chain"
	"github.com/tidemark/tidemark/templates"
	"github.com/tidemark/tidemark/web"
	"github.com/tidemark/tidemark/web/share"
)

// Path is the chain builder's address.
const Path = "/chain"

// shown is how many runs of keys of the missing or doubled rows the page
// lists.
const shown = 12

// Routes returns the chain builder's page. It is a pure function of its
// query, so the site renders each chain once and keeps it.
func Routes() []web.Page {
	return []web.Page{
		{Pattern: "GET " + Path, Render: render, Reuse: true},
		{Pattern: "GET " + Path + "/{$}", Render: render, Reuse: true},
	}
}

func render(r *http.Request) (templ.Component, error) {
	v, err := View(r.URL.Query())
	if err != nil {
		return nil, err
	}
	return templates.ChainBuilder(v), nil
}

// View builds the page for the choices in q. Choices it cannot read are
// reported on the page, which then shows the strong chain; only a chain
// whose scenario does not run is an error.
func View(q map[string][]string) (templates.ChainView, error) {
	layout := web.NewLayoutView("The chain builder", "app.js", "chain.js")
	layout.Description = "Assemble a pipeline hop by hop, see each hop's guarantee and the chain's, and run it."
	layout.Stylesheets = []string{web.AssetURL("chain.css")}
	v := templates.ChainView{Layout: layout, Orders: chain.Orders}
	c, err := chain.Parse(q)
	if err != nil {
		v.Error = err.Error()
		c = chain.Default()
	}
	absorbed := c.Absorbed()
	weakest := c.Weakest()
	for _, h := range chain.Hops {
		own := c.Option(h.ID).Guarantee
		hv := templates.ChainHopView{ID: h.ID, Name: h.Name, Does: h.Does, Failure: h.Failure,
			Guarantee: own.Name(), Level: level(own), Weakest: slices.Contains(weakest, h.ID)}
		if h.ID == chain.Serving {
			hv.Guarantee = c.Option(h.ID).Reads.Name()
		}
		if by, ok := absorbed[h.ID]; ok {
			hv.AbsorbedBy = strings.ToLower(name(by))
		}
		for _, o := range h.Options {
			ov := templates.ChainOptionView{ID: o.ID, Name: o.Name, How: o.How, Guarantee: o.Guarantee.Name(),
				Checked: c[h.ID] == o.ID, Loses: o.Guarantee.Loses, Repeats: o.Guarantee.Repeats, Absorbs: strings.Join(o.Absorbs, " ")}
			if h.ID == chain.Serving {
				ov.Guarantee = o.Reads.Name()
				ov.Reads = strconv.Itoa(int(o.Reads))
			}
			hv.Options = append(hv.Options, ov)
		}
		v.Hops = append(v.Hops, hv)
	}
	g := c.Guarantee()
	v.Guarantee, v.Effect, v.Level = g.Name(), g.Effect(), level(g)
	for _, id := range weakest {
		v.Weakest = append(v.Weakest, "the "+strings.ToLower(name(id)))
	}
	for _, h := range chain.Hops {
		if by, ok := absorbed[h.ID]; ok {
			v.Absorbed = append(v.Absorbed, fmt.Sprintf("The %s repeats what it is given, and the %s absorbs those repeats.", strings.ToLower(h.Name), strings.ToLower(name(by))))
		}
	}
	v.Reads = c.Reads().Name()
	if c.Reads() == chain.WholeStates && c.Option(chain.Serving).Reads == chain.PartialStates {
		v.Reads += " here, because a " + strings.ToLower(c.Option(chain.Sink).Name) + " leaves the table as it was until a replay is whole; a table whose rows a replay changes would show it half done"
	}

	res, _, err := chain.Run(c)
	if err != nil {
		return v, err
	}
	shows := res.Shows()
	v.Run = templates.ChainRunView{Shows: shows.Name(), Confirmed: shows == g && res.NeverExisted == (c.Reads() == chain.PartialStates),
		MissingCount: len(res.Missing), DoubledCount: len(res.Duplicated), Torn: res.NeverExisted, Steps: res.Steps}
	missing := make(map[string]int, len(res.Missing))
	for _, k := range res.Missing {
		missing[k] = 1
	}
	v.Run.Missing, v.Run.MissingMore = runs(missing, "")
	v.Run.Doubled, v.Run.DoubledMore = runs(res.Duplicated, " ×")
	v.Link = Path + "?" + c.Query()
	v.Scenario = c.Scenario()
	frag, err := share.Fragment(v.Scenario)
	if err != nil {
		return v, fmt.Errorf("chain %s: its scenario does not fit a link: %w", c.Query(), err)
	}
	v.SandboxLink = "/play#" + frag
	return v, nil
}

func name(hop string) string {
	for _, h := range chain.Hops {
		if h.ID == hop {
			return h.Name
		}
	}
	return hop
}

// level is a guarantee as one word.
func level(g chain.Guarantee) string {
	if g == chain.None {
		return "none"
	}
	return g.Name()
}

// runs lists the keys of counts in key order as runs of consecutive
// order numbers with the same count ("21–25 ×2"; times, before the count,
// is "" for counts that go without saying), so that the blocks a replay
// writes again read as blocks and a lone key far down the list (the
// producer's order 1000) is still among the first runs shown. It returns
// the first shown runs and how many keys the runs left out hold.
func runs(counts map[string]int, times string) ([]string, int) {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	mvcc.SortKeys(keys)
	var out []string
	more := 0
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && counts[keys[j]] == counts[keys[i]] && follows(keys[j-1], keys[j]) {
			j++
		}
		if len(out) == shown {
			more += j - i
			i = j
			continue
		}
		run := keys[i]
		if j-i > 1 {
			run += "–" + keys[j-1]
		}
		if times != "" {
			run += times + strconv.Itoa(counts[keys[i]])
		}
		out = append(out, run)
		i = j
	}
	return out, more
}

// follows reports whether key b is the order number after key a.
func follows(a, b string) bool {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	return errA == nil && errB == nil && y == x+1
}
