package course

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Pos is a place in a lesson file: its path as errors name it
// (lessons/text/high-water-mark/03-happening.md) and a line and column,
// both counted from 1. Columns count characters, not bytes.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is one problem in a lesson file, at a place.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Errors is every problem found in a set of lesson files, in file and line
// order. Loading reports them all at once, so an author can fix a file in
// one pass.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// maxErrors bounds how many problems one load reports: past it, the rest
// are mostly echoes of the first.
const maxErrors = 50

// errs collects problems while lesson files are read.
type errs struct{ list Errors }

func (e *errs) at(p Pos, format string, args ...any) {
	if len(e.list) < maxErrors {
		e.list = append(e.list, &Error{Pos: p, Msg: fmt.Sprintf(format, args...)})
	}
}

// err returns the problems as an error, sorted, or nil when there are none.
func (e *errs) err() error {
	if len(e.list) == 0 {
		return nil
	}
	out := slices.Clone(e.list)
	slices.SortStableFunc(out, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
	return out
}
