//go:build !tm_hwm

package widget_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/templates/widget"
	"github.com/tidemark/tidemark/web/htmltest"
)

// laneOf returns the lane of partition name.
func laneOf(t *testing.T, d htmltest.Doc, name string) htmltest.Doc {
	t.Helper()
	for _, n := range d.ByTestID("lane") {
		if htmltest.Attr(n, "data-partition") == name {
			return htmltest.Doc{Root: n}
		}
	}
	t.Fatalf("no lane %s", name)
	return htmltest.Doc{}
}

// states lists the offset rows of partition name in the topic's table as offset=state.
func states(d htmltest.Doc, name string) string {
	var out []string
	for _, n := range withAttr(d.ByTestID("offset"), "data-partition", name) {
		out = append(out, htmltest.Attr(n, "data-offset")+"="+htmltest.Attr(n, "data-state"))
	}
	return strings.Join(out, " ")
}

// partitionRow returns the row of the topic's table that sums up partition name.
func partitionRow(t *testing.T, d htmltest.Doc, name string) htmltest.Doc {
	t.Helper()
	rows := withAttr(d.ByTestID("partition-row"), "data-partition", name)
	require.Len(t, rows, 1, "the table's row of %s", name)
	return htmltest.Doc{Root: rows[0]}
}

// offsetRows returns the text of the offset rows of partition name.
func offsetRows(d htmltest.Doc, name string) string {
	var out []string
	for _, n := range withAttr(d.ByTestID("offset"), "data-partition", name) {
		out = append(out, htmltest.Text(n))
	}
	return strings.Join(out, "\n")
}

func withAttr(nodes []*html.Node, key, val string) []*html.Node {
	var out []*html.Node
	for _, n := range nodes {
		if htmltest.Attr(n, key) == val {
			out = append(out, n)
		}
	}
	return out
}

func TestLogPanelRetentionLag(t *testing.T) {
	tr := run(t, "dist/retention-lag", nil)
	require.Equal(t, 20, tr.Steps(), "the scenario's timeline changed; update the steps below")
	base := "/scenarios/dist/retention-lag"

	// Step 0: one empty lane, start = end = 0, billing committed 0 before the scenario.
	d := draw(t, tr, widget.State{Step: 0, ShowTruth: true, BasePath: base})
	p := d.One(t, "panel-log")
	assert.Equal(t, "Log: topic orders (1 partition)", htmltest.Attr(p, "aria-label"))
	l := laneOf(t, d, "orders-0")
	assert.Empty(t, l.ByTestID("cell"))
	row := partitionRow(t, d, "orders-0")
	assert.Contains(t, htmltest.Text(row.Root), "no records yet")
	assert.Equal(t, "billing committed 0; lag 0", htmltest.Text(row.One(t, "group-offset")))
	assert.Len(t, d.ByTestID("log-table"), 1, "one table for the topic, not one per partition")

	// Step 9: four records, two read and committed; offset 3 is new at this step.
	d = draw(t, tr, widget.State{Step: 9, ShowTruth: true, BasePath: base})
	l = laneOf(t, d, "orders-0")
	assert.Equal(t, "0=held 1=held 2=held 3=held", states(d, "orders-0"))
	var newOffsets []string
	for _, n := range l.ByTestID("cell") {
		if htmltest.HasAttr(n, "data-new") {
			newOffsets = append(newOffsets, htmltest.Attr(n, "data-offset"))
		}
	}
	assert.Equal(t, []string{"3"}, newOffsets, "the record appended at step 9 is highlighted")
	g := partitionRow(t, d, "orders-0").One(t, "group-offset")
	assert.Equal(t, "2", htmltest.Attr(g, "data-committed"))
	assert.Equal(t, "2", htmltest.Attr(g, "data-lag"))
	assert.Equal(t, "billing committed 2; lag 2", htmltest.Text(g))
	assert.Equal(t, "billing committed 2; lag 2", htmltest.Text(l.One(t, "group-marker")), "the marker on the picture says the same")
	assert.Contains(t, offsetRows(d, "orders-0"), "▲ billing reads next")

	// Step 11: retention deletes offsets 0–2; the log start moves to 3,
	// past billing's committed offset 2.
	d = draw(t, tr, widget.State{Step: 11, ShowTruth: true, BasePath: base})
	l = laneOf(t, d, "orders-0")
	assert.Equal(t, "3", htmltest.Attr(l.Root, "data-start"))
	assert.Equal(t, "0=deleted 1=deleted 2=deleted 3=held", states(d, "orders-0"))
	assert.Contains(t, htmltest.Text(l.One(t, "lane-summary")), "offsets 0–2 deleted by retention")
	assert.Contains(t, offsetRows(d, "orders-0"), "✕ deleted by retention at this step")
	assert.Contains(t, htmltest.Text(partitionRow(t, d, "orders-0").One(t, "group-offset")), "billing committed 2, below the log start: offset 2 is gone")
	chart := l.One(t, "lane-chart")
	assert.Equal(t, "img", htmltest.Attr(chart, "role"))
	// The picture says what it draws, which its heading does not: the
	// offsets and the group's position.
	assert.Equal(t, "orders-0, records at offsets 0–3; billing committed 2, below the log start: offset 2 is gone before it read them; lag 2", htmltest.Attr(chart, "aria-label"))
	for _, n := range withAttr(l.ByTestID("cell"), "data-state", "deleted") {
		assert.Contains(t, htmltest.Text(n), "✕", "a deleted cell is marked by text, not colour alone")
	}

	// The end: the reset moved billing to 6; everything before 5 is gone.
	d = draw(t, tr, widget.State{Step: tr.Steps(), ShowTruth: true, BasePath: base})
	assert.Equal(t, "0=deleted 1=deleted 2=deleted 3=deleted 4=deleted 5=held", states(d, "orders-0"))
	assert.Equal(t, "billing committed 6; lag 0", htmltest.Text(partitionRow(t, d, "orders-0").One(t, "group-offset")))
}

func TestLogPanelPartitionChange(t *testing.T) {
	tr := run(t, "dist/partition-change", nil)
	base := "/scenarios/dist/partition-change"
	lanes := func(step int) []string {
		d := draw(t, tr, widget.State{Step: step, ShowTruth: true, BasePath: base})
		var out []string
		for _, n := range d.ByTestID("lane") {
			out = append(out, htmltest.Attr(n, "data-partition")+":"+htmltest.Attr(n, "data-end"))
		}
		return out
	}
	assert.Equal(t, []string{"customers-0:2", "customers-1:2", "customers-2:2"}, lanes(12))
	// Step 13 raises the count to 6: three empty lanes appear.
	assert.Equal(t, []string{"customers-0:2", "customers-1:2", "customers-2:2", "customers-3:0", "customers-4:0", "customers-5:0"}, lanes(13))
	assert.Equal(t, []string{"customers-0:3", "customers-1:3", "customers-2:3", "customers-3:1", "customers-4:1", "customers-5:1"}, lanes(tr.Steps()))
	// A lane of one record has no room for two labels: the end's says
	// both, start first.
	var labels []string
	for _, n := range htmltest.All(laneOf(t, draw(t, tr, widget.State{Step: tr.Steps(), ShowTruth: true, BasePath: base}), "customers-3").Root, func(n *html.Node) bool {
		return htmltest.Attr(n, "class") == "tm-log-label"
	}) {
		labels = append(labels, htmltest.Text(n))
	}
	assert.Equal(t, []string{"start 0, end 1"}, labels)

	// At step 21, c2 reads the new partitions: those cells carry a read mark, and
	// serving has committed nothing there yet.
	d := draw(t, tr, widget.State{Step: 21, ShowTruth: true, BasePath: base})
	l := laneOf(t, d, "customers-3")
	cell := l.One(t, "cell")
	assert.True(t, htmltest.HasAttr(cell, "data-read"))
	assert.Equal(t, "1", htmltest.Attr(cell, "data-key"))
	assert.Contains(t, offsetRows(d, "customers-3"), "read by serving at this step")
	assert.Equal(t, "serving has committed nothing; lag 1", htmltest.Text(partitionRow(t, d, "customers-3").One(t, "group-offset")))
	// customers-0 is c1's, paused: nothing committed, lag 3 (it was 2 before step 19).
	assert.Equal(t, "serving has committed nothing; lag 3", htmltest.Text(partitionRow(t, d, "customers-0").One(t, "group-offset")))
	assert.Contains(t, htmltest.Text(d.One(t, "group-read")), "customers-3 offset 0;")

	// The log faults are offered; the crash is not (there is no extractor run).
	live := draw(t, tr, widget.State{Step: 13, ShowTruth: true, BasePath: base, Live: true})
	assert.Equal(t, "customers", htmltest.Attr(live.One(t, "btn-add-partition"), "data-arg"))
	assert.Equal(t, "serving", htmltest.Attr(live.One(t, "btn-pause"), "data-arg"))
	assert.Empty(t, live.ByTestID("btn-crash"))
}

func TestLogPanelOnlyWithALog(t *testing.T) {
	d := draw(t, run(t, "hwm/visibility-gap", nil), widget.State{Step: 5, ShowTruth: true, BasePath: gapBase, Live: true})
	assert.Empty(t, d.ByTestID("panel-log"))
	assert.Empty(t, d.ByTestID("btn-add-partition"))
	assert.Empty(t, d.ByTestID("btn-pause"))
	d.One(t, "btn-crash")
	// A hwm scenario that reads a change-capture topic draws it.
	d = draw(t, run(t, "hwm/retention-resnapshot", nil), widget.State{Step: 5, ShowTruth: true, BasePath: "/x"})
	d.One(t, "panel-log")
}

// TestLogPanelLongLaneIsWindowed: a partition of many records draws the
// newest 14 of them and says how many came before.
func TestLogPanelLongLaneIsWindowed(t *testing.T) {
	src := "scenario test/long \"Long lane\"\ntopic t partitions=1\ntarget x sink=merge key=id\nproducer p to=t\ngroup g topic=t to=x committed=0\nmember g c1 at=10:00:00\ntraffic p records=100 from=10:00:01 every=1s keys=10\npoll g c1 at=10:00:30 max=5\n"
	f, err := scenario.Parse("long.tdm", []byte(src))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	d := draw(t, tr, widget.State{Step: tr.Steps(), ShowTruth: true, BasePath: "/x"})
	l := laneOf(t, d, "t-0")
	assert.Len(t, l.ByTestID("cell"), 14)
	assert.Len(t, withAttr(d.ByTestID("offset"), "data-partition", "t-0"), 14)
	assert.Equal(t, "86", htmltest.Attr(l.ByTestID("cell")[0], "data-offset"))
	assert.Equal(t, "… 86 earlier", htmltest.Text(l.One(t, "lane-earlier")))
	assert.Contains(t, htmltest.Text(partitionRow(t, d, "t-0").Root), "86 earlier offsets not listed")
	assert.Contains(t, htmltest.Text(l.One(t, "group-marker")), "g committed 5; lag 95 (left of the window)")
}

// TestLaneLabelsNeverCrossALine: the log start's and end's labels sit in a
// row above the cells, clear of both lines and of each other, whether the
// two are far apart, one cell apart or at the lane's first cell.
func TestLaneLabelsNeverCrossALine(t *testing.T) {
	tr := run(t, "dist/retention-lag", nil)
	for step := 0; step <= tr.Steps(); step++ {
		d := draw(t, tr, widget.State{Step: step, ShowTruth: true, BasePath: "/x"})
		for _, chart := range d.ByTestID("lane-chart") {
			var lines []float64
			lineTop := 1e9
			for _, n := range htmltest.All(chart, func(n *html.Node) bool { return n.Data == "line" }) {
				x, _ := strconv.ParseFloat(htmltest.Attr(n, "x1"), 64)
				y, _ := strconv.ParseFloat(htmltest.Attr(n, "y1"), 64)
				lines = append(lines, x)
				lineTop = min(lineTop, y)
			}
			type span struct{ lo, hi float64 }
			var labels []span
			for _, n := range htmltest.All(chart, func(n *html.Node) bool { return htmltest.Attr(n, "class") == "tm-log-label" }) {
				x, _ := strconv.ParseFloat(htmltest.Attr(n, "x"), 64)
				y, _ := strconv.ParseFloat(htmltest.Attr(n, "y"), 64)
				assert.Less(t, y, lineTop, "step %d: a label's baseline is above where the lines begin", step)
				w := 6.7 * float64(len([]rune(htmltest.Text(n))))
				sp := span{x, x + w}
				if htmltest.Attr(n, "text-anchor") == "end" {
					sp = span{x - w, x}
				}
				for _, lx := range lines {
					assert.False(t, lx > sp.lo && lx < sp.hi, "step %d: a line at %.0f crosses the label %q", step, lx, htmltest.Text(n))
				}
				for _, o := range labels {
					assert.False(t, sp.lo < o.hi && o.lo < sp.hi, "step %d: two labels overlap", step)
				}
				labels = append(labels, sp)
			}
		}
	}
}

// TestPolledRecordsMove: the records a consumer group's poll reads appear
// in its station as chips that move from their cells in the log, and the
// rows it writes at the next step move on to their slots from those chips.
func TestPolledRecordsMove(t *testing.T) {
	tr := run(t, "dist/partition-change", nil)
	base := "/scenarios/dist/partition-change"
	// Step 21: c2 polls customers-3 offset 0 (1), customers-4 offset 0 (6), customers-5 offset 0 (3).
	d := draw(t, tr, widget.State{Step: 21, ShowTruth: true, BasePath: base})
	cells := map[string]bool{}
	for _, n := range d.ByTestID("cell") {
		cells[htmltest.Attr(n, "data-chip")] = true
	}
	var keys, from []string
	chips := map[string]bool{}
	for _, n := range d.ByTestID("polled") {
		keys = append(keys, htmltest.Attr(n, "data-key"))
		from = append(from, htmltest.Attr(n, "data-from"))
		chips[htmltest.Attr(n, "data-chip")] = true
		assert.True(t, cells[htmltest.Attr(n, "data-from")], "a polled record moves from a cell of the log drawn: %s", htmltest.Attr(n, "data-from"))
	}
	assert.Equal(t, []string{"1", "6", "3"}, keys)
	assert.Equal(t, []string{"log:customers-3:0", "log:customers-4:0", "log:customers-5:0"}, from)
	// The station sums up where the group stands in a line; each
	// partition's position is drawn under its lane, not listed again.
	assert.Equal(t, "Lag 10 in all; committed on 1 of 6 partitions.", htmltest.Text(d.One(t, "group-positions")))
	assert.Len(t, d.ByTestID("group-marker"), 6, "each lane draws the group's position")
	for _, n := range d.ByTestID("slot") {
		switch htmltest.Attr(n, "data-key") {
		case "1", "6":
			assert.Contains(t, htmltest.Text(n), "read, not written yet", "a key the group holds says so")
		case "4", "5":
			assert.Contains(t, htmltest.Text(n), "◌ not written yet", "a key no poll has read yet")
		}
	}

	// Step 22: c2 upserts them; each slot written moves from its chip.
	d = draw(t, tr, widget.State{Step: 22, ShowTruth: true, BasePath: base})
	assert.Empty(t, d.ByTestID("polled"), "nothing is read at the write")
	moved := 0
	for _, n := range d.ByTestID("slot") {
		if f := htmltest.Attr(n, "data-from"); f != "" {
			assert.True(t, chips[f], "slot %s moves from a chip of the step before: %s", htmltest.Attr(n, "data-key"), f)
			moved++
		}
	}
	assert.Equal(t, 3, moved, "customers 1, 6 and 3 move to their slots")

	// Step 23, the commit: nothing read, nothing written, nothing moves.
	d = draw(t, tr, widget.State{Step: 23, ShowTruth: true, BasePath: base})
	assert.Empty(t, d.ByTestID("polled"))
}

// TestSlotsStayReadUntilWritten: c1 reads a batch at step 8 and writes it
// at step 11, a rebalance waiting for it in between; at steps 9 and 10 its
// keys were drawn "◌ not written yet", as though no one had read them,
// while the narration said c1 was still busy with that batch.
func TestSlotsStayReadUntilWritten(t *testing.T) {
	tr := run(t, "dist/rebalance", nil)
	for step := 8; step <= 10; step++ {
		d := draw(t, tr, widget.State{Step: step, ShowTruth: true, BasePath: "/scenarios/dist/rebalance"})
		waiting := 0
		for _, n := range d.ByTestID("slot") {
			if htmltest.Attr(n, "data-state") == "waiting" {
				waiting++
				assert.Contains(t, htmltest.Text(n), "◌ read, not written yet", "step %d: key %s", step, htmltest.Attr(n, "data-key"))
			}
		}
		assert.Equal(t, 6, waiting, "step %d: the batch's six keys wait", step)
	}
}

// assignment lists the lines of the consumers' station that say who holds
// which partition at the step.
func assignment(t *testing.T, tr *engine.Trace, base string, step int) []string {
	t.Helper()
	d := draw(t, tr, widget.State{Step: step, ShowTruth: true, BasePath: base})
	var out []string
	for _, n := range d.ByTestID("group-assignment") {
		for _, li := range (htmltest.Doc{Root: n}).ByTag("li") {
			out = append(out, htmltest.Text(li))
		}
	}
	return out
}

// TestConsumersSayWhoHoldsWhat: the consumers' station says in words, a
// member a line, which partitions each member holds at the step and in
// which generation, as the narration of the rebalances does: in
// dist/rebalance c1 holds both until c2's join begins a rebalance, which
// waits while c1 keeps them and c2 reads nothing, and then generation 2
// splits them; evicted, c1 leaves them to nobody until the rebalance
// after; in dist/partition-change the new partitions are nobody's until
// the group notices them.
func TestConsumersSayWhoHoldsWhat(t *testing.T) {
	base := "/scenarios/dist/rebalance"
	tr := run(t, "dist/rebalance", nil)
	assert.Empty(t, assignment(t, tr, base, 0), "no member has joined")
	assert.Equal(t, []string{"c1 · p0 p1 (generation 1)"}, assignment(t, tr, base, 8))
	assert.Equal(t, []string{"c1 · keeps p0 p1 (generation 1)", "c2 · nothing, rebalancing"}, assignment(t, tr, base, 10))
	assert.Equal(t, []string{"c1 · p0 (generation 2)", "c2 · p1 (generation 2)"}, assignment(t, tr, base, 13))
	assert.Equal(t, []string{"c1 · p0 (generation 2)", "c2 · p1 (generation 2)"}, assignment(t, tr, base, tr.Steps()))
	d := draw(t, tr, widget.State{Step: 14, ShowTruth: true, BasePath: base})
	assert.Equal(t, "Who holds which partition", htmltest.Attr(d.One(t, "group-assignment"), "aria-label"))
	assert.Contains(t, widget.Render(tr, widget.State{Step: 14, ShowTruth: true, BasePath: base}), "c1 · p0 (generation\u00a02)</li>",
		"a line that wraps keeps \"(generation 2)\" whole")

	tr = run(t, "dist/rebalance", map[string]string{"max-poll": "3s"})
	assert.Equal(t, []string{"c2 · nothing, rebalancing", "unassigned · p0 p1"}, assignment(t, tr, base, 10))
	assert.Equal(t, []string{"c2 · p0 p1 (generation 2)"}, assignment(t, tr, base, 11))
	assert.Equal(t, []string{"c1 · p0 (generation 3)", "c2 · p1 (generation 3)"}, assignment(t, tr, base, 17))

	base = "/scenarios/dist/partition-change"
	tr = run(t, "dist/partition-change", nil)
	assert.Equal(t, []string{"c1 · p0 p1 (generation 2)", "c2 · p2 (generation 2)", "unassigned · p3 p4 p5"}, assignment(t, tr, base, 13))
	assert.Equal(t, []string{"c1 · p0 p1 p2 (generation 3)", "c2 · p3 p4 p5 (generation 3)"}, assignment(t, tr, base, 21))
}

// TestConsumersOfAnEmptyGroupSayNobodyReads: a group whose last member
// left says nobody reads its partitions, and a station lists at most
// eight members and counts the rest.
// TestConsumersListTheBusyMemberFirst: with more members than a station
// lists, the one a waiting rebalance waits for is listed first, not cut
// off with the rest ("c9" sorts last of ten).
func TestConsumersListTheBusyMemberFirst(t *testing.T) {
	src := "scenario test/busy \"Busy\"\ntopic t partitions=20\ntarget x sink=merge key=id\nproducer p to=t key=id\ngroup g topic=t to=x assign=roundrobin reset=earliest\n"
	for i := range 10 {
		src += "member g c" + strconv.Itoa(i) + " at=10:00:00\n"
	}
	src += "produce p at=10:00:01 key=1\nproduce p at=10:00:01 key=2\nproduce p at=10:00:01 key=3\n"
	src += "poll g c9 at=10:00:02 process=5s\nmember g c10 at=10:00:03\n"
	f, err := scenario.Parse("busy.tdm", []byte(src))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	step := -1
	for n := 1; n <= tr.Steps(); n++ {
		if a := logs.Of(tr).AssignmentAt("g", n); a != nil && a.Waiting {
			step = n
			break
		}
	}
	require.Positive(t, step, "the rebalance waits for c9")
	lines := assignment(t, tr, "/x", step)
	require.Len(t, lines, 10, "eight members, the count of the rest, and what nobody holds")
	assert.Equal(t, "c9 · keeps p9 p19 (generation 10)", lines[0], "the busy member first")
	assert.Equal(t, "c0 · nothing, rebalancing", lines[1])
	assert.Equal(t, "… 3 more members", lines[8])
	assert.Equal(t, "unassigned · p0 p1 p2 p3 p4 p5 p6 p7 p8 p10 p11 p12 +6", lines[9], "what the others gave up")
}

func TestConsumersOfAnEmptyGroupSayNobodyReads(t *testing.T) {
	src := "scenario test/empty \"Empty\"\ntopic t partitions=20\ntarget x sink=merge key=id\nproducer p to=t\ngroup g topic=t to=x assign=roundrobin\n"
	for i := range 10 {
		src += "member g c" + strconv.Itoa(i) + " at=10:00:00\n"
	}
	src += "leave g c0 at=10:00:01\n"
	for i := 1; i < 10; i++ {
		src += "leave g c" + strconv.Itoa(i) + " at=10:00:02\n"
	}
	f, err := scenario.Parse("empty.tdm", []byte(src))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, worlds.All())
	require.NoError(t, err)
	lines := assignment(t, tr, "/x", 10)
	require.Len(t, lines, 9)
	assert.Equal(t, "c0 · p0 p10 (generation 10)", lines[0])
	assert.Equal(t, "… 2 more members", lines[8])
	assert.Equal(t, []string{"no member · nobody reads p0 p1 p2 p3 p4 p5 p6 p7 p8 p9 p10 p11 +8"}, assignment(t, tr, "/x", tr.Steps()))
}

// TestLogPanelMarksASchemaVersion: a record written with a later schema
// version says so in its lane cell, in the topic's table and in the legend,
// as text; a scenario without schema versions shows none of it.
func TestLogPanelMarksASchemaVersion(t *testing.T) {
	tr := run(t, "dist/schema-change", nil)
	d := draw(t, tr, widget.State{Step: tr.Steps(), ShowTruth: true, BasePath: "/scenarios/dist/schema-change"})
	var marked, filled []string
	for _, n := range laneOf(t, d, "orders-0").ByTestID("cell") {
		if strings.Contains(htmltest.Text(n), "s2") {
			marked = append(marked, htmltest.Attr(n, "data-key"))
		}
		if strings.Contains(htmltest.Attr(n, "class"), "tm-cell-later") {
			filled = append(filled, htmltest.Attr(n, "data-key"))
		}
	}
	assert.Equal(t, []string{"5", "6", "10", "11", "12", "15"}, marked, "every record the shop sent after its deploy, and none before")
	assert.Equal(t, marked, filled, "the same cells drawn with a fill of their own, which a projector shows")
	assert.Contains(t, offsetRows(d, "orders-0"), "written with schema version 2")
	assert.Contains(t, htmltest.Text(d.One(t, "legend")), "s2: written with schema version 2")

	// Each group's panel says which version its code reads, as of the step.
	configs := func(step int) []string {
		var out []string
		for _, n := range draw(t, tr, widget.State{Step: step, ShowTruth: true}).ByTestID("group-config") {
			out = append(out, htmltest.Text(n))
		}
		return out
	}
	assert.Equal(t, []string{"reads topic orders; its code reads schema version 1", "reads topic orders into order_facts; its code reads schema version 1"}, configs(0))
	assert.Equal(t, []string{"reads topic orders; its code reads schema version 2", "reads topic orders into order_facts; its code reads schema version 1"}, configs(31), "billing deployed at 10:00:30, reporting not yet")
	assert.Equal(t, []string{"reads topic orders; its code reads schema version 2", "reads topic orders into order_facts; its code reads schema version 2"}, configs(tr.Steps()))

	tr = run(t, "dist/retention-lag", nil)
	d = draw(t, tr, widget.State{Step: tr.Steps(), ShowTruth: true, BasePath: "/scenarios/dist/retention-lag"})
	assert.NotContains(t, htmltest.Text(d.One(t, "legend")), "schema")
	assert.NotContains(t, offsetRows(d, "orders-0"), "schema")
	assert.Equal(t, "reads topic orders into fct_orders", htmltest.Text(d.One(t, "group-config")))
}

// TestGroupPanelMarksAStoppedMember: a member whose consumer stopped on an
// exception says so beside what it holds, and once its application has
// exited and left the group it is still listed, as exited, until a deploy
// or an operator starts it again. Before, the panel showed a stopped
// member as if it read on, and an exited one not at all.
// holders is what the panel of group says who holds what at step n, a
// line per member, as read (no space where a <wbr> offers a break).
func holders(t *testing.T, tr *engine.Trace, step int, group string) []string {
	t.Helper()
	var out []string
	for _, n := range draw(t, tr, widget.State{Step: step, ShowTruth: true}).ByTestID("group-assignment") {
		if htmltest.Attr(n.Parent, "data-frag") == "group-"+group {
			for li := range n.ChildNodes() {
				var sb strings.Builder
				for d := range li.Descendants() {
					if d.Type == html.TextNode {
						sb.WriteString(d.Data)
					}
				}
				out = append(out, strings.ReplaceAll(sb.String(), "\u00a0", " "))
			}
		}
	}
	return out
}

func TestGroupPanelMarksAStoppedMember(t *testing.T) {
	tr := run(t, "dist/schema-change", nil)
	assert.Contains(t, widget.Render(tr, widget.State{Step: 34}), "stopped on Record<wbr>Deserialization<wbr>Exception", "a narrow panel breaks the name between its words")
	assert.Equal(t, []string{"r1 · p0 (generation 2)", "r2 · p1 (generation 2)"}, holders(t, tr, 33, "reporting"))
	assert.Equal(t, []string{"r1 · p0 (generation 2), stopped on RecordDeserializationException", "r2 · p1 (generation 2)"}, holders(t, tr, 34, "reporting"))
	assert.Equal(t, []string{"r2 · p0 p1 (generation 3)", "r1 · exited on RecordDeserializationException"}, holders(t, tr, 35, "reporting"))
	assert.Equal(t, []string{"r1 · exited on RecordDeserializationException", "r2 · exited on RecordDeserializationException", "no member · nobody reads p0 p1"}, holders(t, tr, 37, "reporting"))
	assert.Equal(t, []string{"r1 · p0 (generation 5)", "r2 · p1 (generation 5)"}, holders(t, tr, 63, "reporting"), "the deploy starts both again")
	assert.Equal(t, []string{"b1 · p0 p1 (generation 1)"}, holders(t, tr, 37, "billing"), "billing, deployed first, never stops")

	// auto.offset.reset=none stops the same way, and a re-snapshot starts
	// the group again.
	tr = run(t, "hwm/retention-resnapshot", nil)
	assert.Equal(t, []string{"c1 · p0 (generation 3), stopped on OffsetOutOfRangeException"}, holders(t, tr, 29, "loader"))
	assert.Equal(t, []string{"c1 · exited on OffsetOutOfRangeException", "no member · nobody reads p0"}, holders(t, tr, 31, "loader"))
	assert.Equal(t, []string{"c1 · p0 (generation 5)"}, holders(t, tr, 32, "loader"))
}

// TestGroupPanelMarksAClosedStaticMember: a static member whose consumer
// closed keeps its partitions, and the panel says so, while consumer-lag,
// a check a team could run, sees the partition nobody reads fall behind;
// as a dynamic member it leaves, and the lag stays small. When its session
// times out, it is gone from the panel, not listed as exited.
func TestGroupPanelMarksAClosedStaticMember(t *testing.T) {
	const closed = "c1 · p0 (generation 2), closed; kept for it, unread, until it starts again or its session times out"
	lag := func(tr *engine.Trace, n int) check.Status {
		for _, r := range tr.ChecksAt(n) {
			if r.Name == "consumer-lag" {
				return r.Status
			}
		}
		t.Fatal("no consumer-lag check")
		return check.NotRun
	}
	tr := run(t, "dist/static-membership", nil)
	assert.Equal(t, []string{"c1 · p0 (generation 2)", "c2 · p1 (generation 2)"}, holders(t, tr, 32, "billing"))
	assert.Equal(t, []string{closed, "c2 · p1 (generation 2)"}, holders(t, tr, 33, "billing"))
	assert.Equal(t, []string{closed, "c2 · p1 (generation 2)"}, holders(t, tr, 89, "billing"))
	assert.Equal(t, []string{"c1 · p0 (generation 2)", "c2 · p1 (generation 2)"}, holders(t, tr, 90, "billing"), "back within its session, with no rebalance")
	assert.Equal(t, check.Pass, lag(tr, 32))
	assert.Equal(t, check.Fail, lag(tr, 89), "orders-0 waits, unread")
	assert.Equal(t, check.Pass, lag(tr, tr.Steps()))

	dyn := run(t, "dist/static-membership", map[string]string{"membership": "dynamic"})
	assert.Equal(t, []string{"c2 · p0 p1 (generation 3)"}, holders(t, dyn, 40, "billing"))
	assert.Equal(t, check.Pass, lag(dyn, 83), "c2 reads both partitions")

	short := run(t, "dist/static-membership", map[string]string{"session": "15s"})
	assert.Equal(t, []string{closed, "c2 · p1 (generation 2)"}, holders(t, short, 76, "billing"))
	assert.Equal(t, []string{"c2 · p0 p1 (generation 3)"}, holders(t, short, 78, "billing"), "removed, and not listed as exited")
}

// A lane's picture says the offsets it draws (a long lane's window of
// them), or that it has none.
func TestLanePictureSaysItsOffsets(t *testing.T) {
	tr := run(t, "stream/session-window", nil)
	d := draw(t, tr, widget.State{Step: tr.Steps(), BasePath: "/scenarios/stream/session-window"})
	l := laneOf(t, d, "clicks-0")
	cells := l.ByTestID("cell")
	require.NotEmpty(t, cells)
	first, last := htmltest.Attr(cells[0], "data-offset"), htmltest.Attr(cells[len(cells)-1], "data-offset")
	assert.Equal(t, "clicks-0, records at offsets "+first+"–"+last, htmltest.Attr(l.One(t, "lane-chart"), "aria-label"))

	d = draw(t, tr, widget.State{Step: 0, BasePath: "/scenarios/stream/session-window"})
	assert.Equal(t, "clicks-0, no records", htmltest.Attr(laneOf(t, d, "clicks-0").One(t, "lane-chart"), "aria-label"))
}
