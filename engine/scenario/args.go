package scenario

import (
	"errors"
	"slices"
	"strings"

	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// Args reads the arguments of one command for the engine's worlds, which
// give commands their meaning. It remembers the first problem and which
// arguments were asked for, so that Done can report an argument nobody
// asked for and list the ones the command knows.
type Args struct {
	cmd   Command
	list  []Arg
	used  []bool
	err   error
	known []string
}

// NewArgs reads list, the arguments of cmd (all of them, or those after
// the ones already read). Like Errorf, it is not inlined into the worlds'
// fifty readers of commands.
//
//go:noinline
func NewArgs(cmd Command, list []Arg) *Args {
	return &Args{cmd: cmd, list: list, used: make([]bool, len(list))}
}

// Fail records a problem at pos, unless an earlier one was recorded.
func (a *Args) Fail(pos Pos, format string, v ...any) {
	if a.err == nil {
		a.err = Errorf(pos, format, v...)
	}
}

// ValueAt is where the value of c's argument key starts, or where c starts
// when it has no such argument: the place an error about that value points.
func ValueAt(c Command, key string) Pos {
	for _, x := range c.Args {
		if x.Key == key {
			return x.ValuePos
		}
	}
	return c.Pos
}

// KnobSets reports whether a knob sets the value of c's argument key
// (key=$knob): a setting that then differs from one knob value to another,
// so that a check of it against another setting of the line may hold for
// some values only.
func KnobSets(c Command, key string) bool {
	for _, x := range c.Args {
		if x.Key == key && x.FromKnob {
			return true
		}
	}
	return false
}

// Find returns the argument with key, marking it used; a key given twice is a problem.
func (a *Args) Find(key string) (Arg, bool) {
	a.known = append(a.known, key)
	var found Arg
	ok := false
	for i, x := range a.list {
		if x.Key == key {
			if ok {
				a.Fail(x.Pos, "%s= is given twice", key)
			}
			a.used[i], found, ok = true, x, true
		}
	}
	return found, ok
}

// Str returns the value of key, or def when it is not given.
func (a *Args) Str(key, def string) string {
	if x, ok := a.Find(key); ok {
		return x.Value
	}
	return def
}

// Required returns the argument with key; its absence is a problem that
// shows what the value looks like.
func (a *Args) Required(key, what string) (Arg, bool) {
	x, ok := a.Find(key)
	if !ok {
		a.Fail(a.cmd.Pos, "%s needs %s=%s", a.cmd.Name, key, what)
	}
	return x, ok
}

// Time returns the time given for key, and whether key is given.
func (a *Args) Time(key string) (vtime.Time, bool) {
	x, ok := a.Find(key)
	if !ok {
		return 0, false
	}
	t, err := ParseDayTime(x.Value)
	switch {
	case errors.Is(err, errPastADay):
		a.Fail(x.ValuePos, "%s=%s is past the end of the day: a scenario's times run from 00:00:00 to 23:59:59.999", key, x.Value)
	case err != nil:
		a.Fail(x.ValuePos, "expected a time such as 10:00:02 for %s=, found %q", key, x.Value)
	}
	return t, true
}

// errPastADay is ParseDayTime's error for a time of 24:00:00 or later.
var errPastADay = errors.New("past the end of the day")

// ParseDayTime reads a scenario's time of day, HH:MM:SS[.mmm]: as
// vtime.ParseTime, which also reads the times a run prints after a clock
// has jumped past midnight, but within the one simulated day a scenario's
// lines describe (a 25 is a typo for a 15 or a 23 more often than a plan).
func ParseDayTime(s string) (vtime.Time, error) {
	t, err := vtime.ParseTime(s)
	if err == nil && t >= vtime.Day {
		return t, prose.Errorf("%q: %w", s, errPastADay)
	}
	return t, err
}

// RequiredTime returns the time given for key, which must be given.
func (a *Args) RequiredTime(key string) vtime.Time {
	if _, ok := a.Required(key, "HH:MM:SS"); !ok {
		return 0
	}
	t, _ := a.Time(key)
	return t
}

// Duration returns the duration given for key, or def.
func (a *Args) Duration(key string, def vtime.Duration) vtime.Duration {
	x, ok := a.Find(key)
	if !ok {
		return def
	}
	d, err := vtime.ParseDuration(x.Value)
	if err != nil {
		a.Fail(x.ValuePos, "expected a duration such as 2s, 500ms or 1m for %s=, found %q", key, x.Value)
	}
	return d
}

// DurationIn returns the duration given for key, which must lie in
// [lo, hi], or def; want says what it must be, for the message that
// quotes a value out of range: "at least 100ms". A value that is no
// duration at all gets Duration's message.
func (a *Args) DurationIn(key string, def, lo, hi vtime.Duration, want string) vtime.Duration {
	x, ok := a.Find(key)
	if !ok {
		return def
	}
	d := a.Duration(key, def)
	if a.err == nil && (d < lo || d > hi) {
		a.Fail(x.ValuePos, "expected %s= to be %s, found %q", key, want, x.Value)
		return def
	}
	return d
}

// Int returns the whole number given for key, which must lie in [lo, hi], or def.
func (a *Args) Int(key string, def, lo, hi int) int {
	x, ok := a.Find(key)
	if !ok {
		return def
	}
	n, ok := whole.Int(x.Value)
	if !ok || n < lo || n > hi {
		a.Fail(x.ValuePos, "expected a whole number from %d to %d for %s=, found %q", lo, hi, key, x.Value)
		return def
	}
	return n
}

// Choice reads one of a fixed set of words for key through parse, or
// returns def; allowed lists the words for the message when it is none of them.
func Choice[T any](a *Args, key string, def T, parse func(string) (T, bool), allowed string) T {
	x, ok := a.Find(key)
	if !ok {
		return def
	}
	v, ok := parse(x.Value)
	if !ok {
		a.Fail(x.ValuePos, "expected %s= to be one of %s, found %q", key, allowed, x.Value)
		return def
	}
	return v
}

// OnOff parses on, off and their synonyms, for Choice.
func OnOff(s string) (bool, bool) {
	switch s {
	case "on", "true", "yes":
		return true, true
	case "off", "false", "no":
		return false, true
	}
	return false, false
}

// OneOf returns a parser, for Choice, that accepts exactly vals.
func OneOf(vals ...string) func(string) (string, bool) {
	return func(s string) (string, bool) { return s, slices.Contains(vals, s) }
}

// TimeRange reads key=FROM..TO, two times with FROM not after TO.
func (a *Args) TimeRange(key string) (from, to vtime.Time, ok bool) {
	x, found := a.Find(key)
	if !found {
		return 0, 0, false
	}
	l, r, cut := strings.Cut(x.Value, "..")
	f, err1 := ParseDayTime(l)
	t, err2 := ParseDayTime(r)
	if !cut || err1 != nil || err2 != nil || t < f {
		a.Fail(x.ValuePos, "expected %s=FROM..TO with two times, FROM not after TO, such as 10:00:00..10:00:10; found %q", key, x.Value)
		return 0, 0, false
	}
	return f, t, true
}

// Positional returns the bare words, marking them used.
func (a *Args) Positional() []Arg {
	var out []Arg
	for i, x := range a.list {
		if x.Key == "" {
			a.used[i] = true
			out = append(out, x)
		}
	}
	return out
}

// Done reports the first problem, or an argument nobody asked for.
func (a *Args) Done() error {
	if a.err != nil {
		return a.err
	}
	for i, x := range a.list {
		if a.used[i] {
			continue
		}
		if x.Key == "" {
			return Errorf(x.Pos, "unexpected word %q in %s", x.Value, a.cmd.Name)
		}
		known := slices.Clone(a.known)
		sorted.Sort(known)
		known = slices.Compact(known)
		if near := Near(x.Key, known); len(near) > 0 {
			return Errorf(x.Pos, "unknown argument %s= for %s; did you mean %s=?", x.Key, a.cmd.Name, near[0])
		}
		return Errorf(x.Pos, "unknown argument %s= for %s; expected one of %s", x.Key, a.cmd.Name, strings.Join(known, "=, ")+"=")
	}
	return nil
}

// Name reads the command's first bare word as the name of a thing (what,
// such as "a topic", is for the message when it is missing) and returns it
// with the arguments after it.
func Name(c Command, what string) (Arg, []Arg, error) {
	if len(c.Args) == 0 || c.Args[0].Key != "" || c.Args[0].Quoted {
		return Arg{}, nil, Errorf(c.Pos, "expected %s NAME after %q", what, c.Name)
	}
	return c.Args[0], c.Args[1:], nil
}

// Lookup returns things[x.Value], or an error at x saying that no such
// thing is declared and showing the declaration it lacks: declaration is a
// pattern such as "topic %s partitions=3", filled with the name.
//
// P is the things' pointer type rather than T of a map[string]*T: Go
// compiles a generic function once per shape of its type arguments, and
// every pointer type has the same shape, so the browser module carries one
// Lookup for every kind of thing rather than one for each.
func Lookup[P comparable](things map[string]P, x Arg, what, declaration string) (P, error) {
	var none P
	if t := things[x.Value]; t != none {
		return t, nil
	}
	names := make([]string, 0, len(things))
	for name := range things {
		names = append(names, name)
	}
	return none, unknownName(x, what, declaration, names)
}

// unknownName is Lookup's error for a name none of names is: the nearest of
// them, or else the declaration that would make it. Apart from Lookup, so
// that each of its instances stays small.
func unknownName(x Arg, what, declaration string, names []string) error {
	sorted.Sort(names) // map order is random; a message is not
	if hint := DidYouMean(x.Value, names); hint != "" {
		return Errorf(x.ValuePos, "unknown %s %q%s", what, x.Value, hint)
	}
	return Errorf(x.ValuePos, "unknown %s %q; declare it first with `%s`", what, x.Value, prose.F(declaration, x.Value))
}
