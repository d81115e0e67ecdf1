package engine_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
)

// logGen describes a generated scenario of the partitioned-log world: one
// topic, a feed into it (a producer, change capture or a publishing
// application), one consumer group writing a target, and a random schedule
// of sends, joins, leaves, polls, crashes (only in a group no member
// leaves: a crash makes the members static), pauses and partition additions,
// ending with a drain: every member still in the group polls until nothing
// is left. Text writes it as a scenario file, so it goes through the same
// parser and builder as a hand-written one.
type logGen struct {
	Partitions int
	Retention  string // "" for none, else e.g. "20s"
	Segment    string
	Sink       string // merge, append, upsert
	Feed       string // producer, cdc, publish
	Idempotent string // on, off (producer only)
	Outbox     string // on, off (publish only)
	Commit     string // after, before, auto
	Reset      string // earliest, latest, none
	Refresh    string // add-partitions notice delay
	Committed  int    // -1: the group starts with nothing committed

	Lines   []string     // the schedule, each with its at=
	At      []vtime.Time // the instant of each line, to sort them
	Members []string     // members still in the group at the end
	End     vtime.Time   // the last scheduled instant before the drain
	Grows   bool         // add-partitions is scheduled
	Static  bool         // a poll line crashes a member, which makes the members static, and a member leaves: its partitions wait for its session to time out
}

func (g *logGen) line(at vtime.Time, format string, args ...any) {
	g.Lines = append(g.Lines, fmt.Sprintf(format, args...))
	g.At = append(g.At, at)
	g.End = max(g.End, at)
}

func (g logGen) Text() string {
	var b strings.Builder
	b.WriteString("scenario prop/log \"A generated log scenario\"\n")
	fmt.Fprintf(&b, "topic events partitions=%d", g.Partitions)
	if g.Retention != "" {
		fmt.Fprintf(&b, " retention=%s segment=%s", g.Retention, g.Segment)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "target fct sink=%s key=order_id\n", g.Sink)
	switch g.Feed {
	case "producer":
		fmt.Fprintf(&b, "producer shop to=events key=order_id idempotent=%s\n", g.Idempotent)
	case "cdc":
		b.WriteString("source orders key=order_id updated_at=txn-start\ncdc capture from=orders to=events\n")
	case "publish":
		fmt.Fprintf(&b, "source orders key=order_id updated_at=txn-start\npublish shop from=orders to=events outbox=%s delay=500ms\n", g.Outbox)
	}
	fmt.Fprintf(&b, "group billing topic=events to=fct commit=%s reset=%s refresh=%s", g.Commit, g.Reset, or(g.Refresh, "0s"))
	if g.Commit == "auto" {
		b.WriteString(" interval=2s") // auto-commit's timer; the other commit= refuse it
	}
	if g.Committed >= 0 {
		fmt.Fprintf(&b, " committed=%d", g.Committed)
	}
	b.WriteString("\n")
	idx := make([]int, len(g.Lines))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, c int) int { return int(g.At[a] - g.At[c]) })
	for _, i := range idx {
		b.WriteString(g.Lines[i] + "\n")
	}
	// The drain: a member joins (the group may have emptied), then every
	// member polls, once a second, long after any processing delay.
	drainAt := g.End.Add(10 * vtime.Second)
	if g.Static {
		drainAt = g.End.Add(55 * vtime.Second) // past the default session timeout of a static member that left
	}
	fmt.Fprintf(&b, "member billing drain at=%s\n", drainAt)
	for round := range 3 {
		at := drainAt.Add(vtime.Duration(round+1) * vtime.Second)
		for _, m := range append(slices.Clone(g.Members), "drain") {
			fmt.Fprintf(&b, "poll billing %s at=%s max=1000000\n", m, at)
		}
	}
	return b.String()
}

// randomLog generates a log scenario. Knobs the caller wants fixed are set
// on the result afterwards only where Text reads them (sink, commit, reset).
func randomLog(r *rand.Rand) logGen {
	g := logGen{
		Partitions: 1 + r.IntN(8),
		Sink:       pick(r, "merge", "append", "upsert"),
		Feed:       pick(r, "producer", "producer", "cdc", "publish"),
		Idempotent: pick(r, "on", "off"),
		Outbox:     pick(r, "on", "off"),
		Commit:     pick(r, "after", "before", "auto"),
		Reset:      pick(r, "earliest", "latest", "none"),
		Refresh:    pick(r, "0s", "1s", "3s"),
		Committed:  -1,
	}
	if r.IntN(2) == 0 {
		g.Retention = pick(r, "10s", "20s", "40s")
		g.Segment = pick(r, "2s", "5s", "10s")
		if r.IntN(2) == 0 {
			g.Committed = 0
		}
	}
	span := vtime.Duration(20+r.IntN(100)) * vtime.Second
	at := func() vtime.Time { return t0.Add(vtime.Duration(r.Int64N(int64(span)))) }
	keys := 2 + r.IntN(12)

	// The feed.
	sends := 5 + r.IntN(60)
	exists := map[int]bool{}
	var times []vtime.Time
	for range sends {
		times = append(times, at())
	}
	slices.Sort(times)
	for i, t := range times {
		k := 1 + r.IntN(keys)
		switch g.Feed {
		case "producer":
			extra := ""
			if r.IntN(6) == 0 {
				extra = fmt.Sprintf(" fail=%s retry=%s", pick(r, "timeout", "timeout", "lost"), pick(r, "broker", "app", "session", "none"))
			}
			g.line(t, "produce shop at=%s key=%d%s", t, k, extra)
		default:
			op := "insert"
			if exists[k] {
				op = "update"
			}
			exists[k] = true
			g.line(t, "txn T%d begin=%s commit=%s %s order_id=%d", i+1, t, t, op, k)
		}
	}
	if g.Feed == "publish" && r.IntN(2) == 0 {
		t := at()
		g.line(t, "crash shop at=%s", t)
	}

	// Members join, some leave and some come back.
	names := []string{"c1", "c2", "c3", "c4"}[:1+r.IntN(4)]
	in := map[string]bool{}
	left := false // a member leaves, which a static member does without leaving the group (see Static)
	for _, m := range names {
		t := t0.Add(vtime.Duration(r.Int64N(int64(span / 2))))
		g.line(t, "member billing %s at=%s", m, t)
		in[m] = true
		if r.IntN(3) == 0 {
			t2 := t.Add(vtime.Duration(1+r.IntN(20)) * vtime.Second)
			g.line(t2, "leave billing %s at=%s", m, t2)
			in[m] = false
			left = true
			if r.IntN(2) == 0 {
				t3 := t2.Add(vtime.Duration(1+r.IntN(20)) * vtime.Second)
				g.line(t3, "member billing %s at=%s", m, t3)
				in[m] = true
			}
		}
	}
	for _, m := range names {
		if in[m] {
			g.Members = append(g.Members, m)
		}
	}

	// Polls, some with a processing delay or a crash, and a pause.
	for range 3 + r.IntN(25) {
		t := at()
		m := pick(r, names...)
		extra := ""
		if r.IntN(3) == 0 {
			extra += fmt.Sprintf(" process=%dms", r.IntN(4000))
		}
		if r.IntN(5) == 0 {
			extra += " crash=" + pick(r, "before-write", "before-commit")
			g.Static = g.Static || left
		}
		g.line(t, "poll billing %s at=%s max=%d%s", m, t, 1+r.IntN(20), extra)
	}
	if r.IntN(4) == 0 {
		t := at()
		m := pick(r, names...)
		until := t.Add(vtime.Duration(r.IntN(60)) * vtime.Second)
		g.line(t, "pause billing %s at=%s until=%s", m, t, until)
		g.End = max(g.End, until)
	}
	if r.IntN(4) == 0 {
		t := at()
		g.Grows = true
		g.line(t, "add-partitions events to=%d at=%s", g.Partitions+1+r.IntN(4), t)
	}
	return g
}

// runLogGen parses, builds and runs a generated log scenario.
func runLogGen(t testing.TB, g logGen, seed uint64) *engine.Trace {
	t.Helper()
	src := g.Text()
	f, err := scenario.Parse("generated.tdm", []byte(src))
	require.NoError(t, err, "generated scenario:\n%s", src)
	tr, err := engine.Run(f, nil, seed, worlds.All())
	require.NoError(t, err, "generated scenario:\n%s", src)
	return tr
}
