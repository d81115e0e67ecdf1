// Package chain is the model behind the chain builder: a pipeline of five
// hops (source read, transport, processing, sink, serving table), an option
// for each, the guarantee each option gives, the chain's guarantee (the
// weakest hop's, see Chain.Guarantee), and a scenario of the stream world
// that demonstrates the assembled chain (see Chain.Scenario and Run).
//
// The guarantees here are claims; the engine is the judge. The package's
// tests run every combination of options and require that the rows the
// engine finds missing and doubled are exactly what the chain's guarantee
// says may go missing or be doubled.
package chain

import (
	"fmt"
	"net/url"
	"strings"
)

// Guarantee is what a hop, or a whole chain, promises about each event: it
// may lose it, it may repeat it, both, or neither.
type Guarantee struct {
	Loses   bool // an event may never arrive
	Repeats bool // an event may arrive more than once
}

// The four guarantees.
var (
	ExactlyOnce = Guarantee{}
	AtLeastOnce = Guarantee{Repeats: true}
	AtMostOnce  = Guarantee{Loses: true}
	None        = Guarantee{Loses: true, Repeats: true}
)

// Meet is the weaker of g and h: whatever either may do, the two together
// may do. Under it at-least-once and at-most-once meet at None.
func (g Guarantee) Meet(h Guarantee) Guarantee {
	return Guarantee{Loses: g.Loses || h.Loses, Repeats: g.Repeats || h.Repeats}
}

// Name is the guarantee's usual name.
func (g Guarantee) Name() string {
	switch g {
	case ExactlyOnce:
		return "exactly-once"
	case AtLeastOnce:
		return "at-least-once"
	case AtMostOnce:
		return "at-most-once"
	}
	return "no guarantee"
}

// Effect says in words what the guarantee lets happen to the table's rows.
func (g Guarantee) Effect() string {
	switch g {
	case ExactlyOnce:
		return "every row once"
	case AtLeastOnce:
		return "rows may be doubled, none lost"
	case AtMostOnce:
		return "rows may be missing, none doubled"
	}
	return "rows may be missing and others doubled"
}

// Reads is what a serving table lets a reader see while it is written.
type Reads int

// Reads values.
const (
	WholeStates   Reads = iota // a reader sees the table as it stood at some moment
	PartialStates              // a reader may see a mixture the table never held at once
)

// Name says what a reader may see.
func (r Reads) Name() string {
	if r == PartialStates {
		return "readers may see a half-written table"
	}
	return "readers see whole states"
}

// Hop is one stage of the chain with the options a learner picks from.
type Hop struct {
	ID      string // the query parameter that carries the choice
	Name    string
	Does    string // what the hop does, one sentence
	Failure string // the incident every run puts this hop through
	Options []Option
	Default string // the option a fresh form shows: the strong one
}

// Option is one way to build a hop.
type Option struct {
	ID   string
	Name string
	// How says what the option does when the hop's incident comes.
	How string
	// Guarantee is what the hop itself promises with this option.
	Guarantee Guarantee
	// Absorbs lists what repeats of earlier hops this option makes
	// harmless: "copies" (a record in the log twice, under one key) and
	// "replays" (the job writing again what it wrote since a checkpoint).
	Absorbs []string
	// Reads, for the serving table, is what readers may see.
	Reads Reads
}

// Hop ids, in chain order.
const (
	Source     = "source"
	Transport  = "transport"
	Processing = "processing"
	Sink       = "sink"
	Serving    = "serving"
)

// Hops are the five hops in order, each with its options. The strong option
// comes first.
var Hops = []Hop{
	{
		ID: Source, Name: "Source read",
		Does:    "The shop's application sends each order to the orders topic.",
		Failure: "Order 1000's write lands on the broker, but the acknowledgement is lost on its way back.",
		Default: "idempotent",
		Options: []Option{
			{ID: "idempotent", Name: "Retries with an idempotent producer",
				How:       "The client resends the batch; the broker knows its producer id and sequence number and keeps one copy.",
				Guarantee: ExactlyOnce},
			{ID: "retries", Name: "Retries without idempotence",
				How:       "The client resends the batch and the broker appends it again: order 1000 is in the log twice.",
				Guarantee: AtLeastOnce},
			{ID: "no-retries", Name: "No retries (fire and forget)",
				How:       "The send is lost and nobody sends it again: order 1000 never reaches the log.",
				Guarantee: AtMostOnce},
		},
	},
	{
		ID: Transport, Name: "Transport",
		Does:    "The orders topic keeps records for its retention, and the job reads them.",
		Failure: "Late in the run the job is down for three minutes.",
		Default: "retention-long",
		Options: []Option{
			{ID: "retention-long", Name: "Retention of ten minutes",
				How:       "The records the job missed while it was down are still in the topic when it comes back.",
				Guarantee: ExactlyOnce},
			{ID: "retention-short", Name: "Retention of one minute",
				How:       "Retention deletes records the job never read; it resumes from the oldest record left.",
				Guarantee: AtMostOnce},
		},
	},
	{
		ID: Processing, Name: "Processing",
		Does:    "A stream job reads the orders and checkpoints its read position every ten seconds; its writer takes three records a second, with a buffer in front of it.",
		Failure: "The job fails at 10:00:25 with its buffer empty, and again at 10:00:53 just after a burst, with records waiting in the buffer; each time it restarts from its last checkpoint.",
		Default: "after",
		Options: []Option{
			{ID: "after", Name: "Position saved after the write (the buffer blocks)",
				How:       "When the buffer is full the job stops reading, and a checkpoint waits until the records ahead of it are written, so its position never passes an unwritten record; each restart writes again what was written after the checkpoint.",
				Guarantee: AtLeastOnce},
			{ID: "before", Name: "Position saved before the write (the buffer grows)",
				How:       "The job reads on into an ever larger buffer, so after the burst a checkpoint's position runs ahead of what is written: that restart skips what was still buffered. The first restart, with the buffer empty, writes again what followed its checkpoint.",
				Guarantee: None},
		},
	},
	{
		ID: Sink, Name: "Sink",
		Does:    "The job writes each order into fct_orders.",
		Failure: "Order 1000 may be in the log twice, and each restart writes again what the job wrote since its checkpoint.",
		Default: "merge",
		Options: []Option{
			{ID: "merge", Name: "Keyed merge on order_id",
				How:       "A row whose key is already there with the same version is left as it is: repeats of any kind leave no trace.",
				Guarantee: ExactlyOnce, Absorbs: []string{"copies", "replays"}},
			{ID: "two-phase", Name: "Two-phase commit with the checkpoint",
				How:       "Rows written since the last checkpoint are in a transaction that the failure aborts, so a replay is never seen twice; a copy in the log is a second record, and is written.",
				Guarantee: ExactlyOnce, Absorbs: []string{"replays"}},
			{ID: "append", Name: "Append, no key",
				How:       "Every write is a new row, whether or not the table has the order already.",
				Guarantee: AtLeastOnce},
		},
	},
	{
		ID: Serving, Name: "Serving table",
		Does:    "A report reads fct_orders while the restarted job is writing again.",
		Failure: "The report runs at 10:00:28, while the job is writing again what it wrote before its first failure.",
		Default: "atomic",
		Options: []Option{
			{ID: "atomic", Name: "Atomic publish, once per checkpoint",
				How:       "The job publishes what each checkpoint covers in one transaction; the report sees the table as of a checkpoint, never a write in progress.",
				Guarantee: ExactlyOnce, Absorbs: []string{"replays"}, Reads: WholeStates},
			{ID: "live", Name: "Written in place as rows arrive",
				How:       "The report reads the rows as the job writes them, replay and all.",
				Guarantee: ExactlyOnce, Reads: PartialStates},
		},
	},
}

// Chain is one choice of option per hop, by hop id.
type Chain map[string]string

// Default is the chain with every hop's strong option.
func Default() Chain {
	c := Chain{}
	for _, h := range Hops {
		c[h.ID] = h.Default
	}
	return c
}

// Parse reads a chain from query values (hop id = option id). A missing hop
// takes its default; an unknown hop or option is an error naming it and
// what was expected, so that a hand-edited link says what is wrong.
func Parse(q url.Values) (Chain, error) {
	c := Default()
	for k, vs := range q {
		h, ok := hop(k)
		if !ok {
			continue // other parameters belong to the page, not the chain
		}
		if len(vs) != 1 {
			return nil, fmt.Errorf("hop %s is given %d times; expected once", k, len(vs))
		}
		if _, ok := h.option(vs[0]); !ok {
			return nil, fmt.Errorf("hop %s cannot be %q; expected %s", k, vs[0], h.optionList())
		}
		c[k] = vs[0]
	}
	return c, nil
}

// Query is the chain as query values, in hop order: the link to it.
func (c Chain) Query() string {
	var b strings.Builder
	for i, h := range Hops {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(h.ID + "=" + url.QueryEscape(c[h.ID]))
	}
	return b.String()
}

// Option returns the option the chain picks for hop id.
func (c Chain) Option(id string) Option {
	h, _ := hop(id)
	o, _ := h.option(c[id])
	return o
}

func hop(id string) (Hop, bool) {
	for _, h := range Hops {
		if h.ID == id {
			return h, true
		}
	}
	return Hop{}, false
}

func (h Hop) option(id string) (Option, bool) {
	for _, o := range h.Options {
		if o.ID == id {
			return o, true
		}
	}
	return Option{}, false
}

func (h Hop) optionList() string {
	ids := make([]string, len(h.Options))
	for i, o := range h.Options {
		ids[i] = o.ID
	}
	return strings.Join(ids, " | ")
}

// Weakest returns the hops that set the chain's guarantee: those whose
// own guarantee, less any repeat a later hop absorbs, is weaker than
// exactly-once and stronger than no other hop's. With one hop that may lose
// and another that may repeat, the chain may do both and neither hop alone
// says so, so both are listed; a hop that may do both outranks each of
// them. They are the hops to change first. A chain that keeps every row
// once has none.
func (c Chain) Weakest() []string {
	var out []string
	for _, h := range Hops {
		g := c.Effective(h.ID)
		if g == ExactlyOnce {
			continue
		}
		weaker := false // some other hop does all that h does, and more
		for _, o := range Hops {
			if f := c.Effective(o.ID); f != g && f.Meet(g) == f {
				weaker = true
				break
			}
		}
		if !weaker {
			out = append(out, h.ID)
		}
	}
	return out
}

// Effective is what hop id contributes to the chain: its own guarantee,
// less a repeat that a later hop absorbs.
func (c Chain) Effective(id string) Guarantee {
	g := c.Option(id).Guarantee
	if _, ok := c.Absorbed()[id]; ok {
		g.Repeats = false
	}
	return g
}

// Guarantee is the chain's guarantee: the meet of its hops' guarantees,
// except that a repeat made by one hop and absorbed by a later one (a copy
// folded by a keyed merge, a replay discarded by a transaction) no longer
// shows. A loss is never absorbed: no later hop can write a row it was
// never given.
func (c Chain) Guarantee() Guarantee {
	g := ExactlyOnce
	for _, h := range Hops {
		g = g.Meet(c.Effective(h.ID))
	}
	return g
}

// Reads is what the chain's report sees. A table written in place shows a
// replay half done only when the replay changes what the table holds: an
// append adds the rows again, while a keyed merge of the same versions and
// a transaction per checkpoint leave it as it was until the replay is
// whole.
func (c Chain) Reads() Reads {
	if c.Option(Serving).Reads == PartialStates && c[Sink] == "append" {
		return PartialStates
	}
	return WholeStates
}

// Absorbed names the hops whose repeats a later hop absorbs, with the hop
// that absorbs them.
func (c Chain) Absorbed() map[string]string {
	out := map[string]string{}
	for i, h := range Hops {
		if !c.Option(h.ID).Guarantee.Repeats {
			continue
		}
		if by, ok := c.absorber(i, repeatKind(h.ID)); ok {
			out[h.ID] = by
		}
	}
	return out
}

// repeatKind is what a hop's repeats are: copies in the log from the
// source, replays from everything after it.
func repeatKind(hop string) string {
	if hop == Source {
		return "copies"
	}
	return "replays"
}

// absorber returns the first hop after hop i whose option absorbs kind. A
// sink's own repeats (an append) are absorbed by the serving table's
// publication, which is the sink's write made transactional.
func (c Chain) absorber(i int, kind string) (string, bool) {
	for _, h := range Hops[i+1:] {
		for _, a := range c.Option(h.ID).Absorbs {
			if a == kind {
				return h.ID, true
			}
		}
	}
	return "", false
}

// All returns every chain, in a fixed order: the product of every hop's
// options.
func All() []Chain {
	out := []Chain{{}}
	for _, h := range Hops {
		var next []Chain
		for _, c := range out {
			for _, o := range h.Options {
				d := Chain{}
				for k, v := range c {
					d[k] = v
				}
				d[h.ID] = o.ID
				next = append(next, d)
			}
		}
		out = next
	}
	return out
}
