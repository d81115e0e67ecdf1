package engine_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// bell is the smallest world this file can write: `bell NAME at=T
// target=TARGET` rings once at T, narrated on demand, and writes key NAME
// into the target, whose truth says it should hold it. A `silence` fault
// stops the bells still to ring, which the truth then finds missing. When
// nothing is left to ring, the world ends with a last event of its own. It exercises every part of the interface
// the core knows a world by.
type bell struct{}

const faultSilence engine.FaultKind = "silence"

func (bell) Commands() []string               { return []string{"bell"} }
func (bell) Faults() []engine.FaultKind       { return []engine.FaultKind{faultSilence} }
func (bell) Open(w *engine.World) engine.Part { return &bells{w: w} }

type bells struct {
	w       *engine.World
	h       *bellHistory
	by      engine.Narrator
	silent  bool
	reserve int
	drains  int
}

// bellHistory is the bell world's part of a trace.
type bellHistory struct {
	Rung []string // the bells rung, by the order they rang
}

func (h *bellHistory) Actor(e *engine.Event) string {
	a, _ := e.Ref()
	return "bell " + h.Rung[a]
}

func (h *bellHistory) Narration(e *engine.Event) string {
	a, b := e.Ref()
	return "Bell " + h.Rung[a] + " rings, the " + []string{"first", "second", "third"}[min(b, 2)] + " to ring."
}

func (h *bellHistory) Observe(n int, o *check.Observation) {}

func (p *bells) Command(c scenario.Command) error {
	if p.h == nil {
		p.h = &bellHistory{}
		p.by = p.w.Attach(p.h)
	}
	name, rest, err := p.w.Declared(c, "bell", "a bell")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	to, _ := a.Required("target", "TARGET")
	if err := a.Done(); err != nil {
		return err
	}
	target, err := p.w.TargetArg(to)
	if err != nil {
		return err
	}
	p.w.Route(name.Value, target)
	p.w.Schedule(at, func() {
		id := p.w.KeyID(target, name.Value)
		p.w.AddVersion(engine.VersionRecord{KeyID: id, TableID: p.w.TableID(name.Value), Seq: 1, UpdatedAt: p.w.Now(), CommitStep: int32(p.w.NextStep())})
		p.w.SetSourceVersion(target, id, 1)
		if p.silent {
			p.w.Emit("bell "+name.Value, engine.KindLost, -1, "Bell %s is silenced and never rings.", name.Value)
			return
		}
		p.w.Deliver(target, []sink.In{{ID: id, Key: name.Value, Seq: 1, UpdatedAt: p.w.Now()}}, -1, nil)
		p.h.Rung = append(p.h.Rung, name.Value)
		p.w.EmitLater(p.by, engine.KindWrite, int32(len(p.h.Rung)-1), int32(len(p.h.Rung)-1))
	})
	return nil
}

func (p *bells) Finish() (bool, error) { return p.h != nil, nil }
func (p *bells) Drain() {
	p.drains++
	p.w.Schedule(p.w.Now(), func() { p.w.Emit("belfry", engine.KindReset, -1, "Every bell has rung or been silenced.") })
}
func (p *bells) Reserve(int) { p.reserve++ }
func (p *bells) Inject(f engine.Fault) error {
	p.silent = true
	return nil
}

const bellScenario = `scenario test/bells "Bells"
target rung sink=append key=id
bell a at=10:00:01 target=rung
bell b at=10:00:02 target=rung
`

// TestAWorldOfItsOwn composes the core with a world it has never heard of:
// its lines are read, its events run on the core's queue, its narration is
// asked for on demand, its writes reach the core's target and truth, and
// its fault is dispatched to it.
func TestAWorldOfItsOwn(t *testing.T) {
	f, err := scenario.Parse("bells.tdm", []byte(bellScenario))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, []engine.Domain{bell{}})
	require.NoError(t, err)
	require.Equal(t, 3, tr.Steps())
	assert.Equal(t, []string{"Bell a rings, the first to ring.", "Bell b rings, the second to ring.", "Every bell has rung or been silenced."}, tr.Narrations())
	assert.Equal(t, tr.Events[1].At, tr.Events[2].At, "the world drains at the time of the last event")
	assert.Equal(t, "bell b", tr.Actor(&tr.Events[1]))
	assert.Equal(t, vtime.Time(10*vtime.Hour+2*vtime.Second), tr.Events[1].At)
	assert.Len(t, tr.TargetAt("rung", 2), 2)
	assert.Empty(t, tr.Final().Missing, "both bells reached the target")
	assert.Equal(t, []engine.Route{{Table: "a", Target: "rung"}, {Table: "b", Target: "rung"}}, tr.Routes())

	w, err := engine.Build(f, nil, 1, []engine.Domain{bell{}})
	require.NoError(t, err)
	require.True(t, w.Step())
	require.NoError(t, w.Inject(engine.Fault{AfterStep: 1, Kind: faultSilence}))
	silenced := w.Run()
	assert.Equal(t, 1, w.Parts()[0].(*bells).reserve, "Run lets each world size its part once")
	assert.Equal(t, 1, w.Parts()[0].(*bells).drains, "a world drains once")
	assert.True(t, w.Done())
	assert.False(t, w.Step())
	require.Equal(t, 3, silenced.Steps())
	assert.Equal(t, "Bell b is silenced and never rings.", silenced.Narration(&silenced.Events[1]), "the fault went to the world that declared it")
	assert.Equal(t, []string{"b"}, silenced.Final().Missing, "the truth knows the bell that never rang")
	assert.Equal(t, engine.Counts{Missing: 1}, silenced.CountsAt(2))

	err = w.Inject(engine.Fault{AfterStep: 1, Kind: "flood"})
	assert.EqualError(t, err, `unknown fault "flood"; expected jump or silence`)
}

// TestStoppedTimerIsNoEvent: a timer left to come due runs then, and the
// world drains after it; a timer stopped before it comes due never runs,
// moves no clock and does not hold the drain back, which comes at the
// last bell.
func TestStoppedTimerIsNoEvent(t *testing.T) {
	f, err := scenario.Parse("bells.tdm", []byte(bellScenario))
	require.NoError(t, err)
	watchdog := vtime.Time(10*vtime.Hour + 5*vtime.Minute)
	for _, stop := range []bool{false, true} {
		w, err := engine.Build(f, nil, 1, []engine.Domain{bell{}})
		require.NoError(t, err)
		timer := w.ScheduleTimer(watchdog, func() { w.Emit("watchdog", engine.KindReset, -1, "The watchdog barks.") })
		require.True(t, w.Step(), "bell a")
		if stop {
			w.Stop(timer)
			w.Stop(timer) // a second stop does nothing
		}
		next, ok := w.NextAt()
		require.True(t, ok)
		assert.Equal(t, vtime.Time(10*vtime.Hour+2*vtime.Second), next, "bell b comes next either way")
		tr := w.Run()
		last := tr.Events[len(tr.Events)-1]
		if stop {
			assert.Equal(t, []string{"Bell a rings, the first to ring.", "Bell b rings, the second to ring.", "Every bell has rung or been silenced."}, tr.Narrations())
			assert.Equal(t, next, last.At, "the world drains at the last bell")
		} else {
			assert.Contains(t, tr.Narrations(), "The watchdog barks.")
			assert.Equal(t, watchdog, last.At, "the world drains once the watchdog has run")
		}
		w.Stop(timer) // stopping a timer that ran, or after the end, does nothing
		assert.True(t, w.Done())
	}
}

// TestWorldsComposeExplicitly builds with some of the worlds: what the
// others read is refused as an unknown command listing only the commands
// of the worlds composed, and a scenario of the worlds composed runs as it
// does with every world.
func TestWorldsComposeExplicitly(t *testing.T) {
	sc, ok := lessons.Lookup("hwm/visibility-gap")
	require.True(t, ok)
	all, err := engine.Run(sc.File, nil, 1, worlds.All())
	require.NoError(t, err)
	alone, err := engine.Run(sc.File, nil, 1, []engine.Domain{hwm.Domain})
	require.NoError(t, err)
	assert.Equal(t, reportJSON(t, all), reportJSON(t, alone), "the high-water-mark world needs no other")

	dist, ok := lessons.Lookup("dist/dual-write")
	require.True(t, ok)
	_, err = engine.Run(dist.File, nil, 1, []engine.Domain{hwm.Domain})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown command "topic"; expected one of clock, target, check, expect, jump, note, source, pipeline, txn`)
	assert.NotContains(t, err.Error(), "producer", "a world not composed is not offered")

	_, err = engine.Run(dist.File, nil, 1, []engine.Domain{logs.Domain})
	require.Error(t, err, "without the high-water-mark world there is no source table")

	cdc := `scenario test/cdc "CDC without a source"
topic orders partitions=1
cdc capture from=orders to=orders
`
	f, err := scenario.Parse("cdc.tdm", []byte(cdc))
	require.NoError(t, err)
	_, err = engine.Run(f, nil, 1, []engine.Domain{logs.Domain})
	assert.ErrorContains(t, err, "cdc.tdm:3:1: cdc reads the commits of a source table, and this engine is composed without the high-water-mark world")
}

// TestWorldsMayNotShareACommand refuses two worlds that read the same
// command, or a world that reads one of the core's.
func TestWorldsMayNotShareACommand(t *testing.T) {
	f, err := scenario.Parse("bells.tdm", []byte(bellScenario))
	require.NoError(t, err)
	_, err = engine.Build(f, nil, 1, []engine.Domain{bell{}, bell{}})
	assert.ErrorContains(t, err, `both read the command "bell"`)
	_, err = engine.Build(f, nil, 1, []engine.Domain{clockWorld{}})
	assert.ErrorContains(t, err, `both read the command "clock"`)
}

// clockWorld wrongly claims a command of the core's.
type clockWorld struct{ bell }

func (clockWorld) Commands() []string { return []string{"clock"} }

// TestReportOfAWorldOfItsOwn: the report and the text timeline of a trace
// read only the core and the worlds that are there.
func TestReportOfAWorldOfItsOwn(t *testing.T) {
	f, err := scenario.Parse("bells.tdm", []byte(bellScenario))
	require.NoError(t, err)
	tr, err := engine.Run(f, nil, 1, []engine.Domain{bell{}})
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, report.Text(&b, tr))
	assert.Contains(t, b.String(), "Bell b rings, the second to ring.")
	assert.NotContains(t, b.String(), "MARKS", "no world keeps marks here")
	assert.Nil(t, report.Build(tr).Log)
	assert.Nil(t, hwm.Of(tr))
	assert.Nil(t, logs.Of(tr))
}

// endingBell is the bell world with an end of its own: told once that the
// run is over (engine.Ender), after its drain's last event has run, it
// says so in a step it queues.
type endingBell struct{ ends *int }

func (endingBell) Commands() []string         { return bell{}.Commands() }
func (endingBell) Faults() []engine.FaultKind { return bell{}.Faults() }
func (d endingBell) Open(w *engine.World) engine.Part {
	return &endingBells{bells: &bells{w: w}, ends: d.ends}
}

type endingBells struct {
	*bells
	ends *int
}

func (p *endingBells) End() {
	*p.ends++
	p.w.Then(func() { p.w.Emit("belfry", engine.KindReset, -1, "The belfry closes.") })
}

// TestEnderSpeaksLast: a world that is an Ender is told once, after its
// drain's events have run, and the step it queues then is the run's last;
// the world is not done until it has run.
func TestEnderSpeaksLast(t *testing.T) {
	f, err := scenario.Parse("bells.tdm", []byte(bellScenario))
	require.NoError(t, err)
	ends := 0
	w, err := engine.Build(f, nil, 1, []engine.Domain{endingBell{ends: &ends}})
	require.NoError(t, err)
	toldAt := -1 // the steps run when the world was told
	for w.Step() {
		if ends > 0 && toldAt < 0 {
			toldAt = w.Trace().Steps()
		}
		assert.False(t, w.Done() && ends == 0, "done before the world was told")
	}
	assert.True(t, w.Done())
	assert.Equal(t, 1, ends)
	tr := w.Trace()
	require.Equal(t, 4, tr.Steps())
	assert.Equal(t, 4, toldAt, "told within the step that runs what it queued, the last")
	assert.Equal(t, "The belfry closes.", tr.Narrations()[3])
	assert.Equal(t, "Every bell has rung or been silenced.", tr.Narrations()[2], "the drain's event comes before the end")
	assert.False(t, w.Step(), "a finished world stays finished")
	assert.Equal(t, 1, ends, "told once")
}
