package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/tidemark/tidemark/engine/vtime"
)

// stateGen describes a generated scenario of the stream world's second
// part: a topic fed by a producer, a stream reading it (sometimes with
// readers that take time), one operator writing a table (a sink, an
// aggregate or a window, sometimes behind a buffer, with auto-commit or a
// two-phase commit), a checkpoint interval, failures at random instants or
// at a point of a checkpoint, readers, and faults that slow the operator.
// Text writes it as a scenario file.
type stateGen struct {
	Partitions int
	Traffic    []string
	Stream     string // the stream line's options
	Op         string // the operator's line, after its name, without to= or commit=
	Kind       string // sink, aggregate or window
	Target     string // append, merge or upsert
	Commit     string // auto or two-phase
	Every      string // the checkpoint interval, or "" for none
	Timeout    string // the checkpoint timeout, or "" for the default
	Lines      []string
}

func (g stateGen) Text() string {
	var b strings.Builder
	b.WriteString("scenario prop/state \"A generated stream job with checkpoints\"\n")
	fmt.Fprintf(&b, "topic events partitions=%d\n", g.Partitions)
	b.WriteString("producer p to=events key=event_id\n")
	fmt.Fprintf(&b, "target out sink=%s key=event_id\n", g.Target)
	for _, l := range g.Traffic {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "stream src from=events%s\n", g.Stream)
	if g.Every != "" {
		fmt.Fprintf(&b, "checkpoint every=%s", g.Every)
		if g.Timeout != "" {
			// The job runs on past expired checkpoints, as one set to
			// tolerate them does: the properties are about what an
			// expired checkpoint's transactions become. Failing the job
			// for them (Flink's default) has tests of its own
			// (engine/stream TestExpiredCheckpointsFailTheJob).
			fmt.Fprintf(&b, " timeout=%s tolerable=1000000", g.Timeout)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s op from=src %s to=out commit=%s\n", g.Kind, g.Op, g.Commit)
	for _, l := range g.Lines {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// stateOptions narrows what randomState may generate, for a property that
// holds only for some jobs.
type stateOptions struct {
	kinds     []string // operators to choose from
	targets   []string
	commits   []string
	overflows []string // "" for no buffer
	ttl       bool     // a time to live on keyed state
	reads     bool
	unique    bool // every event a key of its own
	// slower: now and then a second operator on the same stream, slower
	// than the first behind a blocking buffer, with a short checkpoint
	// timeout, so that checkpoints expire after the first operator has
	// taken its snapshot (and pre-committed its transaction).
	slower bool
}

var anyState = stateOptions{
	kinds:     []string{"sink", "sink", "aggregate", "window"},
	targets:   []string{"append", "merge", "upsert"},
	commits:   []string{"auto", "two-phase"},
	overflows: []string{"", "", "block", "grow", "drop"},
	ttl:       true,
	reads:     true,
}

// randomState generates a job of a few hundred records with a few failures.
func randomState(r *rand.Rand, o stateOptions) stateGen {
	g := stateGen{Partitions: 1 + r.IntN(3), Kind: pick(r, o.kinds...), Target: pick(r, o.targets...), Commit: pick(r, o.commits...)}
	span := vtime.Duration(20+r.IntN(60)) * vtime.Second
	at := func() vtime.Time { return t0.Add(vtime.Duration(r.Int64N(int64(span)))) }
	n := 20 + r.IntN(120)
	keys := pick(r, "unique", "unique", "5", "50")
	if o.unique {
		keys = "unique"
	}
	g.Traffic = append(g.Traffic, fmt.Sprintf("traffic p records=%d from=%s every=%s keys=%s amount=1..9", n, t0, pick(r, "200ms", "500ms", "1s"), keys))
	if r.IntN(3) == 0 {
		g.Stream += fmt.Sprintf(" parallelism=%d rate=%s", 1+r.IntN(g.Partitions), pick(r, "5/s", "20/s", "100/s"))
	}
	switch g.Kind {
	case "sink":
		if o.ttl && r.IntN(3) == 0 {
			g.Op = "dedup=" + pick(r, "event", "key") + " ttl=" + pick(r, "off", "5s", "1m")
		}
	case "aggregate":
		g.Op = "agg=" + pick(r, "count", "sum", "max")
		if o.ttl && r.IntN(2) == 0 {
			g.Op += " ttl=" + pick(r, "3s", "30s")
		}
	case "window":
		g.Op = "tumbling size=" + pick(r, "5s", "10s", "30s")
		g.Lines = append(g.Lines, "watermark src bound="+pick(r, "0s", "1s"))
	}
	if ov := pick(r, o.overflows...); ov != "" {
		buffer := 5 + r.IntN(40)
		g.Op += fmt.Sprintf(" rate=%s buffer=%d overflow=%s", pick(r, "2/s", "5/s", "50/s"), buffer, ov)
		if ov == "grow" && r.IntN(2) == 0 {
			g.Op += fmt.Sprintf(" memory=%d", buffer+r.IntN(30))
		}
	}
	g.Op = strings.TrimSpace(g.Op)
	if g.Commit == "two-phase" || r.IntN(5) > 0 {
		g.Every = pick(r, "2s", "5s", "10s")
	}
	for range r.IntN(4) {
		point := "now"
		if g.Every != "" {
			point = pick(r, "now", "now", "barrier", "snapshot", "commit")
		}
		g.Lines = append(g.Lines, fmt.Sprintf("fail op at=%s point=%s restart=%s", at(), point, pick(r, "0s", "1s", "5s")))
	}
	if o.reads {
		for i := range r.IntN(4) {
			g.Lines = append(g.Lines, fmt.Sprintf("read out at=%s as=r%d isolation=%s", at(), i, pick(r, "read-committed", "read-committed", "read-uncommitted")))
		}
	}
	if o.slower && g.Every != "" && r.IntN(2) == 0 {
		g.Lines = append(g.Lines, fmt.Sprintf("aggregate slower from=src agg=count rate=%s buffer=%d", pick(r, "1/s", "2/s", "5/s"), 5+r.IntN(30)))
		g.Timeout = pick(r, "500ms", "1s", "3s")
	}
	return g
}
