//go:build !tm_hwm

package widget

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/topic"
)

// The log's stations draw the partitioned log at one step. A topic is one
// station: each partition a lane of offset cells (offset above, key below),
// the records retention deleted drawn crossed out left of the log start,
// the log start and end marked above the cells, and each consumer group's
// committed offset as a marker under the lane. The lanes scroll sideways
// together, so a long one never widens the page at 360 px; the text
// equivalent is one table per topic (see logTables). Each consumer group
// is a station of its own, saying who holds which partition (holdings),
// what it read at the step and where it stands on each partition.

// Lane geometry, in SVG user units (one unit is one CSS pixel: the lanes
// keep their size and scroll rather than shrink).
const (
	cellW     = 40.0
	cellH     = 32.0
	laneTop   = 20.0 // room above the cells for the start and end labels
	groupRowH = 18.0
	laneLeft  = 4.0
	nameW     = 34.0 // room for the partition's name, "p12"
	earlierW  = 84.0 // room for "… N earlier" left of a windowed lane
	charW     = 6.7  // the width of a character of the lane's 11px monospace labels
)

// maxCells is the most offsets a lane draws; a longer partition is drawn as
// a window of its newest offsets, with the count of the earlier ones (a group
// whose position is further back is named at the window's left edge). maxLanes
// is the most partitions drawn per topic.
const (
	maxCells = 14
	maxLanes = 16
)

// logPanel draws one station per topic of the trace's log, or nothing when
// the scenario has no log.
func logPanel(b *builder, t *engine.Trace, s State) {
	lt := logs.Of(t)
	if lt == nil {
		return
	}
	parts := lt.LogAt(s.Step)
	for _, h := range lt.Topics {
		mine := partitionsOf(parts, h.Name)
		title := "Log: topic " + h.Name + " (" + plural(len(mine), "partition") + ")"
		station(b, "st-topic-"+h.Name, "log", title, "panel-log")
		note := "Retention: none."
		if h.Retention > 0 {
			note = "Retention: " + h.Retention.String() + "."
		}
		b.el("p", note, "class", "tm-note")
		b.fopen("lanes-"+h.Name, "div", "class", "tm-lanes", "role", "group", "tabindex", "0",
			"aria-label", "partitions of "+h.Name+"; scrolls sideways", "data-testid", "log", "data-topic", h.Name, "data-partitions", itoa(len(mine)))
		shown := mine[:min(len(mine), maxLanes)]
		for _, p := range shown {
			lane(b, lt, s, h, p)
		}
		b.fclose("div")
		if len(mine) > len(shown) {
			b.el("p", "… "+plural(len(mine)-len(shown), "more partition")+" not drawn", "class", "tm-note", "data-testid", "lanes-more")
		}
		b.fclose("section")
	}
}

func partitionsOf(parts []logs.PartitionState, topic string) []logs.PartitionState {
	var mine []logs.PartitionState
	for _, p := range parts {
		if p.Topic == topic {
			mine = append(mine, p)
		}
	}
	return mine
}

// cellState is what one offset of a lane is at the step drawn.
type cellState struct {
	_       nocmp.NoCompare
	rec     *topic.Record
	key     string // the record's business key
	deleted bool   // left of the log start
	gone    bool   // deleted by retention at this very step
	fresh   bool   // appended at this step
	readBy  string // groups that read it at this step
}

// cellsOf returns the cells of a partition's window at the step, and the
// first offset of the window.
func cellsOf(lt *logs.Trace, s State, h *logs.TopicHistory, p logs.PartitionState) ([]cellState, int64) {
	recs := lt.RecordsAt(p.Topic, p.Partition, s.Step)
	lo := laneWindow(p)
	cells := make([]cellState, 0, p.End-lo)
	part := h.Parts[p.Partition]
	for o := lo; o < p.End; o++ {
		r := &recs[o]
		cells = append(cells, cellState{rec: r, key: h.Label(r), deleted: o < p.Start, gone: o < p.Start && int(part.DeletedAt(o)) == s.Step,
			fresh: s.Step > 0 && int(r.Step) == s.Step})
	}
	for _, g := range lt.Groups {
		if g.Topic != p.Topic {
			continue
		}
		for _, rr := range readsAt(g, s.Step) {
			if int(rr.Partition) != p.Partition {
				continue
			}
			for o := max(rr.From, lo); o < min(rr.To, p.End); o++ {
				c := &cells[o-lo]
				c.readBy = strings.TrimPrefix(c.readBy+", "+g.Name, ", ")
			}
		}
	}
	return cells, lo
}

// lane draws one partition's picture.
func lane(b *builder, lt *logs.Trace, s State, h *logs.TopicHistory, p logs.PartitionState) {
	name := p.Topic + "-" + itoa(p.Partition)
	b.fopen("lane-"+name, "div", "class", "tm-lane", "data-testid", "lane", "data-partition", name,
		"data-start", strconv.FormatInt(p.Start, 10), "data-end", strconv.FormatInt(p.End, 10))
	// The heading is for a screen reader's list of headings; the picture
	// names its partition itself.
	b.el("h4", laneSummary(p), "class", "tm-visually-hidden", "data-testid", "lane-summary")
	laneSVG(b, lt, s, h, p, ChartOptions{})
	b.fclose("div")
}

// laneSummary says a partition's log start and end in words.
func laneSummary(p logs.PartitionState) string {
	summary := p.Topic + "-" + itoa(p.Partition) + ": log start " + strconv.FormatInt(p.Start, 10) + ", log end " + strconv.FormatInt(p.End, 10)
	if p.Start > 0 {
		summary += " (offsets " + offsets(0, p.Start) + " deleted by retention)"
	}
	return summary
}

// laneSays is what a lane's picture says to a screen reader, which its
// heading (laneSummary) does not: the offsets it draws and each group's
// committed offset and lag (the step's tables list each record's key).
func laneSays(name string, p logs.PartitionState, lo int64) string {
	says := name + ", no records"
	if p.End > lo {
		says = name + ", records at offsets " + offsets(lo, p.End)
	}
	for _, g := range p.Groups {
		says += "; " + groupText(p, g)
	}
	return says
}

// laneSVG draws a partition's cells, log start and end, and each group's
// committed offset as one <svg>, for the stage or (o.Standalone) placed at
// o.X, o.Y in a picture. It returns the drawing's size.
func laneSVG(b *builder, lt *logs.Trace, s State, h *logs.TopicHistory, p logs.PartitionState, o ChartOptions) (width, height float64) {
	name := p.Topic + "-" + itoa(p.Partition)
	cells, lo := cellsOf(lt, s, h, p)
	hi := p.End
	look := lookFor(o, laneLook)
	x0 := laneLeft + nameW
	if lo > 0 {
		x0 += earlierW
	}
	x := func(o int64) float64 { return x0 + float64(o-lo)*cellW }
	// The picture is as wide as what it draws: the cells, the next offset's
	// empty cell, the end's label (at most "start N, end M") and each
	// group's label, put left of its marker when it would run past the
	// cells and there is room there, so that a narrow column (a phone, a
	// projector's) needs no scrolling for a label.
	endX := x(hi)
	endLabel, start := endLabels(p, lo, hi, x)
	width = max(endX+cellW, endX+3+charW*float64(len(endLabel)))
	labels := make([]groupLabel, len(p.Groups))
	for i, g := range p.Groups {
		l := &labels[i]
		l.text = groupText(p, g)
		switch {
		case g.Committed < 0:
			l.text, l.x = "○ "+l.text, x0
		case g.Committed < lo:
			l.text, l.x = "◀ "+l.text+" (left of the window)", x0
		default:
			l.mark = x(g.Committed)
			l.x = l.mark + 9
		}
		w := charW * float64(utf8.RuneCountInString(l.text))
		if l.mark > 0 && l.x+w > endX+cellW && l.mark-9-w >= 0 {
			l.x, l.left = l.mark-9, true
		} else {
			width = max(width, l.x+w)
		}
	}
	width = math.Ceil(width + 4) // whole pixels: a lane is drawn at its own size
	height = laneTop + cellH + 8 + groupRowH*float64(len(p.Groups)) + 4
	// The picture's label is the heading's sentence; the topic's table
	// (the text equivalent) lists each offset and group.
	size := []string{"width", ftoa(width), "height", ftoa(height), "viewBox", "0 0 " + ftoa(width) + " " + ftoa(height)}
	if o.Standalone {
		b.open("svg", append([]string{"x", ftoa(o.X), "y", ftoa(o.Y)}, size...)...)
	} else {
		b.open("svg", append(append([]string{"class", "tm-lane-svg"}, size...), "role", "img", "aria-label", laneSays(name, p, lo), "data-testid", "lane-chart")...)
	}
	textAt(b, look, "p"+itoa(p.Partition), "tm-lane-label", ftoa(laneLeft), laneTop+cellH/2+5)
	if lo > 0 {
		textAt(b, look, "… "+strconv.FormatInt(lo, 10)+" earlier", "tm-lane-earlier", ftoa(laneLeft+nameW), laneTop+cellH/2+4, "data-testid", "lane-earlier")
	}
	for i, c := range cells {
		o := lo + int64(i)
		cx, cy := x(o), laneTop
		state, off := "held", ""
		if c.deleted {
			state, off = "deleted", " tm-cell-box-off"
		}
		b.open("g", "class", "tm-cell tm-cell-"+state+pick(c.fresh, " tm-cell-new", "")+pick(c.rec.Schema > 0, " tm-cell-later", ""),
			"data-testid", "cell", "data-offset", strconv.FormatInt(o, 10), "data-key", c.key, "data-state", state,
			"data-chip", cellChip(name, o),
			"data-new?", on(c.fresh), "data-read?", on(c.readBy != ""))
		rectAt(b, look, "tm-cell-box"+off, cx+2, cy, cellW-4, cellH, "rx", "4")
		textAt(b, look, strconv.FormatInt(o, 10), "tm-cell-offset", ftoa(cx+5), cy+11)
		if c.rec.Schema > 0 {
			// A record of a later schema version, as the text timeline marks it.
			textAt(b, look, "s"+itoa(c.rec.SchemaVersion()), "tm-cell-offset tm-cell-schema", ftoa(cx+cellW-5), cy+11, "text-anchor", "end")
		}
		key := c.key
		if len(key) > 4 {
			key = key[:3] + "…"
		}
		if c.deleted {
			key = "✕" + key
		}
		textAt(b, look, key, "tm-cell-key"+replaceFirst(off, "box", "key"), ftoa(cx+cellW/2), cy+26, "text-anchor", "middle")
		if c.readBy != "" {
			b.void("rect", look("tm-cell-readbar", "x", ftoa(cx+4), "y", ftoa(cy+cellH+1), "width", ftoa(cellW-8), "height", "4")...)
		}
		b.close("g")
	}
	// The next offset, not yet written.
	rectAt(b, look, "tm-cell-next", x(hi)+2, laneTop, cellW-4, cellH, "rx", "4")
	// The log start and end: lines from under the label row, the labels
	// placed so that no line crosses a label and the labels do not overlap.
	lineTop, lineBottom := laneTop-3, laneTop+cellH+4
	labelAt := func(text string, at float64, left bool) {
		if left {
			b.el("text", text, look("tm-log-label", "x", ftoa(at-3), "y", "12", "text-anchor", "end")...)
			return
		}
		b.el("text", text, look("tm-log-label", "x", ftoa(at+3), "y", "12")...)
	}
	if p.Start == p.End {
		line(b, look, "tm-log-start", endX, lineTop, endX, lineBottom)
	} else {
		if p.Start >= lo {
			sx := x(p.Start)
			line(b, look, "tm-log-start", sx, lineTop, sx, lineBottom)
			if start != startInEnd {
				labelAt("start "+strconv.FormatInt(p.Start, 10), sx, start == startLeft)
			}
		}
		line(b, look, "tm-log-end", endX, lineTop, endX, lineBottom)
	}
	labelAt(endLabel, endX, false)
	// Each group's committed offset.
	for i, g := range p.Groups {
		y := laneTop + cellH + 8 + groupRowH*float64(i)
		l := labels[i]
		if l.mark > 0 {
			b.void("polygon", look("tm-group-mark", "points", pts(l.mark, y, l.mark-6, y+12, l.mark+6, y+12))...)
		}
		attrs := look("tm-group-label", "x", ftoa(l.x), "y", ftoa(y+12), "data-testid", "group-marker", "data-group", g.Group)
		if l.left {
			attrs = append(attrs, "text-anchor", "end")
		}
		b.el("text", l.text, attrs...)
	}
	b.close("svg")
	return width, height
}

// LogChart draws the topics' partitions at step as one SVG for a static
// picture (ChartOptions.Standalone): a heading per topic and, under it, the
// lanes the stage draws, at most maxLanes a topic. A drawing wider than
// the picture is scaled to its width. It returns "" when t has no log.
func LogChart(t *engine.Trace, step int, o ChartOptions) (svg string, width, height float64) {
	lt := logs.Of(t)
	if lt == nil || len(lt.Topics) == 0 {
		return "", 0, 0
	}
	s := State{Step: clamp(step, t.Steps())}
	parts := lt.LogAt(s.Step)
	var body builder
	y, wide := 0.0, chartWidth
	var desc []string
	for _, h := range lt.Topics {
		mine := partitionsOf(parts, h.Name)
		head := "topic " + h.Name + " · " + plural(len(mine), "partition")
		if h.Retention > 0 {
			head += " · retention " + h.Retention.String()
		}
		if len(mine) > maxLanes {
			head += " (the first " + itoa(maxLanes) + " drawn)"
		}
		y += 16
		body.el("text", head, "x", "4", "y", ftoa(y), "font-weight", "700", "font-size", "12")
		y += 4
		for _, p := range mine[:min(len(mine), maxLanes)] {
			w, lh := laneSVG(&body, lt, s, h, p, ChartOptions{Standalone: true, Y: y})
			wide = max(wide, w)
			y += lh
			desc = append(desc, laneSummary(p))
		}
		y += 4
	}
	y += 14
	body.el("text", "▢ "+logLegend, "x", "4", "y", ftoa(y), "fill", "#4a5560")
	y += 6
	// The outer drawing is chartWidth wide; a wider one is scaled to it.
	width, height = chartWidth, math.Ceil(y*chartWidth/wide)
	var b builder
	openStandalone(&b, o, height, "0 0 "+ftoa(wide)+" "+ftoa(y), "The log: "+strings.Join(desc, "; "), "11")
	b.splice(&body)
	b.close("svg")
	return b.String(), width, height
}

// logTables draws one table per topic: a row per offset in each
// partition's window, with its key, version, state and what happened to
// it at the step, and each group's position in the partition's first row.
func logTables(b *builder, lt *logs.Trace, s State) {
	parts := lt.LogAt(s.Step)
	for _, h := range lt.Topics {
		mine := partitionsOf(parts, h.Name)
		caption := "Topic " + h.Name + ": each partition's newest " + itoa(maxCells) + " offsets and each group's position"
		tableOf(b, "tbl-log-"+h.Name, caption, []string{"partition", "offset", "key", "version", "state"},
			"class", "tm-table tm-lane-table", "data-testid", "log-table", "data-topic", h.Name)
		for _, p := range mine {
			name := p.Topic + "-" + itoa(p.Partition)
			cells, lo := cellsOf(lt, s, h, p)
			var where []string
			for _, g := range p.Groups {
				where = append(where, groupText(p, g))
			}
			b.fopen("tbl-log-"+name, "tr", "class", "tm-partition-row", "data-testid", "partition-row", "data-partition", name)
			b.el("th", name, "scope", "row")
			summary := "log start " + strconv.FormatInt(p.Start, 10) + ", log end " + strconv.FormatInt(p.End, 10)
			if lo > 0 {
				summary += "; " + strconv.FormatInt(lo, 10) + " earlier offsets not listed"
			}
			if len(cells) == 0 {
				summary += "; no records yet"
			}
			b.el("td", summary, "colspan", "3")
			b.open("td")
			for i, w := range where {
				b.el("span", w, "data-testid", "group-offset", "data-group", p.Groups[i].Group,
					"data-committed", strconv.FormatInt(p.Groups[i].Committed, 10), "data-lag", strconv.FormatInt(p.Groups[i].Lag, 10))
				if i+1 < len(where) {
					b.text("; ")
				}
			}
			b.close("td")
			b.fclose("tr")
			for i, c := range cells {
				o := lo + int64(i)
				var notes []string
				state := "held"
				switch {
				case c.gone:
					state = "deleted"
					notes = append(notes, "✕ deleted by retention at this step")
				case c.deleted:
					state = "deleted"
					notes = append(notes, "✕ deleted by retention")
				default:
					notes = append(notes, "held")
				}
				if c.fresh {
					notes = append(notes, "▼ appended at this step")
				}
				if c.readBy != "" {
					notes = append(notes, "read by "+c.readBy+" at this step")
				}
				for _, g := range p.Groups {
					if g.Committed == o {
						notes = append(notes, "▲ "+g.Group+" reads next")
					}
				}
				cls := "tm-offset-" + state
				if c.fresh {
					cls += " tm-cell-new"
				}
				b.fopen("tbl-log-"+name+"-"+strconv.FormatInt(o, 10), "tr", "class", cls, "data-testid", "offset",
					"data-partition", name, "data-offset", strconv.FormatInt(o, 10), "data-state", state)
				b.el("td", name)
				b.el("th", strconv.FormatInt(o, 10), "scope", "row")
				b.el("td", c.key)
				b.el("td", "v"+itoa(int(c.rec.Seq)))
				if c.rec.Delete {
					notes = append([]string{"✕ a delete event: the row is gone at the source"}, notes...)
				}
				if c.rec.Schema > 0 {
					notes = append([]string{"written with schema version " + itoa(c.rec.SchemaVersion())}, notes...)
				}
				b.el("td", strings.Join(notes, "; "))
				b.fclose("tr")
			}
		}
		endTable(b)
	}
}

// groupStations draws each consumer group: where it stands on each
// partition and what it read at the step.
func groupStations(b *builder, v *atStep, lt *logs.Trace) {
	n := v.s.Step
	parts := lt.LogAt(n)
	for _, g := range lt.Groups {
		title := "Consumers: " + g.Name
		station(b, "st-group-"+g.Name, "pipe", title, "panel-group")
		to := ""
		if g.Target != "" {
			to = " into " + g.Target
		}
		if lt.Schemas {
			to += "; its code reads schema version " + itoa(g.SchemaAt(n))
		}
		b.el("p", "reads topic "+g.Topic+to, "class", "tm-pipe-config", "data-testid", "group-config")
		b.fopen("group-"+g.Name, "div", "class", "tm-run", "data-testid", "group")
		holdings(b, lt, g, n)
		var read []string
		for _, rr := range readsAt(g, n) {
			if rr.To > rr.From {
				read = append(read, g.Topic+"-"+itoa(int(rr.Partition))+pick(rr.To-rr.From == 1, " offset ", " offsets ")+offsets(rr.From, rr.To))
			}
		}
		if len(read) > 0 {
			b.el("p", "Read at this step: "+strings.Join(read, "; ")+".", "class", "tm-run-state", "data-testid", "group-read")
			polled(b, lt, g, n)
		}
		// Where the group stands, in a line: each partition's position is
		// drawn under its lane and listed in the topic's table.
		var lag int64
		var committed, below, of int
		for _, p := range parts {
			if p.Topic != g.Topic {
				continue
			}
			for _, o := range p.Groups {
				if o.Group != g.Name {
					continue
				}
				of++
				lag += o.Lag
				if o.Committed >= 0 {
					committed++
				}
				if o.Committed >= 0 && o.Committed < p.Start {
					below++
				}
			}
		}
		if of > 0 {
			line := "Lag " + strconv.FormatInt(lag, 10) + " in all; committed on " + itoa(committed) + " of " + plural(of, "partition")
			if below > 0 {
				line += "; on " + plural(below, "partition") + " below the log start"
			}
			b.el("p", line+".", "class", "tm-note", "data-testid", "group-positions")
		}
		b.fclose("div")
		b.fclose("section")
	}
}

// maxHolders is the most members a consumers' station lists; the rest are
// counted. maxHeld is the most partitions a line of it names.
const (
	maxHolders = 8
	maxHeld    = 12
)

// holdings lists who in group holds which partitions after step n, a
// member a line: "c1 · p0 p1 (generation 2)". While a rebalance waits for
// members busy with a batch, as the engine models the eager protocol, each
// of them keeps what it holds ("c1 · keeps p0 p1 (generation 1)") and no
// other member reads ("c2 · nothing, rebalancing"). The partitions no
// member holds are named too ("unassigned · p3 p4 p5"), as those nobody
// reads when the group has no member. A member whose consumer stopped on
// an exception says so ("c1 · p0 (generation 1), stopped on
// OffsetOutOfRangeException"), and one whose application exited on it,
// leaving the group, is listed after them ("c2 · exited on …"). A static
// member whose consumer closed without leaving says so too ("c1 · p0
// (generation 1), closed: …").
func holdings(b *builder, lt *logs.Trace, g *logs.GroupHistory, n int) {
	a := lt.AssignmentAt(g.Name, n)
	if a == nil {
		return
	}
	b.open("ul", "class", "tm-holds", "data-testid", "group-assignment", "aria-label", "Who holds which partition")
	gen := " (generation\u00a0" + itoa(int(a.Generation)) + ")" // wrapped whole, never as "(generation" and "1)"
	// The members a waiting rebalance waits for come first, so that a cut
	// list never hides them.
	listed := 0
	for pass := range 2 {
		for i := range a.Holds {
			h := &a.Holds[i]
			if h.Busy != (pass == 0) || listed == maxHolders {
				continue
			}
			listed++
			holdingLine(b, h, a.Waiting, gen, g.StoppedAt(h.Member, n), len(g.Closes) > 0 && g.ClosedAt(h.Member, n))
		}
	}
	if more := len(a.Holds) - maxHolders; more > 0 {
		b.el("li", "… "+plural(more, "more member"))
	}
	for _, name := range g.Members {
		why := g.StoppedAt(name, n) // "" at once in a group none of whose members ever stopped
		if why == "" {
			continue
		}
		held := false
		for i := range a.Holds {
			held = held || a.Holds[i].Member == name
		}
		if !held {
			b.open("li")
			b.text(name + " · exited on ")
			exception(b, why)
			b.close("li")
		}
	}
	if len(a.Unheld) > 0 {
		b.el("li", pick(len(a.Holds) == 0, "no member · nobody reads ", "unassigned · ")+partitionList(a.Unheld))
	}
	b.close("ul")
}

// holdingLine is one member's line of holdings.
func holdingLine(b *builder, h *logs.Holding, waiting bool, gen, stopped string, closed bool) {
	b.open("li")
	b.text(h.Member + " · ")
	switch {
	case h.Busy:
		b.text("keeps " + partitionList(h.Partitions) + gen)
	case waiting:
		b.text("nothing, rebalancing")
	default:
		b.text(partitionList(h.Partitions) + gen)
	}
	if stopped != "" {
		b.text(", stopped on ")
		exception(b, stopped)
	}
	if closed {
		b.text(", closed; kept for it, unread, until it starts again or its session times out")
	}
	b.close("li")
}

// exception writes a Java exception's name with a chance to break the line
// before each word of it (Record<wbr>Deserialization<wbr>Exception), which
// a narrow panel broke in the middle of one.
// The name is letters only, which need no escaping.
func exception(b *builder, name string) {
	for i := range len(name) {
		if i > 0 && name[i] < 'a' {
			b.WriteString("<wbr>")
		}
		b.WriteByte(name[i])
	}
}

// partitionList names partitions as the lanes do, "p0 p1", or "nothing";
// it names at most maxHeld and counts the rest.
func partitionList(ps []int16) string {
	if len(ps) == 0 {
		return "nothing"
	}
	s := ""
	for i, p := range ps {
		if i == maxHeld {
			return s[1:] + " +" + itoa(len(ps)-i)
		}
		s += " p" + itoa(int(p))
	}
	return s[1:]
}

// cellChip names the cell of offset o in partition part ("topic-N") for
// the rows that move from it (see polled).
func cellChip(part string, o int64) string {
	return "log:" + part + ":" + strconv.FormatInt(o, 10)
}

// polled draws the records the group's polls read at step n as chips that
// move there from their cells in the log; when the group writes them, they
// move on to their slots in the target, whose chips name them as the
// extractor's rows in flight are named (run:TARGET:KEY).
func polled(b *builder, lt *logs.Trace, g *logs.GroupHistory, n int) {
	var h *logs.TopicHistory
	for _, th := range lt.Topics {
		if th.Name == g.Topic {
			h = th
		}
	}
	if h == nil {
		return
	}
	reads := readsAt(g, n)
	var total int64
	for _, rr := range reads {
		total += rr.To - rr.From
	}
	b.open("ul", "class", "tm-slots tm-inflight", "aria-label", "Records read at this step")
	drawn := 0
	for _, rr := range reads {
		recs := lt.RecordsAt(g.Topic, int(rr.Partition), n)
		part := g.Topic + "-" + itoa(int(rr.Partition))
		for o := rr.From; o < rr.To && o < int64(len(recs)); o++ {
			if drawn == maxInFlight {
				b.el("li", "+"+strconv.FormatInt(total-int64(drawn), 10)+" more", "class", "tm-note")
				b.close("ul")
				return
			}
			drawn++
			r := &recs[o]
			key := h.Key(r)
			b.open("li", "class", "tm-chip tm-chip-flight", "data-testid", "polled", "data-key", key,
				"data-chip", "run:"+g.Target+":"+key, "data-from", cellChip(part, o), "data-new", "on")
			b.el("span", h.Label(r), "class", "tm-chip-key")
			b.el("span", "offset "+strconv.FormatInt(o, 10), "class", "tm-chip-note")
			b.close("li")
		}
	}
	b.close("ul")
}

// laneWindow is the first offset a lane draws: the newest maxCells
// offsets. A group whose position is further back is marked at the left
// edge with its offset in words.
func laneWindow(p logs.PartitionState) int64 { return max(p.End-maxCells, 0) }

// Where a lane's start label goes: left of the start's line, between the
// start's and the end's, or (no room for either) in the end's label.
const (
	startLeft = iota
	startBetween
	startInEnd
)

// endLabels returns the label of a lane's end line, and where the start
// line's label goes so that no line crosses a label and the labels do not
// overlap. x places an offset.
func endLabels(p logs.PartitionState, lo, hi int64, x func(int64) float64) (string, int) {
	end := "end " + strconv.FormatInt(hi, 10)
	if p.Start == p.End {
		return "start = " + end, startInEnd
	}
	if p.Start < lo {
		return end, startInEnd // left of the window: no line, no label
	}
	sx, endX := x(p.Start), x(hi)
	label := "start " + strconv.FormatInt(p.Start, 10)
	w := charW * float64(len(label))
	switch {
	case sx-3-w >= 0:
		return end, startLeft
	case endX-sx >= w+9:
		return end, startBetween
	}
	return label + ", " + end, startInEnd // in offset order
}

// groupLabel is where a lane draws a group's label: at x, starting there or
// (left) ending there, beside its marker at mark (0: no marker, the label
// saying why).
type groupLabel struct {
	_       nocmp.NoCompare
	text    string
	x, mark float64
	left    bool
}

// groupText is a group's position on a partition in words. Its lag is the
// engine's, as Kafka's tools report it: the log end less the committed
// offset, deleted offsets included; a position below the log start is said
// in words, since those offsets are gone rather than waiting to be read.
func groupText(p logs.PartitionState, g logs.GroupOffset) string {
	lag := "; lag " + strconv.FormatInt(g.Lag, 10)
	switch {
	case g.Committed < 0:
		return g.Group + " has committed nothing" + lag
	case g.Committed < p.Start:
		return g.Group + " committed " + strconv.FormatInt(g.Committed, 10) + ", below the log start: " +
			offsetWords(g.Committed, p.Start) + " gone before it read them" + lag
	}
	return g.Group + " committed " + strconv.FormatInt(g.Committed, 10) + lag
}

// offsetWords is "offset 2 is" or "offsets 2–4 are".
func offsetWords(a, b int64) string {
	if b-a == 1 {
		return "offset " + strconv.FormatInt(a, 10) + " is"
	}
	return "offsets " + offsets(a, b) + " are"
}

// offsets prints offsets [a, b) as "3" or "3–5".
func offsets(a, b int64) string {
	if b-a == 1 {
		return strconv.FormatInt(a, 10)
	}
	return strconv.FormatInt(a, 10) + "–" + strconv.FormatInt(b-1, 10)
}
