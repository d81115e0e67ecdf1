package widget_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/templates/widget"
)

// An interval pipeline's panel says how it reads and that it stores no
// mark, draws no mark box, and names the interval of the run in view
// where a pipeline with a mark shows the mark.
func TestIntervalPipelinePanelShowsTheRunsInterval(t *testing.T) {
	tr := run(t, "hwm/interval-bounded", nil)
	html := widget.Render(tr, widget.State{Step: 10, ShowTruth: true})
	assert.Contains(t, html, "reads updated_at in 1m intervals, 5s after each ends; overwrites each; stores no mark")
	assert.Contains(t, html, "<strong>Run at 10:01:05</strong> of 10:00:00–10:01:00: read 2 rows")
	assert.NotContains(t, html, "tm-markbox", "there is no stored mark to draw")
}

// A pipeline that takes each interval as soon as it ends says so, in its
// panel and in the text report, rather than "0s after".
func TestIntervalPipelineWithoutSettle(t *testing.T) {
	f, err := scenario.Parse("s.tdm", []byte(`scenario test/nosettle "No settle"
source orders key=order_id updated_at=txn-start
target fct_orders sink=overwrite key=order_id
pipeline load from=orders to=fct_orders interval=1m
txn T1 begin=10:00:10 commit=10:00:10 insert order_id=1
run load at=10:01:00
`))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	assert.Contains(t, widget.Render(tr, widget.State{Step: tr.Steps()}), "reads updated_at in 1m intervals, as each ends; overwrites each")
	var b strings.Builder
	require.NoError(t, report.Text(&b, tr))
	assert.Contains(t, b.String(), "load keeps none: each run overwrites one interval of updated_at, the last 1m to have ended before it unless")
}
