package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/tidemark/tidemark/engine/vtime"
)

// streamGen describes a generated scenario of the stream world: a topic
// fed by producers (pinned to partitions, or placed by key), with event
// times that lag their sends, offline spans and bursts; a stream reading it
// with a random watermark strategy, filter, map and key-by; a window
// operator of a random kind writing a target; sometimes a second topic and
// stream joined with the first; and stalls and delays of the reads. Text
// writes it as a scenario file, so it goes through the same parser and
// builder as a hand-written one.
type streamGen struct {
	Partitions int
	Pinned     bool // one producer per partition, else one producer placing by key
	Traffic    []string
	Lines      []string // offline, burst, stall, delay lines

	Lag, Bound, Interval string
	Emit, Scope          string
	Idleness             string // "off" or a duration
	Filter, Map, KeyBy   string // whole lines without the stream name, or ""

	Window                    string // tumbling size=…, sliding size=… slide=…, or session gap=…
	Time, Agg, Lateness, Late string
	Sink, Contents            string
	Join                      bool
	JoinBetween, JoinLate     string
	JoinIdleness              string
	OtherLines                []string
	MaxDelay                  vtime.Duration // the most any record is read after it happened, bounded generously
}

func (g streamGen) Text() string {
	var b strings.Builder
	b.WriteString("scenario prop/stream \"A generated stream scenario\"\n")
	fmt.Fprintf(&b, "topic events partitions=%d\n", g.Partitions)
	fmt.Fprintf(&b, "target results sink=%s key=window\n", g.Sink)
	b.WriteString("target late_events sink=append key=event\n")
	if g.Pinned {
		for p := range g.Partitions {
			fmt.Fprintf(&b, "clock c%d\n", p)
			fmt.Fprintf(&b, "producer p%d to=events key=user_id partition=%d clock=c%d\n", p, p, p)
		}
	} else {
		b.WriteString("producer p0 to=events key=user_id\n")
	}
	for _, l := range g.Traffic {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "stream src from=events lag=%s\n", g.Lag)
	fmt.Fprintf(&b, "watermark src bound=%s emit=%s interval=%s idleness=%s scope=%s\n", g.Bound, g.Emit, g.Interval, g.Idleness, g.Scope)
	for _, l := range []string{g.Filter, g.Map, g.KeyBy} {
		if l != "" {
			fmt.Fprintf(&b, "%s src %s\n", strings.Fields(l)[0], strings.Join(strings.Fields(l)[1:], " "))
		}
	}
	late := " late=" + g.Late
	if g.Late == "side-output" {
		late += " side=late_events" // a window that drops its late records refuses side=
	}
	if g.Time == "processing" {
		late = "" // a processing-time window has no late records to send
	}
	fmt.Fprintf(&b, "window agg from=src %s time=%s agg=%s lateness=%s%s to=results contents=%s\n",
		g.Window, g.Time, g.Agg, g.Lateness, late, g.Contents)
	if g.Join {
		b.WriteString("topic others partitions=1\nproducer q to=others key=user_id\n")
		for _, l := range g.OtherLines {
			b.WriteString(l + "\n")
		}
		b.WriteString("target pairs sink=merge key=user_id\n")
		b.WriteString("stream other from=others\n")
		fmt.Fprintf(&b, "watermark other bound=%s idleness=%s\n", g.Bound, g.JoinIdleness)
		if g.KeyBy != "" {
			fmt.Fprintf(&b, "key-by other %s\n", strings.Fields(g.KeyBy)[1])
		}
		fmt.Fprintf(&b, "join matched left=src right=other between=%s late=%s to=pairs\n", g.JoinBetween, g.JoinLate)
	}
	for _, l := range g.Lines {
		b.WriteString(l + "\n")
	}
	b.WriteString("check late-records\ncheck watermark-lag\ncheck recount\ncheck window-counts\n")
	if g.Join {
		b.WriteString("check join-recount\n")
	}
	return b.String()
}

// randomStream generates a stream scenario of a few hundred events.
func randomStream(r *rand.Rand) streamGen {
	g := streamGen{
		Partitions: 1 + r.IntN(4),
		Pinned:     r.IntN(3) > 0,
		Lag:        pick(r, "0s", "0s", "100ms", "2s"),
		Bound:      pick(r, "0s", "1s", "2s", "5s"),
		Interval:   pick(r, "200ms", "200ms", "1s", "50ms"),
		Emit:       pick(r, "periodic", "periodic", "per-record"),
		Scope:      pick(r, "per-partition", "per-partition", "per-source"),
		Idleness:   pick(r, "off", "off", "5s", "30s"),
		Time:       pick(r, "event", "event", "event", "processing"),
		Agg:        pick(r, "count", "sum", "min", "max"),
		Lateness:   pick(r, "0s", "0s", "5s", "1m"),
		Late:       pick(r, "drop", "side-output"),
		Sink:       pick(r, "merge", "merge", "append"),
		Contents:   pick(r, "on", "off"),
	}
	switch r.IntN(4) {
	case 0, 1:
		g.Window = "tumbling size=" + pick(r, "10s", "30s", "1m")
	case 2:
		g.Window = "sliding size=" + pick(r, "20s", "1m") + " slide=" + pick(r, "5s", "10s")
	default:
		g.Window = "session gap=" + pick(r, "3s", "10s")
	}
	if g.Time == "processing" {
		g.Lateness = "0s"
	}
	if r.IntN(4) == 0 {
		g.Filter = fmt.Sprintf("filter min-amount=%d", r.IntN(50))
	}
	if r.IntN(5) == 0 {
		g.Map = "map scale=" + pick(r, "2", "-1")
		if r.IntN(2) == 0 {
			g.Map += " shift=" + pick(r, "-1m", "30s")
		}
	}
	if r.IntN(3) == 0 {
		g.KeyBy = "key-by " + pick(r, "none", "key")
	}
	span := vtime.Duration(30+r.IntN(120)) * vtime.Second
	at := func() vtime.Time { return t0.Add(vtime.Duration(r.Int64N(int64(span)))) }
	producers := 1
	if g.Pinned {
		producers = g.Partitions
	}
	maxLag := vtime.Duration(0)
	for p := range producers {
		n := 3 + r.IntN(40)
		lag := pick(r, "0s", "0s..2s", "0s..10s", "1s..30s")
		if lag != "0s" {
			hi, _ := vtime.ParseDuration(lag[strings.Index(lag, "..")+2:])
			maxLag = max(maxLag, hi)
		}
		g.Traffic = append(g.Traffic, fmt.Sprintf("traffic p%d records=%d from=%s every=%s keys=%d event-lag=%s amount=1..100",
			p, n, t0.Add(vtime.Duration(r.IntN(5000))), pick(r, "500ms", "1s", "3s"), 2+r.IntN(6), lag))
		if r.IntN(4) == 0 {
			from := at()
			until := from.Add(vtime.Duration(5+r.IntN(60)) * vtime.Second)
			g.Lines = append(g.Lines, fmt.Sprintf("offline p%d at=%s until=%s backlog=%s", p, from, until, pick(r, "send", "none")))
			maxLag = max(maxLag, until.Sub(from))
		}
		if r.IntN(5) == 0 {
			t := at()
			from := t.Add(-vtime.Duration(r.IntN(60)) * vtime.Second)
			n, every := 2+r.IntN(15), pick(r, "0s", "1s", "2s")
			// A burst's events happen at or before its send: the last at t at the latest.
			step, _ := vtime.ParseDuration(every)
			from = min(from, t.Add(-vtime.Duration(n-1)*step))
			g.Lines = append(g.Lines, fmt.Sprintf("burst p%d at=%s records=%d event-from=%s event-every=%s keys=4", p, t, n, from, every))
			maxLag = max(maxLag, t.Sub(from))
		}
		if g.Pinned && r.IntN(6) == 0 {
			g.Lines = append(g.Lines, fmt.Sprintf("jump c%d at=%s by=%s", p, at(), pick(r, "5s", "-5s", "1m")))
		}
	}
	for range r.IntN(3) {
		p := r.IntN(g.Partitions)
		from := at()
		until := from.Add(vtime.Duration(2+r.IntN(40)) * vtime.Second)
		if r.IntN(2) == 0 {
			g.Lines = append(g.Lines, fmt.Sprintf("stall src partition=%d at=%s until=%s", p, from, until))
			maxLag += until.Sub(from)
		} else {
			by := vtime.Duration(1+r.IntN(30)) * vtime.Second
			g.Lines = append(g.Lines, fmt.Sprintf("delay src partition=%d from=%s until=%s by=%s", p, from, until, by))
			maxLag += by
		}
	}
	g.MaxDelay = maxLag + span
	if r.IntN(4) == 0 {
		g.Join = true
		g.JoinBetween = pick(r, "0s..10s", "-5s..5s", "0s..1m")
		g.JoinLate = pick(r, "drop", "side-output")
		g.JoinIdleness = pick(r, "off", "10s")
		for range 3 + r.IntN(20) {
			t := at()
			g.OtherLines = append(g.OtherLines, fmt.Sprintf("produce q at=%s key=%d event-lag=%s", t, 1+r.IntN(6), pick(r, "0s", "2s", "20s")))
		}
		if r.IntN(2) == 0 {
			from := at()
			g.Lines = append(g.Lines, fmt.Sprintf("stall other partition=0 at=%s until=%s", from, from.Add(vtime.Duration(5+r.IntN(60))*vtime.Second)))
		}
	}
	return g
}
