package scenario

import (
	"errors"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/whole"
)

// MaxRange is the most keys one range of a key list may name.
const MaxRange = 100_000

// ErrTooManyKeys is AppendKeys' answer to a list that would name more keys
// than it may, returned before any key is spelled, so that the caller can
// say which limit the line passes.
var ErrTooManyKeys = errors.New("too many keys")

// AppendKeys appends the keys of list, the value (or a part of the value)
// of argument x, to out: keys separated by commas, among them inclusive
// ranges of whole numbers (3,4 or 90..94 or 3,7..9). With prefixed, a part
// may start with NAME: (fct_orders:90..94), which every key of its range
// keeps; suffix follows every key. A list that would make out longer than
// most returns ErrTooManyKeys before any key is spelled. Every size is
// worked out without overflow, for ranges at the edges of int64 too.
func AppendKeys(out []string, x Arg, list string, most int, prefixed bool, suffix string) ([]string, error) {
	parts := strings.Split(list, ",")
	type span struct{ lo, n int64 } // n keys from lo; n == 0 for a single key
	spans := make([]span, len(parts))
	total := len(out)
	for i, part := range parts {
		if part == "" {
			return nil, Errorf(x.ValuePos, "expected keys separated by commas, found an empty one in %q", x.Value)
		}
		total++
		rest := part
		if j := strings.LastIndexByte(part, ':'); prefixed && j >= 0 {
			rest = part[j+1:]
		}
		l, r, isRange := strings.Cut(rest, "..")
		if !isRange {
			continue
		}
		lo, ok1 := whole.Int64(l)
		hi, ok2 := whole.Int64(r)
		// hi-lo can overflow int64; as unsigned it is exact when hi >= lo.
		if !ok1 || !ok2 || hi < lo || uint64(hi)-uint64(lo) >= MaxRange {
			return nil, Errorf(x.ValuePos, "expected a key range such as 90..94 (whole numbers, at most %d keys), found %q", MaxRange, part)
		}
		spans[i] = span{lo: lo, n: int64(uint64(hi) - uint64(lo) + 1)}
		total += int(spans[i].n) - 1
	}
	if total > most {
		return nil, ErrTooManyKeys
	}
	for i, part := range parts {
		if spans[i].n == 0 {
			out = append(out, part+suffix)
			continue
		}
		prefix := ""
		if prefixed {
			prefix = part[:strings.LastIndexByte(part, ':')+1]
		}
		// Counting rather than comparing with hi ends at math.MaxInt64 too.
		for k := range spans[i].n {
			out = append(out, prefix+strconv.FormatInt(spans[i].lo+k, 10)+suffix)
		}
	}
	return out, nil
}
