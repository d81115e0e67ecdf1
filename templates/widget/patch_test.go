package widget

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// stageTree parses a stage's HTML as the browser does, into the children of
// a div (the stage element).
func stageTree(t testing.TB, s string) *html.Node {
	t.Helper()
	root := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(s), root)
	require.NoError(t, err)
	for _, n := range nodes {
		root.AppendChild(n)
	}
	return root
}

func renderTree(t testing.TB, n *html.Node) string {
	t.Helper()
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		require.NoError(t, html.Render(&b, c))
	}
	return b.String()
}

func fragKey(n *html.Node) (string, bool) {
	if n.Type != html.ElementNode {
		return "", false
	}
	for _, a := range n.Attr {
		if a.Key == "data-frag" {
			return a.Val, true
		}
	}
	return "", false
}

// applyOps does to a parsed stage what widget.js's patch does to the page.
func applyOps(t testing.TB, stage *html.Node, ops []Op) {
	t.Helper()
	byKey := map[string]*html.Node{}
	var index func(n *html.Node)
	index = func(n *html.Node) {
		if k, ok := fragKey(n); ok {
			byKey[k] = n
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			index(c)
		}
	}
	index(stage)
	parse := func(s string, parent *html.Node) *html.Node {
		nodes, err := html.ParseFragment(strings.NewReader(s), parent)
		require.NoError(t, err)
		require.Len(t, nodes, 1, "a fragment is one element: %s", s)
		return nodes[0]
	}
	for _, op := range ops {
		switch op[0] {
		case "r":
			old := byKey[op[1].(string)]
			require.NotNil(t, old, "replace %s: no such fragment", op[1])
			n := parse(op[2].(string), old.Parent)
			old.Parent.InsertBefore(n, old)
			old.Parent.RemoveChild(old)
			index(n)
		case "k":
			parent := stage
			if k := op[1].(string); k != "" {
				parent = byKey[k]
				require.NotNil(t, parent, "children of %s: no such fragment", k)
			}
			keys, fresh := op[2].([]any), op[3].(map[string]any)
			have := map[string]*html.Node{}
			var after *html.Node
			for c := parent.FirstChild; c != nil; {
				next := c.NextSibling
				if k, ok := fragKey(c); ok {
					after = next
					have[k] = c
					parent.RemoveChild(c)
				}
				c = next
			}
			for _, k := range keys {
				n, ok := have[k.(string)]
				if !ok {
					h, ok := fresh[k.(string)]
					require.True(t, ok, "children of %s: %s is neither kept nor given", op[1], k)
					n = parse(h.(string), parent)
					index(n)
				}
				parent.InsertBefore(n, after)
			}
		default:
			t.Fatalf("unknown op %v", op[0])
		}
	}
}

// checkPatches draws every step of tr after step n and checks that the
// changes between two drawings turn the first into the second exactly.
func checkPatches(t *testing.T, name string, tr *engine.Trace, st State, pairs [][2]int) (sent, whole, drawn int) {
	ix := indexTrace(tr)
	for _, p := range pairs {
		a, b := st, st
		a.Step, b.Step = p[0], p[1]
		ha, da := drawStage(tr, a, ix)
		hb, db := drawStage(tr, b, ix)
		ops, all := diffStage(da, db)
		drawn += len(hb)
		if all {
			whole++
			sent += len(hb)
			continue
		}
		for _, op := range ops {
			sent += len(fmt.Sprint(op...))
		}
		tree := stageTree(t, ha)
		applyOps(t, tree, ops)
		require.Equal(t, renderTree(t, stageTree(t, hb)), renderTree(t, tree), "%s: from step %d to %d", name, p[0], p[1])
	}
	return sent, whole, drawn
}

// TestPatchesTurnOneStepIntoAnother: for every bundled scenario, with and
// without the truth, stepping forward, back and jumping, the changes sent
// make the stage on screen the stage a full drawing gives; and a step sends
// a small part of what a whole stage would be.
func TestPatchesTurnOneStepIntoAnother(t *testing.T) {
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 2))
	totalSent, totalDrawn := 0, 0
	for _, sc := range all {
		tr, err := engine.Run(sc.File, nil, 1, worlds.All())
		require.NoError(t, err)
		var pairs [][2]int
		for n := 0; n < tr.Steps(); n++ {
			pairs = append(pairs, [2]int{n, n + 1})
			if n%4 == 0 {
				pairs = append(pairs, [2]int{n + 1, n})
			}
		}
		for range 5 {
			pairs = append(pairs, [2]int{r.IntN(tr.Steps() + 1), r.IntN(tr.Steps() + 1)})
		}
		for _, truth := range []bool{true, false} {
			if !truth && testing.Short() {
				continue
			}
			st := State{ShowTruth: truth, BasePath: "/scenarios/" + sc.ID, Live: true}
			sent, whole, drawn := checkPatches(t, sc.ID, tr, st, pairs)
			assert.Zero(t, whole, "%s: a step replaced the whole stage", sc.ID)
			totalSent, totalDrawn = totalSent+sent, totalDrawn+drawn
		}
	}
	assert.Less(t, float64(totalSent), 0.35*float64(totalDrawn), "steps should send a small part of the stage: %d of %d bytes", totalSent, totalDrawn)
}

// TestPatchesOfALargeTrace: the same on a trace large enough for windows of
// keys and of transactions, where a step slides them.
func TestPatchesOfALargeTrace(t *testing.T) {
	f, err := scenario.Parse("gen.tdm", []byte(`scenario gen/big "big"
source orders key=order_id clock=source updated_at=txn-start
target fct_orders sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=timestamp advance=after
workload orders txns=400 from=10:00:00 every=200ms duration=0s..3s
runs extract every=5s from=10:00:00 until=10:01:30
check uniqueness
`))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	var steps, jumps [][2]int
	for n := 0; n < tr.Steps(); n += 11 {
		steps = append(steps, [2]int{n, n + 1})
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		jumps = append(jumps, [2]int{r.IntN(tr.Steps() + 1), r.IntN(tr.Steps() + 1)})
	}
	st := State{ShowTruth: true, BasePath: "/x", Live: true}
	st.checks = &checkView{pending: true}
	sent, whole, drawn := checkPatches(t, "gen/big", tr, st, steps)
	assert.Zero(t, whole)
	assert.Less(t, float64(sent), 0.25*float64(drawn), "a step sends %d of %d bytes", sent, drawn)
	_, whole, _ = checkPatches(t, "gen/big", tr, st, jumps)
	assert.Zero(t, whole)
}

// TestPatchReplacesWholeWhenOnlyThatWorks: a stage whose own markup
// changed is sent whole.
func TestPatchReplacesWholeWhenOnlyThatWorks(t *testing.T) {
	var a, b builder
	a.fopen("x", "p")
	a.text("one")
	a.fclose("p")
	b.open("div", "class", "changed")
	b.fopen("x", "p")
	b.text("one")
	b.fclose("p")
	b.close("div")
	_, whole := diffStage(newDrawing(a.String(), a.frags), newDrawing(b.String(), b.frags))
	assert.True(t, whole)
	_, whole = diffStage(nil, newDrawing(b.String(), b.frags))
	assert.True(t, whole, "with nothing on screen, the stage goes whole")
	ops, whole := diffStage(newDrawing(b.String(), b.frags), newDrawing(b.String(), b.frags))
	assert.False(t, whole)
	assert.Empty(t, ops, "nothing changed, nothing sent")
}
