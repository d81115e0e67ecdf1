package engine

import (
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/check"
)

// Harm says in a phrase what the truth finds wrong with the targets
// ("2 rows missing, 1 row duplicated"), or "" when nothing is.
func (t Truth) Harm() string {
	var out []string
	for _, h := range []struct {
		n    int
		what string
	}{{len(t.Missing), " missing"}, {len(t.Duplicated), " duplicated"}, {len(t.Stale), " stale"}} {
		switch {
		case h.n == 1:
			out = append(out, "1 row"+h.what)
		case h.n > 1:
			out = append(out, strconv.Itoa(h.n)+" rows"+h.what)
		}
	}
	return strings.Join(out, ", ")
}

// Verdict sums up a run in one sentence, as the CLI's report and the
// widget's ending both say it: what was lost or doubled, and which of the
// checks noticed (a check that fails while nothing is wrong is a false
// alarm).
func (t Truth) Verdict(checks []check.Result) string {
	var failed []string
	for _, c := range checks {
		if c.Status == check.Fail {
			failed = append(failed, c.Name)
		}
	}
	noticed := "no check noticed"
	if len(failed) > 0 {
		noticed = "noticed by " + strings.Join(failed, ", ")
	}
	switch h := t.Harm(); {
	case h != "":
		return h + "; " + noticed
	case len(failed) > 0:
		return "the target matches the source; " + noticed + " (a false alarm)"
	}
	return "the target matches the source"
}
