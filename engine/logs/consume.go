package logs

import (
	"cmp"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/group"
	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// groupState is a consumer group while the world runs.
type groupState struct {
	name     string
	g        *group.Group
	topic    *TopicHistory
	target   *sink.Table
	toPos    scenario.Pos // where the group line names its target, for an error about it
	hist     *GroupHistory
	commit   string // after, before or auto
	autoPoll bool   // auto-commit runs inside the next poll (the Java consumer), not on a timer (librdkafka)
	maxPoll  vtime.Duration
	session  vtime.Duration // session.timeout.ms: how long the coordinator keeps a static member that sends no heartbeat
	interval vtime.Duration
	reset    string // earliest, latest or none
	dedup    bool   // skip records whose event id was seen
	tsMark   bool   // keep a max-seen updated_at mark instead of trusting offsets
	refresh  vtime.Duration
	members  map[string]*member
	evicted  map[string]*member // members removed for passing max.poll.interval, until they poll again
	exited   map[string]*member // members whose application an exception ended and that left the group (see exit and sessionExpires), until restarted; never nil
	crashAt  scenario.Pos       // the first poll line that crashes a member: its members are static (see crashMember); Line 0 when none does
	member   uint8              // membership=: memberStatic, memberDynamic, or 0 when the group line does not say (static when a poll line crashes a member)
	memberAt scenario.Pos       // where the group line sets membership=
	dynAt    scenario.Pos       // the first poll line whose process= passes max.poll.interval, which a static member outlives only by its session timeout, not modelled (see finish)
	pending  string             // why a rebalance is waiting for busy members or quiet static ones (see waitedFor); "" when none is
	waits    int                // rebalances that have waited, so that a rebalance timeout knows the wait it was set for
	gaveUp   bool               // the rebalance under way timed out: it no longer waits for static members that are down; false again once it completes
	schema   uint8              // the schema version its code reads, less one (see schema.go)
	skipBad  bool               // on-error=skip: its code logs a record it cannot deserialize and reads on, rather than stop
	seenIDs  map[string]bool
	mark     vtime.Time
	hasMark  bool
	idx      int32           // index of hist in the trace's Log.Groups
	rounds   int             // polls rounds scheduled, to size the trace
	joins    int             // member lines that join the group, to size the trace
	named    map[string]bool // every member a line names, to bound them (maxMembers); true once a member line joins it
	unjoined []scenario.Arg  // the members poll, pause and leave lines name, each checked against the member lines at the end (see finish)
	in       []sink.In       // scratch for one batch's writes, reused
}

// member is one consumer process of a group.
//
// Invariant: pos holds positions only for partitions the member owns in
// generation gen; a partition without a position resumes from the committed offset.
//
// A member is busy while a batch it polled is in its hands (inFlight > 0):
// a rebalance waits for it to finish and call poll again, as Kafka's
// protocols do, unless it stays busy past max.poll.interval. A consumer's
// loop polls, processes, and only then polls again, so a poll that comes
// due while the member is busy does not happen (see poll): a member holds
// at most one batch.
type member struct {
	name       string
	gen        int
	pos        positions
	start      positions  // where a partition with no committed offset starts, as auto.offset.reset set it when the partition was assigned; pos takes over at the next poll
	done       positions  // where the batches it has finished end: what a commit inside poll commits
	got        positions  // one past the last record poll has returned from each partition since it was assigned it: librdkafka's stored offsets (see autoPos)
	inFlight   int        // batches polled and not yet finished: 0 or 1
	busyFrom   vtime.Time // when it polled the batch in its hands, if inFlight > 0
	busyTill   vtime.Time // when its code is to be done with that batch
	lastPoll   vtime.Time // when it last called poll
	owned      []int      // the partitions it owns, as of generation ownedGen over ownedN partitions
	ownedGen   int
	ownedN     int
	paused     vtime.Time // polls before this time return nothing
	stopped    string     // why it stopped: auto.offset.reset=none (stopOutOfRange or stopNoOffset) or a record it cannot read (stopSchema); "" while it runs
	stops      int        // how many times it has stopped, so that a session timeout knows the stop it was set for
	closed     int        // while a static member's consumer is closed without leaving the group, 1 + the index of its ClosePoint; 0 while it runs
	closeAfter bool       // told to shut down while busy: it closes once its batch is done (see join and finishBatch)
	rejoin     bool       // with closeAfter: a member line came for it meanwhile, and a new process joins once it has closed
	nextAuto   vtime.Time
	actor      int32 // index of "group/member" among the trace's actors, or -1
	ref        int16 // index of its name in the group history's Members
	hold       int   // index of its Holding in the Assignment noteAssignment is writing
}

// Why a member stopped under auto.offset.reset=none: a position outside
// the log (Kafka's OffsetOutOfRangeException) or no committed offset at all
// (NoOffsetForPartitionException), as member.stopped says.
const (
	stopOutOfRange = "OffsetOutOfRangeException"
	stopNoOffset   = "NoOffsetForPartitionException"
	stopSchema     = "RecordDeserializationException" // a record its code cannot read, with on-error=stop (schema.go)
)

// positions is a member's fetch position on each partition, by partition;
// -1 where it has none (a partition it does not own, or one it resumes from
// the committed offset).
type positions []int64

// forget drops every position member m has, as a new process or a new
// assignment starts with none.
func (m *member) forget() {
	m.pos.clear()
	m.start.clear()
	m.done.clear()
	m.got.clear()
}

// autoPos is where member m's client auto-commits partition p, and
// whether it has anything to commit there. librdkafka (auto-commit=timer)
// commits the offsets it has stored, one past the last record poll handed
// the code (enable.auto.offset.store): none on a partition poll has
// returned nothing from since it was assigned, wherever its position. The
// Java consumer (auto-commit=poll) commits its position on every partition
// it has one for (SubscriptionState.allConsumed), which between batches is
// where the batches its code has finished end, and on a partition it has
// read nothing from where the committed offset or auto.offset.reset put
// it; with a batch in hand (a crash's), where the finished ones end.
func (g *groupState) autoPos(m *member, p int) (int64, bool) {
	if !g.autoPoll {
		return m.got.get(p)
	}
	if pos, ok := m.done.get(p); ok || m.inFlight > 0 {
		return pos, ok
	}
	if pos, ok := m.pos.get(p); ok {
		return pos, ok
	}
	return m.start.get(p)
}

// uncommitted returns member m's position on partition p when it has one
// and it differs from the group's committed offset: what a commit of m's
// would commit there.
func (g *groupState) uncommitted(m *member, p int) (int64, bool) {
	pos, has := m.pos.get(p)
	return pos, has && pos != g.g.Committed[p]
}

// get returns the position on partition p and whether there is one.
func (ps positions) get(p int) (int64, bool) {
	if p < len(ps) && ps[p] >= 0 {
		return ps[p], true
	}
	return 0, false
}

// set stores the position on partition p.
func (ps *positions) set(p int, pos int64) {
	for len(*ps) <= p {
		*ps = append(*ps, -1)
	}
	(*ps)[p] = pos
}

// clear forgets every position.
func (ps *positions) clear() {
	for i := range *ps {
		(*ps)[i] = -1
	}
}

// ownedBy lists the partitions member m owns, ascending, computed once per
// assignment.
func (g *groupState) ownedBy(m *member) []int {
	if m.owned == nil || m.ownedGen != g.g.Generation || m.ownedN != len(g.g.Owner) {
		m.owned, m.ownedGen, m.ownedN = g.g.Owned(m.name), g.g.Generation, len(g.g.Owner)
		if m.owned == nil {
			m.owned = []int{}
		}
	}
	return m.owned
}

// actorOf returns member m's actor index, naming it on first use.
func (l *world) actorOf(g *groupState, m *member) int32 {
	if m.actor < 0 {
		m.actor = l.w.ActorID(g.name + "/" + m.name)
	}
	return m.actor
}

// readFrom is where the group will read partition p next: its owner's
// position, else the committed offset, else 0.
func (g *groupState) readFrom(p int) int64 {
	if o := g.g.Owner[p]; o != "" {
		if m := g.members[o]; m != nil {
			if pos, ok := m.pos.get(p); ok {
				return pos
			}
			if pos, ok := m.start.get(p); ok {
				return pos
			}
		}
	}
	return max(g.g.Committed[p], 0)
}

func (g *groupState) pname(p int) string { return prose.F("%s-%d", g.topic.Name, p) }

// join adds or removes a member and rebalances.
func (l *world) join(g *groupState, name string, joining bool) {
	if joining {
		if m := g.members[name]; m != nil && m.closeAfter {
			m.rejoin = true
			l.w.Emit(g.name+"/"+name, engine.KindRebalance, -1, "%s's new process starts; the old one is still finishing its batch before it closes, and the new one joins once it has.", name)
			return
		}
		if m := g.members[name]; m != nil && g.static() && (m.closed > 0 || m.stopped != "") {
			l.restartStatic(g, m)
			return
		}
		timedOut := g.static() && g.timedOut(name)
		if !l.add(g, name) {
			l.w.Emit(g.name+"/"+name, engine.KindRebalance, -1, "%s is already a member of %s; nothing changes.", name, g.name)
			return
		}
		why := name + " joins " + g.name
		if timedOut {
			why += " as a new member, its session having timed out"
		}
		l.requestRebalance(g, why)
		return
	}
	m := g.members[name]
	if m == nil {
		m = g.evicted[name] // out of the group since max.poll.interval; its process runs on
	}
	switch {
	case m == nil:
		l.w.Emit(g.name+"/"+name, engine.KindRebalance, -1, "%s is not a member of %s; nothing changes.", name, g.name)
	case m.inFlight > 0 && m.closed == 0 && m.stopped == "":
		// A graceful shutdown leaves the poll loop once the code is done
		// with the batch in hand, which it writes and commits: the close
		// follows (see finishBatch). The Java consumer is closed from the
		// thread that polls, so its LeaveGroup cannot come sooner.
		m.closeAfter = true
		l.w.Emit(g.name+"/"+name, engine.KindRebalance, -1, "%s's application is told to shut down; its poll loop finishes the batch in hand first, and closes the consumer after it.", name)
	case g.members[name] != m:
		l.closeEvicted(g, m)
	default:
		l.close(g, m, name+" leaves "+g.name)
	}
}

// closeEvicted is the application of member m, which max.poll.interval
// evicted, closing its consumer: its client left the group then, so the
// close sends nothing, and it never polls again to rejoin.
func (l *world) closeEvicted(g *groupState, m *member) {
	if g.evicted[m.name] == m {
		delete(g.evicted, m.name)
	}
	l.w.Emit(g.name+"/"+m.name, engine.KindRebalance, -1, "%s's application closes its consumer; its client left %s when max.poll.interval passed, so the close sends nothing, and it does not poll again to rejoin.", m.name, g.name)
}

// closeAfterBatch closes member m's consumer, told to shut down while busy,
// now that its batch is done (why says so for a dynamic member's leave),
// and starts the new process a member line asked for meanwhile.
func (l *world) closeAfterBatch(g *groupState, m *member, why string) {
	if g.members[m.name] == m {
		l.close(g, m, why)
	} else {
		l.closeEvicted(g, m)
	}
	if m.rejoin {
		// The new process, as a member line starts one (a static member's
		// restart, under its group.instance.id).
		m.rejoin = false
		l.w.Expect(1, 0, 0)
		l.w.Then(func() { l.join(g, m.name, true) })
	}
}

// close is member m's application closing its consumer: a dynamic member's
// close commits (under auto-commit) and leaves the group, which rebalances
// (why says so); a static member's stays in it (see closeStatic).
func (l *world) close(g *groupState, m *member, why string) {
	if g.static() {
		l.closeStatic(g, m)
		return
	}
	l.leave(g, m.name, why)
}

// closeStatic is static member m's application closing its consumer, as a
// rolling restart does: its client commits first, as any close does, but
// sends no LeaveGroup (the Java consumer, since Kafka 2.3, KIP-345), so the
// coordinator keeps it in the group, with its partitions, until it starts
// again or session.timeout.ms passes without a heartbeat (see
// sessionExpires). Meanwhile nobody reads those partitions.
func (l *world) closeStatic(g *groupState, m *member) {
	actor := g.name + "/" + m.name
	switch {
	case m.closed > 0:
		l.w.Emit(actor, engine.KindRebalance, -1, "%s's consumer is closed already; nothing changes.", m.name)
		return
	case m.stopped != "":
		l.w.Emit(actor, engine.KindRebalance, -1, "%s's application has exited already, on its %s; nothing changes.", m.name, m.stopped)
		return
	}
	l.commitOnRevoke(g, m, "As "+m.name+" closes its consumer")
	m.closed = len(g.hist.Closes) + 1
	g.hist.Closes = append(g.hist.Closes, ClosePoint{Step: int32(l.w.NextStep()), Member: m.ref})
	l.expireAt(g, m)
	held := "no partition"
	if len(g.g.Owned(m.name)) > 0 {
		held = ownedPhrase(g, m.name) + ", which nobody reads"
	}
	l.w.Emit(actor, engine.KindRebalance, -1, "%s's application closes its consumer. A static member's close sends no LeaveGroup, so %s keeps it as a member, holding %s, until it starts again or session.timeout.ms (%s) passes without a heartbeat.",
		m.name, g.name, held, g.session)
}

// expireAt schedules the end of static member m's session, session.timeout.ms
// after its consumer stopped sending heartbeats (it closed, or its
// application exited on an exception), for the stop or close it has now.
func (l *world) expireAt(g *groupState, m *member) {
	stops, closed := m.stops, m.closed
	l.w.Expect(1, 0, 0)
	l.w.Schedule(l.w.Now().Add(g.session), func() { l.sessionExpires(g, m, stops, closed) })
}

// sessionExpires removes static member m from its group, session.timeout.ms
// after its consumer went quiet, unless it started again meanwhile (stops
// and closed are what expireAt saw). The group rebalances, and the others
// get its partitions. A member whose application exited on an exception
// is listed as exited until an operator or a deploy starts it again; one
// that closed has simply gone.
func (l *world) sessionExpires(g *groupState, m *member, stops, closed int) {
	quiet := g.members[m.name] == m && m.stops == stops && m.closed == closed && (m.closed > 0 || m.stopped != "")
	if !quiet {
		l.w.Expect(-1, 0, 0)
		return
	}
	held := "it held no partition, and the rebalance that follows changes nothing"
	if n := len(g.g.Owned(m.name)); n > 0 {
		held = "the rebalance that follows hands " + ownedPhrase(g, m.name) + " to the others"
	}
	what := "closed its consumer"
	if m.closed == 0 {
		what = "exited on its " + m.stopped
	}
	l.remove(g, m)
	g.noteAssignment(l.w.NextStep())
	l.w.Emit(g.name, engine.KindRebalance, -1, "%s's coordinator has had no heartbeat from %s for session.timeout.ms (%s), since it %s, and removes it from the group; %s.", g.name, m.name, g.session, what, held)
	l.w.Then(func() { l.requestRebalance(g, m.name+"'s session times out") })
}

// remove takes static member m, which is down, out of its group, as its
// coordinator does when its session times out. A member
// whose application exited on an exception is listed as exited until an
// operator or a deploy starts it again; one that closed has simply gone.
func (l *world) remove(g *groupState, m *member) {
	g.g.Leave(m.name)
	delete(g.members, m.name)
	if m.closed > 0 {
		c := &g.hist.Closes[m.closed-1]
		c.Until, c.Removed = int32(l.w.NextStep()), true
		m.closed = 0
	} else {
		g.exited[m.name] = m
	}
}

// timedOut reports whether the coordinator removed member name at its
// session's end (see sessionExpires) since it last joined.
func (g *groupState) timedOut(name string) bool {
	if m := g.exited[name]; m != nil {
		return true
	}
	ref := slices.Index(g.hist.Members, name) // not MemberRef: a question adds no member
	for i := len(g.hist.Closes) - 1; i >= 0 && ref >= 0; i-- {
		if c := &g.hist.Closes[i]; int(c.Member) == ref {
			return c.Removed
		}
	}
	return false
}

// restartStatic starts again static member m, whose consumer closed or
// whose application exited, before its session timed out: it rejoins under
// its group.instance.id, and the coordinator hands it back the partitions
// it held, without a rebalance, which is what static membership is for. It
// reads from the committed offsets, as any new process does.
func (l *world) restartStatic(g *groupState, m *member) {
	was := "after closing its consumer"
	if m.closed > 0 {
		g.hist.Closes[m.closed-1].Until = int32(l.w.NextStep())
		m.closed = 0
	}
	if m.stopped != "" {
		was = "after its application exited on its " + m.stopped
		l.stop(g, m, "")
	}
	m.forget()
	m.lastPoll = l.w.Now()
	m.nextAuto = l.w.Now().Add(g.interval)
	var tail string
	switch {
	case g.pending != "":
		tail = ", joining the rebalance that waited for it."
	case len(g.g.Owned(m.name)) > 0:
		tail = ": the coordinator hands it back " + ownedPhrase(g, m.name) + " without a rebalance, and it reads from the committed offsets."
	default:
		tail = ": the coordinator takes it back, with no partition, without a rebalance."
	}
	l.w.Emit(g.name+"/"+m.name, engine.KindRebalance, -1, "%s starts again %s and rejoins %s under its group.instance.id within session.timeout.ms (%s)%s",
		m.name, was, g.name, g.session, tail)
	switch {
	case g.pending == "":
	case len(g.waitedFor(true, true)) > 0:
		g.noteAssignment(l.w.NextStep() - 1)
	default:
		why := g.pending + "; " + m.name + " rejoins, so the rebalance completes"
		g.pending = ""
		l.w.Then(func() { l.rebalance(g, why) })
	}
}

// add makes a new consumer process a member, without the rebalance its
// join starts; it reports false if it is already one.
func (l *world) add(g *groupState, name string) bool {
	if !g.g.Join(name) {
		return false
	}
	delete(g.evicted, name)
	if m := g.exited[name]; m != nil {
		delete(g.exited, name)
		l.stop(g, m, "")
	}
	g.members[name] = &member{name: name, ref: g.hist.MemberRef(name), nextAuto: l.w.Now().Add(g.interval), actor: -1, lastPoll: l.w.Now()}
	return true
}

// leave is a member's client closing as a dynamic member's does: it
// commits first, while still a member (once it has left, the coordinator
// refuses its commits), then sends LeaveGroup, and the group rebalances
// for why.
func (l *world) leave(g *groupState, name, why string) {
	if m := g.members[name]; m != nil {
		l.commitOnRevoke(g, m, prose.F("As %s leaves %s", name, g.name))
	}
	g.g.Leave(name)
	delete(g.members, name)
	l.requestRebalance(g, why)
}

// exit ends the application of member m, which auto.offset.reset=none
// stopped: the exception leaves its poll loop, and the application closes
// its consumer and exits, as the Java consumer's own examples do (poll in
// a try, close in its finally). A dynamic member's close leaves the group,
// so its partitions go to the others, whose polls raise the same error. A
// static member's close sends no LeaveGroup: the coordinator keeps its
// partitions until session.timeout.ms passes (see expireAt), and stopTail
// does not call exit for it.
func (l *world) exit(g *groupState, m *member) {
	if g.members[m.name] != m {
		return // restarted or gone meanwhile
	}
	g.exited[m.name] = m
	l.leave(g, m.name, prose.F("%s's application exits on its %s, and closing its consumer leaves %s", m.name, m.stopped, g.name))
}

// commitOnRevoke is auto-commit when a member gives up its partitions: at
// a rebalance (every partition is revoked under the eager protocol) and when
// it leaves. The Java consumer commits its positions then (onJoinPrepare,
// close), which at a rebalance are where the batches its code has finished
// end, since it rebalances inside poll; librdkafka commits its stored
// offsets when it unassigns, everything poll has returned. Without
// auto-commit nothing is committed here: the code commits, or does not.
func (l *world) commitOnRevoke(g *groupState, m *member, when string) {
	if g.commit != "auto" || m.gen != g.g.Generation {
		return
	}
	var ok []string
	for _, p := range g.ownedBy(m) {
		pos, has := g.autoPos(m, p)
		if !has || pos <= g.g.Committed[p] {
			continue
		}
		g.g.Commit(m.name, m.gen, p, pos)
		g.hist.Commits = append(g.hist.Commits, CommitPoint{Step: int32(l.w.NextStep()), Partition: int16(p), Offset: pos, Member: m.ref})
		ok = append(ok, prose.F("offset %d on %s", pos, g.pname(p)))
	}
	if len(ok) == 0 {
		return
	}
	what := "everything poll has returned, processed or not, as librdkafka commits when it unassigns"
	if g.autoPoll {
		what = "its positions, where the batches its code has finished end (or where it starts on a partition it has not read from), as the Java consumer commits before it gives partitions up"
	}
	l.w.Emit(g.name+"/"+m.name, engine.KindOffset, -1, "%s, its client auto-commits %s: %s.", when, strings.Join(ok, ", "), what)
}

// pollers lists who polls in a round of polls: the members, in the
// group's order, then those max.poll.interval evicted, by name. An evicted
// consumer's loop still calls poll once its code is done with the batch it
// held, and that poll rejoins the group (see poll and rejoin).
func (g *groupState) pollers() []string {
	out := slices.Clone(g.g.Members)
	if len(g.evicted) > 0 {
		out = append(out, sorted.Keys(g.evicted)...)
	}
	return out
}

// quiet reports whether m is a static member that is down, its consumer
// closed or its application exited on an exception, while the coordinator
// keeps it in the group (see expireAt): it sends no JoinGroup, and a
// rebalance waits for it.
func (g *groupState) quiet(m *member) bool { return m.closed > 0 || g.static() && m.stopped != "" }

// waitedFor lists, by name, the members a rebalance waits for: with busy,
// those with a batch in their hands, until they call poll again; with
// down, the quiet static ones, until they start again or the coordinator
// removes them.
func (g *groupState) waitedFor(busy, down bool) []string {
	var out []string
	for _, name := range g.g.Members {
		if m := g.members[name]; m != nil && (busy && m.inFlight > 0 || down && !g.gaveUp && g.quiet(m)) {
			out = append(out, name)
		}
	}
	sorted.Sort(out)
	return out
}

// requestRebalance starts a rebalance for why. A member busy with a batch
// keeps its partitions until it finishes and calls poll again, as Kafka's
// classic (eager) protocol and KIP-848's alike wait for it: the rebalance
// completes then (see finishBatch), or when max.poll.interval evicts it.
// Meanwhile no other member reads. A static member that is down (see
// quiet) is waited for too, as the classic protocol's join waits for every
// member it knows: until it starts again, its session times out, or the
// rebalance does, max.poll.interval after it began (see rebalanceTimesOut).
// With nobody to wait for it completes at once.
func (l *world) requestRebalance(g *groupState, why string) {
	busy, down := g.waitedFor(true, false), g.waitedFor(false, true)
	if len(busy)+len(down) == 0 {
		if g.pending != "" {
			why = g.pending + "; " + why
			g.pending = ""
		}
		l.rebalance(g, why)
		return
	}
	begins := "the rebalance under way goes on"
	if g.pending == "" {
		begins = "a rebalance begins"
		g.pending = why
		g.waits++
		waits := g.waits
		l.w.Expect(1, 0, 0)
		l.w.Schedule(l.w.Now().Add(g.maxPoll), func() { l.rebalanceTimesOut(g, waits) })
	} else {
		g.pending += "; " + why
	}
	g.noteAssignment(l.w.NextStep())
	if len(down) == 0 {
		who := strings.Join(busy, " and ")
		keeps, its, busyWith := "keeps", "its", "busy with a batch"
		if len(busy) > 1 {
			keeps, its, busyWith = "keep", "their", "busy with their batches"
		}
		l.w.Emit(g.name, engine.KindRebalance, -1, "%s: %s, and %s waits for %s, %s, to call poll again. Until then %s %s %s; %s commits are still accepted, no other member reads, and max.poll.interval (%s) bounds the wait.",
			why, begins, g.name, who, busyWith, who, keeps, ownedOf(g, busy), its, g.maxPoll)
		return
	}
	for i, name := range down {
		what := "whose consumer is closed"
		if m := g.members[name]; m.closed == 0 {
			what = "whose application exited on its " + m.stopped
		}
		down[i] = name + " (a static member " + what + ")"
	}
	also := ""
	if len(busy) > 0 {
		also = ", and for " + strings.Join(busy, " and ") + ", busy, to call poll again"
	}
	// The classic protocol's join waits for every member the coordinator
	// knows; a static member that is down sends no JoinGroup.
	l.w.Emit(g.name, engine.KindRebalance, -1, "%s: %s, and %s waits for %s to start again and rejoin%s. The others give up their partitions, and nobody reads until it does, its session times out (session.timeout.ms, %s: the coordinator drops it), or the rebalance does (max.poll.interval, %s: the coordinator completes it without it).",
		why, begins, g.name, strings.Join(down, " and for "), also, g.session, g.maxPoll)
}

// rebalanceTimesOut ends the waits-th rebalance that waited, if it is
// still waiting, max.poll.interval after it began: the coordinator stops
// waiting for the static members that are down and completes the
// rebalance without their JoinGroup, but keeps them in the group, as the
// classic protocol removes only the dynamic members that have not
// rejoined by the rebalance timeout (a static one goes when its session
// does): they are assigned partitions nobody reads. (A member still busy
// then has been evicted by its own max.poll.interval already.)
func (l *world) rebalanceTimesOut(g *groupState, waits int) {
	var down []string
	if g.pending != "" && g.waits == waits {
		down = g.waitedFor(false, true)
	}
	if len(down) == 0 {
		l.w.Expect(-1, 0, 0)
		return
	}
	g.gaveUp = true
	who := strings.Join(down, " and ")
	l.w.Emit(g.name, engine.KindRebalance, -1, "%s's rebalance has waited max.poll.interval (%s), its rebalance timeout, for %s to rejoin: the coordinator completes it without waiting longer, and keeps %s in the group, as it keeps a static member until its session times out.", g.name, g.maxPoll, who, who)
	l.w.Then(func() { l.requestRebalance(g, "the rebalance times out") })
}

// static reports whether g's members are static (group.instance.id): a
// poll line crashes one, and the engine's restart keeps its partitions,
// which only a static member does (see crashMember).
func (g *groupState) static() bool { return g.member == memberStatic || g.crashAt.Line > 0 }

// What a group line's membership= says, as groupState.member.
const (
	memberDynamic = 1 + iota
	memberStatic
)

// work names what a member does to a batch, for narration, as "writing"
// and "written": a group with a target writes it; one without only
// processes it.
func (g *groupState) work() (ing, done string) { return work(g.target == nil) }

// work is groupState.work for narration that has no groupState, only
// whether the group has a target: untargeted when it has none.
func work(untargeted bool) (ing, done string) {
	if untargeted {
		return "processing", "processed"
	}
	return "writing", "written"
}

// commitWhen words when a commit of kind why runs, with ing the group's
// verb for its work on a batch (see work): "after writing the batch".
func commitWhen(why noteKind, ing string) string {
	switch why {
	case noteCommitBefore:
		return "before " + ing + " the batch"
	case noteCommitReset:
		return "where the reset left it"
	}
	return "after " + ing + " the batch"
}

// ownedOf names the partitions the members own.
func ownedOf(g *groupState, members []string) string {
	var ps []string
	for _, m := range members {
		for _, p := range g.g.Owned(m) {
			ps = append(ps, g.pname(p))
		}
	}
	if len(ps) == 0 {
		return "nothing"
	}
	return strings.Join(ps, ", ")
}

// noteAssignment records in the group's history who holds which partition
// from step on (see Assignment): the group's members by name, the
// partitions each owns, the busy members a waiting rebalance waits for,
// and the partitions no member owns. A second note at a step replaces the
// first.
func (g *groupState) noteAssignment(step int) {
	a := Assignment{Step: int32(step), Generation: int32(g.g.Generation), Waiting: g.pending != ""}
	for i, name := range sorted.Keys(g.members) {
		m := g.members[name]
		m.hold = i
		a.Holds = append(a.Holds, Holding{Member: name, Busy: a.Waiting && (m.inFlight > 0 || g.quiet(m))})
	}
	for p, o := range g.g.Owner {
		// While a rebalance waits, only the busy members keep what they
		// own: the others have given theirs up (the eager protocol), and
		// a member evicted and back since owns nothing yet.
		if m := g.members[o]; m != nil && (!a.Waiting || a.Holds[m.hold].Busy) {
			a.Holds[m.hold].Partitions = append(a.Holds[m.hold].Partitions, int16(p))
		} else {
			a.Unheld = append(a.Unheld, int16(p))
		}
	}
	h := g.hist.Assignments
	if n := len(h); n > 0 && int(h[n-1].Step) >= step {
		a.Step = h[n-1].Step
		h[n-1] = a
		return
	}
	g.hist.Assignments = append(h, a)
}

// finishBatch records that member m is done with a batch, having
// processed it or not (a crash): it calls poll again, so a rebalance
// waiting for it may complete.
func (l *world) finishBatch(g *groupState, m *member, b *batch, processed bool) {
	m.inFlight--
	if processed && b.gen == m.gen {
		for _, r := range b.ranges {
			m.done.set(int(r.Partition), r.To)
		}
	}
	if m.closeAfter && m.inFlight == 0 {
		m.closeAfter = false
		l.w.Expect(1, 0, 0)
		why := m.name + ", done with its batch, closes its consumer and leaves " + g.name
		l.w.Then(func() { l.closeAfterBatch(g, m, why) })
		// Its close follows, not a poll: a rebalance waiting for it
		// completes with its LeaveGroup, or waits on for a static member
		// that has just gone quiet.
		return
	}
	if g.pending == "" || g.members[m.name] != m {
		return
	}
	if len(g.waitedFor(true, true)) > 0 {
		// The rebalance waits on for the others; m, done with the step
		// just narrated, no longer keeps what it held.
		g.noteAssignment(l.w.NextStep() - 1)
		return
	}
	why := g.pending
	g.pending = ""
	// A step of its own: the batch's last step (a write, a commit) came first.
	l.w.Then(func() {
		l.rebalance(g, prose.F("%s calls poll again after its batch, so the rebalance (%s) completes", m.name, why))
	})
}

// evict removes a member still busy with a batch max.poll.interval after
// its last poll: its client leaves the group (Kafka's consumers do so
// themselves, dynamic members at least: a static member's client sends no
// LeaveGroup, which is why finish refuses a batch this long in a group
// whose members crash; the coordinator would remove it at the same bound), and the
// rebalance goes on without it. Its batch may still land in the target,
// but its commit will be refused, and the records it has not committed are
// read again by whoever gets its partitions.
func (l *world) evict(g *groupState, m *member, polled vtime.Time) {
	if g.members[m.name] != m || m.inFlight == 0 || m.lastPoll != polled {
		l.w.Expect(-1, 0, 0)
		return
	}
	g.g.Leave(m.name)
	delete(g.members, m.name)
	if g.evicted == nil {
		g.evicted = map[string]*member{}
	}
	g.evicted[m.name] = m
	g.noteAssignment(l.w.NextStep())
	l.w.Emit(g.g.Name+"/"+m.name, engine.KindRebalance, -1, "%s has been busy with its batch since its poll at %s, past max.poll.interval (%s), so its client leaves %s; the batch in its hands may still be written, but its commit will be refused, and whoever gets %s reads from the committed offsets again.",
		m.name, polled, g.maxPoll, g.name, ownedOf(g, []string{m.name}))
	l.w.Then(func() { l.requestRebalance(g, prose.F("%s drops %s", g.name, m.name)) })
}

// rejoin brings back a member evicted for passing max.poll.interval: its
// next poll joins the group again, as a Kafka consumer does.
func (l *world) rejoin(g *groupState, m *member) {
	delete(g.evicted, m.name)
	g.g.Join(m.name)
	m.forget()
	m.lastPoll = l.w.Now()
	g.members[m.name] = m
	l.requestRebalance(g, prose.F("%s calls poll again after its eviction and rejoins %s", m.name, g.name))
}

// rebalance reassigns every partition; each member resumes from the
// committed offsets of what it now owns, dropping any position it held.
func (l *world) rebalance(g *groupState, why string) {
	g.gaveUp = false
	for _, name := range sorted.Keys(g.members) {
		l.commitOnRevoke(g, g.members[name], prose.F("Before the rebalance takes %s's partitions", name))
	}
	a := g.g.Rebalance()
	var parts []string
	for _, m := range sorted.Keys(g.members) {
		mem := g.members[m]
		mem.gen = g.g.Generation
		if g.commit == "auto" && g.autoPoll {
			// The Java consumer starts its auto-commit interval again
			// when it completes a join (ConsumerCoordinator's
			// onJoinComplete); librdkafka's timer keeps its phase.
			mem.nextAuto = l.w.Now().Add(g.interval)
		}
		mem.forget()
		var ps []string
		for _, p := range a[m] {
			ps = append(ps, g.pname(p))
		}
		if len(ps) == 0 {
			ps = []string{"nothing (more members than partitions)"}
		}
		parts = append(parts, m+" gets "+strings.Join(ps, ", "))
	}
	g.noteAssignment(l.w.NextStep())
	if len(parts) == 0 {
		l.w.Emit(g.name, engine.KindRebalance, -1, "%s: generation %d (%s assignment) — no member is left, so nobody reads; the committed offsets wait for the next member to join, and anything read but not committed will be read again.",
			why, g.g.Generation, g.g.Strategy)
		return
	}
	// The eager protocol revokes every partition, and a partition's pause
	// goes with it (the Java consumer: "Rebalance will not preserve the
	// pause/resume state"). A member paused until later is code that means
	// to stay paused, so it pauses what it is assigned again, as such code
	// must in onPartitionsAssigned; the narration says so.
	pauses := ""
	for _, name := range sorted.Keys(g.members) {
		mem := g.members[name]
		if l.w.Now() < mem.paused && len(a[name]) > 0 {
			pauses += prose.F("; %s's code pauses the partitions it is assigned again, until %s, since a rebalance forgets pauses", name, mem.paused)
		}
		if g.quiet(mem) && len(a[name]) > 0 {
			pauses += "; " + name + ", a static member that is down, is assigned partitions nobody reads until it starts again or its session times out"
		}
	}
	l.w.Emit(g.name, engine.KindRebalance, -1, "%s: generation %d (%s assignment) — %s; every member resumes from the committed offsets, and anything read but not committed will be read again%s.",
		why, g.g.Generation, g.g.Strategy, strings.Join(parts, "; "), pauses)
	l.resetUncommitted(g, sorted.Keys(g.members))
}

// resetUncommitted gives each partition the named members own with no
// committed offset its starting position now, by auto.offset.reset, as the
// poll that completes a join (or a restarted consumer's first poll) does
// before it returns (the Java consumer's updateFetchPositions, librdkafka's
// fetch start on assign): latest is the log end at the assignment, not at
// the member's next poll line. Each reset that says something is a step.
func (l *world) resetUncommitted(g *groupState, names []string) {
	for _, name := range names {
		m := g.members[name]
		if m == nil {
			continue
		}
		gen := m.gen
		for _, p := range g.ownedBy(m) {
			if g.g.Committed[p] >= 0 {
				continue
			}
			l.w.Then(func() {
				if g.members[name] != m || m.gen != gen || m.stopped != "" || m.closed > 0 || g.g.Committed[p] >= 0 || g.g.Owner[p] != name {
					return
				}
				if _, ok := m.pos.get(p); ok {
					return
				}
				if pos, ok := l.offsetReset(g, m, p, -1, "it has no committed offset"); ok {
					m.start.set(p, pos)
				}
			})
		}
	}
}

// pollPlan is a poll line.
type pollPlan struct {
	_       nocmp.NoCompare
	member  string
	max     int
	process vtime.Duration
	crash   string // none, before-write, before-commit
	waited  bool   // it came due as the member's batch was finishing, and waited for it once
}

// batch is what one poll returned, in flight until written.
type batch struct {
	gen    int
	ranges []ReadRange
	reads  int   // index of the first of the poll's ranges in the group's Reads
	schema uint8 // the schema version the code that polled it reads, less one: poll deserializes, so a deploy meanwhile changes nothing of it
}

// poll fetches up to max records from the member's partitions.
func (l *world) poll(g *groupState, pl pollPlan) {
	m := g.members[pl.member]
	if busy := cmp.Or(m, g.evicted[pl.member]); busy != nil && busy.inFlight > 0 {
		if busy.busyTill >= l.w.Now() && !pl.waited {
			// Its code is done with the batch at this very instant: the
			// poll comes right after (once), as the loop's next line.
			pl.waited = true
			l.w.Schedule(l.w.Now(), func() { l.poll(g, pl) })
			return
		}
		// The consumer's thread is still in its code with the last batch:
		// it calls poll once that returns, not on the round's clock (and
		// an evicted one rejoins only then). Read on, and the batches'
		// commits could land out of order.
		l.w.Emit(g.name+"/"+pl.member, engine.KindPoll, -1, "%s does not poll: it is still processing the batch it polled at %s (until %s), and a consumer's loop calls poll again only once its code is done with a batch.", pl.member, busy.busyFrom, busy.busyTill)
		return
	}
	if m == nil && g.evicted[pl.member] != nil {
		l.rejoin(g, g.evicted[pl.member])
		l.w.Then(func() { l.poll(g, pl) })
		return
	}
	actor := ""
	if m == nil || m.stopped != "" || m.closed > 0 || l.w.Now() < m.paused || g.pending != "" {
		actor = g.name + "/" + pl.member
	}
	if m != nil {
		m.lastPoll = l.w.Now()
		if g.commit == "auto" && g.autoPoll && l.w.Now() >= m.nextAuto {
			m.nextAuto = l.w.Now().Add(g.interval)
			if len(l.autoCommitDue(g, m)) > 0 {
				// The commit is a step of its own, then the poll goes on.
				l.w.Then(func() { l.pollCommit(g, m) })
				l.w.Then(func() { l.poll(g, pl) })
				return
			}
		}
	}
	switch {
	case m == nil && g.exited[pl.member] != nil:
		l.w.Emit(actor, engine.KindPoll, -1, "%s does not poll: its application exited on its %s, and nothing reads for it until %s and starts it again.", pl.member, g.exited[pl.member].stopped, remedy(g.exited[pl.member].stopped))
		return
	case m == nil:
		l.w.Emit(actor, engine.KindPoll, -1, "%s polls, but it is not a member of %s, so it is assigned nothing.", pl.member, g.name)
		return
	case m.closed > 0:
		held := "it holds no partition, but stays a static member"
		if len(g.g.Owned(pl.member)) > 0 {
			held = "nobody reads " + ownedPhrase(g, pl.member) + ", which it still holds as a static member,"
		}
		l.w.Emit(actor, engine.KindPoll, -1, "%s does not poll: its consumer is closed, and %s until it starts again or its session times out.", pl.member, held)
		return
	case m.stopped != "":
		l.w.Emit(actor, engine.KindPoll, -1, "%s stays stopped on its %s; nothing is read until %s.", pl.member, m.stopped, remedy(m.stopped))
		return
	case g.pending != "":
		l.w.Emit(actor, engine.KindPoll, -1, "%s polls, but %s is rebalancing (%s) and waits for %s; nothing is read until the rebalance completes.", pl.member, g.name, g.pending, strings.Join(g.waitedFor(true, true), " and "))
		return
	case l.w.Now() < m.paused:
		l.w.Emit(actor, engine.KindPause, -1, "%s is paused (until %s) and fetches nothing; %s.", pl.member, m.paused, l.lagPhrase(g, pl.member))
		return
	}
	// Every owned partition gets its position before any is read: a reset
	// is an event of its own after which the poll starts again, and a batch
	// begun before it would be dropped with its records unwritten while the
	// position had already moved past them.
	owned := g.ownedBy(m)
	for _, p := range owned {
		part := g.topic.Parts[p]
		pos, ok := m.pos.get(p)
		if !ok {
			pos, ok = m.start.get(p)
		}
		if !ok {
			pos = g.g.Committed[p]
			if pos < 0 {
				before := l.w.NextStep()
				pos, ok = l.offsetReset(g, m, p, -1, "it has no committed offset")
				if !ok {
					return
				}
				if l.w.NextStep() > before {
					m.pos.set(p, pos)
					l.w.Then(func() { l.poll(g, pl) })
					return
				}
			}
		}
		// A position outside the log is out of range, past the end as
		// below the start: the broker answers OFFSET_OUT_OF_RANGE, and
		// auto.offset.reset decides.
		var why string
		switch {
		case pos > part.End():
			why = prose.F("its position %d is past the log end %d, an offset the partition never held", pos, part.End())
		case pos < part.Start():
			why = prose.F("its position %d is below the log start %d (retention deleted %s)", pos, part.Start(), offsets(pos, part.Start()))
		}
		if why != "" {
			pos, ok = l.offsetReset(g, m, p, pos, why)
			if !ok {
				return
			}
			m.pos.set(p, pos)
			l.w.Then(func() { l.poll(g, pl) })
			return
		}
		m.pos.set(p, pos)
	}
	if l.schemas && !g.skipBad && l.raiseUnreadable(g, m, owned) {
		return
	}
	b := &batch{gen: m.gen, reads: len(g.hist.Reads), ranges: make([]ReadRange, 0, len(owned)), schema: g.schema}
	left := pl.max
	for _, p := range owned {
		part := g.topic.Parts[p]
		pos, _ := m.pos.get(p)
		to := min(part.End(), pos+int64(left))
		if l.schemas && !g.skipBad {
			// Poll returns the records before one its code cannot read, and
			// no more; the next poll raises on that one (above).
			if bad := g.firstUnreadable(p, pos, to); bad < to {
				to, left = bad, int(bad-pos)
			}
		}
		if to > pos {
			l.w.Charge(int(to - pos))
			rr := ReadRange{Step: int32(l.w.NextStep()), Member: m.ref, Partition: int16(p), From: pos, To: to}
			b.ranges = append(b.ranges, rr)
			g.hist.Reads = append(g.hist.Reads, rr)
			left -= int(to - pos)
			m.pos.set(p, to)
			m.got.set(p, to)
		}
	}
	if len(b.ranges) == 0 {
		l.w.Emit(g.name+"/"+pl.member, engine.KindPoll, -1, "%s polls %s and finds nothing new.", pl.member, ownedPhrase(g, pl.member))
		if pl.crash != "none" {
			// The process dies where the plan says, though there is nothing
			// to write: the restart holds no position, and a position a
			// reset gave is not committed, so the next poll resets again.
			ing, _ := g.work()
			where := "on a poll that found nothing, before " + ing + ","
			if pl.crash == "before-commit" {
				where = "on a poll that found nothing, before committing,"
			}
			l.w.Then(func() { l.crashMember(g, m, b, where, false) })
			return
		}
		if g.commit != "auto" {
			// A reset moved a position: the code commits where it now stands.
			for _, p := range g.ownedBy(m) {
				if pos, ok := g.uncommitted(m, p); ok {
					b.ranges = append(b.ranges, ReadRange{Partition: int16(p), From: pos, To: pos})
				}
			}
			if len(b.ranges) > 0 {
				l.w.Then(func() { l.commitBatch(g, m, b, noteCommitReset) })
			}
		}
		return
	}
	// Narrated on demand from the ranges just read.
	l.emitNote(l.actorOf(g, m), engine.KindPoll, logNote{a: g.idx, i: int64(b.reads), n: int32(len(b.ranges)), why: notePoll})
	m.inFlight++
	m.busyFrom, m.busyTill = l.w.Now(), l.w.Now().Add(pl.process)
	if g.commit == "before" {
		l.w.Then(func() { l.commitBatch(g, m, b, noteCommitBefore) })
	}
	l.w.Schedule(l.w.Now().Add(pl.process), func() { l.consume(g, m, b, pl) })
	if pl.process > g.maxPoll {
		// The batch outlasts max.poll.interval: the member is evicted then.
		polled := l.w.Now()
		l.w.Schedule(polled.Add(g.maxPoll), func() { l.evict(g, m, polled) })
	}
}

// autoCommitDue lists the partitions member m owns where the Java consumer's
// auto-commit would commit past the group's committed offset (see
// autoPos): where the batches it has finished end, or where it starts on a
// partition it has not read from.
func (l *world) autoCommitDue(g *groupState, m *member) []int {
	var out []int
	if m.gen != g.g.Generation {
		return nil
	}
	for _, p := range g.ownedBy(m) {
		if pos, has := g.autoPos(m, p); has && pos > g.g.Committed[p] {
			out = append(out, p)
		}
	}
	return out
}

// pollCommit is auto-commit as the Java consumer runs it: inside poll, once
// the interval has passed, it commits its positions, where the batches the
// code has finished with end, which a crash in the middle of a batch never
// reaches (and on a partition it has not read from, where it starts).
func (l *world) pollCommit(g *groupState, m *member) {
	var ok []string
	for _, p := range l.autoCommitDue(g, m) {
		pos, _ := g.autoPos(m, p)
		g.g.Commit(m.name, m.gen, p, pos)
		g.hist.Commits = append(g.hist.Commits, CommitPoint{Step: int32(l.w.NextStep()), Partition: int16(p), Offset: pos, Member: m.ref})
		ok = append(ok, prose.F("offset %d on %s", pos, g.pname(p)))
	}
	l.w.Emit(g.name+"/"+m.name, engine.KindOffset, -1, "%s's poll, the auto-commit interval (%s) having passed, first commits %s: its positions, where the batches the code has finished end (or where it starts on a partition it has read nothing from), since it only calls poll again once it is done with one.", m.name, g.interval, strings.Join(ok, ", "))
}

func limitKeys(keys []string, n int) []string {
	if len(keys) <= n {
		return keys
	}
	return append(slices.Clone(keys[:n-1]), prose.F("… %s", keys[len(keys)-1]))
}

func ownedPhrase(g *groupState, m string) string {
	var ps []string
	for _, p := range g.g.Owned(m) {
		ps = append(ps, g.pname(p))
	}
	if len(ps) == 0 {
		return "with no partition assigned"
	}
	return strings.Join(ps, ", ")
}

// offsetReset applies auto.offset.reset to partition p at position pos (-1
// when there is none). It reports false when the policy is none.
func (l *world) offsetReset(g *groupState, m *member, p int, pos int64, why string) (int64, bool) {
	part := g.topic.Parts[p]
	actor := g.name + "/" + m.name
	rr := ResetRange{Step: int32(l.w.NextStep()), Member: m.name, Partition: int32(p), Policy: g.reset}
	switch g.reset {
	case "none":
		if pos < 0 {
			// No offset to fetch from at all: the client fails before any
			// fetch, as the Java consumer's NoOffsetForPartitionException.
			l.stop(g, m, stopNoOffset)
			l.w.Emit(actor, engine.KindOffsetReset, -1, "%s has no committed offset on %s, and auto.offset.reset=none gives no default: its poll raises NoOffsetForPartitionException and the consumer stops%s.", m.name, g.pname(p), l.stopTail(g, m))
			return 0, false
		}
		l.stop(g, m, stopOutOfRange)
		l.w.Emit(actor, engine.KindOffsetReset, -1, "%s's fetch on %s fails: %s, and auto.offset.reset=none allows no reset; the consumer raises OffsetOutOfRangeException and stops%s.", m.name, g.pname(p), why, l.stopTail(g, m))
		return 0, false
	case "latest":
		to := part.End()
		if pos > to {
			if to > part.Start() { // what the log holds is never read, as from no offset
				rr.From, rr.To = part.Start(), to
				g.hist.Resets = append(g.hist.Resets, rr)
			}
			l.w.Emit(actor, engine.KindOffsetReset, -1, "%s on %s: %s, so auto.offset.reset=latest goes back to the log end %d.", m.name, g.pname(p), why, to)
		} else if pos >= 0 && to > pos {
			rr.From, rr.To, rr.Deleted = pos, to, true
			g.hist.Resets = append(g.hist.Resets, rr)
			l.w.Emit(actor, engine.KindOffsetReset, -1, "%s: %s, so auto.offset.reset=latest jumps to the log end %d; %s %s skipped, the deleted ones and the held ones alike.", m.name, why, to, offsets(pos, to), prose.IsAre(int(to-pos)))
		} else if to > part.Start() {
			rr.From, rr.To = part.Start(), to
			g.hist.Resets = append(g.hist.Resets, rr)
			l.w.Emit(actor, engine.KindOffsetReset, -1, "%s on %s: %s, so auto.offset.reset=latest starts at the log end %d and will never see what is already there.", m.name, g.pname(p), why, to)
		}
		return to, true
	default:
		to := part.Start()
		if pos > part.End() {
			l.w.Emit(actor, engine.KindOffsetReset, -1, "%s on %s: %s, so auto.offset.reset=earliest starts again at the log start %d.", m.name, g.pname(p), why, to)
		} else if pos >= 0 && to > pos {
			rr.From, rr.To, rr.Deleted = pos, to, true
			g.hist.Resets = append(g.hist.Resets, rr)
			l.w.Emit(actor, engine.KindOffsetReset, -1, "%s on %s: %s, so auto.offset.reset=earliest restarts at %d; %s %s gone for good.", m.name, g.pname(p), why, to, offsets(pos, to), prose.IsAre(int(to-pos)))
		} else if to > 0 {
			l.w.Emit(actor, engine.KindOffsetReset, -1, "%s on %s: %s, so auto.offset.reset=earliest starts at the log start %d.", m.name, g.pname(p), why, to)
		}
		return to, true
	}
}

// stopTail ends the narration of member m's stop, and schedules what
// follows it (see exit): a static member keeps its partitions.
func (l *world) stopTail(g *groupState, m *member) string {
	if g.static() {
		l.expireAt(g, m)
		return prose.F("; its application exits, but a static member's close sends no LeaveGroup, so %s keeps it, and its partitions, unread, until it starts again or session.timeout.ms (%s) passes without a heartbeat", g.name, g.session)
	}
	l.w.Then(func() { l.exit(g, m) })
	return ""
}

// consume processes a batch into the target, unless the member crashes first.
func (l *world) consume(g *groupState, m *member, b *batch, pl pollPlan) {
	if pl.crash == "before-write" {
		ing, _ := g.work()
		l.crashMember(g, m, b, "after polling and before "+ing+" the batch", false)
		l.finishBatch(g, m, b, false)
		return
	}
	in := g.in[:0]
	var skipped, unread []string // unread: what the error handler skipped, by key
	for _, rr := range b.ranges {
		recs := g.topic.Parts[rr.Partition].Records[rr.From:rr.To]
		for i := range recs {
			if g.skipBad && l.schemas && !readable(g.topic.compat, b.schema, recs[i].Schema) {
				unread = append(unread, g.topic.Label(&recs[i]))
				continue
			}
			in = l.admit(g, &recs[i], in, &skipped)
		}
	}
	g.in = in
	if g.tsMark {
		for _, x := range in {
			if !g.hasMark || x.UpdatedAt > g.mark {
				g.mark, g.hasMark = x.UpdatedAt, true
			}
		}
	}
	if g.target != nil && !g.dedup && !g.tsMark && unread == nil {
		// The common case, narrated on demand from the batch's reads.
		res := l.deliver(g.target, in)
		l.emitNote(l.actorOf(g, m), engine.KindWrite, logNote{a: g.idx, i: int64(b.reads), n: int32(len(b.ranges)), c: int32(res.Collapsed), b: int32(res.Deleted), why: noteWrite})
		l.afterWrite(g, m, b, pl)
		return
	}
	extra := ""
	if unread != nil {
		extra = l.unreadNote(g, unread, b.schema)
	}
	l.consumeSlow(g, m, b, pl, in, skipped, extra)
}

// admit appends record r to a batch's writes unless the group's event-id
// dedup or timestamp mark drops it, which it notes in skipped.
func (l *world) admit(g *groupState, r *topic.Record, in []sink.In, skipped *[]string) []sink.In {
	if g.dedup {
		id := g.topic.DedupID(r)
		if g.seenIDs[id] {
			if id != g.topic.ID(r) {
				id = prose.F("lsn %d's version %d of %s", r.LSN, r.Seq, g.topic.Key(r)) // a capture record's: see DedupID
			}
			*skipped = append(*skipped, id)
			return in
		}
		g.seenIDs[id] = true
	}
	if g.tsMark {
		if g.hasMark && r.UpdatedAt <= g.mark {
			*skipped = append(*skipped, prose.F("%s (updated_at %s, not after the mark's %s)", g.topic.Key(r), r.UpdatedAt, g.mark))
			return in
		}
	}
	id, src := r.KeyID, r.Src
	if l.multi {
		// With several targets a key's id depends on which target it
		// belongs to, so the id the record carries may be another's; a
		// target the record's source does not reach knows no source row
		// for it.
		if other := l.w.KeyID(g.target, g.topic.Key(r)); other != id {
			id, src = other, 0
		}
	}
	if !r.Keyed {
		// A record without a key is known by its event id, and the row
		// carries the id the record carried: an event resent under a new id
		// is a new key to the target, though the same event to the truth.
		if eid := g.topic.ID(r); eid != g.topic.Key(r) {
			if src == 0 {
				src = id + 1
			}
			id = l.w.KeyID(g.target, eid)
		}
	}
	// The key's text comes from its state, which the write reads next anyway.
	return append(in, sink.In{ID: id, Src: src, Key: l.w.KeyText(id), Seq: int(r.Seq), UpdatedAt: r.UpdatedAt, LSN: int64(r.LSN), Delete: r.Delete})
}

// consumeSlow writes a batch that a dedup or a timestamp mark filtered, or
// that has no target, narrating it at once.
func (l *world) consumeSlow(g *groupState, m *member, b *batch, pl pollPlan, in []sink.In, skipped []string, unread string) {
	actor := g.name + "/" + m.name
	extra := ""
	switch {
	case g.dedup && len(skipped) > 0:
		extra = prose.F("; it skips event ids it has seen: %s", strings.Join(skipped, ", "))
	case g.dedup:
		extra = "; every event id is new to it, so its dedup removes nothing"
	case g.tsMark && len(skipped) > 0:
		// Each drop names the mark it was held to: the batch's own records
		// move the mark as they pass, so the mark after the batch may be
		// later than the one that dropped a record.
		extra = prose.F("; its timestamp mark drops %s as already seen", strings.Join(skipped, ", "))
	}
	extra += unread
	if g.target == nil {
		l.w.Emit(actor, engine.KindWrite, -1, "%s processes %s%s.", m.name, prose.Count(len(in), "record", "records"), extra)
	} else {
		res := l.deliver(g.target, in)
		if res.Collapsed > 0 {
			extra += "; the merge absorbs " + prose.Count(res.Collapsed, "row", "rows") + " already present"
		}
		var keys, deletes []string
		for _, x := range in {
			if x.Delete {
				deletes = append(deletes, x.Key)
			} else {
				keys = append(keys, x.Key)
			}
		}
		l.w.Emit(actor, engine.KindWrite, -1, "%s", writeSentence(m.name, g.target.Mode, l.w.Trace().Noun(l.feedName(g)), g.target.Name, keys, deletes, res.Deleted, extra))
	}
	l.afterWrite(g, m, b, pl)
}

// afterWrite is what follows a batch's write: a crash, or the commit; then
// the member is done with the batch.
func (l *world) afterWrite(g *groupState, m *member, b *batch, pl pollPlan) {
	switch {
	case pl.crash == "before-commit":
		ing, _ := g.work()
		where := "after " + ing + " the batch and before committing its offsets"
		if g.commit == "before" {
			// The commit came first: the crash finds the batch done.
			where = "after " + ing + " the batch, whose offsets it committed before " + ing + " it,"
		}
		l.w.Then(func() {
			l.crashMember(g, m, b, where, true)
			l.finishBatch(g, m, b, false)
		})
	case g.commit == "after":
		l.w.Then(func() {
			l.commitBatch(g, m, b, noteCommitAfter)
			l.finishBatch(g, m, b, true)
		})
	default:
		l.finishBatch(g, m, b, true)
	}
}

// feedName is the table or producer a group's records come from, for naming rows.
func (l *world) feedName(g *groupState) string {
	for _, f := range l.t.Feeds {
		if f.Target == g.hist.Target {
			return f.Table
		}
	}
	return ""
}

// deliver writes rows into a target.
func (l *world) deliver(target *sink.Table, in []sink.In) sink.Result {
	res := l.w.Deliver(target, in, -1, nil)
	if res.Collapsed > 0 {
		// Counted from the event that follows, at the next step: the write,
		// or the operator's re-snapshot.
		l.t.absorbed = append(l.t.absorbed, [2]int32{int32(l.w.NextStep()), int32(res.Collapsed)})
	}
	return res
}

// commitBatch commits the offsets after a batch, as the next offsets to
// read; why is when the code commits (noteCommitAfter, noteCommitBefore or
// noteCommitReset).
func (l *world) commitBatch(g *groupState, m *member, b *batch, why noteKind) {
	first := len(g.hist.Commits)
	var refused []int
	for _, r := range b.ranges {
		p := int(r.Partition)
		if g.g.Commit(m.name, b.gen, p, r.To) {
			g.hist.Commits = append(g.hist.Commits, CommitPoint{Step: int32(l.w.NextStep()), Partition: r.Partition, Offset: r.To, Member: m.ref})
		} else {
			refused = append(refused, p)
		}
	}
	if len(refused) == 0 {
		// Narrated on demand from the commits just stored.
		var records int64 // the batch's, for the narration to count
		for _, r := range b.ranges {
			records += r.To - r.From
		}
		l.emitNote(l.actorOf(g, m), engine.KindOffset, logNote{a: g.idx, i: int64(first), n: int32(len(g.hist.Commits) - first), b: int32(records), why: why})
		return
	}
	ing, _ := g.work()
	when := commitWhen(why, ing)
	actor := g.name + "/" + m.name
	var ok, no []string
	for _, c := range g.hist.Commits[first:] {
		ok = append(ok, prose.F("offset %d on %s", c.Offset, g.pname(int(c.Partition))))
	}
	for _, p := range refused {
		no = append(no, g.pname(p))
	}
	if len(ok) == 0 {
		if g.members[m.name] != m {
			l.w.Emit(actor, engine.KindOffset, -1, "%s's commit %s is refused: it is no longer a member of %s, and %s %s to the new assignment, which reads %s again from the committed offsets.",
				m.name, when, g.name, strings.Join(no, ", "), belong(len(no)), prose.ItThem(len(no)))
			return
		}
		l.w.Emit(actor, engine.KindOffset, -1, "%s's commit %s is refused: the group has rebalanced to generation %d since it polled, and %s now %s to the new assignment, which will read %s again.",
			m.name, when, g.g.Generation, strings.Join(no, ", "), belong(len(no)), prose.ItThem(len(no)))
		return
	}
	l.w.Emit(actor, engine.KindOffset, -1, "%s commits %s %s; its commit on %s is refused after the rebalance.", m.name, strings.Join(ok, ", "), when, strings.Join(no, ", "))
}

// crashMember kills a consumer mid-batch, after the batch was written when
// written is set; it restarts at once and its next poll resumes from the
// committed offsets.
func (l *world) crashMember(g *groupState, m *member, b *batch, where string, written bool) {
	actor := g.name + "/" + m.name
	m.forget() // the restarted process has finished nothing
	// lost: committed past and never written; again: read again from the
	// committed offset (or the log start, by reset=earliest); unread: no
	// committed offset, and reset=latest or none will not go back for them.
	var lost, again, unread []string
	lostRecords := int64(0)
	fromStart := 0 // partitions with no committed offset, which the restart reads from the log start again
	for _, r := range b.ranges {
		c := g.g.Committed[r.Partition]
		switch {
		case c >= r.To && !written:
			lost = append(lost, prose.F("%s %s", g.pname(int(r.Partition)), offsets(r.From, r.To)))
			lostRecords += r.To - r.From
		case c < 0 && g.reset != "earliest":
			unread = append(unread, prose.F("%s (%s)", g.pname(int(r.Partition)), offsets(r.From, r.To)))
		case c < 0:
			// No committed offset: auto.offset.reset=earliest starts the
			// restart at the log start, before this batch.
			fromStart++
			again = append(again, prose.F("%s %s", g.pname(int(r.Partition)), offsets(min(g.topic.Parts[r.Partition].Start(), r.From), r.To)))
		case c < r.To:
			again = append(again, prose.F("%s %s", g.pname(int(r.Partition)), offsets(max(r.From, c), r.To)))
		}
	}
	_, done := g.work()
	var effects []string
	// Said only when it holds of every partition read again; with some
	// committed, the ranges still say where each restarts.
	const earliest = "nothing was ever committed, so the restart starts at the log start (auto.offset.reset=earliest) and reads %s again"
	allFromStart := fromStart > 0 && fromStart == len(again)
	switch {
	case len(lost) > 0:
		those := "those records are"
		if lostRecords == 1 {
			those = "that record is"
		}
		effects = append(effects, prose.F("the committed offsets already cover %s, so %s skipped for good", strings.Join(lost, ", "), those))
	case len(again) > 0 && written && allFromStart:
		effects = append(effects, prose.F("the batch is "+done+" but "+earliest, strings.Join(again, ", ")))
	case len(again) > 0 && written:
		effects = append(effects, prose.F("the batch is %s but not committed, so the restart reads %s again", done, strings.Join(again, ", ")))
	case len(again) > 0 && allFromStart:
		effects = append(effects, prose.F("the batch is not "+done+", and "+earliest, strings.Join(again, ", ")))
	case len(again) > 0:
		effects = append(effects, prose.F("nothing was %s or committed, so the restart reads %s again", done, strings.Join(again, ", ")))
	}
	if len(unread) > 0 {
		// Kafka keeps no position for a consumer that never committed: its
		// restart finds none and applies auto.offset.reset again.
		next := "auto.offset.reset=latest starts the restart at the log end, past them for good"
		if g.reset == "none" {
			next = "auto.offset.reset=none gives the restart no place to start, and it stops"
		}
		why := prose.F("nothing was ever committed on %s: %s", strings.Join(unread, ", "), next)
		switch {
		case len(effects) > 0:
		case written:
			why = "the batch is " + done + " but " + why
		default:
			why = "nothing was " + done + ", and " + why
		}
		effects = append(effects, why)
	}
	effect := "nothing is lost or repeated"
	if len(effects) > 0 {
		effect = strings.Join(effects, "; ")
	}
	if g.commit == "auto" {
		// A new process's client times auto.commit.interval.ms from its
		// own start, not in the phase of the one that died.
		m.nextAuto = l.w.Now().Add(g.interval)
		effect += prose.F("; the new process's auto-commit interval (%s) counts from its start, so its next auto-commit is due at %s", g.interval, m.nextAuto)
	}
	// The restart keeps the member's place: Kafka's static membership
	// (group.instance.id) hands a process that rejoins within
	// session.timeout.ms its old partitions without a rebalance. A dynamic
	// member would join anew and the group would rebalance.
	keeps := "keeping its partitions without a rebalance"
	if g.pending != "" {
		keeps = "and its poll joins the rebalance under way"
	}
	l.w.Emit(actor, engine.KindCrash, -1, "%s crashes %s and restarts under its group.instance.id, %s; %s.", m.name, where, keeps, effect)
	if g.pending == "" {
		// With a rebalance waiting, the member's poll after the crash joins
		// it, and the rebalance's assignment resets these partitions once.
		l.resetUncommitted(g, []string{m.name})
	}
}

// autoCommit fires the auto-commit timers that are due: each commits its
// member's position, whatever has been processed.
func (l *world) autoCommit(g *groupState, name string) {
	{
		m := g.members[name]
		if m == nil || l.w.Now() < m.nextAuto {
			return
		}
		for m.nextAuto <= l.w.Now() {
			m.nextAuto = m.nextAuto.Add(g.interval)
		}
		var ok []string
		for _, p := range g.ownedBy(m) {
			pos, has := g.autoPos(m, p)
			if !has || pos == g.g.Committed[p] {
				continue
			}
			g.g.Commit(name, m.gen, p, pos)
			g.hist.Commits = append(g.hist.Commits, CommitPoint{Step: int32(l.w.NextStep()), Partition: int16(p), Offset: pos, Member: m.ref})
			ok = append(ok, prose.F("offset %d on %s", pos, g.pname(p)))
		}
		if len(ok) > 0 {
			l.w.Emit(g.name+"/"+name, engine.KindOffset, -1, "%s's auto-commit timer (every %s) commits %s: everything polled so far, processed or not.", name, g.interval, strings.Join(ok, ", "))
		}
	}
}

// lagPhrase says how far behind a member's partitions are.
func (l *world) lagPhrase(g *groupState, name string) string {
	var parts []string
	for _, p := range g.g.Owned(name) {
		// As kafka-consumer-groups and the consumer-lag check count it: the
		// log end minus the committed offset, however far retention has
		// moved the log start. With nothing committed the tool shows no
		// lag; the check, and this, count from the log start.
		part := g.topic.Parts[p]
		c := g.g.Committed[p]
		if c < 0 {
			c = part.Start()
		}
		parts = append(parts, prose.F("%s lag %d", g.pname(p), part.End()-c))
	}
	if len(parts) == 0 {
		return "it owns no partition"
	}
	return strings.Join(parts, ", ")
}

// pause stops a member's fetches until a time.
func (l *world) pause(g *groupState, name string, until vtime.Time) {
	m := g.members[name]
	if m == nil {
		l.w.Emit(g.name+"/"+name, engine.KindPause, -1, "%s is not a member of %s; there is nothing to pause.", name, g.name)
		return
	}
	prev := m.paused
	m.paused = until
	if prev > l.w.Now() && prev != until {
		// The later instruction wins, as the code's last pause or resume
		// does: the member resumes at until, earlier or later than it was to.
		l.w.Emit(g.name+"/"+name, engine.KindPause, -1, "%s, paused until %s, is paused until %s instead; records keep arriving and its lag grows.", name, prev, until)
		return
	}
	l.w.Emit(g.name+"/"+name, engine.KindPause, -1, "%s pauses fetching until %s (its code calls pause() on its partitions while a slow downstream recovers, and keeps calling poll); records keep arriving and its lag grows.", name, until)
}

// stop notes member m of group g stopping on the exception why at the
// step about to be narrated, or, with why empty, running again: the
// member's own state (m.stopped) and the trace's (StopPoint) agree.
func (l *world) stop(g *groupState, m *member, why string) {
	m.stopped = why
	if why != "" {
		m.stops++
	}
	g.hist.Stops = append(g.hist.Stops, StopPoint{Step: int32(l.w.NextStep()), Member: m.ref, Why: uint8(slices.Index(Stops[:], why))})
}

// restart starts again the applications of the members named, which
// exited, as by ("The operator", "The deploy") does: their consumers join
// in one rebalance, a step after this one.
func (l *world) restart(g *groupState, names []string, by string) {
	which := "which joins"
	if len(names) > 1 {
		which = "which join"
	}
	why := prose.F("%s restarts %s, %s %s", by, strings.Join(names, " and "), which, g.name)
	l.w.Then(func() {
		for _, name := range names {
			l.add(g, name)
		}
		l.requestRebalance(g, why)
	})
}

// resnapshot recovers a group whose position points at deleted data: it
// copies every live row of the source tables that feed the topic into the
// target in one snapshot, then commits the log end so reading resumes after it.
func (l *world) resnapshot(g *groupState) {
	stuck := false
	for _, m := range g.exited {
		stuck = stuck || m.stopped != stopSchema
	}
	for _, m := range g.members {
		stuck = stuck || m.stopped != "" && m.stopped != stopSchema
	}
	if !stuck {
		l.w.Emit("operator", engine.KindReset, -1, "The runbook says re-snapshot %s only when its consumers stop for want of a usable offset (out of range, or none committed); none has, so the operator does nothing — whatever a reset skipped stays skipped.", g.name)
		return
	}
	var in []sink.In
	var tables []string
	for _, c := range l.captures {
		if c.topic != g.topic {
			continue
		}
		tables = append(tables, c.table)
		for _, v := range l.src.Table(c.table).Rows() {
			x := sink.In{ID: l.w.KeyID(g.target, v.Key), Key: v.Key, Seq: v.Seq, UpdatedAt: v.UpdatedAt, LSN: int64(v.LSN)}
			if x.ID == v.Target {
				x.Src = srcRef(v.Target, v.ID)
			}
			in = append(in, x)
		}
	}
	sorted.Stable(in, func(i, j int32) int { return compareKeyStrings(in[i].Key, in[j].Key) })
	if g.target != nil {
		l.deliver(g.target, in)
	}
	liveRows := prose.F("all %d live rows", len(in))
	if len(in) == 1 {
		liveRows = "the 1 live row"
	}
	var ends []string
	for p, part := range g.topic.Parts {
		g.g.Committed[p] = part.End()
		g.hist.Commits = append(g.hist.Commits, CommitPoint{Step: int32(l.w.NextStep()), Partition: int16(p), Offset: part.End(), Member: g.hist.MemberRef("operator")})
		ends = append(ends, prose.F("offset %d on %s", part.End(), g.pname(p)))
	}
	for _, name := range sorted.Keys(g.members) {
		m := g.members[name]
		if m.stopped != "" {
			l.stop(g, m, "")
		}
		m.forget()
	}
	if restart := sorted.Keys(g.exited); len(restart) > 0 {
		l.restart(g, restart, "The operator")
	}
	l.w.Emit("operator", engine.KindReset, -1, "An operator re-snapshots: with %s's consumers stopped (Kafka resets the offsets of an empty group only), the operator first notes where the log ends (%s), then one consistent read of %s copies %s into the target, but no delete: a row deleted since the consumers stopped stays there. The operator commits the noted positions and starts the consumers again: a change committed during the copy is read again from the log, and a keyed merge absorbs it (here the copy takes no time).",
		g.name, strings.Join(ends, ", "), strings.Join(tables, ", "), liveRows)
}

func compareKeyStrings(a, b string) int {
	if len(a) != len(b) && isInt(a) && isInt(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

func isInt(s string) bool {
	_, ok := whole.Int64(s)
	return ok
}

// belong agrees with n partitions: "p0 belongs", "p0, p1 belong".
func belong(n int) string {
	if n == 1 {
		return "belongs"
	}
	return "belong"
}
