package engine

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
)

// args reads the arguments of one command, remembering the first error and
// which arguments were used, so unknown ones can be reported.
type args struct {
	cmd   scenario.Command
	list  []scenario.Arg
	used  []bool
	err   error
	known []string
}

func newArgs(cmd scenario.Command, list []scenario.Arg) *args {
	return &args{cmd: cmd, list: list, used: make([]bool, len(list))}
}

func (a *args) fail(pos scenario.Pos, format string, v ...any) {
	if a.err == nil {
		a.err = scenario.Errorf(pos, format, v...)
	}
}

// find returns the argument with key, marking it used.
func (a *args) find(key string) (scenario.Arg, bool) {
	a.known = append(a.known, key)
	var found scenario.Arg
	ok := false
	for i, x := range a.list {
		if x.Key == key {
			if ok {
				a.fail(x.Pos, "%s= is given twice", key)
			}
			a.used[i], found, ok = true, x, true
		}
	}
	return found, ok
}

func (a *args) str(key, def string) string {
	if x, ok := a.find(key); ok {
		return x.Value
	}
	return def
}

func (a *args) required(key, what string) (scenario.Arg, bool) {
	x, ok := a.find(key)
	if !ok {
		a.fail(a.cmd.Pos, "%s needs %s=%s", a.cmd.Name, key, what)
	}
	return x, ok
}

func (a *args) time(key string) (vtime.Time, bool) {
	x, ok := a.find(key)
	if !ok {
		return 0, false
	}
	t, err := vtime.ParseTime(x.Value)
	if err != nil {
		a.fail(x.ValuePos, "expected a time such as 10:00:02 for %s=, found %q", key, x.Value)
	}
	return t, true
}

func (a *args) requiredTime(key string) vtime.Time {
	if _, ok := a.required(key, "HH:MM:SS"); !ok {
		return 0
	}
	t, _ := a.time(key)
	return t
}

func (a *args) duration(key string, def vtime.Duration) vtime.Duration {
	x, ok := a.find(key)
	if !ok {
		return def
	}
	d, err := vtime.ParseDuration(x.Value)
	if err != nil {
		a.fail(x.ValuePos, "expected a duration such as 2s, 500ms or -3s for %s=, found %q", key, x.Value)
	}
	return d
}

func (a *args) integer(key string, def, lo, hi int) int {
	x, ok := a.find(key)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(x.Value)
	if err != nil || n < lo || n > hi {
		a.fail(x.ValuePos, "expected a whole number from %d to %d for %s=, found %q", lo, hi, key, x.Value)
		return def
	}
	return n
}

// choice reads one of a fixed set of words through parse.
func choice[T any](a *args, key string, def T, parse func(string) (T, bool), allowed string) T {
	x, ok := a.find(key)
	if !ok {
		return def
	}
	v, ok := parse(x.Value)
	if !ok {
		a.fail(x.ValuePos, "expected %s= to be one of %s, found %q", key, allowed, x.Value)
		return def
	}
	return v
}

func parseOnOff(s string) (bool, bool) {
	switch s {
	case "on", "true", "yes":
		return true, true
	case "off", "false", "no":
		return false, true
	}
	return false, false
}

// timeRange reads A..B.
func (a *args) timeRange(key string) (from, to vtime.Time, ok bool) {
	x, found := a.find(key)
	if !found {
		return 0, 0, false
	}
	l, r, cut := strings.Cut(x.Value, "..")
	f, err1 := vtime.ParseTime(l)
	t, err2 := vtime.ParseTime(r)
	if !cut || err1 != nil || err2 != nil || t < f {
		a.fail(x.ValuePos, "expected %s=FROM..TO with two times, FROM not after TO, such as 10:00:00..10:00:10; found %q", key, x.Value)
		return 0, 0, false
	}
	return f, t, true
}

// positional returns the bare words, marking them used.
func (a *args) positional() []scenario.Arg {
	var out []scenario.Arg
	for i, x := range a.list {
		if x.Key == "" {
			a.used[i] = true
			out = append(out, x)
		}
	}
	return out
}

// done reports the first error, or an argument nobody asked for.
func (a *args) done() error {
	if a.err != nil {
		return a.err
	}
	for i, x := range a.list {
		if a.used[i] {
			continue
		}
		if x.Key == "" {
			return scenario.Errorf(x.Pos, "unexpected word %q in %s", x.Value, a.cmd.Name)
		}
		known := slices.Clone(a.known)
		slices.Sort(known)
		known = slices.Compact(known)
		return scenario.Errorf(x.Pos, "unknown argument %s= for %s; expected one of %s", x.Key, a.cmd.Name, strings.Join(known, "=, ")+"=")
	}
	return nil
}

// maxRange is the most keys one range of a key list may name.
const maxRange = 100_000

// splitKeys reads a key list such as 3,4 or 10..19 or 3,7..9, of at most
// most keys in all. A list of more returns errTooManyKeys before any key is
// spelled, so the caller can say which limit it passes. Every size is
// worked out without overflow, for ranges at the edges of int64 too.
func splitKeys(x scenario.Arg, most int) ([]string, error) {
	parts := strings.Split(x.Value, ",")
	type span struct{ lo, n int64 } // n keys from lo; n == 0 for a single key
	spans := make([]span, len(parts))
	total := 0
	for i, part := range parts {
		if part == "" {
			return nil, scenario.Errorf(x.ValuePos, "expected keys separated by commas, found an empty one in %q", x.Value)
		}
		total++
		l, r, isRange := strings.Cut(part, "..")
		if !isRange {
			continue
		}
		lo, err1 := strconv.ParseInt(l, 10, 64)
		hi, err2 := strconv.ParseInt(r, 10, 64)
		// hi-lo can overflow int64; as unsigned it is exact when hi >= lo.
		if err1 != nil || err2 != nil || hi < lo || uint64(hi)-uint64(lo) >= maxRange {
			return nil, scenario.Errorf(x.ValuePos, "expected a key range such as 10..19 (whole numbers, at most %d keys), found %q", maxRange, part)
		}
		n := int64(uint64(hi) - uint64(lo) + 1)
		spans[i] = span{lo: lo, n: n}
		total += int(n) - 1
	}
	if total > most {
		return nil, errTooManyKeys
	}
	out := make([]string, 0, total)
	for i, part := range parts {
		if spans[i].n == 0 {
			out = append(out, part)
			continue
		}
		// Counting rather than comparing with hi ends at math.MaxInt64 too.
		for k := range spans[i].n {
			out = append(out, strconv.FormatInt(spans[i].lo+k, 10))
		}
	}
	return out, nil
}

// errTooManyKeys is splitKeys' answer to a list longer than it may be.
var errTooManyKeys = errors.New("too many keys")

func errorf(pos scenario.Pos, format string, v ...any) error {
	return scenario.Errorf(pos, format, v...)
}
