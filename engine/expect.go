package engine

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidemark/tidemark/engine/check"
	"github.com/tidemark/tidemark/engine/mvcc"
	"github.com/tidemark/tidemark/engine/prose"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/sorted"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/whole"
)

// Expectation is one `expect` line's claim about a run under some knob values.
type Expectation struct {
	Pos   scenario.Pos
	What  string // missing, duplicated, stale, check, mark, or the word of a world's claims (windows)
	Name  string // the check or mark named, for What = check or mark; the claim's key for a world's (wrong)
	Want  string
	When  map[string]string // knob values the claim is about; the rest are defaults
	Line  string            // the claim as written, for messages
	Where scenario.Pos      // position of the value
	Word  scenario.Pos      // for a world's claim, where its word is written
	world bool              // What is the word of a world's claims
}

// ClaimKind is a kind of expect claim a world makes about its own part of
// a run: `expect WORD KEY=VALUE... [when ...]`, such as the stream world's
// `expect windows wrong=10:01:00`.
type ClaimKind struct {
	Word string
	Keys []string // the claims a line of the kind may make, in the order docs/scenarios.md lists them
	// Values is what the claims' values are; a value of another form is
	// refused as the file is read.
	Values ClaimValues
}

// ClaimValues is the form of a kind of claim's values.
type ClaimValues uint8

const (
	ClaimCounts ClaimValues = iota // a whole number from 0
	ClaimTimes                     // none, or times of day such as window starts: 10:00:00,10:01:00
	ClaimNames                     // none, or names: report,audit
)

// validClaim reports whether v is a value claims of kind k may state, and
// if not what they state.
func (k ClaimKind) validClaim(v string) (bool, string) {
	switch k.Values {
	case ClaimTimes:
		if v != "none" {
			for p := range strings.SplitSeq(v, ",") {
				if _, err := vtime.ParseTime(p); err != nil {
					return false, "none or times such as 10:00:00,10:01:00"
				}
			}
		}
		return true, ""
	case ClaimNames:
		return true, ""
	}
	n, ok := whole.Int(v)
	return ok && n >= 0, "a count, a whole number such as 0 or 3"
}

// A Claimer is a Domain whose worlds make expect claims of their own kinds;
// its History verifies them (ClaimVerifier).
type Claimer interface {
	ClaimKinds() []ClaimKind
}

// A ClaimVerifier is a world's History that verifies the claims of its
// kinds: got is what the run shows, spelled as the claim's value would be,
// and holds whether that is what e claims. A History that does not know
// e's word reports known false.
type ClaimVerifier interface {
	VerifyClaim(e Expectation) (got string, holds, known bool)
}

// checkClaimKinds refuses an expectation of a world's kind that no world
// of domains makes, or a claim its kind does not have.
func checkClaimKinds(exps []Expectation, domains []Domain) error {
	var kinds []ClaimKind
	for _, d := range domains {
		if c, ok := d.(Claimer); ok {
			kinds = append(kinds, c.ClaimKinds()...)
		}
	}
	words := []string{"check", "mark"}
	for _, k := range kinds {
		words = append(words, k.Word)
	}
	for _, e := range exps {
		if !e.world {
			continue
		}
		i := slices.IndexFunc(kinds, func(k ClaimKind) bool { return k.Word == e.What })
		if i < 0 {
			return errorf(e.Word, "unknown kind of claim %q; expected key=value claims such as missing=3, or one of %s and its claims", e.What, strings.Join(words, ", "))
		}
		if !slices.Contains(kinds[i].Keys, e.Name) {
			return errorf(e.Pos, "unknown claim %s= for expect %s; expected %s", e.Name, e.What, strings.Join(kinds[i].Keys, "=, ")+"=")
		}
		if ok, what := kinds[i].validClaim(e.Want); !ok {
			return errorf(e.Where, "expected %s %s= to be %s, found %q", e.What, e.Name, what, e.Want)
		}
	}
	return nil
}

// Expectations reads the expect lines of a scenario file.
func Expectations(f *scenario.File) ([]Expectation, error) {
	var out []Expectation
	for _, c := range f.Commands {
		if c.Name != "expect" {
			continue
		}
		args := c.Args
		what := ""
		worldWord := false
		if len(args) > 0 && args[0].Key == "" && !args[0].Quoted && args[0].Value != "when" {
			// check and mark are the core's; any other word names a kind of
			// claim a world verifies (see ClaimKind), which CheckExpectations
			// checks against the worlds composed.
			what, args = args[0].Value, args[1:]
			worldWord = what != "check" && what != "mark"
		}
		var wordPos scenario.Pos
		if worldWord {
			wordPos = c.Args[0].Pos
		}
		when := map[string]string{}
		var claims []scenario.Arg
		inWhen := false
		var whenPos scenario.Pos
		for _, a := range args {
			switch {
			case a.Key == "" && a.Value == "when" && !inWhen:
				inWhen, whenPos = true, a.Pos
			case a.Key == "":
				return nil, errorf(a.Pos, "unexpected word %q in expect; expected key=value claims, then optionally `when knob=value ...`", a.Value)
			case inWhen:
				k := f.Knob(a.Key)
				if k == nil {
					names := make([]string, len(f.Knobs))
					for i, k := range f.Knobs {
						names[i] = k.Name
					}
					declared := "none"
					if len(names) > 0 {
						declared = strings.Join(names, ", ")
					}
					return nil, errorf(a.Pos, "unknown knob %q after when%s; declared knobs: %s", a.Key, scenario.DidYouMean(a.Key, names), declared)
				}
				if !slices.Contains(k.Values, a.Value) {
					return nil, errorf(a.ValuePos, "knob %s cannot be %q; expected one of %s", a.Key, a.Value, strings.Join(k.Values, " | "))
				}
				if _, twice := when[a.Key]; twice {
					return nil, errorf(a.Pos, "knob %s is named twice after when; a claim holds for one value of each knob", a.Key)
				}
				when[a.Key] = a.Value
			default:
				if i := strings.IndexByte(a.Value, '$'); i >= 0 && !a.Quoted {
					at := a.ValuePos
					at.Col += utf8.RuneCountInString(a.Value[:i])
					return nil, errorf(at, "an expectation states a literal value, not a knob reference; write the value, and `when KNOB=VALUE` for the setting it holds under")
				}
				claims = append(claims, a)
			}
		}
		if len(claims) == 0 {
			return nil, errorf(c.Pos, "expect needs at least one claim such as missing=3,4 or check gap-scan=fail")
		}
		if inWhen && len(when) == 0 {
			return nil, errorf(whenPos, "expected knob=value after when, such as when mark=lsn")
		}
		for i, a := range claims {
			for _, b := range claims[:i] {
				if b.Key == a.Key {
					return nil, errorf(a.Pos, "%s= is claimed twice on this line (first at %s); one claim says what it holds", a.Key, b.Pos)
				}
			}
			e := Expectation{Pos: a.Pos, Where: a.ValuePos, When: when, Want: a.Value, Line: a.Key + "=" + a.Value, Word: wordPos}
			switch what {
			case "check":
				// A check line's family name is welcome when it is one check;
				// an expectation names one verdict, so a family of several is not.
				names := check.Family(a.Key)
				now, renamed := check.Renamed[a.Key]
				switch {
				case renamed:
					return nil, errorf(a.Pos, "check %q is now called %s: expect check %s=%s", a.Key, now, now, a.Value)
				case len(names) == 0:
					if hint := scenario.DidYouMean(a.Key, check.Names); hint != "" {
						return nil, errorf(a.Pos, "unknown check %q%s", a.Key, hint)
					}
					return nil, errorf(a.Pos, "unknown check %q; expected one of %s", a.Key, strings.Join(check.Names, ", "))
				case len(names) > 1:
					alts := make([]string, len(names))
					for i, n := range names {
						alts[i] = "expect check " + n + "=" + a.Value
					}
					return nil, errorf(a.Pos, "`check %s` runs %s checks, and an expectation names one verdict: %s", a.Key, count(len(names)), strings.Join(alts, " or "))
				}
				if a.Value != string(check.Pass) && a.Value != string(check.Fail) && a.Value != string(check.NotRun) {
					return nil, errorf(a.ValuePos, "expected pass, fail or not-run, found %q", a.Value)
				}
				e.What, e.Name = "check", names[0]
			case "mark":
				e.What, e.Name = "mark", a.Key
				if _, err := markValue(a.Value); err != nil {
					return nil, errorf(a.ValuePos, "expected a mark's value: a time such as 10:00:02.5, a log position such as 1004 (or \"lsn 1004\" in quotes), or none; found %q", a.Value)
				}
			case "":
				switch a.Key {
				case "missing", "stale", "duplicated":
				default:
					return nil, errorf(a.Pos, "unknown claim %q; expected missing=, duplicated=, stale=, `check NAME=STATUS` or `mark NAME=VALUE`", a.Key)
				}
				e.What = a.Key
				if a.Key != "duplicated" && a.Value != "none" {
					if _, err := claimKeys(a); err != nil {
						return nil, err
					}
				}
				if a.Key == "duplicated" && a.Value != "none" {
					if _, err := dupClaims(a); err != nil {
						return nil, err
					}
				}
			default:
				e.What, e.Name = what, a.Key
				e.world = worldWord
			}
			e.Line = what + " " + e.Line
			e.Line = strings.TrimSpace(e.Line)
			if len(when) > 0 {
				var ks []string
				for _, k := range sorted.Keys(when) {
					ks = append(ks, k+"="+when[k])
				}
				e.Line += " when " + strings.Join(ks, " ")
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// Verify reports whether the trace satisfies e, and if not what it found instead.
func (e Expectation) Verify(t *Trace) error {
	truth := t.Final()
	got := ""
	switch e.What {
	case "missing":
		got = keyList(truth.Missing)
	case "stale":
		got = keyList(truth.Stale)
	case "duplicated":
		var parts []string
		for _, k := range sorted.KeysFunc(truth.Duplicated, mvcc.CompareKeys) {
			parts = append(parts, prose.F("%sx%d", k, truth.Duplicated[k]))
		}
		got = keyList(parts)
	case "check":
		for _, c := range t.Checks() {
			if c.Name == e.Name {
				got = string(c.Status)
				if got != e.Want {
					return prose.Errorf("%s: expected %s, got check %s=%s (%s)", e.Pos, e.Line, e.Name, got, c.Detail)
				}
				return nil
			}
		}
		return prose.Errorf("%s: expected %s, but the scenario does not run check %s; add a `check` line for it", e.Pos, e.Line, e.Name)
	case "mark":
		// A stored mark is something a team can see: the worlds that keep
		// marks show them in what they observe.
		var o check.Observation
		for _, h := range t.histories {
			h.Observe(t.Steps(), &o)
		}
		for _, m := range o.Marks {
			if m.Name == e.Name {
				got = "none"
				if len(m.Points) > 0 {
					got = m.Points[len(m.Points)-1].Display
				}
				// Compared as values: 10:00:02.5 is 10:00:02.500, and a
				// position mark's "lsn 42" is 42.
				w, werr := markValue(e.Want)
				g, gerr := markValue(got)
				if werr != nil || gerr != nil || w != g {
					return prose.Errorf("%s: expected %s, got mark %s=%s", e.Pos, e.Line, e.Name, got)
				}
				return nil
			}
		}
		names := make([]string, len(o.Marks))
		for i, m := range o.Marks {
			names[i] = m.Name
		}
		if hint := scenario.DidYouMean(e.Name, names); hint != "" {
			return prose.Errorf("%s: expected %s, but there is no mark named %s%s", e.Pos, e.Line, e.Name, hint)
		}
		if len(names) == 0 {
			return prose.Errorf("%s: expected %s, but this scenario keeps no marks", e.Pos, e.Line)
		}
		return prose.Errorf("%s: expected %s, but there is no mark named %s; the marks are %s", e.Pos, e.Line, e.Name, strings.Join(names, ", "))
	default:
		if e.world {
			for _, h := range t.histories {
				if v, ok := h.(ClaimVerifier); ok {
					if got, holds, known := v.VerifyClaim(e); known {
						if !holds {
							return prose.Errorf("%s: expected %s, got %s %s=%s", e.Pos, e.Line, e.What, e.Name, got)
						}
						return nil
					}
				}
			}
			return prose.Errorf("%s: expected %s, but nothing in this scenario makes %s claims", e.Pos, e.Line, e.What)
		}
	}
	want := e.Want
	if want != "none" {
		// A key list may hold ranges (90..94, or 41..47x2 for duplicates);
		// Expectations has checked it.
		read := claimKeys
		if e.What == "duplicated" {
			read = dupClaims
		}
		keys, _ := read(scenario.Arg{Value: want, ValuePos: e.Where})
		want = strings.Join(keys, ",")
	}
	if normalize(got) != normalize(want) {
		hint := ""
		if t.truth.names != nil {
			hint = targetHint(want)
		}
		if hint == "" {
			hint = unknownKeyHint(t, want, e.What == "duplicated")
		}
		return prose.Errorf("%s: expected %s, got %s=%s%s", e.Pos, e.Line, e.What, got, hint)
	}
	return nil
}

// targetHint notes, for a truth that names keys by target (a scenario of
// several targets), a key of the claim named without one: missing=t:1,2
// names t:1 and a key 2 of no target.
func targetHint(want string) string {
	if want == "none" {
		return ""
	}
	for k := range strings.SplitSeq(want, ",") {
		if !strings.Contains(k, ":") {
			return " (with several targets each key is written TARGET:KEY, so " + k + " needs one too)"
		}
	}
	return ""
}

// unknownKeyHint notes the first key of a claim that is no key of the
// scenario at all, which is most often a misspelling: missing=nnoe for
// missing=none. dup says the keys carry a count (41x2).
func unknownKeyHint(t *Trace, want string, dup bool) string {
	if want == "none" {
		return ""
	}
	known := make(map[string]bool, t.KeyCount())
	for id := range t.KeyCount() {
		known[t.TruthKey(int32(id))] = true
	}
	for k := range strings.SplitSeq(want, ",") {
		if dup {
			k = k[:max(0, strings.LastIndexByte(k, 'x'))]
		}
		if !known[k] {
			return " (" + k + " is no key of this scenario" + scenario.DidYouMean(k, []string{"none"}) + ")"
		}
	}
	return ""
}

// maxClaimKeys is the most keys one missing=, stale= or duplicated= claim
// may name, its ranges spelled out: as many as one key range may hold. A
// claim is read whole before it is compared, so without it a short line
// of ranges could ask for billions of keys.
const maxClaimKeys = 100_000

// claimKeys reads the key list of a missing= or stale= claim: keys and
// inclusive ranges of whole numbers, as a scenario's key lists are written
// (3,4 or 90..94 or 3,7..9). With several targets the truth names keys
// TARGET:KEY, and a range may carry the prefix too: fct_orders:90..94.
func claimKeys(a scenario.Arg) ([]string, error) {
	return appendClaimKeys(nil, a, a.Value, "")
}

// appendClaimKeys appends to out the keys of list, a part of claim a, each
// followed by suffix, refusing a list that would make out longer than
// maxClaimKeys before spelling any of it.
func appendClaimKeys(out []string, a scenario.Arg, list, suffix string) ([]string, error) {
	out, err := scenario.AppendKeys(out, a, list, maxClaimKeys, true, suffix)
	if err == scenario.ErrTooManyKeys {
		return nil, errorf(a.ValuePos, "expected at most %d keys in one claim, ranges counted key by key; %s= names more", maxClaimKeys, a.Key)
	}
	return out, err
}

// dupClaims reads the list of a duplicated= claim: KEYxCOUNT items, where
// KEY may be a range of whole numbers that all appear COUNT times
// (41..47x2), and returns one KEYxCOUNT per key, at most maxClaimKeys.
func dupClaims(a scenario.Arg) ([]string, error) {
	var out []string
	var err error
	for _, part := range strings.Split(a.Value, ",") {
		i := strings.LastIndexByte(part, 'x')
		if i <= 0 {
			return nil, errorf(a.ValuePos, "expected duplicated=KEYxCOUNT[,KEYxCOUNT...] such as 5x2 or 41..47x2, or none; found %q", a.Value)
		}
		k, n := part[:i], part[i+1:]
		count, ok := whole.Int(n)
		if !ok {
			return nil, errorf(a.ValuePos, "expected duplicated=KEYxCOUNT[,KEYxCOUNT...] such as 5x2 or 41..47x2, or none; found %q", a.Value)
		}
		if count < 2 {
			// A key the target holds once is not duplicated: the claim
			// could never hold.
			return nil, errorf(a.ValuePos, "expected a duplicated key's COUNT to be 2 or more, the times the target holds it; found %q in %q", part, a.Value)
		}
		if out, err = appendClaimKeys(out, a, k, "x"+strconv.Itoa(count)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func keyList(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ",")
}

// normalize spells a list of keys as a set: sorted, each once.
func normalize(s string) string {
	parts := strings.Split(s, ",")
	sorted.Sort(parts)
	return strings.Join(slices.Compact(parts), ",")
}

// ValidExpectations reads the expect lines of a scenario file and refuses,
// at the claim, one that none of the worlds domains can verify: what a run
// that does not check them still refuses, so that no line of a scenario is
// ignored unread.
func ValidExpectations(f *scenario.File, domains []Domain) ([]Expectation, error) {
	exps, err := Expectations(f)
	if err != nil {
		return nil, err
	}
	return exps, checkClaimKinds(exps, domains)
}

// Outcome is the result of checking one expectation.
type Outcome struct {
	Expectation Expectation
	Err         error // nil when it held
}

// CheckExpectations runs the scenario, composed of the worlds domains, once
// per distinct knob setting its expectations name and verifies each. A
// scenario that cannot be built is an error; failed expectations are outcomes.
func CheckExpectations(f *scenario.File, seed uint64, domains []Domain) ([]Outcome, error) {
	return CheckExpectationsWithBudget(f, seed, domains, DefaultBudget)
}

// CheckExpectationsWithBudget is CheckExpectations with each run within a
// budget of limit units of work (see BuildWithBudget).
func CheckExpectationsWithBudget(f *scenario.File, seed uint64, domains []Domain, limit int) ([]Outcome, error) {
	exps, err := ValidExpectations(f, domains)
	if err != nil {
		return nil, err
	}
	runs := map[string]*Trace{}
	var out []Outcome
	for _, e := range exps {
		key := whenKey(e.When)
		t := runs[key]
		if t == nil {
			t, err = RunWithBudget(f, e.When, seed, domains, limit)
			if err != nil {
				return nil, err
			}
			runs[key] = t
		}
		out = append(out, Outcome{Expectation: e, Err: e.Verify(t)})
	}
	return out, nil
}

// count spells a small number of things.
func count(n int) string {
	if n >= 2 && n <= 4 {
		return [...]string{"two", "three", "four"}[n-2]
	}
	return strconv.Itoa(n)
}

// whenKey names a set of knob values, the same for equal sets.
func whenKey(when map[string]string) string {
	var b strings.Builder
	for _, k := range sorted.Keys(when) {
		b.WriteString(k + "=" + when[k] + " ")
	}
	return b.String()
}

// markValue reads a mark's value as an expect line or a run writes it: none,
// a time of day, or a log position with or without its "lsn " prefix. The
// kinds never compare equal.
func markValue(s string) (any, error) {
	if s == "none" {
		return s, nil
	}
	if n, ok := strings.CutPrefix(s, "lsn "); ok {
		s = n
	}
	if n, ok := whole.Int64(s); ok && n >= 0 {
		return n, nil
	}
	t, err := scenario.ParseDayTime(s) // a mark's time is within the day, as every time
	if err != nil {
		return nil, err
	}
	return t, nil
}
