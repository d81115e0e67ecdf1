package widget

// The charts a static picture draws (templates/picture): the source chart
// (sourcechart.go), the stream chart (streamchart.go) and the log's lanes
// (logpanel.go), each written as one SVG by SourceChart, StreamChart and
// LogChart, and as part of the stage.

// ChartOptions says where a chart goes and how it is coloured.
type ChartOptions struct {
	// Standalone draws the chart for a document without the site's
	// stylesheet (a picture for a README): each shape carries its colours
	// as presentation attributes, which no Content-Security-Policy blocks,
	// in the light scheme.
	Standalone bool
	// LateHref, when set, makes each late record of a stream chart a link
	// to the address it returns for the record's index in the stream
	// trace's Late, so a learner can open why it was late.
	LateHref func(late int) string
	// X and Y place the chart inside an enclosing SVG; they are written
	// only for a standalone chart.
	X, Y float64
	// drawing keeps what the stage's drawing asked of a stream trace, for
	// its text equivalent to reuse; nil keeps nothing.
	drawing *streamDrawing
}

// chartWidth is the width of a standalone chart in user units.
const chartWidth = 640.0

// openStandalone opens a standalone chart's <svg>, placed at o.X, o.Y in
// its picture, chartWidth wide and height tall, its drawing in viewBox,
// named desc for a screen reader, in the site's monospace and text colour
// at fontSize user units. Close it with b.close("svg").
func openStandalone(b *builder, o ChartOptions, height float64, viewBox, desc, fontSize string) {
	b.open("svg", "x", ftoa(o.X), "y", ftoa(o.Y), "width", ftoa(chartWidth), "height", ftoa(height), "viewBox", viewBox,
		"role", "img", "aria-label", desc, "font-family", "ui-monospace, Menlo, Consolas, 'DejaVu Sans Mono', monospace",
		"font-size", fontSize, "fill", "#1b1f23")
}

// lookFor returns the function that gives a shape its class and, for a
// standalone chart, its colours from table (chartLook, laneLook or
// streamLook).
func lookFor(o ChartOptions, table func(class string) []string) func(class string, attrs ...string) []string {
	return func(class string, attrs ...string) []string {
		attrs = append(attrs, "class", class)
		if o.Standalone {
			attrs = append(attrs, table(class)...)
		}
		return attrs
	}
}

// line draws a line from (x1, y1) to (x2, y2) in class, with look's
// attributes for it. It, rectAt and textAt spell a shape's coordinates in
// one place, where each drawing would otherwise build their attributes
// itself (code the browser module carries once for each).
func line(b *builder, look func(string, ...string) []string, class string, x1, y1, x2, y2 float64) {
	b.void("line", look(class, "x1", ftoa(x1), "y1", ftoa(y1), "x2", ftoa(x2), "y2", ftoa(y2))...)
}

// rectAt draws a rectangle at (x, y) of width w and height h in class,
// with look's attributes for it and then more.
func rectAt(b *builder, look func(string, ...string) []string, class string, x, y, w, h float64, more ...string) {
	b.void("rect", look(class, append([]string{"x", ftoa(x), "y", ftoa(y), "width", ftoa(w), "height", ftoa(h)}, more...)...)...)
}

// textAt writes text at x (as it is to be written) and y in class, with
// look's attributes for it and then more.
func textAt(b *builder, look func(string, ...string) []string, text, class, x string, y float64, more ...string) {
	b.el("text", text, look(class, append([]string{"x", x, "y", ftoa(y)}, more...)...)...)
}

// svgLine draws a line from (x1, y1) to (x2, y2), its coordinates as they
// are to be written, in class (none when ""), with more attributes after.
func svgLine(b *builder, class, x1, y1, x2, y2 string, more ...string) {
	attrs := []string{"x1", x1, "y1", y1, "x2", x2, "y2", y2}
	if class != "" {
		attrs = append([]string{"class", class}, attrs...)
	}
	b.void("line", append(attrs, more...)...)
}
