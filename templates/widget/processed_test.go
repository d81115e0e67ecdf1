package widget_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tidemark/tidemark/templates/widget"
	"github.com/tidemark/tidemark/web/htmltest"
)

// TestProcessedThrough checks the marks panel states the minimum of a
// pipeline's per-table marks, and says nothing for a single mark.
func TestProcessedThrough(t *testing.T) {
	tr := run(t, "hwm/per-partition-marks", map[string]string{"marks": "per-table"})
	doc := draw(t, tr, widget.State{Step: tr.Steps(), BasePath: "/s"})
	p := doc.One(t, "processed-through")
	assert.Contains(t, htmltest.Text(p), "processed through 10:00:08")
	assert.Contains(t, htmltest.Text(p), "smallest of its 2 marks")

	one := run(t, "hwm/visibility-gap", nil)
	assert.Empty(t, draw(t, one, widget.State{Step: one.Steps(), BasePath: "/s"}).ByTestID("processed-through"))
}
