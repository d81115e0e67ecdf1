package widget

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/topic"
)

// The log panel draws the partitioned log at one step: for each topic, each
// partition as a lane of offset cells (key and offset), the records
// retention deleted left of the log start drawn as removed, the log start
// and end marked, and each consumer group's committed offset on the lane
// with its lag. Each lane is an SVG picture (role=img, with a sentence for
// its label) in a box that scrolls sideways, so a long lane never widens
// the page at 360 px, and beside it a table of the same offsets as text.

// Lane geometry, in SVG user units (one unit is one CSS pixel: the lanes
// keep their size and scroll rather than shrink).
const (
	cellW     = 48.0
	cellH     = 36.0
	laneTop   = 18.0 // room above the cells for the start and end labels
	groupRowH = 18.0
	laneLeft  = 6.0
	earlierW  = 92.0  // room for "… N earlier" left of a windowed lane
	labelRoom = 230.0 // room right of the end for a marker's text
)

// maxCells is the most offsets a lane draws; a longer partition is drawn as
// a window of its newest offsets, with the count of the earlier ones (a group
// whose position is further back is named at the window's left edge). maxLanes is the most partitions drawn per
// topic.
const (
	maxCells = 40
	maxLanes = 16
)

// logPanel draws one panel per topic of the trace's log, or nothing when
// the scenario has no log.
func logPanel(b *builder, t *engine.Trace, s State) {
	lt := logs.Of(t)
	if lt == nil {
		return
	}
	parts := lt.LogAt(s.Step)
	for _, h := range lt.Topics {
		var mine []logs.PartitionState
		for _, p := range parts {
			if p.Topic == h.Name {
				mine = append(mine, p)
			}
		}
		title := "Log: topic " + h.Name + " (" + plural(len(mine), "partition") + ")"
		panel(b, "log", title)
		b.open("div", "class", "tm-log", "data-testid", "log", "data-topic", h.Name, "data-partitions", itoa(len(mine)))
		note := "A lane per partition, a cell per record: its offset above its key. ✕ on a dashed cell: deleted by retention. " +
			"▼ above a cell: appended or deleted at this step; a bar under it: read at this step. ▲ under a lane: a group's committed offset, the next it will read."
		if h.Retention > 0 {
			note += " Retention: " + h.Retention.String() + "."
		}
		b.el("p", note, "class", "tm-note tm-log-legend")
		shown := mine
		if len(shown) > maxLanes {
			shown = shown[:maxLanes]
		}
		for _, p := range shown {
			lane(b, lt, s, h, p)
		}
		if len(mine) > len(shown) {
			b.el("p", "… "+plural(len(mine)-len(shown), "more partition")+" not drawn", "class", "tm-note", "data-testid", "lanes-more")
		}
		b.close("div")
		b.close("section")
	}
}

// cellState is what one offset of a lane is at the step drawn.
type cellState struct {
	rec     *topic.Record
	key     string // the record's business key
	deleted bool   // left of the log start
	gone    bool   // deleted by retention at this very step
	fresh   bool   // appended at this step
	readBy  string // groups that read it at this step
}

// lane draws one partition: the picture, then the table.
func lane(b *builder, lt *logs.Trace, s State, h *logs.TopicHistory, p logs.PartitionState) {
	name := p.Topic + "-" + itoa(p.Partition)
	recs := lt.RecordsAt(p.Topic, p.Partition, s.Step)
	hi := p.End
	lo := laneWindow(p)
	cells := make([]cellState, 0, hi-lo)
	for o := lo; o < hi; o++ {
		r := &recs[o]
		cells = append(cells, cellState{rec: r, key: h.Label(r), deleted: o < p.Start, gone: int(r.Deleted) == s.Step,
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
			for o := max(rr.From, lo); o < min(rr.To, hi); o++ {
				c := &cells[o-lo]
				c.readBy = strings.TrimPrefix(c.readBy+", "+g.Name, ", ")
			}
		}
	}

	b.open("div", "class", "tm-lane", "data-testid", "lane", "data-partition", name,
		"data-start", strconv.FormatInt(p.Start, 10), "data-end", strconv.FormatInt(p.End, 10))
	summary := name + ": log start " + strconv.FormatInt(p.Start, 10) + ", log end " + strconv.FormatInt(p.End, 10)
	if p.Start > 0 {
		summary += " (offsets " + offsets(0, p.Start) + " deleted by retention)"
	}
	b.el("h4", summary, "class", "tm-lane-name", "data-testid", "lane-summary")

	// The picture.
	x0 := laneLeft
	if lo > 0 {
		x0 += earlierW
	}
	n := float64(len(cells))
	width := x0 + (n+1)*cellW + labelRoom
	height := laneTop + cellH + 8 + groupRowH*float64(len(p.Groups)) + 4
	x := func(o int64) float64 { return x0 + float64(o-lo)*cellW }
	b.open("div", "class", "tm-lane-scroll", "role", "region", "tabindex", "0", "aria-label", name+" lane; scrolls sideways")
	b.open("svg", "class", "tm-lane-svg", "width", ftoa(width), "height", ftoa(height), "viewBox", "0 0 "+ftoa(width)+" "+ftoa(height),
		"role", "img", "aria-label", laneLabel(name, p, lo, cells), "data-testid", "lane-chart")
	if lo > 0 {
		b.el("text", "… "+strconv.FormatInt(lo, 10)+" earlier", "x", ftoa(laneLeft), "y", ftoa(laneTop+cellH/2+4), "class", "tm-lane-earlier", "data-testid", "lane-earlier")
	}
	for i, c := range cells {
		o := lo + int64(i)
		cx, cy := x(o), laneTop
		state := "held"
		if c.deleted {
			state = "deleted"
		}
		b.open("g", "class", "tm-cell tm-cell-"+state+map[bool]string{true: " tm-cell-new", false: ""}[c.fresh],
			"data-testid", "cell", "data-offset", strconv.FormatInt(o, 10), "data-key", c.key, "data-state", state,
			"data-new?", on(c.fresh), "data-read?", on(c.readBy != ""))
		b.void("rect", "x", ftoa(cx+2), "y", ftoa(cy), "width", ftoa(cellW-4), "height", ftoa(cellH), "rx", "4", "class", "tm-cell-box")
		b.el("text", strconv.FormatInt(o, 10), "x", ftoa(cx+6), "y", ftoa(cy+12), "class", "tm-cell-offset")
		key := c.key
		if len(key) > 5 {
			key = key[:4] + "…"
		}
		if c.deleted {
			key = "✕ " + key
		}
		b.el("text", key, "x", ftoa(cx+cellW/2), "y", ftoa(cy+29), "class", "tm-cell-key", "text-anchor", "middle")
		if c.fresh || c.gone {
			// Something happened to this record at this step.
			b.void("polygon", "points", pts(cx+cellW/2-5, 2, cx+cellW/2+5, 2, cx+cellW/2, 10), "class", "tm-cell-newmark")
		}
		if c.readBy != "" {
			b.void("rect", "x", ftoa(cx+4), "y", ftoa(cy+cellH+1), "width", ftoa(cellW-8), "height", "4", "class", "tm-cell-readbar")
		}
		b.close("g")
	}
	// The next offset, not yet written.
	b.void("rect", "x", ftoa(x(hi)+2), "y", ftoa(laneTop), "width", ftoa(cellW-4), "height", ftoa(cellH), "rx", "4", "class", "tm-cell-next")
	// The log start and end.
	if p.Start == p.End {
		b.void("line", "x1", ftoa(x(hi)), "y1", "2", "x2", ftoa(x(hi)), "y2", ftoa(laneTop+cellH+4), "class", "tm-log-start")
		b.el("text", "start = end "+strconv.FormatInt(hi, 10), "x", ftoa(x(hi)+3), "y", "12", "class", "tm-log-label")
	} else {
		// One cell apart, the two labels would overlap: the start's says both.
		near := p.Start >= lo && hi-p.Start < 2
		if p.Start >= lo {
			sx := x(p.Start)
			label := "start " + strconv.FormatInt(p.Start, 10)
			if near {
				label += ", end " + strconv.FormatInt(hi, 10)
			}
			b.void("line", "x1", ftoa(sx), "y1", "2", "x2", ftoa(sx), "y2", ftoa(laneTop+cellH+4), "class", "tm-log-start")
			b.el("text", label, "x", ftoa(sx+3), "y", "12", "class", "tm-log-label")
		}
		b.void("line", "x1", ftoa(x(hi)), "y1", "2", "x2", ftoa(x(hi)), "y2", ftoa(laneTop+cellH+4), "class", "tm-log-end")
		if !near {
			b.el("text", "end "+strconv.FormatInt(hi, 10), "x", ftoa(x(hi)+3), "y", "12", "class", "tm-log-label")
		}
	}
	// Each group's committed offset.
	for i, g := range p.Groups {
		y := laneTop + cellH + 8 + groupRowH*float64(i)
		txt := groupText(p, g)
		switch {
		case g.Committed < 0:
			b.el("text", "○ "+txt, "x", ftoa(x0), "y", ftoa(y+12), "class", "tm-group-label", "data-testid", "group-marker", "data-group", g.Group)
		case g.Committed < lo:
			b.el("text", "◀ "+txt+" (left of the window)", "x", ftoa(x0), "y", ftoa(y+12), "class", "tm-group-label", "data-testid", "group-marker", "data-group", g.Group)
		default:
			gx := x(g.Committed)
			b.void("polygon", "points", pts(gx, y, gx-6, y+12, gx+6, y+12), "class", "tm-group-mark")
			b.el("text", txt, "x", ftoa(gx+9), "y", ftoa(y+12), "class", "tm-group-label", "data-testid", "group-marker", "data-group", g.Group)
		}
	}
	b.close("svg")
	b.close("div")

	// The same lane as text.
	b.open("ul", "class", "tm-lane-groups", "data-testid", "lane-groups")
	for _, g := range p.Groups {
		b.el("li", groupText(p, g), "data-testid", "group-offset", "data-group", g.Group,
			"data-committed", strconv.FormatInt(g.Committed, 10), "data-lag", strconv.FormatInt(g.Lag, 10))
	}
	b.close("ul")
	caption := name + " offsets as text"
	if lo > 0 {
		caption += "; the newest " + itoa(len(cells)) + " of " + strconv.FormatInt(hi, 10) + ", " + strconv.FormatInt(lo, 10) + " earlier not listed"
	}
	b.table(caption, []string{"offset", "key", "version", "state"}, "class", "tm-table tm-lane-table", "data-testid", "lane-table")
	if len(cells) == 0 {
		b.open("tr")
		b.el("td", "no records yet", "colspan", "4", "class", "tm-note")
		b.close("tr")
	}
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
		b.open("tr", "class", cls, "data-testid", "offset", "data-offset", strconv.FormatInt(o, 10), "data-state", state)
		b.el("th", strconv.FormatInt(o, 10), "scope", "row")
		b.el("td", c.key)
		b.el("td", "v"+itoa(int(c.rec.Seq)))
		b.el("td", strings.Join(notes, "; "))
		b.close("tr")
	}
	b.close("tbody")
	b.close("table")
	b.close("div")
}

// laneWindow is the first offset a lane draws: the newest maxCells
// offsets. A group whose position is further back is marked at the left
// edge with its offset in words.
func laneWindow(p logs.PartitionState) int64 { return max(p.End-maxCells, 0) }

// readsAt returns what the group's polls read at exactly step n. Reads are
// in step order.
func readsAt(g *logs.GroupHistory, n int) []logs.ReadRange {
	i, _ := slices.BinarySearchFunc(g.Reads, n, func(r logs.ReadRange, n int) int {
		if int(r.Step) < n {
			return -1
		}
		if int(r.Step) > n {
			return 1
		}
		return 0
	})
	j := i
	for j < len(g.Reads) && int(g.Reads[j].Step) == n {
		j++
	}
	return g.Reads[i:j]
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
		return g.Group + " committed " + strconv.FormatInt(g.Committed, 10) + ", below the log start: offsets " +
			offsets(g.Committed, p.Start) + " are gone before it read them" + lag
	}
	return g.Group + " committed " + strconv.FormatInt(g.Committed, 10) + lag
}

// laneLabel is a lane's picture in one sentence, for a screen reader.
func laneLabel(name string, p logs.PartitionState, lo int64, cells []cellState) string {
	var parts []string
	switch {
	case len(cells) == 0:
		parts = append(parts, name+": no records")
	case lo > 0:
		parts = append(parts, name+": offsets "+offsets(lo, p.End)+" drawn, "+strconv.FormatInt(lo, 10)+" earlier not")
	default:
		parts = append(parts, name+": offsets "+offsets(0, p.End))
	}
	if p.Start > 0 {
		parts = append(parts, "offsets "+offsets(0, p.Start)+" deleted by retention")
	}
	parts = append(parts, "log start "+strconv.FormatInt(p.Start, 10)+", log end "+strconv.FormatInt(p.End, 10))
	var fresh, gone []string
	for i, c := range cells {
		if c.fresh {
			fresh = append(fresh, strconv.FormatInt(lo+int64(i), 10))
		}
		if c.gone {
			gone = append(gone, strconv.FormatInt(lo+int64(i), 10))
		}
	}
	if len(fresh) > 0 {
		parts = append(parts, "appended at this step: offset "+strings.Join(fresh, ", "))
	}
	if len(gone) > 0 {
		parts = append(parts, "deleted at this step: offset "+strings.Join(gone, ", "))
	}
	for _, g := range p.Groups {
		parts = append(parts, groupText(p, g))
	}
	return strings.Join(parts, "; ")
}

// offsets prints offsets [a, b) as "3" or "3–5".
func offsets(a, b int64) string {
	if b-a == 1 {
		return strconv.FormatInt(a, 10)
	}
	return strconv.FormatInt(a, 10) + "–" + strconv.FormatInt(b-1, 10)
}

// pts prints polygon points from x, y pairs.
func pts(xy ...float64) string {
	var sb strings.Builder
	for i := 0; i+1 < len(xy); i += 2 {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(ftoa(xy[i]) + "," + ftoa(xy[i+1]))
	}
	return sb.String()
}

// plural is "1 partition" or "3 partitions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa(n) + " " + noun + "s"
}
