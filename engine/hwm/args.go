package hwm

import (
	"errors"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/scenario"
)

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
