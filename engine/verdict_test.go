package engine_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/worlds"
)

// TestVerdict says what the truth finds wrong and which checks noticed, and
// calls a failing check on a clean target a false alarm, or a delay when it
// is a freshness check.
func TestVerdict(t *testing.T) {
	tr := &engine.Trace{} // no target, so none unwritten: the plain verdict
	fail := []check.Result{{Name: "row-count", Status: check.Pass}, {Name: "gap-scan", Status: check.Fail}}
	lost := engine.Truth{Missing: []string{"3", "4"}, Duplicated: map[string]int{"2": 2}}
	assert.Equal(t, "2 rows missing, 1 row duplicated", lost.Harm())
	assert.Equal(t, "2 rows missing, 1 row duplicated; noticed by gap-scan", tr.VerdictOf(lost, fail))
	assert.Equal(t, "2 rows missing, 1 row duplicated; no check noticed", tr.VerdictOf(lost, fail[:1]))
	clean := engine.Truth{}
	assert.Empty(t, clean.Harm())
	assert.Equal(t, "the target matches the source; noticed by gap-scan (a false alarm)", tr.VerdictOf(clean, fail))
	assert.Equal(t, "the target matches the source", tr.VerdictOf(clean, nil))
	late := []check.Result{{Name: "watermark-lag", Status: check.Fail}, {Name: "gap-scan", Status: check.Fail}, {Name: "partition-lag", Status: check.Fail}}
	assert.Equal(t, "the target matches the source; noticed by watermark-lag, partition-lag (a delay, not a loss); gap-scan (a false alarm)", tr.VerdictOf(clean, late),
		"a freshness check that fails on a clean target saw results held back, which is no false alarm")
	assert.Equal(t, "1 row missing; noticed by watermark-lag, gap-scan, partition-lag", tr.VerdictOf(engine.Truth{Missing: []string{"3"}}, late))
}

// TestVerdictOfAnUnwrittenTarget: a target that no line names as where it
// writes (here a group whose to= was forgotten) holds nothing, so its truth
// has nothing wrong; the verdict says nothing writes it rather than that it
// matches its source, and a target some line writes keeps the usual words.
func TestVerdictOfAnUnwrittenTarget(t *testing.T) {
	const src = `scenario t/unwritten "A group that forgets to="
topic orders partitions=1
target fct_orders sink=append key=order_id
producer shop to=orders key=order_id
group billing topic=orders commit=after reset=earliest
member billing c1 at=10:00:00
produce shop at=10:00:01 key=1
poll billing c1 at=10:00:05
`
	tr, err := engine.Run(parse(t, src), nil, 1, worlds.All())
	require.NoError(t, err)
	assert.Equal(t, []string{"fct_orders"}, tr.Unwritten())
	assert.Empty(t, tr.Final().Harm())
	assert.Equal(t, "nothing in this scenario writes fct_orders, so no row there can be missing or doubled", tr.VerdictOf(tr.Final(), nil))
	assert.Equal(t, "nothing in this scenario writes fct_orders, so no row there can be missing or doubled; noticed by gap-scan (a false alarm)",
		tr.VerdictOf(tr.Final(), []check.Result{{Name: "gap-scan", Status: check.Fail}}))

	written := strings.Replace(src, "group billing topic=orders", "group billing topic=orders to=fct_orders", 1)
	tr, err = engine.Run(parse(t, written), nil, 1, worlds.All())
	require.NoError(t, err)
	assert.Empty(t, tr.Unwritten())
	assert.Equal(t, "the target matches the source", tr.VerdictOf(tr.Final(), nil))

	// Two targets, one written: the verdict is about the one that is.
	two := strings.Replace(written, "target fct_orders", "target unused sink=merge key=order_id\ntarget fct_orders", 1)
	tr, err = engine.Run(parse(t, two), nil, 1, worlds.All())
	require.NoError(t, err)
	assert.Equal(t, []string{"unused"}, tr.Unwritten())
	assert.Equal(t, "the target matches the source", tr.VerdictOf(tr.Final(), nil))

	// A reader's snapshot of a target is not a write to it.
	read := src + "read fct_orders at=10:00:06 as=report\n"
	tr, err = engine.Run(parse(t, read), nil, 1, worlds.All())
	require.NoError(t, err)
	assert.Equal(t, []string{"fct_orders"}, tr.Unwritten())
	assert.Equal(t, "nothing in this scenario writes fct_orders, so no row there can be missing or doubled", tr.VerdictOf(tr.Final(), nil))
}
