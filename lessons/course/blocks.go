package course

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/lessons"
)

// The directives of a chapter (embed, predict, compare, checks, plot,
// note): what fields each takes, and how its specs and claims read. The
// syntax they share is in directive.go; docs/lessons.md has an example of
// each.

// block reads a directive that sits in a chapter.
func (r *reader) block(d *directive) (Block, bool) {
	switch d.name {
	case "embed":
		e, ok := r.embedDirective(d)
		return Embeds{e}, ok
	case "predict":
		p, ok := r.predictDirective(d)
		return Predict(p), ok
	case "compare":
		return r.compareDirective(d)
	case "checks":
		return r.checksDirective(d)
	case "plot":
		return r.plotDirective(d)
	case "note":
		return r.noteDirective(d)
	case "term":
		r.e.at(d.pos, "term directives belong in glossary.md")
		return nil, false
	}
	r.e.at(d.pos, "unknown directive %q; expected one of embed, predict, compare, checks, plot, note", d.name)
	return nil, false
}

// fieldSet checks a directive's fields against those it takes, in one
// group, and returns them by name. required fields must be present.
func (r *reader) fieldSet(d *directive, fs []field, allowed []string, required ...string) map[string]field {
	out := map[string]field{}
	for _, f := range fs {
		switch {
		case !slices.Contains(allowed, f.name):
			r.e.at(f.pos, "%s: unknown field %q; expected %s", d.name, f.name, fieldNames(allowed...))
		case f.arg != "":
			r.e.at(f.pos, "%s: field %q takes no word before its colon", d.name, f.name)
		case hasField(out, f.name):
			r.e.at(f.pos, "%s: field %q is given twice", d.name, f.name)
		default:
			out[f.name] = f
		}
	}
	for _, name := range required {
		if _, ok := out[name]; !ok {
			r.e.at(d.pos, "%s: missing field %q", d.name, name)
		}
	}
	return out
}

func hasField(m map[string]field, name string) bool { _, ok := m[name]; return ok }

// noArgs reports arguments given to a directive that takes none.
func (r *reader) noArgs(d *directive) {
	if d.args != "" {
		r.e.at(d.argsAt(0), "%s takes no arguments on its first line; its fields go on the lines below", d.name)
	}
}

// oneArg returns a directive's single id argument.
func (r *reader) oneArg(d *directive, what string) (string, bool) {
	if !isID(d.args) {
		r.e.at(d.argsAt(0), "%s: expected %s after %q (lower-case letters, digits and hyphens); got %q", d.name, what, ":::"+d.name, truncate(d.args, 40))
		return "", false
	}
	return d.args, true
}

func (r *reader) embedDirective(d *directive) (Embed, bool) {
	e, ok := r.spec(d.args, d.argsAt, true)
	fs := r.fieldSet(d, d.fields, []string{"caption"}, "caption")
	e.Caption = r.inline(fs["caption"])
	e.Pos = d.pos
	return e, ok
}

// spec reads "scenario knob=value … [step=N] [focus=check]": which
// scenario to draw, with which settings, where.
func (r *reader) spec(s string, at func(int) Pos, view bool) (Embed, bool) {
	var e Embed
	ts, ok := tokens(s, at, r.e)
	if !ok {
		return e, false
	}
	if len(ts) == 0 || ts[0].key != "" || ts[0].quoted {
		r.e.at(at(0), "expected a scenario id, such as hwm/visibility-gap, then any knob=value settings")
		return e, false
	}
	e.Scenario = ts[0].value
	sc, found := lessons.Lookup(e.Scenario)
	if !found {
		var ids []string
		all, _ := lessons.Scenarios()
		for _, s := range all {
			ids = append(ids, s.ID)
		}
		r.e.at(at(ts[0].off), "unknown scenario %q%s", e.Scenario, suggest(e.Scenario, ids))
		return e, false
	}
	for _, t := range ts[1:] {
		switch {
		case t.key == "":
			r.e.at(at(t.off), "expected knob=value after the scenario id; got %q", truncate(t.value, 30))
			ok = false
		case view && t.key == "step":
			n, err := strconv.Atoi(t.value)
			if err != nil || n < 0 || n > 1_000_000 {
				r.e.at(at(t.off), "step=%s: a step is a whole number, 0 for before the first event", truncate(t.value, 20))
				ok = false
			}
			e.Step = n
		case view && t.key == "focus":
			if !isID(t.value) {
				r.e.at(at(t.off), "focus=%s: name a check the scenario runs, such as gap-scan", truncate(t.value, 30))
				ok = false
			}
			e.Focus = t.value
		default:
			k := sc.File.Knob(t.key)
			if k == nil {
				var names []string
				for _, k := range sc.File.Knobs {
					names = append(names, k.Name)
				}
				extra := ""
				if view {
					extra = " (an embed also takes step= and focus=)"
				}
				r.e.at(at(t.off), "scenario %s has no knob %q; its knobs: %s%s", e.Scenario, t.key, orNone(names), extra)
				ok = false
				continue
			}
			if !slices.Contains(k.Values, t.value) {
				r.e.at(at(t.off), "knob %s of %s cannot be %q; expected %s", t.key, e.Scenario, t.value, strings.Join(k.Values, " | "))
				ok = false
				continue
			}
			if e.Knobs == nil {
				e.Knobs = map[string]string{}
			}
			if _, dup := e.Knobs[t.key]; dup {
				r.e.at(at(t.off), "knob %s is set twice", t.key)
				ok = false
			}
			e.Knobs[t.key] = t.value
		}
	}
	return e, ok
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func (r *reader) noteDirective(d *directive) (Block, bool) {
	ts, ok := tokens(d.args, d.argsAt, r.e)
	if !ok || len(ts) != 1 || ts[0].key != "" {
		r.e.at(d.argsAt(0), "note: expected its label after \":::note\", one word or a quoted phrase, as :::note Simplified")
		return nil, false
	}
	fs := r.fieldSet(d, d.fields, []string{"text"}, "text")
	return Note{Label: ts[0].value, Text: r.inline(fs["text"])}, true
}

// groups splits a directive's fields into the fields before the first
// group field (named start) and one list per group, each starting with
// its group field.
func groups(fs []field, start string) (head []field, gs [][]field) {
	for _, f := range fs {
		switch {
		case f.name == start:
			gs = append(gs, []field{f})
		case len(gs) == 0:
			head = append(head, f)
		default:
			gs[len(gs)-1] = append(gs[len(gs)-1], f)
		}
	}
	return head, gs
}

func (r *reader) predictDirective(d *directive) (Prediction, bool) {
	id, ok := r.oneArg(d, "the prediction's id")
	p := Prediction{ID: id, Pos: d.pos}
	head, opts := groups(d.fields, "option")
	// Fields after the options ("answer", "why") close the last option.
	var tail []field
	for i, g := range opts {
		for j, f := range g {
			if j > 0 && f.name != "claim" {
				tail = append(tail, g[j:]...)
				opts[i] = g[:j]
				break
			}
		}
	}
	fs := r.fieldSet(d, append(head, tail...), []string{"scenario", "question", "answer", "why"}, "scenario", "question", "answer", "why")
	if f, has := fs["scenario"]; has {
		e, good := r.spec(f.value, f.at, false)
		p.Scenario, p.Knobs, ok = e.Scenario, e.Knobs, ok && good
	}
	p.Question, p.Why = r.inline(fs["question"]), r.inline(fs["why"])
	for _, g := range opts {
		f := g[0]
		o := Option{ID: f.arg, Label: r.inline(f), Pos: f.pos}
		if !isID(o.ID) {
			r.e.at(f.pos, "predict: an option is \"option ID: what it says\", with an id such as a or b")
			ok = false
		} else if slices.ContainsFunc(p.Options, func(x Option) bool { return x.ID == o.ID }) {
			r.e.at(f.pos, "predict: option %q is given twice", o.ID)
			ok = false
		}
		if o.Label == nil {
			r.e.at(f.pos, "predict: option %s says nothing", o.ID)
		}
		switch {
		case len(g) == 1:
			r.e.at(f.pos, "predict: option %s needs a claim on the next line, as \"claim: missing 3\"", o.ID)
			ok = false
		case len(g) > 2:
			r.e.at(g[2].pos, "predict: option %s has one claim", o.ID)
			ok = false
		default:
			c, good := r.claim(g[1])
			o.Claim, ok = c, ok && good
		}
		p.Options = append(p.Options, o)
	}
	if len(p.Options) < 2 {
		r.e.at(d.pos, "predict: a prediction offers at least two options (\"option a: …\" with a \"claim:\" each)")
		ok = false
	}
	if f, has := fs["answer"]; has {
		p.Answer = strings.Fields(strings.ReplaceAll(f.value, ",", " "))
		if len(p.Answer) == 0 {
			r.e.at(f.pos, "predict: answer names the options the engine should find true, as \"answer: b\"")
			ok = false
		}
		for _, a := range p.Answer {
			if !slices.ContainsFunc(p.Options, func(o Option) bool { return o.ID == a }) {
				r.e.at(f.pos, "predict: answer %q is not one of the options", a)
				ok = false
			}
		}
	}
	return p, ok
}

// claimKinds are the claims a prediction's option can make, as written.
var claimKinds = []ClaimKind{Clean, Missing, MissingExactly, MissingCount, Present, Duplicated, Stale, CheckStatus}

// claim reads "claim: KIND args [in SCENARIO knob=value…]".
func (r *reader) claim(f field) (Claim, bool) {
	var c Claim
	value := f.value
	rest := ""
	if i := strings.Index(value, " in "); i >= 0 {
		value, rest = f.value[:i], f.value[i+len(" in "):]
	}
	words := strings.Fields(value)
	if len(words) == 0 {
		r.e.at(f.pos, "claim: expected one of %s", kindList())
		return c, false
	}
	c.Kind = ClaimKind(words[0])
	args := words[1:]
	bad := func(format string, a ...any) (Claim, bool) {
		r.e.at(f.at(0), "claim %q: "+format, append([]any{truncate(f.value, 40)}, a...)...)
		return c, false
	}
	keys := func() []string {
		var out []string
		for _, a := range args {
			for _, k := range strings.Split(a, ",") {
				if k != "" {
					out = append(out, k)
				}
			}
		}
		return out
	}
	switch c.Kind {
	case Clean:
		if len(args) > 0 {
			return bad("clean takes nothing after it")
		}
	case Missing, Present, Duplicated, Stale:
		c.Keys = keys()
		if len(c.Keys) == 0 {
			return bad("%s names the keys it is about, as \"%s 3 4\"", c.Kind, c.Kind)
		}
	case MissingExactly:
		c.Keys = keys()
		if len(c.Keys) == 1 && c.Keys[0] == "none" {
			c.Keys = nil
		}
	case MissingCount:
		lo, hi, found := strings.Cut(strings.Join(args, ""), "..")
		n, err1 := strconv.Atoi(lo)
		m, err2 := strconv.Atoi(hi)
		if len(args) != 1 || !found || err1 != nil || n < 0 || hi != "" && (err2 != nil || m < n || m == 0) || hi == "" && n == 0 {
			return bad("missing-count takes a range, as 1..9, or a floor, as 41..")
		}
		c.Min, c.Max = n, m
	case CheckStatus:
		if len(args) != 2 || !isID(args[0]) {
			return bad("check takes a check's name and pass, fail or not-run, as \"check gap-scan fail\"")
		}
		c.Check, c.Status = args[0], check.Status(args[1])
		if !slices.Contains([]check.Status{check.Pass, check.Fail, check.NotRun}, c.Status) {
			return bad("a check ends pass, fail or not-run; got %q", args[1])
		}
	default:
		return bad("unknown claim; expected one of %s", kindList())
	}
	if rest != "" {
		off := len(f.value) - len(rest)
		e, ok := r.spec(rest, func(o int) Pos { return f.at(off + o) }, false)
		if !ok {
			return c, false
		}
		c.Scenario, c.Knobs = e.Scenario, e.Knobs
	}
	return c, true
}

func kindList() string {
	s := make([]string, len(claimKinds))
	for i, k := range claimKinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func (r *reader) compareDirective(d *directive) (Block, bool) {
	r.noArgs(d)
	head, sides := groups(d.fields, "side")
	fs := r.fieldSet(d, head, []string{"caption"}, "caption")
	c := Compare{Caption: r.plainField(fs["caption"])}
	if len(sides) != 2 {
		r.e.at(d.pos, "compare: expected two sides, each starting \"side: its title\"; found %d", len(sides))
		return nil, false
	}
	ok := true
	for i, g := range sides {
		sd := r.fieldSet(d, g[1:], []string{"text", "embed", "caption"}, "text", "embed", "caption")
		s := Side{Title: r.plainField(g[0]), Text: r.inline(sd["text"])}
		if s.Title == "" {
			r.e.at(g[0].pos, "compare: a side needs a title after \"side:\"")
		}
		if f, has := sd["embed"]; has {
			e, good := r.spec(f.value, f.at, true)
			e.Caption, e.Pos = r.inline(sd["caption"]), f.pos
			s.Embed, ok = e, ok && good
		} else {
			ok = false
		}
		c.Sides[i] = s
	}
	return c, ok
}

func (r *reader) checksDirective(d *directive) (Block, bool) {
	r.noArgs(d)
	head, rows := groups(d.fields, "row")
	fs := r.fieldSet(d, head, []string{"caption"}, "caption")
	c := Checks{Caption: r.plainField(fs["caption"])}
	if len(rows) == 0 {
		r.e.at(d.pos, "checks: expected rows, each starting \"row: the check's name\"")
		return nil, false
	}
	ok := true
	for _, g := range rows {
		f := r.fieldSet(d, g[1:], []string{"expresses", "catches", "misses", "caught", "caught-caption", "missed", "missed-caption"}, "expresses", "catches", "misses")
		row := CheckRow{Name: r.plainField(g[0]), Expresses: r.inline(f["expresses"]), Catches: r.inline(f["catches"]), Misses: r.inline(f["misses"]), Pos: g[0].pos}
		for _, side := range []struct {
			spec, caption string
			to            *Embed
		}{{"caught", "caught-caption", &row.Caught}, {"missed", "missed-caption", &row.Missed}} {
			sf, has := f[side.spec]
			if !has {
				if hasField(f, side.caption) {
					r.e.at(f[side.caption].pos, "checks: %s without %s", side.caption, side.spec)
				}
				continue
			}
			e, good := r.spec(sf.value, sf.at, true)
			if e.Focus == "" && good {
				r.e.at(sf.pos, "checks: %s: name the check with focus=, as \"%s: hwm/visibility-gap focus=gap-scan\"", side.spec, side.spec)
				good = false
			}
			if !hasField(f, side.caption) {
				r.e.at(sf.pos, "checks: %s needs %s, saying what the learner sees there", side.spec, side.caption)
				good = false
			}
			e.Caption, e.Pos = r.inline(f[side.caption]), sf.pos
			*side.to, ok = e, ok && good
		}
		if row.Caught.Scenario == "" != (row.Missed.Scenario == "") {
			r.e.at(g[0].pos, "checks: a row shows both where its check notices the fault (caught:) and where it does not (missed:), or neither")
			ok = false
		}
		c.Rows = append(c.Rows, row)
	}
	return c, ok
}

func (r *reader) plotDirective(d *directive) (Block, bool) {
	id, ok := r.oneArg(d, "the plot's id")
	fs := r.fieldSet(d, d.fields, []string{"scenario", "x", "x-title", "x-labels", "series", "series-labels", "caption"}, "scenario", "x", "x-title", "caption")
	p := Plot{ID: id, Caption: r.plainField(fs["caption"]), XTitle: r.plainField(fs["x-title"]), Pos: d.pos}
	sf, has := fs["scenario"]
	if !has {
		return nil, false
	}
	// spec reports an unknown scenario or a malformed line; a plot's knobs
	// come from x= and series=, so settings on the line are an error, not
	// a plot that silently goes missing.
	e, good := r.spec(sf.value, sf.at, false)
	if !good {
		return nil, false
	}
	if len(e.Knobs) > 0 {
		r.e.at(sf.at(0), "plot: scenario takes only a scenario id; the knobs a plot varies are set by x= and series=")
		return nil, false
	}
	sc, found := lessons.Lookup(e.Scenario)
	if !found {
		return nil, false
	}
	p.Scenario = sc.ID
	knob := func(f field, what string) (string, bool) {
		name := strings.TrimSpace(f.value)
		if sc.File.Knob(name) == nil {
			var names []string
			for _, k := range sc.File.Knobs {
				names = append(names, k.Name)
			}
			r.e.at(f.at(0), "plot: %s: scenario %s has no knob %q; its knobs: %s", what, sc.ID, name, orNone(names))
			return "", false
		}
		return name, true
	}
	labels := func(f field, k string) map[string]string {
		ts, good := tokens(f.value, f.at, r.e)
		if !good {
			return nil
		}
		out := map[string]string{}
		for _, t := range ts {
			if t.key == "" || !slices.Contains(sc.File.Knob(k).Values, t.key) {
				r.e.at(f.at(t.off), "plot: %s: expected value=\"label\" for a value of knob %s (%s)", f.name, k, strings.Join(sc.File.Knob(k).Values, " | "))
				ok = false
				continue
			}
			out[t.key] = t.value
		}
		return out
	}
	if f, has := fs["x"]; has {
		if x, good := knob(f, "x"); good {
			p.X = x
			if lf, has := fs["x-labels"]; has {
				p.XLabels = labels(lf, x)
			}
		} else {
			ok = false
		}
	}
	if f, has := fs["series"]; has {
		if s, good := knob(f, "series"); good {
			p.Series = s
			if lf, has := fs["series-labels"]; has {
				p.Labels = labels(lf, s)
			}
		} else {
			ok = false
		}
	} else if f, has := fs["series-labels"]; has {
		r.e.at(f.pos, "plot: series-labels without series")
	}
	return p, ok
}
