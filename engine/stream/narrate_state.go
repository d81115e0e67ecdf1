package stream

import (
	"cmp"
	"strings"

	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/sorted"
)

// Narration of the second part's steps narrated on demand: an operator
// taking a record off its buffer, and what buffers, sinks and aggregates
// did with a record a stream read.

// isReplay reports whether arrival i read a record again after a restore.
func (t *Trace) isReplay(i int32) bool {
	_, ok := sorted.Search(len(t.Replays), func(j int) int { return cmp.Compare(t.Replays[j], i) })
	return ok
}

// bufferClauses says what the buffers of the operators reading the
// record's stream did with it: queued it, or dropped it because full.
func (t *Trace) bufferClauses(b *strings.Builder, ar Arrival, i int32) {
	if t.Job == nil {
		return
	}
	sh := t.Streams[ar.Stream]
	for oi, oh := range t.Ops {
		if oh.Stream != sh.Name || oh.Kind == "join" || oh.Buffer == 0 {
			continue
		}
		dropped := false
		for k := stepIndex(len(t.Job.Shed), int(ar.Step)-1, func(i int) int32 { return t.Job.Shed[i].Step }); k < len(t.Job.Shed) && t.Job.Shed[k].Step == ar.Step; k++ {
			if int(t.Job.Shed[k].Op) == oi && t.Job.Shed[k].Arrival == i {
				dropped = true
			}
		}
		if dropped {
			prose.Fprintf(b, "; %s's buffer is full (%s), so it drops the record: load shedding, counted as dropped", oh.Name, prose.Count(oh.Buffer, "record", "records"))
			continue
		}
		k := stepIndex(len(oh.Queue), int(ar.Step), func(i int) int32 { return oh.Queue[i].Step })
		if k > 0 && oh.Queue[k-1].Step == ar.Step {
			prose.Fprintf(b, "; it waits in %s's buffer, %d of %d", oh.Name, oh.Queue[k-1].N, oh.Buffer)
			if oh.Overflow == "grow" && int(oh.Queue[k-1].N) > oh.Buffer {
				b.WriteString(", grown past its size because nothing slows the reads")
			}
		}
	}
}

// stateEffects says what sinks and aggregates did with arrival i at step:
// rows written (or held in a transaction), counts updated, duplicates dropped.
func (t *Trace) stateEffects(b *strings.Builder, step, i int32) {
	j := t.Job
	if j == nil {
		return
	}
	for k := stepIndex(len(j.Dups), int(step)-1, func(i int) int32 { return j.Dups[i].Step }); k < len(j.Dups) && j.Dups[k].Step == step; k++ {
		if d := &j.Dups[k]; d.Arrival == i {
			oh := t.Ops[d.Op]
			ttl := ""
			if oh.TTL > 0 {
				ttl = prose.F(" within the last %s", oh.TTL)
			}
			seen := "it"
			if oh.ByKey {
				seen = "its key"
			}
			prose.Fprintf(b, "; %s has seen %s%s and drops it as a duplicate", oh.Name, seen, ttl)
		}
	}
	for k := stepIndex(len(j.Outputs), int(step)-1, func(i int) int32 { return j.Outputs[i].Step }); k < len(j.Outputs) && j.Outputs[k].Step == step; k++ {
		o := &j.Outputs[k]
		oh := t.Ops[o.Op]
		key := t.t.Key(o.Key)
		where := "to " + oh.Target
		if oh.Commit == "two-phase" {
			where = prose.F("into the open transaction on %s, invisible until the next checkpoint completes", oh.Target)
		}
		switch oh.Kind {
		case "aggregate":
			restarted := ""
			if o.Restarted {
				restarted = prose.F(" (its state had expired after %s, so it starts again from empty)", oh.TTL)
			}
			prose.Fprintf(b, "; %s now holds %s for %s%s and writes it %s", oh.Name, prose.F("%d", o.Amount), key, restarted, where)
		default:
			if o.Restarted {
				seen := "this event"
				if oh.ByKey {
					seen = prose.F("key %s", key)
				}
				// Expired once its time to live has run out, at that
				// instant too, as Flink's TTL judges (last write + TTL <= now).
				prose.Fprintf(b, "; %s saw %s at least %s ago and has forgotten it, so it is no duplicate any more", oh.Name, seen, oh.TTL)
			}
			if rec, _ := t.Record(o.Record); rec != nil && rec.Delete {
				// A change capture delete event: the table's mode decides.
				prose.Fprintf(b, "; %s writes the delete of %s %s: %s", oh.Name, key, where, deleteEffect(t.targetMode(oh.Target)))
				continue
			}
			prose.Fprintf(b, "; %s writes %s version %d (amount %d, updated_at %s) %s", oh.Name, key, o.Seq, o.Amount, o.UpdatedAt, where)
		}
	}
}

// deleteEffect says what a delete event does to a table of mode.
func deleteEffect(mode sink.Mode) string {
	if mode == sink.Merge || mode == sink.Upsert {
		return "the table removes the key's row"
	}
	return "a table that is only ever inserted into cannot apply it, and keeps the row"
}

// processSentence narrates an operator taking record k of its buffer.
func (t *Trace) processSentence(k int) string {
	p := t.processed[k]
	oh := t.Ops[p.op]
	ar := t.Arrivals[p.arrival]
	read := t.t.Events[ar.Step-1].At
	var b strings.Builder
	prose.Fprintf(&b, "%s takes %s off its buffer, read at %s", oh.Name, t.recordName(ar), read)
	if d := t.t.Events[p.step-1].At.Sub(read); d > 0 {
		prose.Fprintf(&b, ", %s ago", d)
	}
	prose.Fprintf(&b, "; %d left in its buffer", countAt(oh.Queue, int(p.step)))
	t.effects(&b, p.step, p.arrival, t.arrivalID(ar))
	b.WriteString(".")
	return b.String()
}
