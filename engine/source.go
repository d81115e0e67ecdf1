package engine

import "github.com/tidemark/tidemark/engine/mvcc"

// SourceDB is the source database as a world built on another sees it:
// change capture reads its tables and follows its commits, and a stream's
// lookups do the same. The high-water-mark world's source is one
// (hwm.Source). The worlds that read it find it through the core rather
// than by importing the high-water-mark world, so that a build composed
// without that world links none of it (docs/architecture.md, "Worlds in
// the browser").
type SourceDB interface {
	// Table returns the source table named name, or nil.
	Table(name string) *mvcc.Table
	// OnCommit calls fn after each source transaction commits, before the
	// commit's own event is emitted.
	OnCommit(fn func(tx *mvcc.Txn))
}

// sourceWorld is a world composed into a World that owns a source database.
type sourceWorld interface{ SourceDB() SourceDB }

// SourceOf returns the source database of the world composed into w that
// owns one, or nil when w is composed without such a world.
func SourceOf(w *World) SourceDB {
	for _, p := range w.Parts() {
		if s, ok := p.(sourceWorld); ok {
			return s.SourceDB()
		}
	}
	return nil
}
