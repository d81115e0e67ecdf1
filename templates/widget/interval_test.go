package widget_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
