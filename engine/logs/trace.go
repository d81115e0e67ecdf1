package logs

import (
	"slices"
	"sort"
	"strconv"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/group"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Feed says that rows of a source table (or a producer's intended events,
// under the producer's name) reach a target through the log. Truth compares
// the target with them.
type Feed struct {
	_      nocmp.NoCompare
	Table  string
	Target string
}

// Trace is the log world's part of a trace (its engine.History): every
// record with the step it was appended and deleted at, every move of every
// log start, every change of partition count, and every offset a group
// committed, so the log at any step is read without replaying.
type Trace struct {
	t         *engine.Trace
	Topics    []*TopicHistory
	Groups    []*GroupHistory
	Feeds     []Feed         // tables and producers that reach a target through the log
	Producers []ProducerInfo // every producer, in the order declared
	Schemas   bool           // some line names a schema version, so records may carry one after the first
	notes     []logNote      // narration of bulk events, rendered on demand
	// absorbed holds, for each write into a merge that absorbed rows
	// already present, its step and how many it absorbed, in step order:
	// the count a team reads from its MERGE's report of rows matched.
	absorbed [][2]int32
}

// Of returns the log world's part of t, or nil when t's scenario declares
// no topic (or was built without the log world).
func Of(t *engine.Trace) *Trace {
	for _, h := range t.Histories() {
		if l, ok := h.(*Trace); ok {
			return l
		}
	}
	return nil
}

// TopicHistory is one topic: its partitions (records carry their steps) and
// the steps its partition count changed at.
type TopicHistory struct {
	*topic.Topic
	Counts   []CountPoint // Counts[0] is the count it was created with, at step 0
	appended []func(part int, off int64)

	// While building: what keeps state for each partition (the topic, each
	// group on it, each stream reading it), and the most partitions any
	// line will give it; see Log.Hold.
	holders    int
	most       int
	until      vtime.Time // the last instant a produce or traffic line sends to it
	compat     string     // the schema registry's compatibility rule for its records: backward, forward or full (see schema.go)
	registered uint8      // the highest schema version its producers have written, less one: the registry holds it and those before
}

// SendsUntil is the last instant a produce or traffic line of the scenario
// sends a record to the topic (0 when none does): until then its readers
// know more input is coming, however quiet the topic is.
func (h *TopicHistory) SendsUntil() vtime.Time { return h.until }

// CountPoint records that a topic had N partitions from Step on.
type CountPoint struct {
	_    nocmp.NoCompare
	Step int32
	N    int
}

// PartitionsAt is the topic's partition count after step n.
func (h *TopicHistory) PartitionsAt(n int) int {
	c := h.Counts[0].N
	for _, p := range h.Counts {
		if int(p.Step) <= n {
			c = p.N
		}
	}
	return c
}

// GroupHistory is one consumer group's log: commits, what each poll read,
// and the ranges an offset reset jumped over.
//
// Commits and Reads name who committed or read by an index of Members, so
// that their hundreds of thousands of entries hold no pointers; a group has
// at most maxMembers members and a topic maxPartitions partitions, so each
// index fits in 16 bits and a read is 24 bytes, a commit 16.
type GroupHistory struct {
	Name, Topic, Target string
	Strategy            group.Strategy
	Commits             []CommitPoint
	Reads               []ReadRange
	Resets              []ResetRange
	Members             []string // the members, the operator and the initial commit ("before"), each once
	// Assignments is who held which partition, in step order, one at a
	// step at most: each from its Step until the next one's (see
	// Trace.AssignmentAt).
	Assignments []Assignment
	// Schemas is the schema version its code reads, less one, from each
	// step on (see schema.go): the first at step 0, then one per deploy.
	Schemas []SchemaPoint
	// Stops is each member's consumer stopping on an exception its code
	// does not handle, and running again, in step order (see StoppedAt).
	Stops []StopPoint
	// Closes is each static member closing its consumer without leaving
	// the group, in step order: a static member's close sends no
	// LeaveGroup, so it keeps its partitions, unread, until it starts again
	// or its session times out (see ClosedAt).
	Closes []ClosePoint
}

// ClosePoint is static member Member (an index into Members) closing its
// consumer at Step without leaving the group, and what ended that: at
// Until, 0 while it lasts to the end of the run, the member started again
// under its group.instance.id and kept its partitions, or, when Removed,
// the coordinator removed it as session.timeout.ms passed with no heartbeat.
type ClosePoint struct {
	_       nocmp.NoCompare
	Step    int32
	Until   int32
	Member  int16
	Removed bool
}

// ClosedAt reports whether member had closed its consumer, as a static
// member, without leaving the group at step n.
func (g *GroupHistory) ClosedAt(member string, n int) bool {
	for i := range g.Closes {
		c := &g.Closes[i]
		if int(c.Step) <= n && (c.Until == 0 || n < int(c.Until)) && g.Members[c.Member] == member {
			return true
		}
	}
	return false
}

// StopPoint is member Member (an index into Members) stopping at Step on
// the exception Stops[Why], or, with Why 0, running again: restarted by
// a deploy or an operator, or its stop cleared by a re-snapshot.
type StopPoint struct {
	_      nocmp.NoCompare
	Step   int32
	Member int16
	Why    uint8
}

// Stops names the exceptions a member stops on, by StopPoint.Why.
var Stops = [...]string{"", stopOutOfRange, stopNoOffset, stopSchema}

// StoppedAt is the exception member stopped on, if it was stopped after
// step n, or "" while it runs (or never ran).
func (g *GroupHistory) StoppedAt(member string, n int) string {
	var why uint8
	for _, s := range g.Stops {
		if int(s.Step) <= n && g.Members[s.Member] == member {
			why = s.Why
		}
	}
	return Stops[why]
}

// SchemaPoint is a group's code reading schema version Version+1 from Step on.
type SchemaPoint struct {
	_       nocmp.NoCompare
	Step    int32
	Version uint8
}

// SchemaAt is the schema version group g's code reads at step n.
func (g *GroupHistory) SchemaAt(n int) int {
	v := 0
	for _, p := range g.Schemas {
		if int(p.Step) <= n {
			v = int(p.Version)
		}
	}
	return v + 1
}

// Assignment is who in a group holds which partitions of its topic from
// Step on. A group records one when a rebalance completes (a new
// generation), when one begins and waits for members busy with a batch,
// when a busy member it waits for finishes, when a member leaves before
// the rebalance that follows completes (evicted for passing
// max.poll.interval), and when the topic gains partitions that no member
// holds until the group notices them.
//
// The rebalance is eager: while it waits (Waiting), the busy members keep
// their partitions and their commits are accepted, and no other member
// reads; the generation is the one before until it completes. The other
// members have given up what they held, which is Unheld until then.
type Assignment struct {
	Step       int32
	Generation int32     // 0 before the group's first rebalance
	Waiting    bool      // a rebalance has begun and waits for the Busy members to call poll again
	Holds      []Holding // every member of the group, each once, by name
	Unheld     []int16   // the partitions no member holds, ascending: all of them when the group has no member, and nobody reads; while Waiting, those of members not Busy
}

// Holding is one member's partitions in an Assignment.
type Holding struct {
	Member     string
	Partitions []int16 // ascending; none when it holds nothing (more members than partitions, or given up while a rebalance waits)
	Busy       bool    // the rebalance under way waits for it: only it reads, what it keeps
}

// AssignmentAt returns who in group held which partition after step n
// (the trace's own, not to be changed), or nil when the group had no
// assignment then: no member had joined, or there is no such group.
func (l *Trace) AssignmentAt(group string, n int) *Assignment {
	if l == nil {
		return nil
	}
	for _, g := range l.Groups {
		if g.Name != group {
			continue
		}
		as := g.Assignments
		// The first assignment after step n; the one before it holds.
		if i := sort.Search(len(as), func(i int) bool { return int(as[i].Step) > n }); i > 0 {
			return &as[i-1]
		}
	}
	return nil
}

// MemberRef returns the index of name in Members, adding it on first use.
func (g *GroupHistory) MemberRef(name string) int16 {
	if i := slices.Index(g.Members, name); i >= 0 {
		return int16(i)
	}
	g.Members = append(g.Members, name)
	return int16(len(g.Members) - 1)
}

// CommitPoint is one committed offset: the next offset the group will read
// on Partition, stored at Step.
type CommitPoint struct {
	Step      int32
	Partition int16
	Member    int16 // who committed, as an index of GroupHistory.Members
	Offset    int64
}

// ReadRange is what one poll returned from one partition: offsets [From, To).
type ReadRange struct {
	Step      int32
	Member    int16 // the member that read, as an index of GroupHistory.Members
	Partition int16
	From, To  int64
}

// ResetRange is a position auto.offset.reset moved, skipping [From, To).
type ResetRange struct {
	_         nocmp.NoCompare
	Step      int32
	Member    string
	Partition int32
	From, To  int64
	Policy    string
	Deleted   bool // the range was already deleted by retention
}

// CommittedAt is the group's committed offset on partition p after step n, or -1.
func (g *GroupHistory) CommittedAt(p, n int) int64 {
	// Commits are in step order: find the last one by step n, then look
	// back for the partition's latest, so a step late in a long trace costs
	// little when the partition commits often.
	upto, _ := sorted.Search(len(g.Commits), func(k int) int {
		x := g.Commits[k]
		if int(x.Step) <= n {
			return -1
		}
		return 1
	})
	for i := upto - 1; i >= 0; i-- {
		if int(g.Commits[i].Partition) == p {
			return g.Commits[i].Offset
		}
	}
	return -1
}

// PartitionState is one partition at one step, as a panel would draw it.
type PartitionState struct {
	Topic     string
	Partition int
	Start     int64 // log start offset
	End       int64 // log end offset
	Groups    []GroupOffset
}

// GroupOffset is one group's committed offset on a partition and its lag
// (end minus committed; end minus start when nothing is committed).
type GroupOffset struct {
	_         nocmp.NoCompare
	Group     string
	Committed int64 // -1: nothing committed
	Lag       int64
}

// LogAt returns every partition of every topic as it stood after step n.
func (l *Trace) LogAt(n int) []PartitionState {
	if l == nil {
		return nil
	}
	n = l.t.ClampStep(n)
	var out []PartitionState
	for _, h := range l.Topics {
		for p := range h.PartitionsAt(n) {
			part := h.Parts[p]
			s := PartitionState{Topic: h.Name, Partition: p, Start: part.StartAt(int32(n)), End: part.EndAt(int32(n))}
			s.Start = min(max(s.Start, 0), s.End)
			for _, g := range l.Groups {
				if g.Topic != h.Name {
					continue
				}
				c := g.CommittedAt(p, n)
				// Lag as Kafka's tools report it: log end less the committed
				// offset, deleted records included. With nothing committed
				// kafka-consumer-groups shows none ("-"); here it is what the
				// log still holds, all of it owed.
				from := c
				if from < 0 {
					from = s.Start
				}
				lag := s.End - from
				s.Groups = append(s.Groups, GroupOffset{Group: g.Name, Committed: c, Lag: lag})
			}
			out = append(out, s)
		}
	}
	return out
}

// RecordsAt returns the records of partition p of topic name appended by
// step n, each with its Deleted step (Live, or a step after n, while held).
func (l *Trace) RecordsAt(name string, p, n int) []topic.Record {
	if l == nil {
		return nil
	}
	for _, h := range l.Topics {
		if h.Name == name && p < len(h.Parts) {
			part := h.Parts[p]
			return part.Records[:part.EndAt(int32(l.t.ClampStep(n)))]
		}
	}
	return nil
}

// Observe adds to o what a team could see of the log after step n: each
// group's offsets and lag, what every poll read, where resets jumped, the
// order rows arrived in the targets the log feeds, and the rows its
// merges absorbed.
func (l *Trace) Observe(n int, o *check.Observation) {
	o.Log = l.view(n)
	for _, a := range l.absorbed {
		if int(a[0]) > n {
			break
		}
		o.Collapsed += int(a[1])
	}
}

// view is what a team could see of the log after step n.
func (l *Trace) view(n int) *check.LogView {
	t := l.t
	v := &check.LogView{}
	for _, s := range l.LogAt(n) {
		for _, g := range s.Groups {
			v.Partitions = append(v.Partitions, check.LogPartition{Group: g.Group, Partition: s.Topic + "-" + strconv.Itoa(s.Partition),
				Start: s.Start, End: s.End, Committed: g.Committed})
		}
	}
	for _, g := range l.Groups {
		for _, r := range g.Reads {
			if int(r.Step) <= n {
				v.Reads = append(v.Reads, check.OffsetRange{Group: g.Name, Partition: g.Topic + "-" + strconv.Itoa(int(r.Partition)), From: r.From, To: r.To})
			}
		}
		for _, r := range g.Resets {
			if int(r.Step) <= n {
				why := "auto.offset.reset=" + r.Policy
				if r.Deleted {
					why += " after retention deleted them"
				}
				v.Resets = append(v.Resets, check.OffsetRange{Group: g.Name, Partition: g.Topic + "-" + strconv.Itoa(int(r.Partition)), From: r.From, To: r.To, Why: why})
			}
		}
	}
	type arrival struct {
		step int32
		a    check.Applied
	}
	var all []arrival
	for _, h := range t.Targets {
		fed := false // a loop: slices.ContainsFunc is an instance per slice type in the browser module
		for _, f := range l.Feeds {
			fed = fed || f.Target == h.Name
		}
		if !fed {
			continue
		}
		for _, r := range h.Rows {
			if int(r.AddedStep) <= n {
				all = append(all, arrival{r.AddedStep, check.Applied{Key: t.RowKey(&r), Version: int(r.Seq)}})
			}
		}
	}
	sorted.Stable(all, func(i, j int32) int { return int(all[i].step - all[j].step) })
	for _, x := range all {
		v.Applied = append(v.Applied, x.a)
	}
	return v
}
