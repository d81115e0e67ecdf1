// Package window is a keyed window aggregate, modelled on Flink's
// WindowOperator with its default triggers: assigners, accumulators,
// firing on the watermark, allowed lateness, and what becomes of records
// that come too late.
//
// What it models faithfully:
//   - A window is Flink's TimeWindow [Start, End): it holds event times
//     Start <= t < End, and its last instant (maxTimestamp) is End - 1.
//     Window starts are TimeWindow.getWindowStartWithOffset, correct for
//     negative times and offsets.
//   - Tumbling, sliding and session assigners, in event time (by the
//     record's event time) and in processing time (by when the operator
//     reads it). Session windows are [t, t+gap) per record, merged with
//     every window of the key they intersect; windows that merely touch
//     ([0,10) and [10,20)) merge too, as TimeWindow.intersects says.
//   - Event-time firing is EventTimeTrigger: a window fires when the
//     watermark reaches End - 1. A record is accepted while its window's
//     cleanup time End - 1 + allowed lateness is still ahead of the
//     watermark (WindowOperator.isWindowLate); one accepted after End - 1
//     fires the window again at once with everything it holds. A window's
//     state is cleared when the watermark reaches its cleanup time. A
//     record all of whose windows are past cleanup is dropped and counted
//     (numLateRecordsDropped) when its event time plus the lateness is at
//     or behind the watermark (isElementLate), or sent to the side output
//     when one is set.
//   - Processing-time windows fire when processing time has passed End - 1,
//     at End: a Flink processing-time timer fires 1 ms after its time
//     (FLINK-9857), so a record read at End - 1 is in the window. They are
//     never late.
//
// What it simplifies: the aggregate is always count, sum, min and max of
// one integer value together (a scenario shows the one it names); timers
// due at the same instant fire in the order of key, then window start, then
// window end (Flink leaves that order to its timer heap); processing-time
// timers due at or before a record's arrival fire before the record is
// read.
package window

import (
	"strconv"

	"github.com/tidemark/tidemark/engine/nocmp"
	"github.com/tidemark/tidemark/engine/vtime"
)

// Window is the half-open span of event times [Start, End).
type Window struct {
	Start, End vtime.Time
}

// MaxTimestamp is the last instant the window holds, End - 1: the
// watermark that fires it.
func (w Window) MaxTimestamp() vtime.Time { return w.End - 1 }

// Contains reports whether event time t falls in w.
func (w Window) Contains(t vtime.Time) bool { return w.Start <= t && t < w.End }

// Intersects reports whether w and o overlap or touch, as Flink's
// TimeWindow.intersects does: [0,10) and [10,20) intersect.
func (w Window) Intersects(o Window) bool { return w.Start <= o.End && w.End >= o.Start }

// Cover is the smallest window holding both w and o.
func (w Window) Cover(o Window) Window {
	return Window{Start: min(w.Start, o.Start), End: max(w.End, o.End)}
}

// String prints w as [10:00:00, 10:01:00).
func (w Window) String() string { return "[" + w.Start.String() + ", " + w.End.String() + ")" }

// StartWithOffset is Flink's TimeWindow.getWindowStartWithOffset: the start
// of the window of the given size, shifted by offset, that holds t. It
// rounds toward the past for negative times too.
func StartWithOffset(t vtime.Time, offset, size vtime.Duration) vtime.Time {
	rem := (int64(t) - int64(offset)) % int64(size)
	if rem < 0 {
		return t - vtime.Time(rem+int64(size))
	}
	return t - vtime.Time(rem)
}

// Kind is a kind of window assigner.
type Kind uint8

// Kinds of window.
const (
	Tumbling Kind = iota // fixed windows of Size, back to back
	Sliding              // windows of Size starting every Slide: a record is in Size/Slide of them
	Session              // a record opens [t, t+Gap); windows of a key that touch are merged
)

// ParseKind reads tumbling, sliding or session.
func ParseKind(s string) (Kind, bool) {
	switch s {
	case "tumbling":
		return Tumbling, true
	case "sliding":
		return Sliding, true
	case "session":
		return Session, true
	}
	return 0, false
}

func (k Kind) String() string { return [...]string{"tumbling", "sliding", "session"}[k] }

// MaxPerRecord bounds how many sliding windows one record may fall into
// (Size/Slide). Flink sets no bound of its own (its sliding assigners make
// every window a record falls into, one per slide), so this limit is
// Tidemark's: a simulation a learner steps through has no use for more.
const MaxPerRecord = 1000

// Assigner says which windows a record falls into.
type Assigner struct {
	_      nocmp.NoCompare
	Kind   Kind
	Size   vtime.Duration // tumbling and sliding: the window's length
	Slide  vtime.Duration // sliding: how far apart window starts are
	Offset vtime.Duration // tumbling and sliding: shifts every start; |Offset| < Size (tumbling) or Slide (sliding)
	Gap    vtime.Duration // session: how long a session waits for its next record
}

// A ConfigError is what Validate finds wrong with a Config. Field names
// the setting at fault, as a scenario's window line names its argument
// (size, slide, offset, gap, lateness), so that the error can point at its
// value; it is "" for a fault of no one setting.
type ConfigError struct {
	Field string
	Msg   string
}

func (e *ConfigError) Error() string { return e.Msg }

// Setting is the name of the argument at fault, as a scenario line writes it.
func (e *ConfigError) Setting() string { return e.Field }

// Validate says what is wrong with a, with Flink's rules for each kind,
// as a *ConfigError.
func (a Assigner) Validate() error {
	abs := func(d vtime.Duration) vtime.Duration { return max(d, -d) }
	switch a.Kind {
	case Tumbling:
		if a.Size <= 0 {
			return &ConfigError{"size", "a tumbling window needs a positive size, got " + a.Size.String()}
		}
		if abs(a.Offset) >= a.Size {
			return &ConfigError{"offset", "a tumbling window's offset must be shorter than its size " + a.Size.String() + ", got " + a.Offset.String()}
		}
	case Sliding:
		if a.Size <= 0 || a.Slide <= 0 {
			field := "slide"
			if a.Size <= 0 {
				field = "size"
			}
			return &ConfigError{field, "a sliding window needs a positive size and slide, got size " + a.Size.String() + " and slide " + a.Slide.String()}
		}
		if abs(a.Offset) >= a.Slide {
			return &ConfigError{"offset", "a sliding window's offset must be shorter than its slide " + a.Slide.String() + ", got " + a.Offset.String()}
		}
		if (a.Size+a.Slide-1)/a.Slide > MaxPerRecord {
			return &ConfigError{"slide", "a sliding window of size " + a.Size.String() + " and slide " + a.Slide.String() +
				" puts each record in more than " + strconv.Itoa(MaxPerRecord) + " windows"}
		}
	case Session:
		if a.Gap <= 0 {
			return &ConfigError{"gap", "a session window needs a positive gap, got " + a.Gap.String()}
		}
	default:
		return &ConfigError{"", "unknown window kind " + strconv.Itoa(int(a.Kind))}
	}
	return nil
}

// Merging reports whether windows of this kind merge (sessions do).
func (a Assigner) Merging() bool { return a.Kind == Session }

// Assign appends to dst the windows time t falls into and returns the
// result. Sliding windows come latest start first, as Flink lists them.
func (a Assigner) Assign(t vtime.Time, dst []Window) []Window {
	switch a.Kind {
	case Tumbling:
		s := StartWithOffset(t, a.Offset, a.Size)
		return append(dst, Window{Start: s, End: s.Add(a.Size)})
	case Sliding:
		lower := t.Add(-a.Size)
		for s := StartWithOffset(t, a.Offset, a.Slide); s > lower; s = s.Add(-a.Slide) {
			dst = append(dst, Window{Start: s, End: s.Add(a.Size)})
		}
		return dst
	default:
		return append(dst, Window{Start: t, End: t.Add(a.Gap)})
	}
}

// Domain is the time a window is measured in.
type Domain uint8

// Domains.
const (
	EventTime      Domain = iota // when it happened, from the record; fired by the watermark
	ProcessingTime               // when the operator read it; fired by the operator's clock
)

// ParseDomain reads event or processing.
func ParseDomain(s string) (Domain, bool) {
	switch s {
	case "event", "event-time":
		return EventTime, true
	case "processing", "processing-time":
		return ProcessingTime, true
	}
	return 0, false
}

func (d Domain) String() string { return [...]string{"event time", "processing time"}[d] }

// Acc is a window's accumulator: the count, sum, smallest and largest of
// the values of its records.
//
// Invariant: Count == 0 implies Sum == Min == Max == 0.
type Acc struct {
	Count, Sum, Min, Max int64
}

// Add folds in one value.
func (a *Acc) Add(v int64) {
	if a.Count == 0 {
		a.Min, a.Max = v, v
	} else {
		a.Min, a.Max = min(a.Min, v), max(a.Max, v)
	}
	a.Count++
	a.Sum += v
}

// Merge folds in another accumulator.
func (a *Acc) Merge(b Acc) {
	switch {
	case b.Count == 0:
		return
	case a.Count == 0:
		*a = b
		return
	}
	a.Count += b.Count
	a.Sum += b.Sum
	a.Min, a.Max = min(a.Min, b.Min), max(a.Max, b.Max)
}

// Agg names the aggregate a scenario shows.
type Agg uint8

// Aggregates.
const (
	Count Agg = iota
	Sum
	Min
	Max
)

// ParseAgg reads count, sum, min or max.
func ParseAgg(s string) (Agg, bool) {
	switch s {
	case "count":
		return Count, true
	case "sum":
		return Sum, true
	case "min":
		return Min, true
	case "max":
		return Max, true
	}
	return 0, false
}

func (g Agg) String() string { return [...]string{"count", "sum", "min", "max"}[g] }

// Of is the aggregate g of a.
func (g Agg) Of(a Acc) int64 {
	switch g {
	case Sum:
		return a.Sum
	case Min:
		return a.Min
	case Max:
		return a.Max
	}
	return a.Count
}
