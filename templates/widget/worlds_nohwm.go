//go:build tm_stream

package widget

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/hwm"
)

// The build of the log and stream worlds (wasm/worlds_stream.go) runs no
// source database, so it leaves the source chart, the extractors and their
// tables out of its download: these stand in for source.go and
// sourcechart.go there. No trace such a build makes has the
// high-water-mark world's part, so every caller finds nothing to draw.

func hwmOf(*engine.Trace) *hwm.Trace { return nil }

// chart keeps nothing in a build without the source database.
type chart struct{}

func chartAt(*engine.Trace, *hwm.Trace, *stageIndex, int) chart  { return chart{} }
func sourceStation(*builder, *atStep)                            {}
func pipeStation(*builder, *atStep, *extract.Config)             {}
func sourceTable(*builder, *atStep)                              {}
func marksTable(*builder, *atStep)                               {}
func sourceLegendItems(*atStep, func(class, glyph, text string)) {}
func (*atStep) pipeHolds(target, key string) (fed, holds bool)   { return false, false }
func SourceChart(*engine.Trace, int, ChartOptions) (svg string, width, height float64) {
	return "", 0, 0
}
