package widget_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tidemark/tidemark/templates/widget"
)

// TestDeployIsAStepOfItsOwn: a change of a table's stamping rule is drawn
// in the step list as an operator's reset is, its time and its actor (the
// deploy) as the link to the step, then its sentence, and the live region
// reads it at its step.
func TestDeployIsAStepOfItsOwn(t *testing.T) {
	tr := run(t, "hwm/stamping-deploy", nil)
	html := widget.Render(tr, widget.State{Step: 25, ShowTruth: true, BasePath: "/scenarios/hwm/stamping-deploy"})
	assert.Contains(t, html, `<li data-step="25" class="tm-kind-alter" aria-current="step"><a href="/scenarios/hwm/stamping-deploy?step=25" data-act="seek" data-step="25">10:00:10 deploy</a> At 10:00:10 a deploy changes how orders.updated_at is filled: from now on it is now()`)
	assert.Contains(t, html, `Step 25 of 55, 10:00:10: At 10:00:10 a deploy changes how orders.updated_at is filled`)
}
