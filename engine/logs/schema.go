package logs

import (
	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sorted"
)

// This file holds schema versions, the seed's contract between a producer
// and each consumer group: a producer writes its records with a version of
// its topic's schema, a group's code was built to read one version, and the
// schema registry's compatibility rule for the topic says which readers are
// promised which records. A deploy line moves a producer or a group to
// another version from an instant on, each at its own time, so for a while
// the two ends run different versions of the contract. A change is taken
// to break every reader the rule does not promise (a field removed that an
// older reader requires, under backward compatibility): the group's code
// cannot deserialize such a record, and its on-error= decides what follows.

// maxSchema is the highest schema version a line may name.
const maxSchema = 100

// The schema registry's compatibility rules (Confluent's names, taken as
// their transitive variants: a version is checked against every one
// before it, not only the last).
const (
	compatBackward = "backward" // a newer reader reads older records: consumers deploy first (the registry's default)
	compatForward  = "forward"  // an older reader reads newer records: producers deploy first
	compatFull     = "full"     // both
)

// readable reports whether code built for schema version reader reads a
// record written with version written (both less one, as Record.Schema)
// under the compatibility rule compat.
func readable(compat string, reader, written uint8) bool {
	switch {
	case reader == written:
		return true
	case reader > written:
		return compat != compatForward
	default:
		return compat != compatBackward
	}
}

// promise says what compat promises, for the narration of a record a
// reader cannot read.
func promise(compat string) string {
	switch compat {
	case compatForward:
		return "forward compatibility promises that older readers read newer records, not the reverse"
	case compatFull:
		return "full compatibility promises that readers of either version read records of the other"
	}
	return "backward compatibility (the registry's default) promises that newer readers read older records, not the reverse"
}

// schemaArg reads a line's schema= version (1 when absent) into a Record's
// form (less one), and notes when the line names one: only then may a
// group meet a record it cannot read.
func (l *world) schemaArg(a *scenario.Args) uint8 {
	if _, ok := a.Find("schema"); ok {
		l.schemas = true
	}
	return uint8(a.Int("schema", 1, 1, maxSchema) - 1)
}

// deployLine reads `deploy NAME at=T schema=N`: the producer or group NAME
// runs code built for schema version N from T on.
func (l *world) deployLine(c scenario.Command) error {
	n, rest, err := scenario.Name(c, "a producer or a consumer group")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	a.Required("schema", "N")
	v := l.schemaArg(a)
	if err := a.Done(); err != nil {
		return err
	}
	p, g := l.producers[n.Value], l.groups[n.Value]
	if p == nil && g == nil {
		return scenario.Errorf(n.Pos, "deploy names a producer or a consumer group declared before it; %q is neither%s", n.Value, scenario.DidYouMean(n.Value, append(l.producerNames(), l.groupOrd...)))
	}
	l.w.Schedule(at, func() { l.deploy(p, g, v) })
	return nil
}

// deploy moves producer p, or else group g, to code built for schema
// version v (less one). A group's members read with it from their next
// poll on (a batch in hand was deserialized when polled); those whose
// application exited on a record the old code could not read start again
// and join in one rebalance, a step later, and static members that stopped
// on one and kept their partitions read on from it at their next poll.
func (l *world) deploy(p *producer, g *groupState, v uint8) {
	if p != nil {
		p.schema = v
		h := p.topic
		check := "and the registry accepts it: " + promise(h.compat)
		if v <= h.registered {
			check = "a version the registry holds already, so it checks nothing"
		}
		h.registered = max(h.registered, v)
		l.w.Emit(p.name, engine.KindProduce, -1, "%s is deployed writing its records with schema version %d, %s.", p.name, int(v)+1, check)
		return
	}
	g.schema = v
	g.hist.Schemas = append(g.hist.Schemas, SchemaPoint{Step: int32(l.w.NextStep()), Version: v})
	var restart []string
	for _, name := range sorted.Keys(g.exited) {
		if g.exited[name].stopped == stopSchema {
			restart = append(restart, name)
		}
	}
	tail := ""
	for _, name := range sorted.Keys(g.members) {
		if m := g.members[name]; m.stopped == stopSchema {
			l.stop(g, m, "")
			tail = "; its consumers that stopped on a record the old code could not read, keeping their partitions, read on from it at their next poll"
		}
	}
	if len(restart) > 0 {
		l.restart(g, restart, "The deploy")
		tail = "; its consumers that exited on a record the old code could not read start again"
	}
	l.w.Emit(g.name, engine.KindRebalance, -1, "%s's code is deployed reading schema version %d%s.", g.name, int(v)+1, tail)
}

// schemaStop is the narration of member m's poll raising on the record at
// offset off of partition p, which its code cannot read: the consumer
// stops there, and stopTail says what follows.
func (l *world) schemaStop(g *groupState, m *member, p int, off int64) {
	l.stop(g, m, stopSchema)
	l.w.Emit(g.name+"/"+m.name, engine.KindPoll, -1, "%s's poll raises RecordDeserializationException at offset %d of %s, written with schema version %d, which its code (version %d) cannot read; its position stays on that record, and the consumer stops%s.",
		m.name, off, g.pname(p), g.topic.Parts[p].Records[off].SchemaVersion(), int(g.schema)+1, l.stopTail(g, m))
}

// raiseUnreadable stops member m when the next record of one of the
// partitions it owns (positioned already) is one its code cannot read, as
// the Java consumer's poll raises RecordDeserializationException on the
// record at the head of what it fetched: a poll that reached such a record
// after others returned those and left it next in line. It reports whether
// m stopped.
func (l *world) raiseUnreadable(g *groupState, m *member, owned []int) bool {
	for _, p := range owned {
		pos, _ := m.pos.get(p)
		if to := min(pos+1, g.topic.Parts[p].End()); g.firstUnreadable(p, pos, to) < to {
			l.schemaStop(g, m, p, pos)
			return true
		}
	}
	return false
}

// firstUnreadable returns the offset of the first record in [from, to) of
// partition p that g's code cannot read, or to when it reads them all.
func (g *groupState) firstUnreadable(p int, from, to int64) int64 {
	recs := g.topic.Parts[p].Records
	for o := from; o < to; o++ {
		if !readable(g.topic.compat, g.schema, recs[o].Schema) {
			return o
		}
	}
	return to
}

// unreadNote narrates the records that g's error handler skipped, named
// by keys, for the sentence of a batch its code for schema version v (less
// one) deserialized.
func (l *world) unreadNote(g *groupState, keys []string, v uint8) string {
	noun := l.w.Trace().Noun(l.feedName(g))
	if noun == "" {
		noun = "record"
	}
	return prose.F("; its error handler logs and skips %s, of a schema version its code (version %d) cannot deserialize, and the batch counts %s as processed", prose.Rows(noun, keys), int(v)+1, prose.ItThem(len(keys)))
}

// remedy is what starts again a member that stopped for why.
func remedy(why string) string {
	if why == stopSchema {
		return "code that reads the record's schema version is deployed"
	}
	return "an operator moves the offset or re-snapshots"
}
