package replay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/extract"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/sink"
)

// table is a source table as the replay creates it.
type table struct {
	name, key string
	stamp     mvcc.Stamp
	cache     int
	firstID   int64
	draws     bool // some insert takes its ids from the table's sequence
	explicit  bool // some insert names its keys
	textKeys  bool // a key is not a whole number, so the key column is text
	target    string
}

// target is a target table as the replay creates it.
type target struct {
	name, key string
	mode      sink.Mode
	from      []string // the source tables that feed it
	textKeys  bool
}

// plan is what the replay needs to know about a trace before playing it.
type plan struct {
	tables  []*table
	targets []*target
	pipes   map[string]*extract.Config
	txn     map[string]int // a transaction's index in Trace.Txns, by name
	lsn     bool           // some pipeline keeps a log-position mark
}

func (p *plan) table(name string) *table {
	for _, t := range p.tables {
		if t.name == name {
			return t
		}
	}
	return nil
}

// rowKey names a row of a source table.
type rowKey struct{ table, key string }

// notReplayable is a reason the replay cannot play a scenario faithfully.
type notReplayable string

func (n notReplayable) Error() string { return "not replayable: " + string(n) }

func cannot(format string, args ...any) error { return notReplayable(fmt.Sprintf(format, args...)) }

// makePlan reads the trace and the scenario's declarations, and refuses
// what PostgreSQL would do differently from the engine for reasons that
// have nothing to do with visibility: sessions, sequences, keys inserted again,
// the partitioned log, which the replay does not model.
func makePlan(t *engine.Trace) (*plan, error) {
	if logs.Of(t) != nil {
		var names []string
		for _, c := range t.File.Bind(t.Settings) {
			switch c.Name {
			case "topic", "cdc", "publish", "producer", "group":
				if len(c.Args) > 0 {
					names = append(names, c.Name+" "+c.Args[0].Value)
				}
			}
		}
		return nil, cannot("it reads through the partitioned log (%s), which the replay does not model on PostgreSQL; it replays source tables and extractor runs", strings.Join(names, ", "))
	}
	if len(t.Faults) > 0 {
		return nil, cannot("it holds faults injected while it ran")
	}
	h := hwm.Of(t)
	if h == nil {
		return nil, cannot("it has no source table and no extractor run to replay")
	}
	p := &plan{pipes: map[string]*extract.Config{}, txn: map[string]int{}}
	firstIDs := map[string]int64{}
	for _, c := range t.File.Bind(t.Settings) {
		if c.Name != "source" || len(c.Args) == 0 {
			continue
		}
		for _, a := range c.Args[1:] {
			if a.Key == "first-id" {
				n, err := strconv.ParseInt(a.Value, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("source %s: first-id=%q", c.Args[0].Value, a.Value)
				}
				firstIDs[c.Args[0].Value] = n
			}
		}
	}
	for _, st := range h.Tables {
		first, ok := firstIDs[st.Name]
		if !ok {
			first = 1
		}
		p.tables = append(p.tables, &table{name: st.Name, key: st.Key, stamp: st.Stamp, cache: max(st.Cache, 1), firstID: first})
	}
	for _, h := range t.Targets {
		p.targets = append(p.targets, &target{name: h.Name, key: h.Key, mode: h.Mode})
	}
	for i := range h.Pipes {
		cfg := &h.Pipes[i]
		if cfg.Interval > 0 {
			return nil, cannot("pipeline %s reads whole intervals instead of a mark, which the replay does not play", cfg.Name)
		}
		p.pipes[cfg.Name] = cfg
		p.lsn = p.lsn || cfg.Mark == extract.Position
		tg := p.target(cfg.To)
		for _, name := range cfg.From {
			tb := p.table(name)
			if tb.target != "" && tb.target != cfg.To {
				return nil, cannot("table %s feeds two targets, %s and %s", name, tb.target, cfg.To)
			}
			tb.target = cfg.To
			if !slices.Contains(tg.from, name) {
				tg.from = append(tg.from, name)
			}
		}
		if tg.mode == sink.Overwrite && len(cfg.MarkNames()) > 1 {
			return nil, cannot("pipeline %s overwrites %s with a mark per table, and the interval the engine deletes is the last mark's", cfg.Name, cfg.To)
		}
	}
	for _, h := range h.Marks {
		if len(h.Points) > 0 && h.Points[0].Step == 0 && h.Kind == extract.Position && h.Points[0].Set && h.Points[0].Value >= int64(mvcc.FirstLSN) {
			return nil, cannot("mark %s starts at lsn %d, a position of a commit before the scenario began, which a fresh database does not have", h.Name, h.Points[0].Value)
		}
	}
	if err := p.readInserts(t); err != nil {
		return nil, err
	}
	for i := range h.Txns {
		p.txn[h.Txns[i].Name] = i
	}
	if err := p.walk(t); err != nil {
		return nil, err
	}
	for _, tg := range p.targets {
		for _, name := range tg.from {
			tg.textKeys = tg.textKeys || p.table(name).textKeys
		}
	}
	return p, nil
}

func (p *plan) target(name string) *target {
	for _, t := range p.targets {
		if t.name == name {
			return t
		}
	}
	return nil
}

// readInserts learns from the scenario's lines which tables' inserts draw
// ids from a sequence and which name their keys: the trace records the
// keys a statement wrote, not where they came from.
func (p *plan) readInserts(t *engine.Trace) error {
	only := ""
	if len(p.tables) == 1 {
		only = p.tables[0].name
	}
	isStmt := func(s string) bool { return s == "insert" || s == "update" || s == "delete" }
	for _, c := range t.File.Bind(t.Settings) {
		var stmts [][]string // each: the statement word, then its args as key=value or bare words
		switch c.Name {
		case "workload":
			name := only
			if len(c.Args) > 0 && c.Args[0].Key == "" {
				name = c.Args[0].Value
			}
			if tb := p.table(name); tb != nil {
				tb.draws = true
			}
			continue
		case "txn":
			for _, a := range c.Args {
				switch {
				case a.Key == "" && isStmt(a.Value):
					stmts = append(stmts, []string{a.Value})
				case len(stmts) > 0:
					stmts[len(stmts)-1] = append(stmts[len(stmts)-1], argText(a.Key, a.Value))
				}
			}
		case "insert":
			s := []string{"insert"}
			for _, a := range c.Args[min(1, len(c.Args)):] { // after the transaction's name
				if a.Key != "at" {
					s = append(s, argText(a.Key, a.Value))
				}
			}
			stmts = append(stmts, s)
		}
		for _, s := range stmts {
			if s[0] != "insert" {
				continue
			}
			name := only
			if len(s) > 1 && !strings.Contains(s[1], "=") {
				name = s[1]
			}
			tb := p.table(name)
			if tb == nil {
				continue
			}
			named := slices.ContainsFunc(s[1:], func(a string) bool { return strings.HasPrefix(a, tb.key+"=") })
			tb.explicit = tb.explicit || named
			tb.draws = tb.draws || !named
		}
	}
	for _, tb := range p.tables {
		if tb.draws && tb.explicit {
			return cannot("table %s takes both keys written in the scenario and ids from its sequence; the replay writes a table's inserts either all with their keys or all from the sequence, since the trace records the keys a statement wrote but not where they came from", tb.name)
		}
	}
	return nil
}

func argText(k, v string) string {
	if k == "" {
		return v
	}
	return k + "=" + v
}

// walk follows the source events in the engine's order and refuses what a
// PostgreSQL session would not let happen at all, or what the engine plays
// differently. (The engine stops a run itself at a write PostgreSQL would
// make wait for a row lock, or refuse as a duplicate key.)
func (p *plan) walk(t *engine.Trace) error {
	h := hwm.Of(t)
	live := map[rowKey]bool{}    // committed and not deleted
	existed := map[rowKey]bool{} // ever committed
	stmtNo := map[int]int{}
	for i := range t.Events {
		e := &t.Events[i]
		switch e.Kind {
		case engine.KindBegin: // replayed as it is
		case engine.KindInsert, engine.KindUpdate, engine.KindDelete:
			ti := p.txn[t.Actor(e)]
			rec := &h.Txns[ti]
			if stmtNo[ti] >= len(rec.Stmts) {
				return fmt.Errorf("replay: %s has more statement events than statements", rec.Name)
			}
			st := &rec.Stmts[stmtNo[ti]]
			stmtNo[ti]++
			tb := p.table(st.Table)
			for _, k := range h.UnmatchedOf(ti, stmtNo[ti]-1) {
				if _, err := strconv.ParseInt(k, 10, 64); err != nil {
					tb.textKeys = true
				}
			}
			for _, k := range st.Keys {
				if _, err := strconv.ParseInt(k, 10, 64); err != nil {
					tb.textKeys = true
				}
				// The engine itself refuses a write to a row another open
				// transaction wrote, and an insert of a key that has a row.
				rk := rowKey{st.Table, k}
				if st.Op == mvcc.Insert && existed[rk] && !live[rk] {
					return cannot("%s inserts %s %s again after it was deleted, and the engine counts the row's versions on from the deleted one", rec.Name, tb.key, k)
				}
			}
		case engine.KindCommit, engine.KindRollback:
			ti := p.txn[t.Actor(e)]
			rec := &h.Txns[ti]
			for _, st := range rec.Stmts {
				for _, k := range st.Keys {
					rk := rowKey{st.Table, k}
					if e.Kind == engine.KindCommit {
						live[rk] = st.Op != mvcc.Delete
						existed[rk] = true
					}
				}
			}
		case engine.KindRead, engine.KindWrite, engine.KindMark, engine.KindAtomic, engine.KindConflict,
			engine.KindCrash, engine.KindReset, engine.KindClockJump, engine.KindAlter:
		default:
			return cannot("it has a %s event, which the replay does not play", e.Kind)
		}
	}
	return nil
}
