package logs

import (
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/topic"
)

// Actor names who acted in a bulk event: the producer of a send's record,
// else the actor the world gave it.
func (l *Trace) Actor(e *engine.Event) string {
	if h, r, _, ok := l.sent(e); ok {
		return h.Producer(r)
	}
	a, _ := e.Ref()
	return l.t.ActorName(a)
}

// sent returns the record a bulk send event appended, its topic and its
// partition, and false for any other event.
func (l *Trace) sent(e *engine.Event) (*TopicHistory, *topic.Record, int, bool) {
	if e.Kind != engine.KindProduce {
		return nil, nil, 0, false
	}
	a, off := e.Ref()
	h := l.Topics[a/maxPartitions]
	part := int(a % maxPartitions)
	return h, &h.Parts[part].Records[off], part, true
}

// Narration renders a bulk log event's sentence from its note, or from its
// record for a send: the record, reads or commits it points at are all in
// the trace, so nothing is formatted while the world runs. Each sentence is
// the one the event would have been given had it been narrated at once.
func (l *Trace) Narration(e *engine.Event) string {
	t := l.t
	if h, r, part, ok := l.sent(e); ok {
		_, off := e.Ref()
		if l.pinned(h.Producer(r)) {
			return prose.F("%s sends %s (event %s) to %s-%d, the partition it is pinned to; the broker appends it at offset %d.",
				h.Producer(r), keyPhrase(t, h.Producer(r), h.Key(r)), h.ID(r), h.Name, part, off)
		}
		return prose.F("%s sends %s (event %s) to %s-%d, where murmur2 of key %s places it; the broker appends it at offset %d.",
			h.Producer(r), keyPhrase(t, h.Producer(r), h.Key(r)), h.ID(r), h.Name, part, h.Key(r), off)
	}
	_, i := e.Ref()
	n := &l.notes[i]
	switch n.why {
	case notePoll:
		g := l.Groups[n.a]
		h := l.TopicNamed(g.Topic)
		reads := g.Reads[n.i : n.i+int64(n.n)]
		said := make([]string, len(reads))
		for i, r := range reads {
			keys := l.readKeys(h, r)
			said[i] = prose.F("%s-%d %s (%s)", g.Topic, r.Partition, offsets(r.From, r.To), strings.Join(limitKeys(keys, 6), ", "))
		}
		return prose.F("%s polls %s.", g.Members[reads[0].Member], strings.Join(said, " and "))
	case noteWrite:
		g := l.Groups[n.a]
		h := l.TopicNamed(g.Topic)
		reads := g.Reads[n.i : n.i+int64(n.n)]
		var keys, deletes []string
		for _, r := range reads {
			recs := h.Parts[r.Partition].Records[r.From:r.To]
			for i := range recs {
				if recs[i].Delete {
					deletes = append(deletes, h.Label(&recs[i]))
				} else {
					keys = append(keys, h.Label(&recs[i]))
				}
			}
		}
		extra := ""
		if n.c > 0 {
			extra = "; the merge absorbs " + prose.Count(int(n.c), "row", "rows") + " already present"
		}
		return writeSentence(g.Members[reads[0].Member], targetMode(t, g.Target), t.Noun(l.feedOf(g.Target)), g.Target, keys, deletes, int(n.b), extra)
	default:
		g := l.Groups[n.a]
		cs := g.Commits[n.i : n.i+int64(n.n)]
		ok := make([]string, len(cs))
		for i, c := range cs {
			ok[i] = "offset " + strconv.FormatInt(c.Offset, 10) + " on " + g.Topic + "-" + strconv.Itoa(int(c.Partition))
		}
		who, at := g.Members[cs[0].Member], strings.Join(ok, ", ")
		ing, done := work(g.Target == "")
		if n.why == noteCommitBefore {
			return prose.F("%s commits %s %s: should it crash now, %s.", who, at, commitWhen(n.why, ing), doneThough(int(n.b), done))
		}
		return prose.F("%s commits %s %s: the next offset to read.", who, at, commitWhen(n.why, ing))
	}
}

// doneThough says a batch of n records counts as done though none of them
// is done (verb: written, processed): "that record counts as done though
// it is not written" for one, "those records count as done though none is
// written" for more.
func doneThough(n int, verb string) string {
	if n == 1 {
		return "that record counts as done though it is not " + verb
	}
	return "those records count as done though none is " + verb
}

// pinned reports whether the producer named name sends to one partition.
func (l *Trace) pinned(name string) bool {
	for _, p := range l.Producers {
		if p.Name == name {
			return p.Partition >= 0
		}
	}
	return false
}

// readKeys lists the keys of the records one read range fetched, as the
// records carry them (see topic.Topic.Label).
func (l *Trace) readKeys(h *TopicHistory, r ReadRange) []string {
	recs := h.Parts[r.Partition].Records[r.From:r.To]
	keys := make([]string, len(recs))
	for i := range recs {
		keys[i] = h.Label(&recs[i])
	}
	return keys
}

// writeSentence says what a member's write of a batch did to target: the
// rows it wrote and, for change events of deleted rows, the deletes it
// applied (applied of them: the others found no row, or one newer than
// themselves) or, into a table that only ever inserts, could not apply.
func writeSentence(member string, mode sink.Mode, noun, target string, rows, deletes []string, applied int, extra string) string {
	verb := mode.Verb()
	if len(deletes) == 0 {
		return prose.F("%s %s %s into %s%s.", member, verb, prose.Rows(noun, rows), target, extra)
	}
	gone := prose.Rows(noun, deletes)
	if mode == sink.Merge || mode == sink.Upsert {
		del := prose.F("deletes %s, as the change events say", gone)
		switch {
		case applied == 0:
			del = prose.F("finds nothing to delete for the delete events of %s: no row, or one newer than the delete", gone)
		case applied < len(deletes):
			del = prose.F("applies %d of the delete events of %s; the others find no row, or one newer than the delete", applied, gone)
		}
		if len(rows) == 0 {
			if applied == len(deletes) {
				return prose.F("%s deletes %s from %s, as the change events say%s.", member, gone, target, extra)
			}
			return prose.F("%s %s in %s%s.", member, del, target, extra)
		}
		return prose.F("%s %s %s into %s and %s%s.", member, verb, prose.Rows(noun, rows), target, del, extra)
	}
	cannot := prose.F("the delete of %s, which %s cannot apply: a table that is only ever inserted into keeps %s", gone, target, prose.ItThem(len(deletes)))
	if len(rows) == 0 {
		return prose.F("%s reads %s%s.", member, cannot, extra)
	}
	return prose.F("%s %s %s into %s, and reads %s%s.", member, verb, prose.Rows(noun, rows), target, cannot, extra)
}

// TopicNamed returns the history of the topic with name, or nil.
func (l *Trace) TopicNamed(name string) *TopicHistory {
	if l == nil {
		return nil
	}
	for _, h := range l.Topics {
		if h.Name == name {
			return h
		}
	}
	return nil
}

func targetMode(t *engine.Trace, name string) (m sink.Mode) {
	if h := t.TargetNamed(name); h != nil {
		return h.Mode
	}
	return m
}

// feedOf is the table or producer whose rows reach target through the log.
func (l *Trace) feedOf(target string) string {
	for _, f := range l.Feeds {
		if f.Target == target {
			return f.Table
		}
	}
	return ""
}

func keyPhrase(t *engine.Trace, table, key string) string {
	n := t.Noun(table)
	if n == "" {
		n = "row"
	}
	return n + " " + key
}
