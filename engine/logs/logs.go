// Package logs is the log world: a partitioned log (Kafka's model) fed by
// change data capture, applications that publish after committing, and
// producers of their own events; consumer groups that poll it, write to
// the core's targets and commit offsets; retention, rebalances, pauses,
// added partitions and re-snapshots.
//
// It is a world of the engine (see docs/architecture.md): Domain is what a
// caller hands engine.Build, and Of reads the world's part of a trace. The
// log builds on the high-water-mark world for change capture: a cdc or
// publish line reads a source table's commits.
package logs

import (
	"errors"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/topic"
)

// Domain is the log world, for engine.Build.
var Domain engine.Domain = domain{}

// Fault kinds the log world injects.
const (
	// FaultAddPartition adds one partition to a topic, as an operator's
	// add-partitions would; the topic's groups rebalance after their refresh.
	FaultAddPartition engine.FaultKind = "add-partition"
	// FaultPause stops a consumer group member's fetches for a while, as a
	// scenario's pause line would (a slow downstream, a long GC).
	FaultPause engine.FaultKind = "pause"
)

type domain struct{}

// Commands are the log world's scenario commands, in the order
// docs/scenarios.md documents them.
func (domain) Commands() []string { return commands }

// commands are the world's commands; the core only reads them.
var commands = []string{"topic", "cdc", "publish", "crash", "producer", "produce", "traffic",
	"offline", "burst", "group", "member", "leave", "poll", "polls", "pause", "add-partitions", "resnapshot", "deploy"}

func (domain) Faults() []engine.FaultKind { return faults }

var faults = []engine.FaultKind{FaultAddPartition, FaultPause, FaultBurst, FaultProducerClock}

func (domain) Open(w *engine.World) engine.Part {
	return &world{w: w, topics: map[string]*TopicHistory{}, producers: map[string]*producer{}, groups: map[string]*groupState{}}
}

// world is the log world's live state in one engine.World.
type world struct {
	w         *engine.World
	t         *Trace // the world's history; nil until the first topic is declared
	by        engine.Narrator
	topics    map[string]*TopicHistory
	held      int // partitions kept in all: each topic's most times its holders (hold)
	captures  []*capture
	producers map[string]*producer
	prodOrd   []string // producers' names in the order the scenario declares them
	groups    map[string]*groupState
	groupOrd  []string
	nextPID   int32
	ticking   bool            // some topic has retention or some group auto-commits
	notes     int             // events narrated on demand the scenario will make, to size the trace
	multi     bool            // the scenario has several targets, so a key's id depends on its target
	schemas   bool            // some line names a schema version, so a group may meet a record it cannot read (schema.go)
	source    *engine.Clock   // the database server's clock, for the times captured records carry
	src       engine.SourceDB // the source database change capture reads; nil until a capture is declared
	hash      []int32         // murmur2 of each key made positive, by the key's id; -1 until placed
	// events is the table producers' events are rows of, to the truth: the
	// first producer's, shared by every producer, so that a key's events
	// are one row whoever sends them, and a row of its own beside a source
	// table's row with the same key. Set with hasEvents.
	events    int16
	hasEvents bool
}

// lw attaches the log world's history to the trace, once.
func (l *world) lw() {
	if l.t == nil {
		l.t = &Trace{t: l.w.Trace()}
		l.by = l.w.Attach(l.t)
	}
}

// Command reads one of the log world's scenario lines.
func (l *world) Command(c scenario.Command) error {
	switch c.Name {
	case "topic":
		return l.topic(c)
	case "cdc", "publish":
		return l.capture(c)
	case "crash":
		return l.crash(c)
	case "producer":
		return l.producer(c)
	case "produce":
		return l.produce(c)
	case "traffic":
		return l.traffic(c)
	case "offline":
		return l.offlineLine(c)
	case "burst":
		return l.burstLine(c)
	case "group":
		return l.group(c)
	case "member", "leave":
		return l.member(c)
	case "poll":
		return l.pollLine(c)
	case "polls":
		return l.polls(c)
	case "pause":
		return l.pauseLine(c)
	case "add-partitions":
		return l.addPartitionsLine(c)
	case "resnapshot":
		return l.resnapshotLine(c)
	case "deploy":
		return l.deployLine(c)
	}
	return scenario.Errorf(c.Pos, "the log world has no command %q", c.Name)
}

// Finish wires the log once every line is read; the log runs when a topic is declared.
func (l *world) Finish() (bool, error) {
	l.source = l.w.Clock("source")
	l.multi = len(l.w.Trace().Targets) > 1
	if err := l.finish(); err != nil {
		return false, err
	}
	if l.t != nil {
		l.t.Schemas = l.schemas
	}
	return l.t != nil, nil
}

// Reserve sizes what a large generated load will append, once: the keys'
// hashes, the notes its events are narrated from, and the rows and truth
// changes of the target a producer's traffic reaches.
func (l *world) Reserve(keys int) {
	if l.t == nil {
		return
	}
	l.hash = slices.Grow(l.hash, keys) // a hash for each key the core expects
	// The count comes from numbers in the file; the budget bounds it.
	l.t.notes = slices.Grow(l.t.notes, max(0, min(l.notes, l.w.Limit())-len(l.t.notes)))
	for _, n := range l.producerNames() {
		p := l.producers[n]
		if p.traffic == 0 {
			continue
		}
		if tg := l.w.RouteOf(n); tg != nil {
			tg.ReserveRows(p.traffic)
			l.w.ReserveChanges(2 * p.traffic) // a key falls behind, then catches up
		}
	}
}

// sourceDB returns the source database change capture reads, following
// its commits from the first call on, or nil when the engine is composed
// without the high-water-mark world.
func (l *world) sourceDB() engine.SourceDB {
	if l.src == nil {
		if l.src = engine.SourceOf(l.w); l.src != nil {
			l.src.OnCommit(l.captureCommit)
		}
	}
	return l.src
}

// hashOf is murmur2 of the key with id, made positive: a keyed record of
// it goes to partition hashOf(id) % partitions.
func (l *world) hashOf(id int32) int32 {
	if int(id) < len(l.hash) && l.hash[id] >= 0 {
		return l.hash[id] // kept small enough to inline: every keyed send asks
	}
	return l.newHash(id)
}

// newHash works out and keeps the hash of the key with id.
func (l *world) newHash(id int32) int32 {
	for int(id) >= len(l.hash) {
		l.hash = append(l.hash, -1)
	}
	h := topic.Positive(topic.Murmur2([]byte(l.w.KeyText(id))))
	l.hash[id] = h
	return h
}

// ErrNoLog is returned for a log fault injected into a scenario without a partitioned log.
var ErrNoLog = errors.New("this scenario has no partitioned log (no topic), so there is no partition to add and no consumer to pause")

// maxPartitions is the most partitions a topic may have, as the scenario's
// topic and add-partitions lines allow.
const maxPartitions = 1024

// maxMembers is the most members (by name) a group may have: a group of
// more than a topic's largest partition count would leave most idle, and
// the trace names a member in 16 bits (see GroupHistory).
const maxMembers = 10_000

// Drain lets each auto-committing member commit once more when nothing
// else is left to happen: its consumer is still running, so within
// interval= of its last poll librdkafka's background timer commits what it
// polled, and the Java consumer's idle loop (which goes on polling and
// gets nothing) commits the batches it finished. Without it a scenario's
// last positions would stay uncommitted only because it has no later
// line. A member with nothing to commit adds no step.
func (l *world) Drain() {
	for _, name := range l.groupOrd {
		g := l.groups[name]
		if g.commit != "auto" {
			continue
		}
		for _, mn := range g.g.Members {
			m := g.members[mn]
			if m == nil {
				continue
			}
			at := max(l.w.Now(), m.nextAuto)
			if g.autoPoll {
				if len(l.autoCommitDue(g, m)) > 0 {
					l.w.Schedule(at, func() { l.pollCommit(g, m) })
				}
				continue
			}
			if l.polledPast(g, m) {
				l.w.Schedule(at, func() { l.autoCommit(g, mn) })
			}
		}
	}
}

// polledPast reports whether member m has polled past the committed
// offset of a partition it owns: what its auto-commit timer would commit.
func (l *world) polledPast(g *groupState, m *member) bool {
	for _, p := range g.ownedBy(m) {
		if pos, ok := g.autoPos(m, p); ok && pos != g.g.Committed[p] {
			return true
		}
	}
	return false
}

// Inject applies a log fault now.
func (l *world) Inject(f engine.Fault) error {
	if l.t == nil {
		return ErrNoLog
	}
	switch f.Kind {
	case FaultAddPartition:
		return l.injectAddPartition(f)
	case FaultPause:
		return l.injectPause(f)
	case FaultBurst:
		return l.injectBurst(f)
	case FaultProducerClock:
		return l.injectProducerClock(f)
	}
	return prose.Errorf("the log world has no fault %q", string(f.Kind))
}

// injectAddPartition grows a topic by one partition with the world's own
// add-partitions action: it is narrated as an operator's change, and every
// group on the topic rebalances after its refresh.
func (l *world) injectAddPartition(f engine.Fault) error {
	h := l.topics[f.Topic]
	if h == nil {
		return prose.Errorf("unknown topic %q; this scenario's topics are %s", f.Topic, l.topicNames())
	}
	if len(h.Parts) >= maxPartitions {
		return prose.Errorf("topic %s already has %d partitions, the most a topic may have", f.Topic, len(h.Parts))
	}
	l.addPartitions(h, len(h.Parts)+1)
	return nil
}

// injectPause pauses a member with the world's own pause action, narrated
// as a pause line's would be.
func (l *world) injectPause(f engine.Fault) error {
	if f.For <= 0 {
		return errors.New("a pause needs a positive length, such as 30s")
	}
	g := l.groups[f.Group]
	if g == nil {
		return prose.Errorf("unknown group %q; this scenario's groups are %s", f.Group, strings.Join(l.groupOrd, ", "))
	}
	if g.members[f.Member] == nil {
		return prose.Errorf("%s is not a member of %s at this step, so there is no consumer to pause; step to where it has joined", f.Member, f.Group)
	}
	// A pause already running longer is not cut short by this one.
	l.pause(g, f.Member, max(l.w.Now().Add(f.For), g.members[f.Member].paused))
	return nil
}

func (l *world) topicNames() string {
	var names []string
	for _, h := range l.t.Topics {
		names = append(names, h.Name)
	}
	return strings.Join(names, ", ")
}
