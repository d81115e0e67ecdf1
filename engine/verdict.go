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

// VerdictOf sums up truth, a truth of tr, in one sentence, as the CLI's report and the
// widget's ending both say it: what was lost or doubled, and which of the
// checks noticed. When nothing is wrong in the end, it says what each
// failing check saw instead (check.OnACleanRun): most raised a false alarm,
// a freshness check a delay.
//
// When nothing in the scenario writes any of its targets (Unwritten), a
// truth with nothing wrong says that, rather than that the target matches
// the source.
func (tr *Trace) VerdictOf(truth Truth, checks []check.Result) string {
	clean := "the target matches the source"
	if len(tr.unwritten) > 0 && len(tr.unwritten) == len(tr.Targets) {
		clean = "nothing in this scenario writes " + strings.Join(tr.unwritten, " or ") + ", so no row there can be missing or doubled"
	}
	return truth.verdict(clean, checks)
}

// verdict is VerdictOf, saying clean when nothing is wrong.
func (t Truth) verdict(clean string, checks []check.Result) string {
	var failed []string
	for _, c := range checks {
		if c.Status == check.Fail {
			failed = append(failed, c.Name)
		}
	}
	if h := t.Harm(); h != "" {
		if len(failed) == 0 {
			return h + "; no check noticed"
		}
		return h + "; noticed by " + strings.Join(failed, ", ")
	}
	if len(failed) == 0 {
		return clean
	}
	// The failing checks by what their failure meant, in the order of the
	// first of each.
	var meanings []string
	by := map[string][]string{}
	for _, name := range failed {
		m := check.OnACleanRun(name)
		if by[m] == nil {
			meanings = append(meanings, m)
		}
		by[m] = append(by[m], name)
	}
	parts := make([]string, len(meanings))
	for i, m := range meanings {
		parts[i] = strings.Join(by[m], ", ") + " (" + m + ")"
	}
	return clean + "; noticed by " + strings.Join(parts, "; ")
}
