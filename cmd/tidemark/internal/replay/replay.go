// Package replay plays a scenario's MVCC world on a real PostgreSQL and
// compares what the database returns with what the engine says.
//
// The engine's trace fixes the order of events: which transaction begins,
// writes, commits or rolls back, and when each extractor run reads, writes,
// stores its mark or crashes. The replay performs those events in that
// order on separate connections — one per source session, one per
// extractor worker, one that reads the logical replication slot — in a
// fresh schema. Timestamps the engine takes from a clock (now(), a
// statement's time, a skewed or stepped node clock) are written as values,
// so the timeline stays the scenario's, while everything the scenario is
// about is decided by PostgreSQL: which rows a run's query sees, which ids
// a sequence hands out, the order commits reach the log, whether a
// conditional mark update matches, what a merge keeps. docs/reality.md
// explains the mapping.
//
// The package reads the engine only through its exported Trace.
package replay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/sink"
	"github.com/tidemark/tidemark/engine/vtime"
)

// epoch is the instant virtual time 00:00:00 stands for in the database.
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func toTime(v vtime.Time) time.Time { return epoch.Add(time.Duration(v) * time.Millisecond) }

func fromTime(t time.Time) vtime.Time { return vtime.Time(t.Sub(epoch).Milliseconds()) }

// marksTable names the table the replay keeps stored marks in. A scenario's
// names start with a letter, so it cannot collide with one.
const marksTable = "_tidemark_marks"

// row is a row a run read.
type row struct {
	table, key string
	updatedAt  vtime.Time
	version    int
	lsn        LSN // the commit that wrote it, for a run reading the log; 0 otherwise
}

// runState is one extractor run in the replay.
type runState struct {
	rec      *hwm.RunRecord
	cfg      *extract.Config
	only     []string
	conn     *pgx.Conn
	seen     map[string]extract.Mark // by mark name: what the read found stored
	next     map[string]extract.Mark // what it will store
	marks    []string                // the marks it moves, in order
	rows     []row
	read     bool
	dead     bool // crashed, gave up, or finished
	conflict bool // a conditional mark update matched no row
}

type replayer struct {
	ctx      context.Context
	cfg      *pgx.ConnConfig
	t        *engine.Trace
	h        *hwm.Trace // the trace's high-water-mark world
	p        *plan
	schema   string
	admin    *pgx.Conn
	decoder  *pgx.Conn // owns the temporary replication slot; nil without log-position marks
	slot     string
	base     LSN // where the slot starts, before any commit: the engine's lsn 1000
	sessions map[string]*pgx.Conn
	last     map[string]int // a session's last transaction, by index in Trace.Txns
	actors   map[string]*pgx.Conn
	xids     map[uint32]string // a committed source transaction's name, by transaction id
	runs     []*runState
	stmtNo   map[int]int
	res      *Result
}

// Replay plays the trace t on the PostgreSQL at url and compares. A
// scenario the replay cannot express comes back with NotReplayable set; an
// error is a problem with the database or the connection.
func Replay(ctx context.Context, url string, t *engine.Trace) (*Result, error) {
	h := hwm.Of(t)
	res := newResult(t)
	p, err := makePlan(t)
	var nr notReplayable
	if errors.As(err, &nr) {
		res.NotReplayable = string(nr)
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	only, err := runTables(t)
	if errors.As(err, &nr) {
		res.NotReplayable = string(nr)
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("the database URL: %v", err)
	}
	cfg.RuntimeParams["application_name"] = "tidemark-replay"
	// Commits must reach the log before the next event reads it, and
	// test_decoding prints timestamps in ISO form.
	cfg.RuntimeParams["synchronous_commit"] = "on"
	cfg.RuntimeParams["DateStyle"] = "ISO"
	r := &replayer{ctx: ctx, cfg: cfg, t: t, h: h, p: p, sessions: map[string]*pgx.Conn{}, last: map[string]int{},
		actors: map[string]*pgx.Conn{}, xids: map[uint32]string{}, stmtNo: map[int]int{}, res: res}
	for i := range h.Txns {
		r.last[h.Txns[i].Session] = i
	}
	for i := range h.Runs {
		rr := &h.Runs[i]
		r.runs = append(r.runs, &runState{rec: rr, cfg: p.pipes[rr.Pipeline], only: only[i]})
	}
	defer r.close()
	if err := r.setUp(); err != nil {
		return nil, err
	}
	if err := r.play(); err != nil {
		if errors.As(err, &nr) {
			res.NotReplayable = string(nr)
			return res, nil
		}
		return nil, err
	}
	if err := r.finish(); err != nil {
		return nil, err
	}
	return res, nil
}

func (r *replayer) connect() (*pgx.Conn, error) {
	c, err := pgx.ConnectConfig(r.ctx, r.cfg.Copy())
	if err != nil {
		return nil, fmt.Errorf("cannot connect to PostgreSQL: %w", err)
	}
	return c, nil
}

// q quotes a name in the replay's schema.
func (r *replayer) q(name string) string { return pgx.Identifier{r.schema, name}.Sanitize() }

func col(name string) string { return pgx.Identifier{name}.Sanitize() }

func (r *replayer) setUp() error {
	var err error
	if r.admin, err = r.connect(); err != nil {
		return err
	}
	var version string
	if err := r.admin.QueryRow(r.ctx, "SHOW server_version").Scan(&version); err != nil {
		return fmt.Errorf("PostgreSQL: %w", err)
	}
	r.res.Server = "PostgreSQL " + version
	var b [4]byte
	_, _ = rand.Read(b[:])
	r.schema = "tidemark_" + hex.EncodeToString(b[:])
	r.res.Schema = r.schema
	ddl := []string{"CREATE SCHEMA " + col(r.schema)}
	for _, tb := range r.p.tables {
		keyType := "bigint"
		if tb.textKeys {
			keyType = "text"
		}
		key := col(tb.key) + " " + keyType + " PRIMARY KEY"
		if tb.draws {
			seq := r.q("_seq_" + tb.name)
			ddl = append(ddl, fmt.Sprintf("CREATE SEQUENCE %s START WITH %d CACHE %d", seq, tb.firstID, tb.cache))
			key += fmt.Sprintf(" DEFAULT nextval('%s')", strings.ReplaceAll(seq, "'", "''"))
		}
		// version counts the row's versions, as a row-version column would:
		// 1 when inserted, one more at every update. A merge keeps the newest.
		ddl = append(ddl, fmt.Sprintf("CREATE TABLE %s (%s, updated_at timestamp(3) NOT NULL, version integer NOT NULL)", r.q(tb.name), key))
	}
	for _, tg := range r.p.targets {
		keyType := "bigint"
		if tg.textKeys {
			keyType = "text"
		}
		pk := ""
		if tg.mode == sink.Merge || tg.mode == sink.Upsert {
			pk = " PRIMARY KEY"
		}
		ddl = append(ddl, fmt.Sprintf("CREATE TABLE %s (%s %s%s, updated_at timestamp(3) NOT NULL, version integer NOT NULL, src_table text NOT NULL, src_lsn pg_lsn, run integer NOT NULL)",
			r.q(tg.name), col(tg.key), keyType, pk))
	}
	ddl = append(ddl, fmt.Sprintf("CREATE TABLE %s (name text PRIMARY KEY, ts timestamp(3), lsn pg_lsn)", r.q(marksTable)))
	for _, s := range ddl {
		if _, err := r.admin.Exec(r.ctx, s); err != nil {
			return fmt.Errorf("PostgreSQL: %s: %w", s, err)
		}
	}
	if r.p.lsn {
		if r.decoder, err = r.connect(); err != nil {
			return err
		}
		var level string
		if err := r.decoder.QueryRow(r.ctx, "SHOW wal_level").Scan(&level); err != nil {
			return fmt.Errorf("PostgreSQL: %w", err)
		}
		if level != "logical" {
			return fmt.Errorf("PostgreSQL's wal_level is %s; a log-position mark is replayed through a logical replication slot, which needs wal_level=logical (set it in postgresql.conf and restart the server)", level)
		}
		r.slot = r.schema
		var at string
		if err := r.decoder.QueryRow(r.ctx, "SELECT lsn::text FROM pg_create_logical_replication_slot($1, 'test_decoding', true)", r.slot).Scan(&at); err != nil {
			return fmt.Errorf("PostgreSQL: creating a logical replication slot: %w", err)
		}
		if r.base, err = ParseLSN(at); err != nil {
			return err
		}
	}
	for _, h := range r.h.Marks {
		m := extract.Mark{}
		if len(h.Points) > 0 && h.Points[0].Step == 0 {
			m = extract.Mark{Set: h.Points[0].Set, V: h.Points[0].Value}
			if h.Kind == extract.Position && m.Set {
				m.V = int64(r.base) // the plan refused any later start
			}
		}
		ts, lsn := r.markArgs(h.Kind, m)
		if _, err := r.admin.Exec(r.ctx, fmt.Sprintf("INSERT INTO %s (name, ts, lsn) VALUES ($1, $2, $3::pg_lsn)", r.q(marksTable)), h.Name, ts, lsn); err != nil {
			return fmt.Errorf("PostgreSQL: %w", err)
		}
	}
	return nil
}

// markArgs spells a mark for the marks table's ts and lsn columns.
func (r *replayer) markArgs(kind extract.MarkKind, m extract.Mark) (ts, lsn any) {
	if !m.Set {
		return nil, nil
	}
	if kind == extract.Position {
		return nil, LSN(m.V).String()
	}
	return toTime(vtime.Time(m.V)), nil
}

// close ends every connection and drops the schema. The replication slot
// is temporary: it goes with the decoder's connection.
func (r *replayer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range r.sessions {
		c.Close(ctx)
	}
	for _, c := range r.actors {
		c.Close(ctx)
	}
	if r.decoder != nil {
		r.decoder.Close(ctx)
	}
	if r.admin != nil {
		if r.schema != "" {
			_, _ = r.admin.Exec(ctx, "DROP SCHEMA IF EXISTS "+col(r.schema)+" CASCADE")
		}
		r.admin.Close(ctx)
	}
}

// play performs the trace's events in order.
func (r *replayer) play() error {
	t := r.t
	for i := range t.Events {
		e := &t.Events[i]
		var err error
		switch e.Kind {
		case engine.KindBegin:
			err = r.begin(r.p.txn[t.Actor(e)])
		case engine.KindInsert, engine.KindUpdate, engine.KindDelete:
			ti := r.p.txn[t.Actor(e)]
			err = r.statement(ti, r.stmtNo[ti])
			r.stmtNo[ti]++
		case engine.KindCommit:
			err = r.commit(r.p.txn[t.Actor(e)])
		case engine.KindRollback:
			err = r.rollback(r.p.txn[t.Actor(e)])
		case engine.KindRead:
			err = r.runRead(r.runs[e.Run])
		case engine.KindWrite:
			err = r.runWrite(r.runs[e.Run], false)
		case engine.KindCrash:
			s := r.runs[e.Run]
			if s.rec.Crashed && s.rec.WriteStep == i+1 {
				err = r.runWrite(s, true) // dies halfway through its write
			}
			s.dead = true
		case engine.KindMark:
			err = r.runStore(r.runs[e.Run])
		case engine.KindConflict, engine.KindAtomic:
			if s := r.runs[e.Run]; s.cfg.Advance == extract.Atomic {
				err = r.runAtomic(s)
			} else {
				err = r.runStore(s)
			}
		case engine.KindReset:
			err = r.reset(i + 1)
		case engine.KindClockJump:
			// A clock's reading reaches the database as the values written.
		case engine.KindAlter:
			// The replay writes every statement's updated_at as the value
			// the engine gave it, by the rule of that statement's moment
			// (StmtRecord.Mode), so a deploy that changes the rule changes
			// the values written after it and needs nothing of its own.
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *replayer) session(name string) (*pgx.Conn, error) {
	if c := r.sessions[name]; c != nil {
		return c, nil
	}
	c, err := r.connect()
	if err != nil {
		return nil, err
	}
	r.sessions[name] = c
	return c, nil
}

func (r *replayer) exec(c *pgx.Conn, sql string, args ...any) (int64, error) {
	tag, err := c.Exec(r.ctx, sql, args...)
	if err != nil {
		return 0, fmt.Errorf("PostgreSQL: %s: %w", sql, err)
	}
	return tag.RowsAffected(), nil
}

func (r *replayer) begin(ti int) error {
	c, err := r.session(r.h.Txns[ti].Session)
	if err != nil {
		return err
	}
	_, err = r.exec(c, "BEGIN ISOLATION LEVEL READ COMMITTED")
	return err
}

// keyArray is the SQL that turns a text[] parameter into the key column's type.
func keyArray(param string, text bool) string {
	if text {
		return param + "::text[]"
	}
	return param + "::text[]::bigint[]"
}

func (r *replayer) statement(ti, si int) error {
	rec := &r.h.Txns[ti]
	st := &rec.Stmts[si]
	tb := r.p.table(st.Table)
	c := r.sessions[rec.Session]
	stamp := st.Stamp
	if st.Mode == mvcc.StampCommit && !st.Backdated {
		stamp = rec.BeginNow // a placeholder no other session can see; the commit stamps the row
	}
	name, key := r.q(tb.name), col(tb.key)
	switch st.Op {
	case mvcc.Insert:
		if tb.draws {
			rows, err := c.Query(r.ctx, fmt.Sprintf("INSERT INTO %s (updated_at, version) SELECT $1, 1 FROM generate_series(1, $2) RETURNING %s::text", name, key), toTime(stamp), len(st.Keys))
			if err != nil {
				return fmt.Errorf("PostgreSQL: %w", err)
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return fmt.Errorf("PostgreSQL: %w", err)
			}
			if !sameKeys(ids, st.Keys) {
				r.res.Notes = append(r.res.Notes, fmt.Sprintf("%s's insert drew %s %s from PostgreSQL's sequence, where the engine drew %s", rec.Name, tb.key, keyList(ids), keyList(st.Keys)))
			}
			return nil
		}
		_, err := r.exec(c, fmt.Sprintf("INSERT INTO %s (%s, updated_at, version) SELECT k, $1, 1 FROM unnest(%s) WITH ORDINALITY AS u(k, n) ORDER BY n", name, key, keyArray("$2", tb.textKeys)), toTime(stamp), st.Keys)
		return err
	case mvcc.Update:
		// Every key the statement named, found by the engine or not:
		// PostgreSQL decides for itself which rows it finds.
		_, err := r.exec(c, fmt.Sprintf("UPDATE %s SET updated_at = $1, version = version + 1 WHERE %s = ANY(%s)", name, key, keyArray("$2", tb.textKeys)), toTime(stamp), r.named(ti, si))
		return err
	default:
		_, err := r.exec(c, fmt.Sprintf("DELETE FROM %s WHERE %s = ANY(%s)", name, key, keyArray("$1", tb.textKeys)), r.named(ti, si))
		return err
	}
}

// named lists every key statement si of transaction ti named: the rows the
// engine found it changing, and those it found no row for.
func (r *replayer) named(ti, si int) []string {
	return append(slices.Clone(r.h.Txns[ti].Stmts[si].Keys), r.h.UnmatchedOf(ti, si)...)
}

func (r *replayer) commit(ti int) error {
	rec := &r.h.Txns[ti]
	c := r.sessions[rec.Session]
	// A row last written while its table stamped at commit gets the commit's
	// time, as the engine's source clock read it, just before the commit. A
	// table's rule may have changed between two of the transaction's
	// statements (an alter line), so the rule is each statement's own, and
	// a later statement's write of the row under another rule wins.
	atCommit := map[rowKey]bool{}
	var order []rowKey
	for _, st := range rec.Stmts {
		for _, k := range st.Keys {
			rk := rowKey{st.Table, k}
			if _, ok := atCommit[rk]; !ok {
				order = append(order, rk)
			}
			atCommit[rk] = st.Mode == mvcc.StampCommit && !st.Backdated && st.Op != mvcc.Delete
		}
	}
	stamp := map[rowKey]vtime.Time{} // the row's last version at this commit
	for i := range r.t.Versions {
		if v := &r.t.Versions[i]; int(v.CommitStep) == rec.EndStep {
			stamp[rowKey{r.t.VersionTable(v), r.t.VersionKey(v)}] = v.UpdatedAt
		}
	}
	for _, rk := range order {
		if !atCommit[rk] {
			continue
		}
		at, ok := stamp[rk]
		if !ok {
			return fmt.Errorf("replay: %s commits no version of %s %s", rec.Name, rk.table, rk.key)
		}
		tb := r.p.table(rk.table)
		if _, err := r.exec(c, fmt.Sprintf("UPDATE %s SET updated_at = $1 WHERE %s = ANY(%s)", r.q(tb.name), col(tb.key), keyArray("$2", tb.textKeys)), toTime(at), []string{rk.key}); err != nil {
			return err
		}
	}
	var xid int64
	if err := c.QueryRow(r.ctx, "SELECT txid_current() % 4294967296").Scan(&xid); err != nil {
		return fmt.Errorf("PostgreSQL: %w", err)
	}
	if _, err := r.exec(c, "COMMIT"); err != nil {
		return err
	}
	r.xids[uint32(xid)] = rec.Name
	return r.endSession(ti)
}

func (r *replayer) rollback(ti int) error {
	if _, err := r.exec(r.sessions[r.h.Txns[ti].Session], "ROLLBACK"); err != nil {
		return err
	}
	return r.endSession(ti)
}

// endSession closes a session's connection after its last transaction.
// Nothing else would draw from its cached sequence ids.
func (r *replayer) endSession(ti int) error {
	s := r.h.Txns[ti].Session
	if r.last[s] != ti {
		return nil
	}
	c := r.sessions[s]
	delete(r.sessions, s)
	return c.Close(r.ctx)
}

// actor is the connection of a pipeline's worker.
func (r *replayer) actor(rec *hwm.RunRecord) (*pgx.Conn, error) {
	name := rec.Pipeline
	if rec.Worker != "" {
		name += "/" + rec.Worker
	}
	if c := r.actors[name]; c != nil {
		return c, nil
	}
	c, err := r.connect()
	if err != nil {
		return nil, err
	}
	r.actors[name] = c
	return c, nil
}

// storedMarks reads marks from the marks table.
func (r *replayer) storedMarks(c *pgx.Conn, kind extract.MarkKind, names []string) (map[string]extract.Mark, error) {
	rows, err := c.Query(r.ctx, fmt.Sprintf("SELECT name, ts, lsn::text FROM %s WHERE name = ANY($1)", r.q(marksTable)), names)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL: %w", err)
	}
	defer rows.Close()
	out := map[string]extract.Mark{}
	for rows.Next() {
		var name string
		var ts *time.Time
		var lsn *string
		if err := rows.Scan(&name, &ts, &lsn); err != nil {
			return nil, fmt.Errorf("PostgreSQL: %w", err)
		}
		switch {
		case kind == extract.Position && lsn != nil:
			l, err := ParseLSN(*lsn)
			if err != nil {
				return nil, err
			}
			out[name] = extract.Mark{Set: true, V: int64(l)}
		case kind != extract.Position && ts != nil:
			out[name] = extract.Mark{Set: true, V: int64(fromTime(*ts))}
		default:
			out[name] = extract.Mark{}
		}
	}
	return out, rows.Err()
}

// decode reads every transaction the slot has decoded, without consuming
// any, keeping the source transactions the replay committed.
func (r *replayer) decode() ([]DecodedTxn, error) {
	rows, err := r.decoder.Query(r.ctx, "SELECT lsn::text, xid::text, data FROM pg_logical_slot_peek_changes($1, NULL, NULL, 'include-xids', '1', 'skip-empty-xacts', '1')", r.slot)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL: reading the replication slot: %w", err)
	}
	raw, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) ([3]string, error) {
		var out [3]string
		err := row.Scan(&out[0], &out[1], &out[2])
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL: reading the replication slot: %w", err)
	}
	txns, err := decodeRows(raw)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(txns, func(d DecodedTxn) bool { _, ok := r.xids[d.XID]; return !ok }), nil
}

// runRead reads the run's stored marks and the rows after them, in one snapshot.
func (r *replayer) runRead(s *runState) error {
	cfg := s.cfg
	c, err := r.actor(s.rec)
	if err != nil {
		return err
	}
	s.conn, s.read = c, true
	tables := cfg.From
	if len(s.only) > 0 {
		tables = s.only
	}
	if _, err := r.exec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); err != nil {
		return err
	}
	if s.seen, err = r.storedMarks(c, cfg.Mark, cfg.MarkNames()); err != nil {
		return err
	}
	s.next = map[string]extract.Mark{}
	var decoded []DecodedTxn
	if cfg.Mark == extract.Position {
		if decoded, err = r.decode(); err != nil {
			return err
		}
	}
	for _, mn := range cfg.MarkNames() {
		var group []string
		for _, tn := range tables {
			if cfg.MarkFor(tn) == mn {
				group = append(group, tn)
			}
		}
		if len(group) == 0 {
			continue
		}
		m := s.seen[mn]
		var got []row
		var next extract.Mark
		switch cfg.Mark {
		case extract.Position:
			got = r.readLog(decoded, group, m, cfg.Predicate == extract.GTE)
			hi := r.base
			if len(decoded) > 0 {
				hi = decoded[len(decoded)-1].Commit
			}
			next = extract.Mark{Set: true, V: int64(hi)}
		default:
			var hi *vtime.Time
			if cfg.Mark == extract.ReaderClock || cfg.Mark == extract.SourceClock {
				// The clock's reading at the read, as the engine took it:
				// the upper end of the window it printed.
				h, err := parseClock(s.rec.Upper)
				if err != nil {
					return cannot("run %d's window ends at %q, which the replay cannot read as a time", s.rec.ID+1, s.rec.Upper)
				}
				hi, next = &h, extract.Mark{Set: true, V: int64(h)}
			}
			if got, err = r.readStamps(c, cfg, group, m, hi); err != nil {
				return err
			}
			if cfg.Mark == extract.MaxSeen {
				next = m
				for _, g := range got {
					if !next.Set || int64(g.updatedAt) > next.V {
						next = extract.Mark{Set: true, V: int64(g.updatedAt)}
					}
				}
			}
		}
		s.next[mn] = next
		s.marks = append(s.marks, mn)
		s.rows = append(s.rows, got...)
	}
	if _, err := r.exec(c, "COMMIT"); err != nil {
		return err
	}
	rr := &r.res.Runs[s.rec.ID]
	rr.Postgres = []string{}
	for _, g := range s.rows {
		rr.Postgres = append(rr.Postgres, g.key)
	}
	rr.PostgresRead = true
	return nil
}

// readStamps runs a timestamp mark's query on each table of a group:
// updated_at after the mark (less the overlap), up to the clock's reading
// when the mark kind has one, in (updated_at, key) order.
func (r *replayer) readStamps(c *pgx.Conn, cfg *extract.Config, group []string, m extract.Mark, hi *vtime.Time) ([]row, error) {
	var out []row
	for _, tn := range group {
		tb := r.p.table(tn)
		var where []string
		var args []any
		if lo, ok := cfg.Lower(m); ok {
			args = append(args, toTime(vtime.Time(lo)))
			where = append(where, fmt.Sprintf("updated_at %s $%d", cfg.Predicate.Symbol(), len(args)))
		}
		if hi != nil {
			args = append(args, toTime(*hi))
			where = append(where, fmt.Sprintf("updated_at <= $%d", len(args)))
		}
		sql := fmt.Sprintf("SELECT %s::text, updated_at, version FROM %s", col(tb.key), r.q(tn))
		if len(where) > 0 {
			sql += " WHERE " + strings.Join(where, " AND ")
		}
		rows, err := c.Query(r.ctx, sql+" ORDER BY updated_at", args...)
		if err != nil {
			return nil, fmt.Errorf("PostgreSQL: %s: %w", sql, err)
		}
		got, err := pgx.CollectRows(rows, func(x pgx.CollectableRow) (row, error) {
			var g row
			var at time.Time
			err := x.Scan(&g.key, &at, &g.version)
			g.table, g.updatedAt = tn, fromTime(at)
			return g, err
		})
		if err != nil {
			return nil, fmt.Errorf("PostgreSQL: %w", err)
		}
		slices.SortStableFunc(got, func(a, b row) int {
			if a.updatedAt != b.updatedAt {
				return int(a.updatedAt - b.updatedAt)
			}
			return mvcc.CompareKeys(a.key, b.key)
		})
		out = append(out, got...)
	}
	return out, nil
}

// readLog reads the rows a log-position mark's run takes: for each table of
// the group, the keys changed by transactions that committed after the
// mark (at or after, for gte), as their latest change left them, in the
// order of those changes; a key whose latest change deleted it is left out.
func (r *replayer) readLog(decoded []DecodedTxn, group []string, m extract.Mark, gte bool) []row {
	var out []row
	for _, tn := range group {
		tb := r.p.table(tn)
		type latest struct {
			order int
			c     Change
			lsn   LSN
		}
		last := map[string]latest{}
		order := 0
		for _, d := range decoded {
			if m.Set && (d.Commit < LSN(m.V) || d.Commit == LSN(m.V) && !gte) {
				continue
			}
			for _, c := range d.Changes {
				if c.Schema != r.schema || c.Table != tn {
					continue
				}
				order++
				last[c.Columns[tb.key]] = latest{order, c, d.Commit}
			}
		}
		var got []latest
		for _, l := range last {
			if l.c.Op != "DELETE" {
				got = append(got, l)
			}
		}
		slices.SortFunc(got, func(a, b latest) int { return a.order - b.order })
		for _, l := range got {
			at, _ := parseDecodedTime(l.c.Columns["updated_at"])
			v, _ := strconv.Atoi(l.c.Columns["version"])
			out = append(out, row{table: tn, key: l.c.Columns[tb.key], updatedAt: at, version: v, lsn: l.lsn})
		}
	}
	return out
}

// parseDecodedTime reads a timestamp as test_decoding prints it.
func parseDecodedTime(s string) (vtime.Time, error) {
	t, err := time.Parse("2006-01-02 15:04:05.999999999", s)
	if err != nil {
		return 0, err
	}
	return fromTime(t), nil
}

// parseClock reads a time as the engine prints it: [-]HH:MM:SS[.mmm], where
// the hours may run past 23.
func parseClock(s string) (vtime.Time, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	hms, frac, _ := strings.Cut(s, ".")
	parts := strings.Split(hms, ":")
	if len(parts) != 3 || len(frac) > 3 {
		return 0, fmt.Errorf("not a time: %q", s)
	}
	var ms int64
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("not a time: %q", s)
		}
		ms += n * [...]int64{3_600_000, 60_000, 1000}[i]
	}
	if frac != "" {
		n, err := strconv.ParseInt((frac + "00")[:3], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("not a time: %q", s)
		}
		ms += n
	}
	if neg {
		ms = -ms
	}
	return vtime.Time(ms), nil
}

// runWrite writes the rows the run read into its target, or the first half
// of them when the process dies halfway through.
func (r *replayer) runWrite(s *runState, half bool) error {
	if s.dead || !s.read {
		return nil
	}
	rows := s.rows
	if half {
		rows = rows[:len(rows)/2]
	}
	return r.write(s, s.conn, rows)
}

// write sends rows to the run's target as its sink does: append inserts
// every row; merge inserts or replaces the row of the key when the incoming
// version is newer; upsert replaces it whatever its version; overwrite
// first deletes the rows of the run's interval.
func (r *replayer) write(s *runState, c execer, rows []row) error {
	tg := r.p.target(s.cfg.To)
	name := r.q(tg.name)
	if tg.mode == sink.Overwrite {
		if err := r.deleteInterval(s, c, tg); err != nil {
			return err
		}
	}
	if len(rows) == 0 {
		return nil
	}
	if tg.mode == sink.Merge || tg.mode == sink.Upsert {
		seen := map[string]string{}
		for _, g := range rows {
			if other, ok := seen[g.key]; ok {
				return cannot("run %d writes %s %s from %s and from %s in one statement, which INSERT ... ON CONFLICT refuses to apply twice to one row", s.rec.ID+1, tg.key, g.key, other, g.table)
			}
			seen[g.key] = g.table
		}
	}
	keys, ats, versions, tables, lsns := make([]string, len(rows)), make([]time.Time, len(rows)), make([]int32, len(rows)), make([]string, len(rows)), make([]string, len(rows))
	for i, g := range rows {
		keys[i], ats[i], versions[i], tables[i] = g.key, toTime(g.updatedAt), int32(g.version), g.table
		if g.lsn != 0 {
			lsns[i] = g.lsn.String()
		}
	}
	key := col(tg.key)
	keyExpr := "k::bigint"
	if tg.textKeys {
		keyExpr = "k"
	}
	sql := fmt.Sprintf(`INSERT INTO %s AS t (%s, updated_at, version, src_table, src_lsn, run)
SELECT %s, u, v, s, NULLIF(l, '')::pg_lsn, $6 FROM unnest($1::text[], $2::timestamp(3)[], $3::int[], $4::text[], $5::text[]) WITH ORDINALITY AS x(k, u, v, s, l, n) ORDER BY n`,
		name, key, keyExpr)
	switch tg.mode {
	case sink.Merge:
		sql += fmt.Sprintf("\nON CONFLICT (%s) DO UPDATE SET updated_at = EXCLUDED.updated_at, version = EXCLUDED.version, src_table = EXCLUDED.src_table, src_lsn = EXCLUDED.src_lsn, run = EXCLUDED.run WHERE t.version < EXCLUDED.version", key)
	case sink.Upsert:
		sql += fmt.Sprintf("\nON CONFLICT (%s) DO UPDATE SET updated_at = EXCLUDED.updated_at, version = EXCLUDED.version, src_table = EXCLUDED.src_table, src_lsn = EXCLUDED.src_lsn, run = EXCLUDED.run", key)
	}
	if _, err := c.Exec(r.ctx, sql, keys, ats, versions, tables, lsns, s.rec.ID+1); err != nil {
		return fmt.Errorf("PostgreSQL: writing %s: %w", tg.name, err)
	}
	return nil
}

// deleteInterval deletes the target rows an overwrite's interval covers:
// those whose copied updated_at (or, for a log-position mark, commit
// position) lies after the mark the run read, less the overlap, and up to
// the mark it will store.
func (r *replayer) deleteInterval(s *runState, c execer, tg *target) error {
	cfg := s.cfg
	column := "updated_at"
	value := func(v int64) any { return toTime(vtime.Time(v)) }
	cast := "::timestamp(3)"
	if cfg.Mark == extract.Position {
		column, cast = "src_lsn", "::pg_lsn"
		value = func(v int64) any { return LSN(v).String() }
	}
	var where []string
	var args []any
	mn := s.marks[len(s.marks)-1]
	if lo, ok := cfg.Lower(s.seen[mn]); ok {
		args = append(args, value(lo))
		where = append(where, fmt.Sprintf("%s %s $%d%s", column, cfg.Predicate.Symbol(), len(args), cast))
	}
	if hi := s.next[mn]; hi.Set {
		args = append(args, value(hi.V))
		where = append(where, fmt.Sprintf("%s <= $%d%s", column, len(args), cast))
	}
	sql := "DELETE FROM " + r.q(tg.name)
	if len(where) > 0 {
		sql += " WHERE " + strings.Join(where, " AND ")
	}
	if _, err := c.Exec(r.ctx, sql, args...); err != nil {
		return fmt.Errorf("PostgreSQL: %s: %w", sql, err)
	}
	return nil
}

// execer is a connection or a transaction on one.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// markColumn is the marks table's column for a kind of mark, and the cast
// its parameters take.
func markColumn(kind extract.MarkKind) (column, cast string) {
	if kind == extract.Position {
		return "lsn", "::pg_lsn"
	}
	return "ts", "::timestamp(3)"
}

// storeOne stores a run's next value of one mark: unconditionally, or, with
// cas=on, only if the mark still holds what the run read, and only forward.
// It reports whether a conditional update matched.
func (r *replayer) storeOne(c execer, s *runState, mn string) (bool, error) {
	column, cast := markColumn(s.cfg.Mark)
	nextArg := r.markArg(s.cfg.Mark, s.next[mn])
	var sql string
	args := []any{mn, nextArg}
	if s.cfg.CAS {
		sql = fmt.Sprintf("UPDATE %s SET %s = CASE WHEN %s IS NULL OR %s < $2%s THEN $2%s ELSE %s END WHERE name = $1 AND %s IS NOT DISTINCT FROM $3%s",
			r.q(marksTable), column, column, column, cast, cast, column, column, cast)
		args = append(args, r.markArg(s.cfg.Mark, s.seen[mn]))
	} else {
		sql = fmt.Sprintf("UPDATE %s SET %s = $2%s WHERE name = $1", r.q(marksTable), column, cast)
	}
	tag, err := c.Exec(r.ctx, sql, args...)
	if err != nil {
		return false, fmt.Errorf("PostgreSQL: %s: %w", sql, err)
	}
	return tag.RowsAffected() == 1, nil
}

// markArg is a mark as a parameter of its column, nil when unset.
func (r *replayer) markArg(kind extract.MarkKind, m extract.Mark) any {
	ts, lsn := r.markArgs(kind, m)
	if kind == extract.Position {
		return lsn
	}
	return ts
}

// runStore stores the run's marks, one statement each, as the engine's
// store phase does; a conditional update that matches nothing ends the run.
func (r *replayer) runStore(s *runState) error {
	if s.dead || !s.read {
		return nil
	}
	for _, mn := range s.marks {
		if !s.next[mn].Set {
			continue
		}
		ok, err := r.storeOne(s.conn, s, mn)
		if err != nil {
			return err
		}
		if !ok {
			s.conflict, s.dead = true, true
			r.res.Runs[s.rec.ID].PostgresConflict = true
			return nil
		}
	}
	return nil
}

// runAtomic writes the rows and stores the marks in one transaction, which
// rolls back when a conditional update matches nothing.
func (r *replayer) runAtomic(s *runState) error {
	if s.dead || !s.read {
		return nil
	}
	tx, err := s.conn.Begin(r.ctx)
	if err != nil {
		return fmt.Errorf("PostgreSQL: %w", err)
	}
	defer func() { _ = tx.Rollback(r.ctx) }()
	column, cast := markColumn(s.cfg.Mark)
	for _, mn := range s.marks {
		ok := true
		if s.next[mn].Set {
			if ok, err = r.storeOne(tx, s, mn); err != nil {
				return err
			}
		} else if s.cfg.CAS {
			sql := fmt.Sprintf("UPDATE %s SET %s = %s WHERE name = $1 AND %s IS NOT DISTINCT FROM $2%s", r.q(marksTable), column, column, column, cast)
			tag, err := tx.Exec(r.ctx, sql, mn, r.markArg(s.cfg.Mark, s.seen[mn]))
			if err != nil {
				return fmt.Errorf("PostgreSQL: %s: %w", sql, err)
			}
			ok = tag.RowsAffected() == 1
		}
		if !ok {
			s.conflict, s.dead = true, true
			r.res.Runs[s.rec.ID].PostgresConflict = true
			return nil // the deferred rollback takes the transaction back
		}
	}
	if err := r.write(s, tx, s.rows); err != nil {
		return err
	}
	if err := tx.Commit(r.ctx); err != nil {
		return fmt.Errorf("PostgreSQL: %w", err)
	}
	return nil
}

// reset moves a stored mark as the operator in the scenario does.
func (r *replayer) reset(step int) error {
	for _, h := range r.h.Marks {
		for _, p := range h.Points {
			if p.Step != step || !p.Reset {
				continue
			}
			m := extract.Mark{Set: p.Set, V: p.Value}
			if h.Kind == extract.Position && m.Set {
				n := p.Value - int64(mvcc.FirstLSN) + 1 // how many commits the position counts
				if n <= 0 {
					m.V = int64(r.base)
				} else {
					decoded, err := r.decode()
					if err != nil {
						return err
					}
					if n > int64(len(decoded)) {
						return cannot("an operator resets mark %s to lsn %d, a position no commit has reached yet", h.Name, p.Value)
					}
					m.V = int64(decoded[n-1].Commit)
				}
			}
			column, cast := markColumn(h.Kind)
			sql := fmt.Sprintf("UPDATE %s SET %s = $2%s WHERE name = $1", r.q(marksTable), column, cast)
			if _, err := r.exec(r.admin, sql, h.Name, r.markArg(h.Kind, m)); err != nil {
				return err
			}
		}
	}
	return nil
}

// truthSQL computes a target's truth in the database: the feeding tables'
// rows the target lacks, the rows it holds more than once, and the rows it
// holds in an older version than the source's, or after the source deleted
// them. A source row is its table and its key, and a target row says which
// table it came from, so a row of one table does not stand in for another
// table's row with the same key, and two tables' rows with one key are not
// copies of each other. It returns (what, key, copies) rows.
func (r *replayer) truthSQL(tg *target) string {
	var src []string
	for _, tn := range tg.from {
		tb := r.p.table(tn)
		src = append(src, fmt.Sprintf("SELECT %s AS src_table, %s::text AS key, version FROM %s", quoteLiteral(tn), col(tb.key), r.q(tn)))
	}
	return fmt.Sprintf(`WITH src AS (%s),
tgt AS (SELECT src_table, %s::text AS key, version, count(*) OVER (PARTITION BY src_table, %s) AS copies FROM %s)
SELECT 'missing', key, 0 FROM src
 WHERE NOT EXISTS (SELECT 1 FROM tgt WHERE tgt.key = src.key AND tgt.src_table = src.src_table)
UNION ALL
SELECT DISTINCT 'duplicated', key, copies FROM tgt WHERE copies > 1
UNION ALL
SELECT 'stale', tgt.key, 0 FROM tgt LEFT JOIN src ON src.key = tgt.key AND src.src_table = tgt.src_table
 WHERE tgt.copies = 1 AND (src.key IS NULL OR src.version > tgt.version)`,
		strings.Join(src, " UNION ALL "), col(tg.key), col(tg.key), r.q(tg.name))
}

// quoteLiteral spells s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// finish reads the final truth and marks from the database, and checks the
// order the slot decoded commits in against the engine's log positions.
func (r *replayer) finish() error {
	pg := Truth{Missing: []string{}, Duplicated: []string{}, Stale: []string{}}
	for _, tg := range r.p.targets {
		rows, err := r.admin.Query(r.ctx, r.truthSQL(tg))
		if err != nil {
			return fmt.Errorf("PostgreSQL: %w", err)
		}
		for rows.Next() {
			var what, key string
			var copies int64
			if err := rows.Scan(&what, &key, &copies); err != nil {
				rows.Close()
				return fmt.Errorf("PostgreSQL: %w", err)
			}
			if len(r.p.targets) > 1 {
				key = tg.name + ":" + key
			}
			switch what {
			case "missing":
				pg.Missing = append(pg.Missing, key)
			case "duplicated":
				pg.Duplicated = append(pg.Duplicated, fmt.Sprintf("%sx%d", key, copies))
			default:
				pg.Stale = append(pg.Stale, key)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("PostgreSQL: %w", err)
		}
	}
	r.res.Postgres = pg.sorted()

	var decoded []DecodedTxn
	if r.decoder != nil {
		var err error
		if decoded, err = r.decode(); err != nil {
			return err
		}
		var got, want []string
		for _, d := range decoded {
			got = append(got, r.xids[d.XID])
		}
		byLSN := slices.Clone(r.h.Txns)
		// A transaction that changed no row has no commit in the log.
		byLSN = slices.DeleteFunc(byLSN, func(x hwm.TxnRecord) bool { return x.State != mvcc.Committed || x.LSN == 0 })
		slices.SortFunc(byLSN, func(a, b hwm.TxnRecord) int { return int(a.LSN - b.LSN) })
		for _, x := range byLSN {
			want = append(want, x.Name)
		}
		if !slices.Equal(got, want) {
			r.res.Notes = append(r.res.Notes, fmt.Sprintf("the slot decoded commits in the order %s; the engine's log positions give %s", strings.Join(got, ", "), strings.Join(want, ", ")))
		}
	}
	for i, h := range r.h.Marks {
		stored, err := r.storedMarks(r.admin, h.Kind, []string{h.Name})
		if err != nil {
			return err
		}
		m := stored[h.Name]
		text := h.Kind.Format(m)
		if h.Kind == extract.Position && m.Set {
			n := int64(mvcc.FirstLSN) - 1
			for _, d := range decoded {
				if d.Commit <= LSN(m.V) {
					n++
				}
			}
			text = fmt.Sprintf("lsn %d", n)
			r.res.Marks[i].Position = LSN(m.V).String()
		}
		r.res.Marks[i].Postgres = text
	}
	return nil
}

// runTables reads from the scenario's run and runs lines which tables each
// run reads (only=), lining them up with the trace's runs, which are
// numbered in the order those lines schedule them.
func runTables(t *engine.Trace) ([][]string, error) {
	h := hwm.Of(t)
	var out [][]string
	for _, c := range t.File.Bind(t.Settings) {
		switch c.Name {
		case "run":
			var only []string
			for _, a := range c.Args {
				if a.Key == "only" {
					only = strings.Split(a.Value, ",")
				}
			}
			out = append(out, only)
		case "runs":
			var from, until vtime.Time
			var every vtime.Duration
			for _, a := range c.Args {
				switch a.Key {
				case "from":
					from, _ = vtime.ParseTime(a.Value)
				case "until":
					until, _ = vtime.ParseTime(a.Value)
				case "every":
					every, _ = vtime.ParseDuration(a.Value)
				}
			}
			for at := from; every > 0 && at <= until; at = at.Add(every) {
				out = append(out, nil)
			}
		}
	}
	if len(out) != len(h.Runs) {
		return nil, cannot("its %d runs do not line up with the %d its run and runs lines schedule", len(h.Runs), len(out))
	}
	return out, nil
}

// sameKeys reports whether two key lists hold the same keys, in any order.
func sameKeys(a, b []string) bool {
	return slices.Equal(sortedKeys(a), sortedKeys(b))
}

func sortedKeys(keys []string) []string {
	out := slices.Clone(keys)
	slices.SortFunc(out, mvcc.CompareKeys)
	return out
}

// keyList spells keys as the CLI does: 1,2,3, or none.
func keyList(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ",")
}
