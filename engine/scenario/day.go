package scenario

import "github.com/tidemark/tidemark/engine/vtime"

// DayRule is the rule every time of a scenario keeps, as the errors that
// refuse a time leaving the day end: a line's own time (at=25:00:00), a
// time its arguments lead to (a workload's last begin, a retry's delay)
// and a time only the run reaches (a skewed clock's reading).
const DayRule = "times stay within one day (00:00:00–23:59:59.999)"

// PastDay is the error at pos for t, a time outside the day: what says
// what would happen then, as "W3 would begin at" or "the reader clock
// would read". It is nil when t is within the day.
func PastDay(pos Pos, what string, t vtime.Time) error {
	if t.InDay() {
		return nil
	}
	return Errorf(pos, "%s %s; %s", what, t, DayRule)
}

// Within refuses, at the value of key (or the command, when key is not
// given), a time t that the line's arguments lead to and that leaves the
// day; what is as for PastDay. It returns the line's first problem.
func (a *Args) Within(key, what string, t vtime.Time) error {
	if !t.InDay() && a.err == nil {
		a.err = PastDay(ValueAt(a.cmd, key), what, t)
	}
	return a.err
}

// Span is where n things from from every every, each lasting up to last,
// end: from + (n-1)·every + last, without overflow for any n and every a
// line may give (a time that far is past the day either way).
func Span(from vtime.Time, n int, every, last vtime.Duration) vtime.Time {
	k := vtime.Duration(max(n-1, 0))
	if every > vtime.Duration(vtime.Day) || every < -vtime.Duration(vtime.Day) {
		k = min(k, 1)
	}
	return from.Add(k*every + last)
}
