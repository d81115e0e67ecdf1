//go:build !tm_stream

package logs

import (
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Change capture and an application publishing its own commits read a
// source database's commits. The build of the engine's browser module with
// the log and stream worlds runs no source database (wasm/worlds_stream.go),
// so it has capture_none.go instead of this file, which refuses their lines
// and leaves this code out of that download.

// capture reads `cdc NAME from=TABLE to=TOPIC` and
// `publish NAME from=TABLE to=TOPIC [outbox=on|off] [delay=D]`.
func (l *world) capture(c scenario.Command) error {
	n, rest, err := l.w.Declared(c, c.Name, "a capture")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	from, _ := a.Required("from", "TABLE")
	to, _ := a.Required("to", "TOPIC")
	cp := &capture{name: n.Value, app: c.Name == "publish"}
	if cp.app {
		cp.outbox = scenario.Choice(a, "outbox", false, scenario.OnOff, "on or off")
		cp.delay = a.Duration("delay", vtime.Second)
	} else {
		cp.flush = a.Duration("flush", time60s)
	}
	if err := a.Done(); err != nil {
		return err
	}
	if !cp.app && cp.flush <= 0 {
		return scenario.Errorf(scenario.ValueAt(c, "flush"), "expected flush= to be a positive duration such as 60s (how often the connector saves its position)")
	}
	src := l.sourceDB()
	if src == nil {
		return scenario.Errorf(c.Pos, "%s reads the commits of a source table, and this engine is composed without the high-water-mark world that keeps them", c.Name)
	}
	if src.Table(from.Value) == nil {
		return scenario.Errorf(from.ValuePos, "unknown source table %q; declare it first with `source %s key=...`", from.Value, from.Value)
	}
	if cp.delay < 0 {
		return scenario.Errorf(scenario.ValueAt(c, "delay"), "expected delay= to be zero or positive")
	}
	h, err := l.topicArg(to)
	if err != nil {
		return err
	}
	cp.table, cp.topic = from.Value, h
	l.captures = append(l.captures, cp)
	return nil
}

func (l *world) crash(c scenario.Command) error {
	n, rest, err := scenario.Name(c, "an application")
	if err != nil {
		return err
	}
	a := scenario.NewArgs(c, rest)
	at := a.RequiredTime("at")
	var cp *capture
	for _, x := range l.captures {
		if x.name == n.Value {
			cp = x
		}
	}
	if cp == nil {
		return scenario.Errorf(n.Pos, "unknown application %q; crash names a `cdc` connector or a `publish` application (consumers crash with `poll ... crash=`)", n.Value)
	}
	if cp.app {
		if err := a.Done(); err != nil {
			return err
		}
		l.w.Schedule(at, func() { l.crashApp(cp) })
		return nil
	}
	restart := a.Duration("restart", 0)
	if err := a.Done(); err != nil {
		return err
	}
	if restart < 0 {
		return scenario.Errorf(scenario.ValueAt(c, "restart"), "expected restart= to be zero or positive: how long the connector stays down")
	}
	if err := a.Within("restart", "the connector would restart at", at.Add(restart)); err != nil {
		return err
	}
	cp.restarts++
	l.w.Expect(2, 0, 0)
	l.w.Schedule(at, func() { l.crashConnector(cp, restart) })
	return nil
}

// captureCommit hands a committed transaction to every capture that reads
// one of its tables: whole, in commit order, with its LSN.
func (l *world) captureCommit(tx *mvcc.Txn) {
	for _, c := range l.captures {
		var vs []*mvcc.Version
		for _, v := range tx.Writes {
			if v.Table() == c.table {
				vs = append(vs, v)
			}
		}
		if len(vs) == 0 {
			continue
		}
		c, name, lsn, commitAt := c, tx.Name, tx.LSN, l.w.Now()
		// The producer stamps a record when it sends it (Kafka's
		// CreateTime), not when the row committed: Debezium leaves the
		// record's timestamp to the producer, and an application's send
		// comes delay after its commit.
		l.w.Schedule(l.w.Now().Add(c.delay), func() { l.publish(c, name, lsn, commitAt, l.source.Read(l.w.Now()), vs, false) })
	}
}

// flushedBy returns the last instant at or before t when a connector that
// saves its position every flush saved it.
func flushedBy(t vtime.Time, flush vtime.Duration) vtime.Time {
	return t - t%vtime.Time(flush)
}

// publish appends a committed transaction's rows to the capture's topic;
// again says a restarted connector publishes it a second time.
func (l *world) publish(c *capture, txn string, lsn mvcc.LSN, commitAt, stampAt vtime.Time, vs []*mvcc.Version, again bool) {
	if !c.app && c.restarts > 0 {
		p := published{txn: txn, lsn: lsn, at: l.w.Now(), commitAt: commitAt, vs: vs}
		if c.down {
			c.pending = append(c.pending, p)
			return
		}
		// What was published by the last flush is saved, and no crash to
		// come (at or after now) can resume from before it.
		cut := flushedBy(l.w.Now(), c.flush)
		n := 0
		for n < len(c.sent) && c.sent[n].at <= cut {
			c.savedLSN = c.sent[n].lsn
			n++
		}
		c.sent = append(c.sent[n:], p)
	}
	keys := keysOf(vs)
	what := prose.Rows(l.w.Trace().Noun(c.table), keys)
	if c.app && !c.outbox {
		for _, at := range c.crashes {
			if at >= commitAt && at < l.w.Now() {
				l.w.Emit(c.name, engine.KindLost, -1, "%s was to publish %s of %s after the commit, but it crashed at %s in between; the rows are committed and their events will never be sent.", c.name, what, txn, at)
				return
			}
		}
	}
	var placed []string
	for _, v := range vs {
		part := topic.PartitionFor(v.Key, len(c.topic.Parts))
		off, _ := c.topic.Append(part, topic.Record{Keyed: true, Time: stampAt, UpdatedAt: v.UpdatedAt, Amount: v.Amount, Seq: int32(v.Seq),
			LSN: int32(lsn), ProducerRef: c.topic.NameRef(c.name), Intent: -1, Step: int32(l.w.NextStep()), KeyID: v.Target, Src: srcRef(v.Target, v.ID),
			Delete: v.Deleted()}, 0, 0, false)
		if v.Deleted() {
			placed = append(placed, prose.F("the delete of %s → %s-%d@%d", v.Key, c.topic.Name, part, off))
		} else {
			placed = append(placed, prose.F("%s → %s-%d@%d", v.Key, c.topic.Name, part, off))
		}
	}
	switch {
	case again:
		l.w.Emit(c.name, engine.KindProduce, -1, "%s publishes %s (lsn %d) again, since it committed after the position %s saved: %s; those records were already in the topic.", c.name, txn, lsn, c.name, strings.Join(placed, ", "))
	case !c.app:
		l.w.Emit(c.name, engine.KindProduce, -1, "%s reads %s (lsn %d) from the source's log and publishes each of its changes, in commit order: %s.", c.name, txn, lsn, strings.Join(placed, ", "))
	case c.outbox:
		l.w.Emit(c.name, engine.KindProduce, -1, "The outbox relay publishes %s, written in the same transaction as %s (lsn %d): %s.", what, txn, lsn, strings.Join(placed, ", "))
	default:
		l.w.Emit(c.name, engine.KindProduce, -1, "%s publishes %s after %s committed, a second write the database knows nothing about: %s.", c.name, what, txn, strings.Join(placed, ", "))
	}
}

// crashConnector stops a change capture connector at this instant, to
// restart after restart: it forgets what it published since it last saved
// its position.
func (l *world) crashConnector(c *capture, restart vtime.Duration) {
	if c.down {
		l.w.Emit(c.name, engine.KindCrash, -1, "%s is down already; this crash changes nothing.", c.name)
		return
	}
	c.down, c.crashedAt = true, l.w.Now()
	l.w.Schedule(l.w.Now().Add(restart), func() { l.restartConnector(c) })
	saved := flushedBy(l.w.Now(), c.flush)
	for _, p := range c.sent {
		if p.at <= saved {
			c.savedLSN = p.lsn
		}
	}
	var since []string
	for _, p := range c.sent {
		if p.at > saved {
			since = append(since, p.txn)
		}
	}
	if len(since) == 0 {
		l.w.Emit(c.name, engine.KindCrash, -1, "%s crashes. It saved its position at %s (it saves every %s, Kafka Connect's offset.flush.interval.ms) and has published nothing since, so a restart repeats nothing.", c.name, saved, c.flush)
		return
	}
	l.w.Emit(c.name, engine.KindCrash, -1, "%s crashes. It last saved its position at %s (every %s, Kafka Connect's offset.flush.interval.ms); %s, published since, %s in the topic, but the saved position does not say so.", c.name, saved, c.flush, strings.Join(since, ", "), prose.IsAre(len(since)))
}

// restartConnector starts a crashed connector again from the position it
// saved: the source's log sends it every transaction committed after that
// position, so what it published since is published twice (Debezium's
// at-least-once delivery), followed by what was committed while it was down.
func (l *world) restartConnector(c *capture) {
	saved := flushedBy(c.crashedAt, c.flush)
	var again []published
	for _, p := range c.sent {
		if p.at > saved {
			again = append(again, p)
		}
	}
	pending := c.pending
	from := "the start of the capture"
	if c.savedLSN > 0 {
		from = prose.F("lsn %d", c.savedLSN)
	}
	l.w.Emit(c.name, engine.KindCrash, -1, "%s restarts and asks the source's replication slot for the changes after %s, the position it saved: %s it published before the crash, then %d committed while it was down.",
		c.name, from, prose.Count(len(again), "transaction", "transactions"), len(pending))
	for i := range again {
		again[i].again = true
	}
	c.replay, c.sent, c.pending = append(again, pending...), nil, nil
	if len(c.replay) == 0 {
		c.down = false
		return
	}
	l.w.Schedule(l.w.Now(), func() { l.replayNext(c) })
}

// replayNext publishes the next transaction a restarted connector reads
// from the source's log, one a step; the connector counts as down until it
// has caught up, so a commit meanwhile waits its turn in commit order.
func (l *world) replayNext(c *capture) {
	c.replay, c.pending = append(c.replay, c.pending...), nil
	p := c.replay[0]
	c.replay = c.replay[1:]
	c.down = false
	l.publish(c, p.txn, p.lsn, p.commitAt, l.source.Read(l.w.Now()), p.vs, p.again)
	if len(c.replay) > 0 {
		c.down = true
		l.w.Schedule(l.w.Now(), func() { l.replayNext(c) })
	}
}

// crashApp records that a publishing application died at this instant.
func (l *world) crashApp(c *capture) {
	c.crashes = append(c.crashes, l.w.Now())
	if c.outbox {
		l.w.Emit(c.name, engine.KindCrash, -1, "%s crashes and restarts; its events sit in the outbox table, committed with the rows, so the relay sends them anyway.", c.name)
		return
	}
	l.w.Emit(c.name, engine.KindCrash, -1, "%s crashes and restarts; any order it had committed but not yet published is now only in the database.", c.name)
}
