package hwm

import (
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/scenario"
)

// splitKeys reads a key list such as 3,4 or 10..19 or 3,7..9.
func splitKeys(x scenario.Arg) ([]string, error) {
	var out []string
	for _, part := range strings.Split(x.Value, ",") {
		if part == "" {
			return nil, scenario.Errorf(x.ValuePos, "expected keys separated by commas, found an empty one in %q", x.Value)
		}
		l, r, isRange := strings.Cut(part, "..")
		if !isRange {
			out = append(out, part)
			continue
		}
		lo, err1 := strconv.ParseInt(l, 10, 64)
		hi, err2 := strconv.ParseInt(r, 10, 64)
		if err1 != nil || err2 != nil || hi < lo || hi-lo >= 100_000 {
			return nil, scenario.Errorf(x.ValuePos, "expected a key range such as 10..19 (whole numbers, at most 100000 keys), found %q", part)
		}
		for k := lo; k <= hi; k++ {
			out = append(out, strconv.FormatInt(k, 10))
		}
	}
	return out, nil
}

func errorf(pos scenario.Pos, format string, v ...any) error {
	return scenario.Errorf(pos, format, v...)
}
