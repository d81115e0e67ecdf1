//go:build !tm_hwm && !tm_log

package widget_test

import (
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/window"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/templates/widget"
)

// The stream chart draws a lane per partition, marks a late record by its
// shape with its reason as its title, hatches and labels an idle partition,
// and says the same in words.
func TestStreamChart(t *testing.T) {
	tr := run(t, "stream/late-data", nil)
	st := stream.Of(tr)
	require.NotEmpty(t, st.Late)
	step := int(st.Late[len(st.Late)-1].Step)
	svg, w, h := widget.StreamChart(tr, step, widget.ChartOptions{})
	assert.Equal(t, 640.0, w)
	assert.Positive(t, h)
	assert.Contains(t, svg, `data-testid="stream-chart"`)
	assert.Contains(t, svg, `data-partition="0"`, "a lane for clicks-0")
	assert.Equal(t, 4, strings.Count(svg, `data-late=`), "the four late clicks are marked")
	assert.Contains(t, svg, "<title>Late: phone-9 arrived at 10:02:30 from clicks-0; its event time 10:01:20 puts it in [10:01:00, 10:02:00), which fired at watermark 10:01:59.999")
	assert.Contains(t, svg, "tm-wmline", "the stream's watermark across the lanes")
	assert.Contains(t, svg, `data-window="10:01:00"`, "the minute the late clicks belong to")
	assert.NotContains(t, svg, "✕ late, dropped", "on the stage the stage's legend says what the shapes mean")
	picture, _, _ := widget.StreamChart(tr, step, widget.ChartOptions{Standalone: true})
	assert.Contains(t, picture, "✕ late, dropped", "a picture says it itself")
	require.Equal(t, window.Dropped, window.Fate(st.Late[0].Fate))

	tr = run(t, "stream/idle-partition", nil)
	st = stream.Of(tr)
	idleAt := 0
	for _, wp := range st.Watermarks {
		if wp.Part == 2 && wp.Idle {
			idleAt = int(wp.Step)
			break
		}
	}
	require.Positive(t, idleAt)
	svg, _, _ = widget.StreamChart(tr, idleAt, widget.ChartOptions{})
	assert.Contains(t, svg, `class="tm-lane tm-idle"`, "the idle partition's lane is hatched")
	assert.Contains(t, svg, ">idle</text>", "and labelled, not by colour alone")
	text := strings.Join(widget.StreamText(tr, idleAt), " ")
	assert.Contains(t, text, "sales-2 has read")
	assert.Contains(t, text, ", idle")
	assert.Contains(t, text, "Window per_minute:")

	standalone, _, _ := widget.StreamChart(tr, idleAt, widget.ChartOptions{Standalone: true, X: 20, Y: 40})
	assert.Contains(t, standalone, `fill="url(#tm-hatch)"`, "a picture carries its colours as attributes")
	assert.NotContains(t, standalone, "data-testid")

	none, _, _ := widget.StreamChart(run(t, "hwm/visibility-gap", nil), 3, widget.ChartOptions{})
	assert.Empty(t, none, "no stream, no chart")
}

// A join's buffers are said in words at every step.
func TestStreamTextOfAJoin(t *testing.T) {
	tr := run(t, "stream/join-skew", nil)
	text := strings.Join(widget.StreamText(tr, tr.Steps()/2), " ")
	assert.Contains(t, text, "Join paid_orders buffers")
}

// A window says what became of its late records in the legend's marks —
// ✕ dropped, ◇ sent to the side output, ⊕ accepted and fired again — so a
// window that counted its late clicks does not read as one that lost them.
func TestWindowSaysWhatBecameOfItsLateRecords(t *testing.T) {
	for _, c := range []struct {
		knobs       map[string]string
		label, what string
	}{
		{map[string]string{"lateness": "0s", "late": "drop"}, ">14 ✓ ✕4<", "4 too late for it, dropped"},
		{map[string]string{"lateness": "0s", "late": "side-output"}, ">14 ✓ ◇4<", "4 too late for it, sent to the side output"},
		{map[string]string{"lateness": "2m", "late": "drop"}, ">18 ✓5 ⊕4<", "fired 5 times, 4 late records accepted within the allowed lateness"},
	} {
		tr := run(t, "stream/late-data", c.knobs)
		st := stream.Of(tr)
		require.Len(t, st.Late, 4, "%v", c.knobs)
		step := int(st.Late[3].Step)
		svg, _, _ := widget.StreamChart(tr, step, widget.ChartOptions{})
		assert.Contains(t, svg, c.label, "%v", c.knobs)
		assert.Contains(t, svg, "<title>per_minute [10:01:00, 10:02:00): ", "%v", c.knobs)
		text := strings.Join(widget.StreamText(tr, step), " ")
		assert.Contains(t, text, c.what, "%v", c.knobs)
		if c.knobs["lateness"] == "2m" {
			assert.NotContains(t, svg, "✕", "nothing was dropped")
			assert.NotContains(t, text, "too late for it")
		}
	}
}

// The event-time axis's labels never overlap, whatever the axis spans: a
// watermark held far back widens it (join-skew's idle payments), and its
// labels at the ends are anchored inside the axis.
func TestStreamAxisLabelsDoNotOverlap(t *testing.T) {
	tick := regexp.MustCompile(`<text x="([0-9.]+)" y="([0-9.]+)" text-anchor="(start|middle|end)" class="tm-tick">([^<]*)</text>`)
	checked := 0
	for _, c := range []struct {
		id    string
		knobs map[string]string
	}{
		{"stream/join-skew", map[string]string{"idleness": "30s"}},
		{"stream/join-skew", nil},
		{"stream/watermark-quiet-partition", nil},
		{"stream/late-data", nil},
		{"stream/session-window", nil},
	} {
		tr := run(t, c.id, c.knobs)
		for n := 0; n <= tr.Steps(); n += max(1, tr.Steps()/40) {
			svg, _, _ := widget.StreamChart(tr, n, widget.ChartOptions{})
			type span struct{ lo, hi float64 }
			rows := map[string][]span{}
			for _, m := range tick.FindAllStringSubmatch(svg, -1) {
				x, _ := strconv.ParseFloat(m[1], 64)
				w := 6 * float64(len(m[4]))
				lo := x - w/2
				switch m[3] {
				case "start":
					lo = x
				case "end":
					lo = x - w
				}
				rows[m[2]] = append(rows[m[2]], span{lo, lo + w})
			}
			for y, spans := range rows {
				for i := 1; i < len(spans); i++ {
					require.LessOrEqual(t, spans[i-1].hi, spans[i].lo, "%s %v step %d: the labels at y=%s overlap", c.id, c.knobs, n, y)
				}
				checked++
			}
		}
	}
	require.Positive(t, checked)
}

// A per-source watermark is one generator over every partition with one
// reader, and one per reader, their minimum, with several: the chart's
// title says which.
func TestStreamChartSaysHowTheWatermarkIsMade(t *testing.T) {
	const id = "stream/watermark-fastest-partition"
	tr := run(t, id, map[string]string{"scope": "per-source"})
	svg, _, _ := widget.StreamChart(tr, tr.Steps(), widget.ChartOptions{})
	assert.Contains(t, svg, " (one generator for every partition)</text>", "beside the watermark")

	sc, ok := lessons.Lookup(id)
	require.True(t, ok)
	f, err := scenario.Parse("par.tdm", []byte(strings.Replace(string(sc.Source), "stream tills from=sales", "stream tills from=sales parallelism=3", 1)))
	require.NoError(t, err)
	tr, err = engine.Run(f, map[string]string{"scope": "per-source"}, 1, worlds.All())
	require.NoError(t, err)
	svg, _, _ = widget.StreamChart(tr, tr.Steps(), widget.ChartOptions{})
	assert.Contains(t, svg, " (one generator per reader, the minimum over them)</text>")
}

// The event-time axis starts at the window of the oldest record it draws,
// not minutes before anything happened, and runs five windows on into the
// time still to come; once the newest record read passes its end, it
// scrolls with it.
func TestStreamAxisStartsWhereTheRecordsDo(t *testing.T) {
	tick := regexp.MustCompile(`class="tm-tick">([0-9:.]+)</text>`)
	ticks := func(tr *engine.Trace, step int) []string {
		svg, _, _ := widget.StreamChart(tr, step, widget.ChartOptions{})
		var out []string
		for _, m := range tick.FindAllStringSubmatch(svg, -1) {
			out = append(out, m[1])
		}
		return out
	}
	// The clicks begin at 10:00:00. A minute in, the axis starts there;
	// it used to end at the newest click's window and start five minutes
	// earlier, at 09:57:00. The run's clicks end at 10:03:55, so it spans
	// four windows (see TestStreamAxisSpansTheRunsRecords).
	tr := run(t, "stream/late-data", nil)
	st := stream.Of(tr)
	step := -1
	for n := range tr.Steps() {
		if ps := st.Partitions(0, n); len(ps) > 0 && ps[0].MaxSeen >= vtime.Time(10*vtime.Hour+vtime.Minute+10*vtime.Second) {
			step = n
			break
		}
	}
	require.Positive(t, step)
	assert.Equal(t, []string{"10:00:00", "10:01:00", "10:02:00", "10:03:00", "10:04:00"}, ticks(tr, step))

	// The tills sell from 10:00:00 to 10:05:50: at the end the newest sale's
	// window closes at 10:06:00, and the axis has scrolled to end there.
	tr = run(t, "stream/watermark-fastest-partition", map[string]string{"scope": "per-partition"})
	assert.Equal(t, []string{"10:01:00", "10:02:00", "10:03:00", "10:04:00", "10:05:00", "10:06:00"}, ticks(tr, tr.Steps()))
}

// The axis spans at most as many windows as the whole run's records
// cover, and the same at every step. In hot-key every click falls within
// 10:00:00–10:00:20, in the first of the one-minute windows: the axis
// spans that minute with ticks every 15 seconds at every step. It spanned
// five minutes, and the twenty seconds of clicks were one cramped
// fifteenth of it (at step 0, the five minutes after midnight).
func TestStreamAxisSpansTheRunsRecords(t *testing.T) {
	tick := regexp.MustCompile(`class="tm-tick">([0-9:.]+)</text>`)
	tr := run(t, "stream/hot-key", nil)
	want := []string{"10:00:00", "10:00:15", "10:00:30", "10:00:45", "10:01:00"}
	// At step 0, before anything is written, the axis starts where the
	// first record will come, not at 00:00:00.
	for _, step := range []int{0, 1, tr.Steps() / 2, tr.Steps()} {
		svg, _, _ := widget.StreamChart(tr, step, widget.ChartOptions{})
		var got []string
		for _, m := range tick.FindAllStringSubmatch(svg, -1) {
			got = append(got, m[1])
		}
		assert.Equal(t, want, got, "step %d", step)
		assert.NotContains(t, svg, "◀", "step %d: no record read is before the axis", step)
	}
}

// A stream that only a join reads is drawn over the join's interval: in
// join-skew (orders every 30 s, a payment 20 s after each, matched within
// five minutes) the two charts span five minutes, and every order and
// payment read so far is on them. They spanned 50 seconds, and most
// records were off the axis, counted by a "◀ N".
func TestStreamAxisOfAJoinSpansItsInterval(t *testing.T) {
	tick := regexp.MustCompile(`class="tm-tick">([0-9:.]+)</text>`)
	tr := run(t, "stream/join-skew", map[string]string{"idleness": "30s"})
	svg, _, _ := widget.StreamChart(tr, 40, widget.ChartOptions{})
	var got []string
	for _, m := range tick.FindAllStringSubmatch(svg, -1) {
		got = append(got, m[1])
	}
	minutes := []string{"10:00:00", "10:01:00", "10:02:00", "10:03:00", "10:04:00", "10:05:00"}
	assert.Equal(t, append(slices.Clone(minutes), minutes...), got, "both streams, ordered and paid, over the same five minutes")
	assert.NotContains(t, svg, "◀", "no record read so far is off the axis")
}

// Every label left of the lanes fits in the room there, so that none runs
// into the records: a long name is cut with an ellipsis and says itself
// whole in its title, and a processing-time window says so on a line of
// its own (event-vs-arrival's "per_minute (proc.)" ran over its first
// window).
func TestStreamLaneLabelsFit(t *testing.T) {
	label := regexp.MustCompile(`<text x="4" y="[0-9.]+" class="tm-lanelabel">(?:<title>([^<]*)</title>)?([^<]*)</text>`)
	scs, err := lessons.Scenarios()
	require.NoError(t, err)
	checked := 0
	for _, sc := range scs {
		if !strings.HasPrefix(sc.ID, "stream/") {
			continue
		}
		tr := run(t, sc.ID, nil)
		svg, _, _ := widget.StreamChart(tr, tr.Steps(), widget.ChartOptions{})
		for _, m := range label.FindAllStringSubmatch(svg, -1) {
			shown := []rune(html.UnescapeString(m[2]))
			assert.LessOrEqual(t, len(shown), 13, "%s: %q is too long for the room left of the lanes", sc.ID, m[2])
			if m[1] != "" {
				assert.True(t, strings.HasPrefix(m[1], string(shown[:len(shown)-1])) && shown[len(shown)-1] == '…', "%s: %q is the start of %q", sc.ID, m[2], m[1])
			}
			checked++
		}
	}
	require.Positive(t, checked)

	long, err := scenario.Parse("long.tdm", []byte(strings.Replace(lateDataSource(t), "window per_minute ", "window clicks_per_minute_by_user ", 1)))
	require.NoError(t, err)
	tr, err := engine.Run(long, nil, 1, worlds.All())
	require.NoError(t, err)
	svg, _, _ := widget.StreamChart(tr, tr.Steps(), widget.ChartOptions{})
	assert.Contains(t, svg, `class="tm-lanelabel"><title>clicks_per_minute_by_user</title>clicks_per_m…</text>`)

	tr = run(t, "stream/event-vs-arrival", nil)
	svg, _, _ = widget.StreamChart(tr, tr.Steps(), widget.ChartOptions{})
	assert.Contains(t, svg, ">(proc. time)</text>", "a processing-time window says so under its name")
}

func lateDataSource(t *testing.T) string {
	sc, ok := lessons.Lookup("stream/late-data")
	require.True(t, ok)
	return string(sc.Source)
}

// A session window is drawn while it is open, and sessions of different
// keys that overlap in time are drawn on half rows of their own rather
// than over each other: in session-window at 10:01:15, the background
// user's session, user 11's and user 12's second session are open,
// and user 12's first has fired and been cleared.
func TestOpenSessionsDrawnWithoutOverlapping(t *testing.T) {
	rect := regexp.MustCompile(`<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="12.0" class="tm-win(?: [^"]*)?"/>`)
	tr := run(t, "stream/session-window", nil)
	step := -1
	for n := range tr.Steps() {
		if tr.Events[n].At == vtime.Time(10*vtime.Hour+vtime.Minute+15*vtime.Second) {
			step = n + 1
			break
		}
	}
	require.Positive(t, step)
	svg, _, _ := widget.StreamChart(tr, step, widget.ChartOptions{})
	for _, title := range []string{
		"per_session [10:00:00, 10:00:30) of key 12: 1 record, fired, cleared",
		"per_session [10:00:00, 10:01:20) of key 11: 4 records, open",
		"per_session [10:01:00, 10:01:30) of key 12: 1 record, open",
	} {
		assert.Contains(t, svg, "<title>"+title+"</title>")
	}
	type box struct{ x0, x1, y float64 }
	var boxes []box
	for _, m := range rect.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		w, _ := strconv.ParseFloat(m[3], 64)
		boxes = append(boxes, box{x, x + w, y})
	}
	require.Len(t, boxes, 4, "four sessions on the chart")
	for i, a := range boxes {
		for _, b := range boxes[i+1:] {
			assert.False(t, a.y == b.y && a.x0 < b.x1 && b.x0 < a.x1, "sessions %v and %v overlap", a, b)
		}
	}
}
