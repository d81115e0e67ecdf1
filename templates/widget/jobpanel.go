//go:build !tm_hwm && !tm_log

package widget

import (
	"sort"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
)

// The job panel draws the stream world's second part at one step (see
// docs/architecture.md, "The stream world"): each operator with its input
// buffer, its state and what it dropped; each sink's rows still pending in
// a transaction against those visible in its table; the checkpoints,
// failures and restores on a strip of the run's time; and small plots of
// state size, queue length, lag per partition and checkpoint size up to the
// step. Every drawing has its text beside it: the tables hold the same
// numbers, and each plot's accessible name says its latest and largest value.

// hasJob reports whether the trace's stream world has anything of the
// job's to show: checkpoints, failures or readers of tables, a stream read
// at a limited rate or by several readers, or an operator with a buffer, a
// time to live, or rows of its own (an aggregate or a sink).
func hasJob(st *stream.Trace) bool {
	if st == nil {
		return false
	}
	if st.Job != nil {
		return true
	}
	for _, sh := range st.Streams {
		if sh.Cost > 0 || sh.Parallelism > 1 {
			return true
		}
	}
	for _, oh := range st.Ops {
		if oh.Kind == "sink" || oh.Kind == "aggregate" || oh.Buffer > 0 || oh.TTL > 0 {
			return true
		}
	}
	return false
}

// jobPanel draws the job at the step, or nothing when the scenario has none.
func jobPanel(b *builder, t *engine.Trace, s State) {
	st := stream.Of(t)
	if !hasJob(st) {
		return
	}
	n := clamp(s.Step, t.Steps())
	b.fopen("job", "section", "class", "tm-panel tm-panel-job", "role", "group", "tabindex", "0", "data-testid", "panel-job", "aria-label", "The job: operators, checkpoints and sinks")
	b.el("h3", "The job: operators, checkpoints and sinks")
	// Each part is a fragment of its own, so that a step sends only the
	// parts it changed (see diffStage).
	part := func(key string, draw func()) {
		b.fopen("job-"+key, "div", "class", "tm-jobpart")
		draw()
		b.fclose("div")
	}
	part("readers", func() { readersTable(b, st, n) })
	part("ops", func() { opsTable(b, t, st, n) })
	part("sinks", func() { sinkTable(b, st, n) })
	part("strip", func() { checkpointStrip(b, t, st, n) })
	part("cklist", func() { checkpointList(b, t, st, n) })
	part("reads", func() { readsList(b, st, n) })
	part("replays", func() { replayList(b, st, n) })
	part("plots", func() { jobPlots(b, t, st, n) })
	b.fclose("section")
}

// utilWindow is the span of true time a reader's utilisation is measured over.
const utilWindow = 10 * vtime.Second

// readersTable lists, for each stream read at a limited rate, each reader
// (a source subtask) with its partitions, their lag, and the share of the
// last utilWindow it spent reading; and the average lag over the stream's
// partitions, which a saturated reader hides.
func readersTable(b *builder, st *stream.Trace, n int) {
	limited := false
	for _, sh := range st.Streams {
		limited = limited || sh.Cost > 0
	}
	if !limited {
		return
	}
	b.table("Readers at this step", []string{"stream", "reader", "partitions (lag)", "busy, last " + utilWindow.String()},
		"class", "tm-table", "data-testid", "job-readers")
	for i, sh := range st.Streams {
		if sh.Cost <= 0 {
			continue
		}
		// Each partition's lag, read once for its reader and the average.
		lags := make([]int64, len(sh.Parts))
		total := int64(0)
		for p := range sh.Parts {
			lags[p] = st.LagAt(i, p, n)
			total += lags[p]
		}
		busy := 0.0
		for sub := range sh.Parallelism {
			var parts []string
			for p := sub; p < len(lags); p += sh.Parallelism {
				parts = append(parts, itoa(p)+" ("+strconv.FormatInt(lags[p], 10)+")")
			}
			u := st.Utilisation(i, sub, n, utilWindow)
			busy += u
			b.open("tr", "data-reader", itoa(sub))
			b.el("th", sh.Name, "scope", "row")
			b.el("td", itoa(sub))
			b.el("td", strings.Join(parts, ", "))
			b.el("td", itoa(int(u*100+0.5))+"%", "data-testid", "reader-busy", "class", cls(u >= 0.95, "tm-warn"))
			b.close("tr")
		}
		b.open("tr")
		b.el("th", sh.Name, "scope", "row")
		b.el("td", "average")
		b.el("td", ftoa(float64(total)/float64(max(1, len(sh.Parts))))+" records of lag per partition", "data-testid", "average-lag")
		// The readers' average utilisation, which a saturated reader hides
		// as the average lag does.
		b.el("td", itoa(int(busy/float64(max(1, sh.Parallelism))*100+0.5))+"% on average", "data-testid", "average-busy")
		b.close("tr")
	}
	b.close("tbody")
	b.close("table")
}

// opsTable lists each operator with its buffer, its throughput over the
// last utilWindow, its state and its drops.
func opsTable(b *builder, t *engine.Trace, st *stream.Trace, n int) {
	b.table("Operators at this step", []string{"operator", "kind", "reads", "queue", "records/s, last " + utilWindow.String(), "state entries", "dropped"},
		"class", "tm-table", "data-testid", "job-ops")
	for i, oh := range st.Ops {
		b.open("tr", "data-op", oh.Name)
		b.el("th", oh.Name, "scope", "row")
		kind := oh.Kind
		if oh.TTL > 0 {
			kind += ", ttl " + oh.TTL.String()
		}
		b.el("td", kind)
		b.el("td", oh.Stream)
		q := "no buffer"
		if oh.Buffer > 0 {
			q = itoa(st.QueueAt(i, n)) + " / " + itoa(oh.Buffer) + " (" + oh.Overflow + ")"
		}
		full := oh.Buffer > 0 && oh.Overflow != "grow" && st.QueueAt(i, n) >= oh.Buffer
		if full {
			q += ", full"
		}
		b.el("td", q, "data-testid", "op-queue", "class", cls(full, "tm-warn"))
		b.el("td", ftoa(opRate(t, st, i, n)), "data-testid", "op-rate")
		b.el("td", itoa(st.StateAt(i, n)), "data-testid", "op-state")
		d := st.DroppedAt(i, n)
		b.el("td", itoa(d), "data-testid", "op-dropped", "class", cls(d > 0, "tm-warn"))
		b.close("tr")
	}
	b.close("tbody")
	b.close("table")
}

// cls returns class when cond holds, for an attribute that is left out otherwise.
func cls(cond bool, class string) string {
	if cond {
		return class
	}
	return ""
}

// sinkTable shows, for each operator that writes a table, the rows still
// pending in a transaction a reader with read-committed isolation cannot
// see, and the rows it has made visible.
func sinkTable(b *builder, st *stream.Trace, n int) {
	writes := false
	for _, oh := range st.Ops {
		writes = writes || oh.Target != ""
	}
	if !writes {
		return
	}
	// Both counts are writes: a table with one row per key (an upsert, a
	// merge) holds fewer rows than the writes that reached it.
	b.table("Rows written, pending and visible", []string{"operator", "table", "commit", "pending (not visible)", "visible (writes)"},
		"class", "tm-table", "data-testid", "job-sinks")
	for i, oh := range st.Ops {
		if oh.Target == "" {
			continue
		}
		b.open("tr", "data-op", oh.Name)
		b.el("th", oh.Name, "scope", "row")
		b.el("td", oh.Target)
		b.el("td", oh.Commit)
		p := st.PendingAt(i, n)
		b.el("td", itoa(p), "data-testid", "sink-pending", "class", cls(p > 0, "tm-pending"))
		b.el("td", itoa(st.WrittenAt(i, n)), "data-testid", "sink-visible")
		b.close("tr")
	}
	b.close("tbody")
	b.close("table")
}

// stripW and stripH are the size of the checkpoint strip's viewBox.
const stripW, stripH = 640.0, 64.0

// timeAxis maps the run's true time onto the strip.
type timeAxis struct {
	lo, hi vtime.Time
	x0, w  float64
}

func (a timeAxis) x(at vtime.Time) float64 {
	if a.hi <= a.lo {
		return a.x0
	}
	return a.x0 + a.w*float64(at-a.lo)/float64(a.hi-a.lo)
}

// runAxis spans the run from its first event to its last.
func runAxis(t *engine.Trace, x0, w float64) timeAxis {
	if t.Steps() == 0 {
		return timeAxis{x0: x0, w: w}
	}
	return timeAxis{lo: t.Events[0].At, hi: t.Events[t.Steps()-1].At, x0: x0, w: w}
}

// jobTime is the true time of step n (the first event's before any).
func jobTime(t *engine.Trace, n int) vtime.Time {
	if t.Steps() == 0 {
		return 0
	}
	return t.Events[max(0, min(n, t.Steps())-1)].At
}

// checkpointStrip draws the checkpoints begun by the step as spans on the
// run's time, by status (a completed one solid, an abandoned or expired one
// dashed and crossed, a running one open at its end), the job's failures
// as crosses and its restores as arrows back to the checkpoint restored,
// and the step's time as a line.
func checkpointStrip(b *builder, t *engine.Trace, st *stream.Trace, n int) {
	if st.Job == nil || (len(st.Job.Checkpoints) == 0 && len(st.Job.Failures) == 0) {
		return
	}
	ax := runAxis(t, 8, stripW-16)
	now := jobTime(t, n)
	cps := st.CheckpointsAt(n)
	done, lost := 0, 0
	for _, c := range cps {
		switch c.Status {
		case stream.CheckpointCompleted:
			done++
		case stream.CheckpointAbandoned, stream.CheckpointExpired:
			lost++
		}
	}
	fails, restores := 0, 0
	for _, f := range st.Job.Failures {
		if int(f.Step) <= n {
			fails++
		}
	}
	for _, r := range st.Job.Restores {
		if int(r.Step) <= n {
			restores++
		}
	}
	label := "Checkpoints on the run's time up to " + now.String() + ": " + plural(done, "completed") + ", " +
		itoa(lost) + " abandoned or expired" + ", " + plural(fails, "failure") + ", " + plural(restores, "restore")
	b.open("svg", "class", "tm-svg tm-ckstrip", "viewBox", "0 0 "+ftoa(stripW)+" "+ftoa(stripH), "role", "img",
		"aria-label", label, "data-testid", "checkpoint-strip")
	svgLine(b, "tm-axis", ftoa(ax.x0), "40", ftoa(ax.x0+ax.w), "40")
	b.el("text", ax.lo.String(), "class", "tm-tick", "x", ftoa(ax.x0), "y", "56")
	b.el("text", ax.hi.String(), "class", "tm-tick", "x", ftoa(ax.x0+ax.w), "y", "56", "text-anchor", "end")
	for _, c := range cps {
		x0 := ax.x(c.BeginAt)
		end := now
		if c.End > 0 {
			end = c.EndAt
		}
		w := max(3, ax.x(end)-x0)
		status := stream.CheckpointStatus(c.Status)
		b.open("g", "class", "tm-ck tm-ck-"+status, "data-ckpt", itoa(int(c.ID)))
		b.el("title", "checkpoint "+itoa(int(c.ID))+": "+status+", began "+c.BeginAt.String())
		b.void("rect", "x", ftoa(x0), "y", "26", "width", ftoa(w), "height", "10")
		if c.Status == stream.CheckpointAbandoned || c.Status == stream.CheckpointExpired {
			svgLine(b, "tm-ck-x", ftoa(x0), "26", ftoa(x0+w), "36")
		}
		b.close("g")
	}
	for _, f := range st.Job.Failures {
		if int(f.Step) > n {
			break
		}
		x := ax.x(f.At)
		b.open("g", "class", "tm-ckfail")
		b.el("title", f.Who+" failed at "+f.At.String())
		svgLine(b, "", ftoa(x-5), "4", ftoa(x+5), "14")
		svgLine(b, "", ftoa(x-5), "14", ftoa(x+5), "4")
		b.close("g")
	}
	for _, r := range st.Job.Restores {
		if int(r.Step) > n {
			break
		}
		x := ax.x(r.At)
		from := ax.x0
		if c := st.Job.Restored(&r); c != nil {
			from = ax.x(c.BeginAt)
		}
		what := "restored checkpoint " + itoa(int(r.From))
		if r.From == 0 {
			what = "started over from the beginning"
		}
		if r.Failed {
			what = "could not restart"
		}
		b.open("g", "class", "tm-ckrestore")
		b.el("title", what+" at "+r.At.String())
		b.void("path", "d", "M"+ftoa(x)+",20 L"+ftoa(x)+",16 L"+ftoa(from)+",16 L"+ftoa(from)+",22")
		b.void("path", "d", "M"+ftoa(from-3)+",19 L"+ftoa(from)+",24 L"+ftoa(from+3)+",19")
		b.close("g")
	}
	nx := ax.x(now)
	svgLine(b, "tm-nowline", ftoa(nx), "0", ftoa(nx), "44")
	b.close("svg")
	b.el("p", "▭ checkpoint (solid: completed; crossed: abandoned or expired) · ✕ failure · ↩ restore, back to the checkpoint it restored · │ now", "class", "tm-note")
}

// maxCheckpointRows is how many checkpoints the list shows, the latest ones.
const maxCheckpointRows = 8

// checkpointList is the strip's text: the latest checkpoints, failures and
// restores with their times, sizes and what each restore did.
func checkpointList(b *builder, t *engine.Trace, st *stream.Trace, n int) {
	if st.Job == nil {
		return
	}
	cps := st.CheckpointsAt(n)
	if len(cps) == 0 && len(st.Job.Failures) == 0 {
		if st.Job.Every > 0 {
			b.el("p", "No checkpoint has begun yet; one is taken every "+st.Job.Every.String()+".", "class", "tm-note")
		}
		return
	}
	now := jobTime(t, n)
	b.open("ol", "class", "tm-cklist", "data-testid", "checkpoint-list")
	from := max(0, len(cps)-maxCheckpointRows)
	for _, c := range cps[from:] {
		line := "Checkpoint " + itoa(int(c.ID)) + ": began " + c.BeginAt.String() + ", "
		switch c.Status {
		case stream.CheckpointRunning:
			line += "running for " + c.Duration(now).String()
		case stream.CheckpointCompleted:
			line += "completed " + c.EndAt.String() + " after " + c.Duration(now).String() + ", " + sizeText(c.Size())
		default:
			line += stream.CheckpointStatus(c.Status) + " " + c.EndAt.String()
		}
		b.el("li", line+".", "data-status", stream.CheckpointStatus(c.Status))
	}
	b.close("ol")
	if from > 0 {
		b.el("p", itoa(from)+" earlier checkpoints not listed.", "class", "tm-note")
	}
	for _, f := range st.Job.Failures {
		if int(f.Step) > n {
			break
		}
		line := f.Who + " failed at " + f.At.String()
		if w := f.Where(); w != "" {
			line += " (" + w + ")"
		}
		if f.Aborted > 0 {
			line += "; " + itoa(int(f.Aborted)) + " pending rows rolled back"
		}
		if f.Down {
			line += "; the job stays down"
		}
		b.el("p", line+".", "class", "tm-ckevent", "data-testid", "job-failure")
	}
	for _, r := range st.Job.Restores {
		if int(r.Step) > n {
			break
		}
		var line string
		switch {
		case r.Failed:
			line = "At " + r.At.String() + " the job could not restart: the input its checkpoint needs is gone"
		case r.From == 0:
			line = "At " + r.At.String() + " the job started over from the beginning"
		default:
			line = "At " + r.At.String() + " the job restored checkpoint " + itoa(int(r.From)) + ", " + r.Behind.String() + " behind"
		}
		if r.Rewound > 0 {
			line += "; " + prose.Count(int(r.Rewound), "record is", "records are") + " read again"
		}
		if r.Skipped > 0 {
			// Offsets jumped over, some of which may have been read before
			// the failure (the narration says how many).
			line += "; " + prose.Count(int(r.Skipped), "offset is", "offsets are") + " skipped"
		}
		if r.Lost > 0 {
			line += "; " + prose.Count(int(r.Lost), "buffered record is", "buffered records are") + " lost"
		}
		b.el("p", line+".", "class", "tm-ckevent", "data-testid", "job-restore")
	}
}

// readsList says what each of the scenario's readers saw by the step, and
// whether it was ever, as a whole, a state of the table (the truth: no
// reader can know it).
func readsList(b *builder, st *stream.Trace, n int) {
	if st.Job == nil || len(st.Job.Reads) == 0 || int(st.Job.Reads[0].Step) > n {
		return
	}
	b.open("ul", "class", "tm-cklist", "data-testid", "job-reads")
	for i, r := range st.Job.Reads {
		if int(r.Step) > n {
			break
		}
		iso := "read-committed"
		if r.Uncommitted {
			iso = "read-uncommitted"
		}
		line := r.Name + " read " + r.Target + " at " + r.At.String() + " (" + iso + "): " + itoa(len(r.Rows)) + " rows"
		if r.Pending > 0 {
			line += ", not seeing " + itoa(r.Pending) + " rows that open transactions add or change"
		}
		if !st.Judged(i) {
			line += "; not judged: no operator of the stream job writes " + r.Target
		} else if at, ok := st.ReadVerdict(i); ok {
			line += "; the table held exactly this"
			if at > 0 {
				line += " after step " + itoa(int(at))
			}
		} else {
			line += "; truth: the table never held this mix of rows at any one moment"
		}
		b.el("li", line+".", "data-read", r.Name)
	}
	b.close("ul")
}

// maxReplays is how many of a replay's changed records the panel names.
const maxReplays = 5

// replayList names the records a replay wrote with another row than the
// first time (a transform that reads the clock or a lookup table that
// changed): the truth keeps both versions.
func replayList(b *builder, st *stream.Trace, n int) {
	diffs := st.ReplayDiffs(n)
	if len(diffs) == 0 {
		return
	}
	b.el("p", itoa(len(diffs))+" records were written differently by the replay than the first time:", "class", "tm-note", "data-testid", "job-replays")
	b.open("ul", "class", "tm-cklist")
	for _, d := range diffs[:min(len(diffs), maxReplays)] {
		line := "key " + d.Key + ": "
		var parts []string
		if d.First.Amount != d.Then.Amount {
			parts = append(parts, "amount "+strconv.FormatInt(d.First.Amount, 10)+" then "+strconv.FormatInt(d.Then.Amount, 10))
		}
		if d.First.UpdatedAt != d.Then.UpdatedAt {
			parts = append(parts, "updated_at "+d.First.UpdatedAt.String()+" then "+d.Then.UpdatedAt.String())
		}
		b.el("li", line+strings.Join(parts, ", "))
	}
	b.close("ul")
}

// sizeText spells a size in bytes, or in KB from 10,000 on.
func sizeText(n int) string {
	if n < 10_000 {
		return itoa(n) + " B"
	}
	return ftoa(float64(n)/1000) + " KB"
}

// maxPlots bounds the small plots the panel draws: a scenario with many
// partitions plots the ones with the largest lag.
const maxPlots = 8

// plotSamples is how many points a plot of a value computed per step takes.
const plotSamples = 80

// series is one small plot: its name, its points (step, value) and its
// value at the step drawn, which its caption says.
type series struct {
	name string
	pts  [][2]float64
	now  float64
}

// sampleSteps returns the steps up to n at which a plot of a value computed
// per step takes it: every stride-th step of the whole run, so that a step
// forward leaves the points drawn so far as they were (and a step sends
// only what changed; see patch.go).
func sampleSteps(t *engine.Trace, n int) []int {
	stride := max(1, (t.Steps()+plotSamples-1)/plotSamples)
	var out []int
	for k := 0; k <= n; k += stride {
		out = append(out, k)
	}
	return out
}

// jobPlots draws small plots from the first step to the current one: each
// operator's state entries and queue length, each partition's lag for
// every stream, and each checkpoint's size.
func jobPlots(b *builder, t *engine.Trace, st *stream.Trace, n int) {
	var ss []series
	for i, oh := range st.Ops {
		ss = append(ss, rateSeries(t, st, i, n))
		held := false // a loop: slices.ContainsFunc is an instance per slice type in the browser module
		for _, c := range oh.State {
			if c.N > 0 {
				held = true
				break
			}
		}
		if held {
			ss = append(ss, countSeries(t, "state of "+oh.Name+" (entries)", oh.State, n))
		}
		if oh.Buffer > 0 && len(oh.Queue) > 0 {
			ss = append(ss, countSeries(t, "queue of "+oh.Name+" (records)", oh.Queue, n))
		}
	}
	var lags []series
	for i, sh := range st.Streams {
		for p := range sh.Parts {
			s := series{name: "lag of " + sh.Name + ", partition " + itoa(p) + " (records)", now: float64(st.LagAt(i, p, n))}
			for _, step := range sampleSteps(t, n) {
				s.pts = append(s.pts, [2]float64{float64(step), float64(st.LagAt(i, p, step))})
			}
			lags = append(lags, s)
		}
	}
	if len(lags) > maxPlots {
		// Keep the partitions whose lag peaked highest: the ones a learner looks for.
		peak := func(s series) float64 {
			m := 0.0
			for _, q := range s.pts {
				m = max(m, q[1])
			}
			return m
		}
		sortSeries(lags, func(a, b series) bool { return peak(a) > peak(b) })
		lags = lags[:maxPlots]
	}
	ss = append(ss, lags...)
	if st.Job != nil {
		if s, ok := checkpointSeries(t, st, n); ok {
			ss = append(ss, s)
		}
	}
	if len(ss) == 0 {
		return
	}
	// A fragment, so that its plots, fragments too, are its children.
	b.fopen("plots-list", "div", "class", "tm-plots", "data-testid", "job-plots")
	for _, s := range ss {
		spark(b, t, s, n)
	}
	b.fclose("div")
}

// sortSeries sorts ss by less, stably (an insertion sort: the lists are short).
func sortSeries(ss []series, less func(a, b series) bool) {
	for i := 1; i < len(ss); i++ {
		for j := i; j > 0 && less(ss[j], ss[j-1]); j-- {
			ss[j], ss[j-1] = ss[j-1], ss[j]
		}
	}
}

// countSeries is a step function of counts up to step n.
func countSeries(t *engine.Trace, name string, xs []stream.CountPoint, n int) series {
	s := series{name: name, pts: [][2]float64{{0, 0}}}
	last := 0.0
	for _, c := range xs {
		if int(c.Step) > n {
			break
		}
		s.pts = append(s.pts, [2]float64{float64(c.Step), last}, [2]float64{float64(c.Step), float64(c.N)})
		last = float64(c.N)
	}
	s.now = last
	// The line runs on to the last step sampled, not to n itself: a step
	// forward that changes no count leaves the plot as it was.
	steps := sampleSteps(t, n)
	s.pts = append(s.pts, [2]float64{max(s.pts[len(s.pts)-1][0], float64(steps[len(steps)-1])), last})
	return s
}

// checkpointSeries is the size of the latest completed checkpoint, a step
// function from the first one's completion: each size holds until the next
// checkpoint completes, and the last runs on to the last step sampled, so
// that a single checkpoint draws a line rather than a point no one sees.
// It reports false before any checkpoint has completed.
func checkpointSeries(t *engine.Trace, st *stream.Trace, n int) (series, bool) {
	s := series{name: "checkpoint size (bytes)"}
	for _, c := range st.CheckpointsAt(n) {
		if c.Status != stream.CheckpointCompleted {
			continue
		}
		if len(s.pts) > 0 {
			s.pts = append(s.pts, [2]float64{float64(c.End), s.now})
		}
		s.now = float64(c.Size())
		s.pts = append(s.pts, [2]float64{float64(c.End), s.now})
	}
	if len(s.pts) == 0 {
		return s, false
	}
	steps := sampleSteps(t, n)
	s.pts = append(s.pts, [2]float64{max(s.pts[len(s.pts)-1][0], float64(steps[len(steps)-1])), s.now})
	return s, true
}

// opRate is operator i's throughput at step n: the records it took in the
// utilWindow of true time up to the step, per second of that window, to a
// tenth. Like a reader's utilisation (and Flink's per-second meters) it is
// measured over the whole window from the run's start on, so it climbs
// during the first window rather than leap: a sink that writes a record a
// second reads 0.5 five seconds in, never the 2 that one record in the
// first half second would make of a shorter span.
func opRate(t *engine.Trace, st *stream.Trace, i, n int) float64 {
	if n <= 0 {
		return 0
	}
	now := jobTime(t, n)
	from := sort.Search(n, func(j int) bool { return t.Events[j].At > now.Add(-utilWindow) })
	r := float64(st.ProcessedBetween(i, from, n)) * float64(vtime.Second) / float64(utilWindow)
	return float64(int(r*10+0.5)) / 10
}

// rateSeries is operator i's throughput up to step n (opRate at each step
// sampled).
func rateSeries(t *engine.Trace, st *stream.Trace, i, n int) series {
	s := series{name: "throughput of " + st.Ops[i].Name + " (records/s, last " + utilWindow.String() + ")"}
	for _, step := range sampleSteps(t, n) {
		s.pts = append(s.pts, [2]float64{float64(step), opRate(t, st, i, step)})
	}
	s.now = opRate(t, st, i, n)
	return s
}

// plotTimes are the times a small plot over [lo, hi] labels: its start,
// its middle and its end. Over ten seconds or more they are whole seconds
// inside the span (the first second at or after lo, the last at or before
// hi), and the middle is rounded to ten seconds, a minute, ten minutes or
// an hour, the longest of them a quarter of the span holds: labels such as
// 10:01:40 and 10:03:22, not 10:01:41.200 and 10:03:22.400, which ran into
// each other when the plot was drawn narrow.
func plotTimes(lo, hi vtime.Time) [3]vtime.Time {
	span := vtime.Duration(hi - lo)
	if span < 10*vtime.Second {
		return [3]vtime.Time{lo, lo.Add(span / 2), hi}
	}
	round := func(at vtime.Time, r vtime.Duration) vtime.Time {
		return vtime.Time((int64(at) + int64(r)/2) / int64(r) * int64(r))
	}
	sec := int64(vtime.Second)
	first := vtime.Time((int64(lo) + sec - 1) / sec * sec)
	last := vtime.Time(int64(hi) / sec * sec)
	r := vtime.Second
	for _, c := range []vtime.Duration{10 * vtime.Second, vtime.Minute, 10 * vtime.Minute, vtime.Hour} {
		if 4*c <= span {
			r = c
		}
	}
	return [3]vtime.Time{first, round(lo.Add(span/2), r), last}
}

// Plot geometry: the viewBox, and the plotting area inside it, with room
// on the left for the values' ticks and under it for the times'.
const (
	plotW, plotH       = 260.0, 78.0
	plotX0, plotX1     = 40.0, 252.0
	plotTop, plotFloor = 8.0, 52.0
)

// spark draws one small plot over the run's time, with readable axes: its
// values from 0 to its largest on the left, and the times of the run's
// start, middle and end under it; its line runs up to the step drawn, which
// a line across marks. Its caption says its name, its value at the step and
// its largest; its accessible name says the same, and a table only a screen
// reader reads gives its values at a few times, the plot's text
// equivalent. The caption, the line, the mark of the step and the table are
// fragments of their own, so that a step sends only those that changed.
func spark(b *builder, t *engine.Trace, s series, steps int) {
	hi := s.now
	for _, q := range s.pts {
		hi = max(hi, q[1])
	}
	// A count, or a rate to a tenth (96.3, not 96.33333333333333).
	num := func(v float64) string { return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") }
	text := s.name + ": " + num(s.now) + " now, at most " + num(hi)
	ax := runAxis(t, plotX0, plotX1-plotX0)
	x := func(step float64) float64 { return ax.x(jobTime(t, max(1, int(step)))) }
	top := max(hi, 1)
	y := func(v float64) float64 { return plotFloor - (plotFloor-plotTop)*v/top }
	key := "plot:" + s.name
	b.fopen(key, "figure", "class", "tm-plot", "data-testid", "job-plot")
	b.fopen(key+":cap", "figcaption")
	b.text(text)
	b.fclose("figcaption")
	b.open("svg", "class", "tm-spark", "viewBox", "0 0 "+ftoa(plotW)+" "+ftoa(plotH), "role", "img", "aria-label", s.name+" over the run; the table under it has its values")
	// The value axis: 0 and the largest value, each with a line across;
	// the time axis: the run's start, middle and end.
	svgLine(b, "tm-plot-grid", ftoa(plotX0), ftoa(plotTop), ftoa(plotX1), ftoa(plotTop))
	b.void("path", "class", "tm-axis", "d", "M"+ftoa(plotX0)+","+ftoa(plotTop)+"V"+ftoa(plotFloor)+"H"+ftoa(plotX1))
	tick := func(x, y float64, label, anchor string) {
		b.el("text", label, "class", "tm-plot-tick", "x", ftoa(x), "y", ftoa(y), "text-anchor", anchor)
	}
	tick(plotX0-4, plotTop+4, num(top), "end")
	tick(plotX0-4, plotFloor+4, "0", "end")
	for i, at := range plotTimes(ax.lo, ax.hi) {
		if i == 1 && ax.hi-ax.lo < 2*vtime.Time(vtime.Second) {
			continue // too short a run for a middle tick
		}
		px := ax.x(at)
		b.void("path", "class", "tm-axis", "d", "M"+ftoa(px)+","+ftoa(plotFloor)+"v4")
		tick(px, plotFloor+16, at.String(), [...]string{"start", "middle", "end"}[i])
	}
	var poly []string
	for _, q := range s.pts {
		poly = append(poly, ftoa(x(q[0]))+","+ftoa(y(q[1])))
	}
	b.fvoid(key+":line", "polyline", "points", strings.Join(poly, " "), "class", "tm-sparkline")
	nx := ftoa(x(float64(steps)))
	b.fvoid(key+":now", "line", "class", "tm-nowline", "x1", nx, "y1", ftoa(plotTop-4), "x2", nx, "y2", ftoa(plotFloor),
		"data-testid", "plot-now", "data-at", jobTime(t, steps).String())
	b.close("svg")
	// The text equivalent: the value at six times, for a screen reader.
	b.fopen(key+":values", "table", "class", "tm-visually-hidden", "data-testid", "plot-values")
	b.el("caption", s.name+" over time")
	b.open("tr")
	b.el("th", "time", "scope", "col")
	b.el("th", "value", "scope", "col")
	b.close("tr")
	const rows = 6
	for k := range rows {
		if len(s.pts) == 0 {
			break
		}
		q := s.pts[(len(s.pts)-1)*k/(rows-1)]
		b.open("tr")
		b.el("td", jobTime(t, max(1, int(q[0]))).String())
		b.el("td", num(q[1]))
		b.close("tr")
	}
	b.fclose("table")
	b.fclose("figure")
}
