//go:build !tm_hwm && !tm_log

package widget

import (
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
	win "github.com/tidemark/tidemark/engine/window"
)

// The stream chart draws each stream of a scenario at one step against
// event time: a lane per partition of its topic with the records read
// (filled dots) and still to arrive (hollow dots), late records marked by
// shape and named in words, each partition's watermark and whether it is
// idle (hatched and labelled), the stream's watermark across the lanes (the
// minimum, or the one generator's), the step's time, and under the lanes a
// row per window operator with its windows as spans that fill as records
// land and are marked when they fire. The scenario page's stream station
// and the static picture both draw with it.

// streamLegend says in words what the chart's shapes mean, in two lines.
var streamLegend = [2]string{"● read · ○ still to arrive · ◉ taken by a window at this step · ┆ watermark · │ now · ✓ fired", "✕ late, dropped · ◇ late, to the side output · ⊕ late, accepted"}

// maxDots bounds the records a lane draws on each side of the step: the
// latest read and the next to arrive.
const maxDots = 40

// StreamChart draws every stream of t at step, one under the other, and
// returns the <svg> element and its size; empty when t has no stream.
func StreamChart(t *engine.Trace, step int, o ChartOptions) (svg string, width, height float64) {
	var b builder
	width, height = streamChartTo(&b, t, step, o)
	return b.String(), width, height
}

// streamChartTo writes the stream chart to b. Drawn for the stage (not
// standalone), its parts that change from step to step are fragments:
// its description, each stream's heading and axis, each lane, the lines
// across the lanes, and each window operator's row and window (see
// patch.go).
func streamChartTo(b *builder, t *engine.Trace, step int, o ChartOptions) (width, height float64) {
	st := stream.Of(t)
	if st == nil {
		return 0, 0
	}
	step = clamp(step, t.Steps())
	var body builder
	y := 0.0
	for i := range st.Streams {
		y += streamChart(&body, t, st, i, step, y, o)
	}
	height = y + 4
	if o.Standalone {
		height += 30 // the picture's own legend; on the stage, the stage's legend says it
	}
	look := lookFor(o, streamLook)
	desc := streamDesc(t, st, step)
	if o.Standalone {
		openStandalone(b, o, height, "0 0 640 "+ftoa(height), desc, "11")
	} else {
		// The description changes with the watermark: a fragment of its
		// own, so that the chart's element stays put. A group, named by
		// its title, not an image: an image's content is not read, and
		// its late records are links a learner reaches by keyboard.
		b.open("svg", "class", "tm-svg tm-streamchart", "viewBox", "0 0 640 "+ftoa(height), "role", "group", "data-testid", "stream-chart")
		b.fopen("sc-desc", "title")
		b.text(desc)
		b.fclose("title")
	}
	b.open("defs")
	b.open("pattern", "id", "tm-hatch", "width", "6", "height", "6", "patternUnits", "userSpaceOnUse", "patternTransform", "rotate(45)")
	b.void("rect", "width", "6", "height", "6", "fill", "#f6f8fa")
	b.void("line", "x1", "0", "y1", "0", "x2", "0", "y2", "6", "stroke", "#8c959f", "stroke-width", "2")
	b.close("pattern")
	b.close("defs")
	b.splice(&body)
	if o.Standalone {
		textAt(b, look, streamLegend[0], "tm-tick", "4", height-20)
		textAt(b, look, streamLegend[1], "tm-tick", "4", height-6)
	}
	b.close("svg")
	return chartWidth, height
}

// partOf opens a part of the stream chart, a group that is a fragment with
// key, when the chart is drawn for the stage; a picture has no fragments.
// Close it with endPart.
func partOf(b *builder, o ChartOptions, key string) {
	if !o.Standalone {
		b.fopen(key, "g")
	}
}

func endPart(b *builder, o ChartOptions) {
	if !o.Standalone {
		b.fclose("g")
	}
}

// streamDesc says what the chart shows, for its accessible name.
func streamDesc(t *engine.Trace, st *stream.Trace, step int) string {
	var parts []string
	for i, sh := range st.Streams {
		wm, idle := st.Watermark(i, -1, step)
		s := "stream " + sh.Name + " reading " + sh.Topic + ", watermark " + stream.Time(wm)
		if idle {
			s += " (idle)"
		}
		parts = append(parts, s)
	}
	return "Event-time chart: " + strings.Join(parts, "; ") + "; a lane per partition with its records and watermark, and each window operator's windows below"
}

// streamDrawing keeps what one drawing of the stage has asked of the
// stream trace, so that the chart and its text equivalent, drawn for the
// same step, ask once: a window operator's windows are counted from every
// record read by the step, which at a million records is tens of
// milliseconds, and an axis is placed from every lane's records. Within
// one drawing the step is one and each stream's axis is the one kept, so
// a window operator's windows are kept by its index alone.
type streamDrawing struct {
	axes    []streamAxis           // by stream index; tick 0: not drawn yet
	windows [][]stream.WindowState // by window operator's index
	counted []bool                 // by window operator's index: windows holds its windows
}

// axisOf is the axis the chart drew stream si on at step in drawing d, or,
// when it has not, the one it would draw.
func (d *streamDrawing) axisOf(st *stream.Trace, si, step int) streamAxis {
	if d != nil && si < len(d.axes) && d.axes[si].tick != 0 {
		return d.axes[si]
	}
	parts := st.Partitions(si, step)
	wm, _ := st.Watermark(si, -1, step)
	_, oldest := laneDots(st, si, parts, step)
	return axisFor(st, si, parts, wm, oldest)
}

// keepAxis notes the axis stream si was drawn on, for the text to reuse.
func (d *streamDrawing) keepAxis(st *stream.Trace, si int, ax streamAxis) {
	if d == nil {
		return
	}
	if d.axes == nil {
		d.axes = make([]streamAxis, len(st.Streams))
	}
	d.axes[si] = ax
}

// windowsAt answers st.WindowsAt(op, step, lo, hi), once per drawing d
// (whose step and axes are one throughout); a nil d keeps nothing (a
// picture draws the chart once).
func (d *streamDrawing) windowsAt(st *stream.Trace, op, step int, lo, hi vtime.Time) []stream.WindowState {
	if d == nil {
		return st.WindowsAt(op, step, lo, hi)
	}
	if d.counted == nil {
		d.windows, d.counted = make([][]stream.WindowState, len(st.Windows)), make([]bool, len(st.Windows))
	}
	if !d.counted[op] {
		d.windows[op], d.counted[op] = st.WindowsAt(op, step, lo, hi), true
	}
	return d.windows[op]
}

// streamAxis is the span of event time a stream's chart shows.
type streamAxis struct {
	lo, hi vtime.Time
	tick   vtime.Duration
}

// axisFor picks the span around a stream's watermark and its newest
// records: five of its windows' sizes (a fifth of a join's interval,
// rounded up to a niceSpan, for a stream only a join reads; ten seconds for
// any other), or fewer when the records of the whole run fit in fewer
// (spanWindows), aligned to them, ending with the window of the newest
// record read, or starting with the window of the oldest record the lanes
// draw (oldest, see laneDots; watermark.None when they draw none) when that
// is later. Before the stream has read or drawn anything, the span starts
// with the window of the first record it will read.
func axisFor(st *stream.Trace, si int, parts []stream.PartState, wm, oldest vtime.Time) streamAxis {
	sh := st.Streams[si]
	size, name := 10*vtime.Second, sh.Name
	windowed := false
	for _, wh := range st.Windows {
		if wh.Stream == name {
			switch a := wh.Config.Assigner; a.Kind {
			case win.Session:
				size = max(a.Gap*2, vtime.Second)
			case win.Sliding:
				size = a.Slide
			default:
				size = a.Size
			}
			windowed = true
			break
		}
	}
	if !windowed {
		// A stream that only a join reads: the span is the join's interval,
		// so that a record and the partners it may meet are drawn together.
		for _, jh := range st.Joins {
			if (jh.Left == name || jh.Right == name) && jh.Config.Upper > jh.Config.Lower {
				size = niceSpan((jh.Config.Upper - jh.Config.Lower + 4) / 5)
				break
			}
		}
	}
	n := spanWindows(sh, size)
	span := n * size
	top := watermark.None
	for _, p := range parts {
		top = max(top, p.MaxSeen)
	}
	if wm != watermark.None && wm != watermark.End {
		top = max(top, wm)
	}
	if top == watermark.None && oldest != watermark.None {
		top = oldest
	}
	if top == watermark.None {
		// Nothing read or drawn yet: the span starts with the window of the
		// run's first record, where the records will come, not at midnight.
		lo := vtime.Time(0)
		if first, _, ok := sh.EventSpan(); ok {
			lo = win.StartWithOffset(first, 0, size)
		}
		return streamAxis{lo: lo, hi: lo.Add(span), tick: axisTick(span, size)}
	}
	end := win.StartWithOffset(top, 0, size).Add(size)
	lo := end.Add(-span)
	// Nothing before the oldest record drawn: the span starts at its
	// window and runs on into the time still to come, rather than showing
	// minutes in which nothing happened. The scale stays n windows.
	if oldest != watermark.None {
		if s := win.StartWithOffset(oldest, 0, size); s > lo {
			lo, end = s, s.Add(span)
		}
	}
	if wm != watermark.None && wm != watermark.End && wm < lo {
		lo = win.StartWithOffset(wm, 0, size) // the watermark held far back: widen to show it
	}
	return streamAxis{lo: lo, hi: end, tick: axisTick(vtime.Duration(end-lo), size)}
}

// spanWindows is how many windows of size the chart of a stream spans:
// five, or as many as the event times of every record the stream reads in
// the run cover, from the window of the earliest to the window of the
// latest, when that is fewer (at least one). It depends on the run, not
// the step, so the scale stays the same while the learner steps: a run
// whose records span twenty seconds of one-minute windows is drawn over
// one minute, not five.
func spanWindows(sh *stream.StreamHistory, size vtime.Duration) vtime.Duration {
	first, last, ok := sh.EventSpan()
	if !ok {
		return 5
	}
	lo := win.StartWithOffset(first, 0, size)
	hi := win.StartWithOffset(last, 0, size).Add(size)
	return min(5, max(1, vtime.Duration(hi-lo)/size))
}

// axisTick is the interval between an axis's labelled ticks over span: the
// window's size, doubled until there are at most six intervals (on the
// chart's 528 px of event time that is 88 px a label, room for a time with
// milliseconds beside its neighbours), or a niceSpan of about a fifth of
// the span when the span holds fewer than three windows, so that a short
// axis still has a scale to read.
func axisTick(span, size vtime.Duration) vtime.Duration {
	if span < 3*size {
		return niceSpan(span / 5)
	}
	tick := size
	for span/tick > 6 {
		tick *= 2
	}
	return tick
}

// laneLabelChars is how many characters of a lane's label fit left of the
// lanes: 92 of the chart's 640 units, in an 11-unit monospaced font of
// about 6.6 units a character.
const laneLabelChars = 13

// laneLabel draws a lane's label with its baseline at y. A label too long
// for the room left of the lanes is cut with an ellipsis and says itself
// whole in its title, rather than running into the records.
func laneLabel(b *builder, look func(class string, attrs ...string) []string, label string, y float64) {
	attrs := look("tm-lanelabel", "x", "4", "y", ftoa(y))
	chars, cut := 0, 0 // its characters, and where the one the ellipsis takes starts
	for i := range label {
		if chars == laneLabelChars-1 {
			cut = i
		}
		chars++
	}
	if chars <= laneLabelChars {
		b.el("text", label, attrs...)
		return
	}
	b.open("text", attrs...)
	b.el("title", label)
	b.text(label[:cut] + "…")
	b.close("text")
}

// niceSpans are the tick intervals an axis of event time takes, shortest first.
var niceSpans = []vtime.Duration{
	vtime.Second, 2 * vtime.Second, 5 * vtime.Second, 10 * vtime.Second, 15 * vtime.Second, 30 * vtime.Second,
	vtime.Minute, 2 * vtime.Minute, 5 * vtime.Minute, 10 * vtime.Minute, 15 * vtime.Minute, 30 * vtime.Minute, vtime.Hour,
}

// niceSpan is the shortest of niceSpans at least d long, or a whole number
// of hours past them.
func niceSpan(d vtime.Duration) vtime.Duration {
	for _, n := range niceSpans {
		if n >= d {
			return n
		}
	}
	return (d + vtime.Hour - 1) / vtime.Hour * vtime.Hour
}

// laneDots are the records the chart draws on each of stream si's lanes
// after step (by the index of the partition in parts), and the earliest
// event time among them, or watermark.None when there are none.
func laneDots(st *stream.Trace, si int, parts []stream.PartState, step int) (dots [][]stream.Dot, oldest vtime.Time) {
	dots = make([][]stream.Dot, len(parts))
	oldest = watermark.None
	for i, p := range parts {
		dots[i] = st.Dots(si, p.Part, step, maxDots)
		for _, d := range dots[i] {
			if oldest == watermark.None || d.Time < oldest {
				oldest = d.Time
			}
		}
	}
	return dots, oldest
}

// streamChart draws stream si at step from height y and returns the height it took.
func streamChart(b *builder, t *engine.Trace, st *stream.Trace, si, step int, y float64, o ChartOptions) float64 {
	look := lookFor(o, streamLook)
	sh := st.Streams[si]
	parts := st.Partitions(si, step)
	wm, idle := st.Watermark(si, -1, step)
	dots, oldest := laneDots(st, si, parts, step)
	ax := axisFor(st, si, parts, wm, oldest)
	o.drawing.keepAxis(st, si, ax)
	const w, left, right, laneH = chartWidth, 96.0, 16.0, 22.0
	// The axis runs inside the lanes by a dot's width at each end, so that a
	// record at either end of the span is drawn whole within its lane.
	const inset = 5.0
	x := func(at vtime.Time) float64 {
		return left + inset + (w-left-right-2*inset)*float64(at-ax.lo)/float64(ax.hi-ax.lo)
	}
	inside := func(at vtime.Time) bool { return at >= ax.lo && at <= ax.hi }
	top := y
	// The heading: the watermark first, whose value a phone's box, under
	// half the chart wide, shows whole; then the stream, its topic and
	// what the watermark is the minimum of, which the box may cut.
	title := "watermark " + stream.Time(wm) + " · " + sh.Name + " ← " + sh.Topic
	switch {
	case idle:
		title += " (every partition idle)"
	case sh.SourceReaders(len(parts)) > 1:
		title += " (one generator per reader, the minimum over them)"
	case sh.SourceReaders(len(parts)) == 1:
		title += " (one generator for every partition)"
	case len(parts) > 1:
		title += " (the minimum over its partitions)"
	}
	key := "sc" + itoa(si)
	partOf(b, o, key+"-head")
	textAt(b, look, title, "tm-lanelabel", "4", y+13, "font-weight", "700")
	y += 20
	// The axis: event time.
	line(b, look, "tm-axis", left, y+14, w-right, y+14)
	textAt(b, look, "event time", "tm-tick", "4", y+16)
	for tk := ax.lo; tk <= ax.hi; tk = tk.Add(ax.tick) {
		// Centred on its tick, unless that would run past an end of the
		// axis (a monospaced 10 px label is about 6 px a character).
		label := tk.String()
		anchor, half := "middle", 3*float64(len(label))
		switch px := x(tk); {
		case px-half < left:
			anchor = "start"
		case px+half > w-right:
			anchor = "end"
		}
		textAt(b, look, label, "tm-tick", ftoa(x(tk)), y+10, "text-anchor", anchor)
		line(b, look, "tm-axis", x(tk), y+12, x(tk), y+16)
	}
	endPart(b, o)
	y += 20
	lanesTop := y
	// The records the stream's windows took at this step: each moves from
	// its dot into its window (see streammove.go).
	type token struct {
		id int64
		at vtime.Time
	}
	taken := takenAt(st, si, step)
	var tokens []token
	var next map[int64]bool // the records that may move from their dots at the next step
	if !o.Standalone {
		next = movingNext(st, step)
	}
	for pi, p := range parts {
		partOf(b, o, key+"-lane-"+itoa(p.Part))
		class := "tm-lane"
		if p.Idle && sh.Config.Scope == watermark.PerPartition {
			class = "tm-lane tm-idle"
		}
		name := sh.Topic + "-" + itoa(p.Part)
		laneLabel(b, look, name, y+15)
		rectAt(b, look, class, left, y+2, w-left-right, laneH-4, "data-partition", itoa(p.Part))
		if p.Idle && sh.Config.Scope == watermark.PerPartition {
			textAt(b, look, "idle", "tm-wmlabel", ftoa(w-right-4), y+15, "text-anchor", "end")
		}
		if sh.Config.Scope == watermark.PerPartition && inside(p.Watermark) {
			px := x(p.Watermark)
			line(b, look, "tm-pwm", px, y+3, px, y+laneH-3)
		}
		early := 0
		for _, d := range dots[pi] {
			if !inside(d.Time) {
				if d.Time < ax.lo {
					early++
				}
				continue
			}
			cx, cy := x(d.Time), y+laneH/2
			if d.Late >= 0 {
				lateMark(b, st, d, cx, cy, look, !o.Standalone, o.LateHref)
				if _, ok := taken[d.ID]; ok {
					tokens = append(tokens, token{d.ID, d.Time}) // late, within the lateness: it counts
				}
				continue
			}
			class := "tm-dot"
			switch {
			case !d.Read:
				class = "tm-dot tm-wait"
			case d.Fresh:
				class = "tm-dot tm-fresh"
			}
			attrs := look(class, "cx", ftoa(cx), "cy", ftoa(cy), "r", "3.5")
			if next[d.ID] {
				attrs = append(attrs, "data-chip", recChip(d.ID))
			}
			if _, ok := taken[d.ID]; ok {
				tokens = append(tokens, token{d.ID, d.Time})
			}
			b.void("circle", attrs...)
		}
		if early > 0 {
			textAt(b, look, "◀ "+itoa(early), "tm-tick", ftoa(left+2), y+15)
		}
		endPart(b, o)
		y += laneH
	}
	partOf(b, o, key+"-lines")
	// The stream's watermark across the lanes, and the step's time.
	if inside(wm) {
		wx := x(wm)
		line(b, look, "tm-wmline", wx, lanesTop, wx, y)
	}
	if step > 0 {
		if now := t.Events[step-1].At; inside(now) {
			nx := x(now)
			line(b, look, "tm-nowline", nx, lanesTop, nx, y)
		}
	}
	endPart(b, o)
	// A row per window operator reading the stream.
	for wi, wh := range st.Windows {
		if wh.Stream != sh.Name {
			continue
		}
		wkey := key + "-w" + itoa(wi)
		partOf(b, o, wkey)
		y += 4
		if wh.Config.Domain == win.ProcessingTime {
			// On a line of its own: beside the name it ran into the lanes.
			laneLabel(b, look, wh.Name, y+13)
			textAt(b, look, "(proc. time)", "tm-tick", "4", y+25)
		} else {
			laneLabel(b, look, wh.Name, y+18)
		}
		wins := o.drawing.windowsAt(st, wi, step, ax.lo, ax.hi)
		most := int64(1)
		for _, ws := range wins {
			most = max(most, ws.Count)
		}
		session := wh.Config.Assigner.Kind == win.Session
		var rows []int // a session's half row, by its index in wins
		height := 26.0 // of the operator's row
		if session {
			var n int
			rows, n = sessionRows(wins)
			height = max(height, float64(n)*13-1)
		}
		var seen map[vtime.Time]int // windows drawn by their start, for their fragments' names
		for k, ws := range wins {
			x0, x1 := x(max(ws.Window.Start, ax.lo)), x(min(ws.Window.End, ax.hi))
			rowY := y + 2
			h := 26.0
			switch {
			case session:
				// Sessions of different keys overlap: each on the first
				// half row free at its start.
				h = 12
				rowY += float64(rows[k]) * 13
			case wh.Config.Assigner.Kind == win.Sliding:
				// Overlapping windows take turns on two half rows.
				h = 12
				rowY += float64(k%2) * 13
			}
			class := "tm-win"
			switch {
			case ws.Cleared:
				class = "tm-win tm-gone"
			case ws.Fired > 0:
				class = "tm-win tm-fired"
			}
			if o.Standalone {
				b.open("g", "data-window", ws.Window.Start.String())
			} else {
				// A key's windows can share a start with another key's:
				// the fragment is named by the start and which of those it is.
				if seen == nil {
					seen = map[vtime.Time]int{}
				}
				same := seen[ws.Window.Start]
				seen[ws.Window.Start]++
				b.fopen(wkey+"-"+ws.Window.Start.String()+"-"+itoa(same), "g", "data-window", ws.Window.Start.String(), "data-chip", winChip(wi, ws.Window.Start))
			}
			if !o.Standalone { // a picture says it in its text
				b.el("title", windowTitle(wh, ws))
			}
			rectAt(b, look, class, x0, rowY, max(x1-x0-1, 1), h)
			if ws.Count > 0 {
				fh := h * float64(ws.Count) / float64(most)
				rectAt(b, look, "tm-winfill", x0, rowY+h-fh, max(x1-x0-1, 1), fh)
			}
			if h > 20 && x1-x0 > 40 {
				txt := itoa(int(ws.Count))
				if ws.Fired > 0 {
					// ✓3: fired three times. Not ×3, which reads as the
					// ✕ of records dropped in the chart's small type.
					txt += " ✓"
					if ws.Fired > 1 {
						txt += itoa(ws.Fired)
					}
				}
				// Late records in the legend's marks: ✕ dropped, ◇ set
				// aside, ⊕ accepted (and fired again).
				if d := ws.Late - ws.Side; d > 0 {
					txt += " ✕" + itoa(d)
				}
				if ws.Side > 0 {
					txt += " ◇" + itoa(ws.Side)
				}
				if ws.Redone > 0 {
					txt += " ⊕" + itoa(ws.Redone)
				}
				textAt(b, look, txt, "tm-wintext", ftoa(x0+3), rowY+16)
			}
			// The records it took at this step, moving in from their lanes.
			for ti := 0; ti < len(tokens); ti++ {
				tk := tokens[ti]
				if tk.at < ws.Window.Start || tk.at >= ws.Window.End {
					continue
				}
				tx := min(max(x(tk.at), x0+5), x1-6)
				attrs := look("tm-token", "cx", ftoa(tx), "cy", ftoa(rowY+h/2), "r", "4.5")
				if !o.Standalone { // on the stage it moves in from its lane
					attrs = append(attrs, "data-new", "on", "data-from", recChip(tk.id), "data-testid", "window-token")
				}
				b.void("circle", attrs...)
				tokens = append(tokens[:ti], tokens[ti+1:]...) // one window takes it on the picture
				ti--
			}
			if o.Standalone {
				b.close("g")
			} else {
				b.fclose("g")
			}
		}
		endPart(b, o)
		y += height + 4
	}
	return y - top + 6
}

// maxSessionRows is how many half rows a session window operator's row
// grows to; beyond them, sessions share the rows in turn.
const maxSessionRows = 6

// sessionRows lays session windows (sorted by start) out on half rows: each
// on the first row whose windows have all ended by its start. It returns
// each window's row and how many rows there are.
func sessionRows(wins []stream.WindowState) (rows []int, n int) {
	rows = make([]int, len(wins))
	var ends []vtime.Time // by row, the end of its last window
	for k, ws := range wins {
		r := -1
		for i, e := range ends {
			if e <= ws.Window.Start {
				r = i
				break
			}
		}
		switch {
		case r >= 0:
		case len(ends) < maxSessionRows:
			r = len(ends)
			ends = append(ends, 0)
		default:
			r = k % maxSessionRows
		}
		rows[k] = r
		ends[r] = max(ends[r], ws.Window.End)
	}
	return rows, max(len(ends), 2)
}

// windowTitle says what a window holds, for its tooltip and text.
func windowTitle(wh *stream.WindowHistory, ws stream.WindowState) string {
	s := wh.Name + " " + ws.Window.String()
	if ws.KeyName != "" {
		s += " of key " + ws.KeyName
	}
	s += ": " + plural(int(ws.Count), "record")
	if ws.Keys > 1 {
		s += " of " + itoa(ws.Keys) + " keys"
	}
	switch {
	case ws.Fired == 1:
		s += ", fired"
	case ws.Fired > 1:
		s += ", fired " + itoa(ws.Fired) + " times"
	default:
		s += ", open"
	}
	if ws.Cleared {
		s += ", cleared"
	}
	if d := ws.Late - ws.Side; d > 0 {
		s += ", " + itoa(d) + " too late for it, dropped"
	}
	if ws.Side > 0 {
		s += ", " + itoa(ws.Side) + " too late for it, sent to the side output"
	}
	if ws.Redone > 0 {
		s += ", " + plural(ws.Redone, "late record") + " accepted within the allowed lateness"
	}
	return s
}

// lateLabel names a late record's link so that a list of links tells one
// from another: "Late record phone-9, event time 10:01:20, dropped: why?".
func lateLabel(st *stream.Trace, l *stream.LatePoint) string {
	return "Late record " + st.RecordName(st.ArrivalID(l.Arrival)) + ", event time " + l.Time.String() + ", " + win.Fate(l.Fate).String() + ": why?"
}

// lateMark draws a late record: a cross when dropped, a diamond when set
// aside, a circled plus when accepted, with its reason as its title.
func lateMark(b *builder, st *stream.Trace, d stream.Dot, cx, cy float64, look func(string, ...string) []string, titled bool, href func(int) string) {
	l := &st.Late[d.Late]
	if href != nil {
		// A link a learner can click or reach by keyboard: it opens why.
		b.open("a", "href", href(d.Late), "data-act", "explain", "data-key", lateKey(d.Late),
			"aria-label", lateLabel(st, l), "data-testid", "late-record")
	}
	if titled {
		b.open("g", "data-late", itoa(d.Late), "data-fate", win.Fate(l.Fate).String())
	} else {
		b.open("g", "data-late", itoa(d.Late))
	}
	if titled {
		b.el("title", "Late: "+st.WhyLate(d.Late))
	}
	const r = 4.0
	switch win.Fate(l.Fate) {
	case win.Accepted:
		b.void("circle", look("tm-late", "cx", ftoa(cx), "cy", ftoa(cy), "r", ftoa(r))...)
		line(b, look, "tm-late", cx-r, cy, cx+r, cy)
		line(b, look, "tm-late", cx, cy-r, cx, cy+r)
	case win.SideOutput:
		b.void("polygon", look("tm-late", "points", ftoa(cx)+","+ftoa(cy-r-1)+" "+ftoa(cx+r+1)+","+ftoa(cy)+" "+ftoa(cx)+","+ftoa(cy+r+1)+" "+ftoa(cx-r-1)+","+ftoa(cy))...)
	default:
		line(b, look, "tm-late", cx-r, cy-r, cx+r, cy+r)
		line(b, look, "tm-late", cx-r, cy+r, cx+r, cy-r)
	}
	if href != nil {
		// A larger, invisible target for a finger or a pointer.
		b.void("circle", "class", "tm-hit", "cx", ftoa(cx), "cy", ftoa(cy), "r", "9")
	}
	b.close("g")
	if href != nil {
		b.close("a")
	}
}

// lateKey is the explain key of the late record with index i in a stream
// trace's Late: "late:" and the index. No target's key has that shape,
// since a window's row is named by its window and a join's by its pair.
func lateKey(i int) string { return "late:" + itoa(i) }

// streamStation draws the stream world's part of the stage, between the
// log and the targets: each stream's partitions and watermarks against
// event time, late records by shape, and each window operator's windows
// filling and firing (the chart the static picture draws too). A late
// record links to why it was late. The chart keeps its size and scrolls
// sideways in its box on a narrow screen; in words, it is part of the text
// equivalent (streamList).
func streamStation(b *builder, v *atStep) {
	station(b, "st-streams", "stream", "Streams: watermarks and windows", "panel-stream")
	b.fopen("stream-chart", "div", "class", "tm-streamwrap", "role", "group", "tabindex", "0",
		"aria-label", "the streams against event time; scrolls sideways", "data-testid", "stream-wrap")
	streamChartTo(b, v.t, v.s.Step, ChartOptions{LateHref: func(i int) string {
		return stageLink(v.t, v.s, "explain", lateKey(i))
	}, drawing: &v.streams})
	b.fclose("div")
	b.fclose("section")
}

// streamList is the stream chart in words, for the text equivalent.
func streamList(b *builder, v *atStep) {
	b.fopen("tbl-streams", "div", "class", "tm-streamtext", "data-testid", "stream-text")
	b.el("h4", "Streams, watermarks and windows")
	b.open("ul")
	for _, line := range streamText(v.t, v.s.Step, &v.streams) {
		b.el("li", line)
	}
	b.close("ul")
	b.fclose("div")
}

// StreamText says in sentences what the stream chart draws at step: the
// text equivalent of the picture.
func StreamText(t *engine.Trace, step int) []string { return streamText(t, step, nil) }

// streamText is StreamText asking the stream trace through drawing d.
func streamText(t *engine.Trace, step int, d *streamDrawing) []string {
	st := stream.Of(t)
	if st == nil {
		return nil
	}
	step = clamp(step, t.Steps())
	var out []string
	for i, sh := range st.Streams {
		wm, idle := st.Watermark(i, -1, step)
		s := "Stream " + sh.Name + " reads " + sh.Topic + "; its watermark is " + stream.Time(wm)
		if idle {
			s += ", every partition idle"
		}
		var lanes []string
		for _, p := range st.Partitions(i, step) {
			l := sh.Topic + "-" + itoa(p.Part) + " has read " + itoa(p.Read) + " of " + itoa(p.Appended)
			if p.MaxSeen != watermark.None {
				l += ", newest event time " + p.MaxSeen.String()
			}
			if sh.Config.Scope == watermark.PerPartition {
				l += ", watermark " + stream.Time(p.Watermark)
				if p.Idle {
					l += ", idle"
				}
			}
			lanes = append(lanes, l)
		}
		out = append(out, s+": "+strings.Join(lanes, "; ")+".")
	}
	for wi, wh := range st.Windows {
		si := -1
		for i, sh := range st.Streams {
			if sh.Name == wh.Stream {
				si = i
			}
		}
		ax := d.axisOf(st, si, step)
		var ws []string
		for _, x := range d.windowsAt(st, wi, step, ax.lo, ax.hi) {
			ws = append(ws, strings.TrimPrefix(windowTitle(wh, x), wh.Name+" "))
		}
		if len(ws) == 0 {
			ws = []string{"none yet"}
		}
		out = append(out, "Window "+wh.Name+": "+strings.Join(ws, "; ")+".")
	}
	for ji, jh := range st.Joins {
		l, r := st.Buffered(ji, step)
		pairs := len(st.PairsAt(step))
		line := "Join " + jh.Name + " buffers " + itoa(l) + " records of " + jh.Left + " and " + itoa(r) + " of " + jh.Right + "; " + itoa(pairs) + " pairs so far"
		line += "; its watermark, the minimum of its streams' leaving out an idle one, " + stream.Time(jh.WatermarkAt(step))
		late := 0
		for _, lp := range st.LateAt(step) {
			if lp.Join && int(lp.Op) == ji {
				late++
			}
		}
		if late > 0 {
			line += "; " + plural(late, "record") + " behind it, dropped or set aside: they never join"
		}
		out = append(out, line+".")
	}
	return out
}
