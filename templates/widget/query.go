package widget

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/scenario"
)

// FromQuery reads a link's query (?mark=lsn&step=14&truth=off&explain=3)
// into knob values and a widget state. Nothing in a link can break the page:
// each bad value is named in the returned messages and replaced by its default.
func FromQuery(f *scenario.File, q Values) (knobs map[string]string, s State, problems []string) {
	knobs = map[string]string{}
	s.ShowTruth = true
	for name, vals := range q {
		if len(vals) == 0 {
			continue
		}
		v := vals[len(vals)-1]
		switch name {
		case "step":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				problems = append(problems, "step="+v+" is not a step number; starting at step 0")
				continue
			}
			s.Step = n
		case "truth":
			s.ShowTruth = v != "off"
		case "explain":
			s.Explain = v
		case "seed":
			// The seed is read by the caller.
		default:
			k := f.Knob(name)
			if k == nil {
				problems = append(problems, "this scenario has no knob "+name+"; ignoring it")
				continue
			}
			ok := false
			for _, allowed := range k.Values {
				ok = ok || allowed == v
			}
			if !ok {
				problems = append(problems, "knob "+name+" cannot be "+strconv.Quote(v)+"; expected "+strings.Join(k.Values, " | ")+", so it stays "+k.Default)
				continue
			}
			knobs[name] = v
		}
	}
	sortStrings(problems)
	return knobs, s, problems
}

func sortStrings(xs []string) { slices.Sort(xs) }
