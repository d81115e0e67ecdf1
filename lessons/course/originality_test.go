package course

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

// The lessons are written from source documents kept beside the repository
// (../../../shared/seeds from this package). Their facts, figures and
// structure carry over; their sentences must not. TestOriginality is the
// guard: it fails on every run of minRun or more consecutive words that a
// text of ours shares with a seed.
//
// How text is compared: both sides are lower-cased and split into words
// made of letters, digits and apostrophes (a curly apostrophe counts as a
// straight one; apostrophes at the ends of a word are dropped). Anything
// else — spaces, punctuation, markup, the colons in 10:00:04 — separates
// words.
//
// What may match: figures are facts, so a run is ignored when every word in
// it is either a figure (any word containing a digit: "10", "00", "t1",
// "1047") or one of the function words below. Timestamps, the rows of the
// T1–T4 table and runs like "at 10 00 00 and 10 00 04" therefore pass; any
// run that carries a single word of prose beyond those is reported.
//
// What is scanned:
//   - every lesson, as it loads into this package's types: each text field
//     of every block and of the glossary, markup removed (see lessonText);
//   - every lesson file as written (lessons/text/*/*.md), comments and all,
//     without the seed="…" attributes of section headings, which name the
//     seed's headings on purpose as the record of what a section covers;
//   - the Go source of lessons/, engine/, templates/ and web/ (tests and
//     generated templ code excluded): its string literals, unquoted, and
//     its comments — the narration, the checks, the explanations, the
//     views and the handlers;
//   - every bundled scenario (lessons/scenarios/**/*.tdm);
//   - docs/*.md and README.md;
//   - the pages' templ files and scripts (web/static/*.js).
//
// A run found in several places is listed once, with every place.
//
// Copying can also hide behind swapped words, so TestOriginality applies a
// second rule to the same texts, sentence by sentence: a sentence of ours
// that holds most of the content words of one seed sentence (see
// paraphraseOf) is reported as a paraphrase, with the seed's sentence
// beside it.
const minRun = 7

// functionWords may fill out a run of figures without making it prose.
// "yes" and "no" are here for the cells of a table of figures ("T1 10:00:00
// 10:00:00 yes").
var functionWords = wordSet("a an and are as at by for from in is it of on or the then to was with yes no")

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// words lower-cases s and splits it into words of letters, digits and
// apostrophes.
func words(s string) []string {
	s = strings.ReplaceAll(strings.ToLower(s), "’", "'")
	ws := strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	out := ws[:0]
	for _, w := range ws {
		if w = strings.Trim(w, "'"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// isFigure reports whether w is a number or an identifier built around one.
func isFigure(w string) bool { return strings.ContainsFunc(w, unicode.IsDigit) }

// seedIndex maps every run of minRun words in the seeds to the seed it
// comes from.
type seedIndex map[string]string

func (ix seedIndex) add(name, text string) {
	ws := words(text)
	for i := 0; i+minRun <= len(ws); i++ {
		k := strings.Join(ws[i:i+minRun], " ")
		if _, ok := ix[k]; !ok {
			ix[k] = name
		}
	}
}

// shared returns the maximal runs of at least minRun words of text that
// also occur in a seed, each with the seed it matched, leaving out runs
// made only of figures and function words.
func (ix seedIndex) shared(text string) (runs, seeds []string) {
	ws := words(text)
	hit := make([]string, len(ws)) // the seed a window starting at i matches
	for i := 0; i+minRun <= len(ws); i++ {
		hit[i] = ix[strings.Join(ws[i:i+minRun], " ")]
	}
	for i := 0; i < len(ws); {
		if hit[i] == "" {
			i++
			continue
		}
		// Windows starting at i..j-1 all match: the run covers i..j-1+minRun.
		j := i
		for j < len(ws) && hit[j] != "" {
			j++
		}
		run := ws[i : j-1+minRun]
		prose := slices.ContainsFunc(run, func(w string) bool {
			return !isFigure(w) && !functionWords[w]
		})
		if prose {
			runs = append(runs, strings.Join(run, " "))
			seeds = append(seeds, hit[i])
		}
		i = j
	}
	return runs, seeds
}

// lessonText renders every text field of l, markup removed, one string per
// field, each labelled with where it sits.
func lessonText(l *Lesson) (places, texts []string) {
	add := func(place string, s ...string) {
		for _, t := range s {
			if t != "" {
				places = append(places, place)
				texts = append(texts, t)
			}
		}
	}
	at := "lesson " + l.Slug
	add(at, l.Title, l.Lede.Plain(), l.Summary)
	for _, c := range l.Chapters {
		add(at+" chapter "+c.ID, c.Title)
		for _, s := range c.Sections {
			p := at + " §" + s.ID
			add(p, s.Title)
			for _, b := range s.Blocks {
				for _, r := range BlockText(b) {
					add(p, r.Plain())
				}
				switch b := b.(type) {
				case Note:
					add(p, b.Label)
				case Code:
					add(p, b.Caption, b.Text)
				case Table:
					add(p, b.Caption)
				case Compare:
					add(p, b.Caption, b.Sides[0].Title, b.Sides[1].Title)
				case Checks:
					add(p, b.Caption)
					for _, r := range b.Rows {
						add(p, r.Name)
					}
				case Plot:
					add(p, b.Caption, b.XTitle)
					for _, v := range b.XLabels {
						add(p, v)
					}
					for _, v := range b.Labels {
						add(p, v)
					}
				case Para, List, Embeds, Predict:
				default:
					panic(fmt.Sprintf("lessonText: block %T is not rendered; add it", b))
				}
			}
		}
	}
	for _, t := range l.Glossary {
		add(at+" glossary "+t.ID, t.Name, t.Definition.Plain())
	}
	return places, texts
}

// seedAttr matches a section heading's seed="…" attribute.
var seedAttr = regexp.MustCompile(`seed="[^"]*"`)

// goText returns the string literals (unquoted) and comments of a Go file,
// except the literals of a Section's Sources: those name the seed's
// headings on purpose, as the record of which part of the seed a section
// covers, and are never shown to a reader.
func goText(t *testing.T, path string) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	require.NoError(t, err)
	var b strings.Builder
	for _, c := range f.Comments {
		b.WriteString(c.Text())
		b.WriteByte('\n')
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Sources" {
				return false
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				s, err := strconv.Unquote(n.Value)
				require.NoError(t, err)
				b.WriteString(s)
				b.WriteByte('\n')
			}
		}
		return true
	})
	return b.String()
}

// A paraphrase is a sentence of ours holding at least minShare of the
// content words of a seed sentence, and at least minShared of them.
// Content words are the words of words() less stopWords, figures and
// identifiers with an underscore (column names are facts of a schema), cut
// to a crude stem (stem) so that "committing" meets "committed". Seed
// sentences with fewer than minShared content words (headings, labels,
// a list of three terms) are not compared: sharing them is sharing a
// vocabulary, not a sentence.
const (
	minShared = 6
	minShare  = 0.6
)

// stopWords carry no content of their own.
var stopWords = wordSet(`a an and are as at be been being but by can could did do does each every
	for from had has have he her here his how if in into is it it's its just may might more
	most must no nor not of on one only or other our out over own same should so some such
	than that the their them then there these they this those through to too two under up
	very was we were what when where which while who whom why will with would you your all
	any also about after before again once both either neither`)

// stem cuts a common inflection from w: "commits", "committed" and
// "committing" all become "committ". It is crude on purpose; both sides are
// cut the same way.
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s", "ly"} {
		if len(w) >= len(suf)+3 && strings.HasSuffix(w, suf) {
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

// identifier matches a name with an underscore in it: order_id, updated_at.
var identifier = regexp.MustCompile(`[\pL\pN]*_[\pL\pN_]*`)

// contentWords returns the stems of the content words of s, each once.
func contentWords(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words(identifier.ReplaceAllString(s, " ")) {
		if !stopWords[w] && !isFigure(w) {
			m[stem(w)] = true
		}
	}
	return m
}

// sentenceEnd splits text into sentences and table cells: after . ! ? ; or :
// followed by a space, at a line break, and at a table's | .
var sentenceEnd = regexp.MustCompile(`[.!?;:]["')\]*]*\s+|\n|\|`)

// sentences splits s into the pieces the paraphrase rule compares.
func sentences(s string) []string {
	var out []string
	for _, p := range sentenceEnd.Split(s, -1) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// seedSentence is one sentence of a seed with its content words.
type seedSentence struct {
	seed, text string
	words      map[string]bool
}

// paraphraseIndex holds the seeds' sentences and, per content word, the
// sentences that use it.
type paraphraseIndex struct {
	sentences []seedSentence
	byWord    map[string][]int
}

func (ix *paraphraseIndex) add(name, text string) {
	if ix.byWord == nil {
		ix.byWord = map[string][]int{}
	}
	for _, line := range strings.Split(text, "\n") {
		for _, s := range sentences(line) {
			cw := contentWords(s)
			if len(cw) < minShared {
				continue
			}
			for w := range cw {
				ix.byWord[w] = append(ix.byWord[w], len(ix.sentences))
			}
			ix.sentences = append(ix.sentences, seedSentence{name, s, cw})
		}
	}
}

// paraphraseOf returns the seed sentence that ours paraphrases, if any: the
// one sharing the largest fraction of its content words with ours, when
// that fraction is at least minShare and the count at least minShared.
func (ix *paraphraseIndex) paraphraseOf(ours string) (seedSentence, bool) {
	cw := contentWords(ours)
	if len(cw) < minShared {
		return seedSentence{}, false
	}
	shared := map[int]int{}
	for w := range cw {
		for _, i := range ix.byWord[w] {
			shared[i]++
		}
	}
	best, bestShare := -1, 0.0
	for i, n := range shared {
		share := float64(n) / float64(len(ix.sentences[i].words))
		if n >= minShared && share >= minShare && (share > bestShare || share == bestShare && i < best) {
			best, bestShare = i, share
		}
	}
	if best < 0 {
		return seedSentence{}, false
	}
	return ix.sentences[best], true
}

func TestOriginality(t *testing.T) {
	// The seeds sit beside the checkout; a worktree one level further down
	// finds them one level further up.
	var seedDir string
	var seedFiles []string
	for _, dir := range []string{os.Getenv("TIDEMARK_SEEDS"), "../../../shared/seeds", "../../../../shared/seeds"} {
		if dir == "" {
			continue
		}
		if seedFiles, _ = filepath.Glob(filepath.Join(dir, "*.txt")); len(seedFiles) > 0 {
			seedDir = dir
			break
		}
	}
	if len(seedFiles) == 0 {
		t.Skip("no source documents in ../../../shared/seeds nor ../../../../shared/seeds, nor in $TIDEMARK_SEEDS (they live beside the repository, not in it); nothing to compare against")
	}
	t.Logf("comparing with the source documents in %s", seedDir)
	ix := seedIndex{}
	px := &paraphraseIndex{}
	for _, f := range seedFiles {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		ix.add(filepath.Base(f), string(b))
		px.add(filepath.Base(f), string(b))
	}

	found := map[string][]string{} // run → places, "seed: run" as key
	var order []string
	note := func(k, place string) {
		if _, ok := found[k]; !ok {
			order = append(order, k)
		}
		if !slices.Contains(found[k], place) {
			found[k] = append(found[k], place)
		}
	}
	record := func(place, text string) {
		runs, seeds := ix.shared(text)
		for i, r := range runs {
			note(seeds[i]+": \""+r+"\"", place)
		}
		for _, sent := range sentences(text) {
			if seed, ok := px.paraphraseOf(sent); ok {
				note(seed.seed+": \""+sent+"\"\n      paraphrases \""+seed.text+"\"", place)
			}
		}
	}

	all, err := Lessons()
	require.NoError(t, err)
	for _, l := range all {
		places, texts := lessonText(l)
		for i := range texts {
			record(places[i], texts[i])
		}
	}

	const root = "../.."
	glob := func(pattern string) []string {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		require.NoError(t, err)
		return m
	}
	rel := func(p string) string {
		r, _ := filepath.Rel(root, p)
		return filepath.ToSlash(r)
	}
	// The Go that holds what the pages say: the course and the chain
	// builder's hops and options, the engine (its narration, its checks,
	// its explanations), the widget and every other view, and the site's
	// handlers. Generated templ code is left out: its text is the templ
	// files', read below.
	var goFiles []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r := rel(p)
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(r, ".go") && !strings.HasSuffix(r, "_test.go") && !strings.HasSuffix(r, "_templ.go") &&
			(strings.HasPrefix(r, "lessons/") || strings.HasPrefix(r, "engine/") || strings.HasPrefix(r, "templates/") || strings.HasPrefix(r, "web/")) {
			goFiles = append(goFiles, p)
		}
		return nil
	})
	require.NoError(t, err)
	require.Contains(t, goFiles, filepath.Join(root, "engine/hwm/explain.go"), "the walk reaches the engine")
	require.Contains(t, goFiles, filepath.Join(root, "templates/widget/explain.go"), "and the widget")
	for _, p := range goFiles {
		record(rel(p), goText(t, p))
	}

	var plain []string
	require.NoError(t, filepath.WalkDir(filepath.Join(root, "lessons/scenarios"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".tdm") {
			plain = append(plain, p)
		}
		return err
	}))
	require.NotEmpty(t, plain, "no bundled scenarios found")
	plain = append(plain, glob("docs/*.md")...)
	plain = append(plain, glob("README.md")...)
	// The pages' own words: the templ files and every page script.
	plain = append(plain, glob("templates/*.templ")...)
	plain = append(plain, glob("templates/lesson/*.templ")...)
	plain = append(plain, glob("web/static/*.js")...)
	for _, p := range plain {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		record(rel(p), string(b))
	}

	files := glob("lessons/text/*/*.md")
	require.NotEmpty(t, files, "no lesson files found")
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		// Blocks (runs of lines between blank lines) are compared one by
		// one, as the page shows them: a heading's words do not run on into
		// the paragraph before it.
		for _, block := range strings.Split(seedAttr.ReplaceAllString(string(b), ""), "\n\n") {
			record(rel(p), block)
		}
	}

	if len(order) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%d runs of %d or more words, or sentences, are copied or closely paraphrased from a source document; say them in our own words:\n", len(order), minRun)
		for _, k := range order {
			fmt.Fprintf(&b, "  %s\n      in %s\n", k, strings.Join(found[k], "; "))
		}
		t.Error(b.String())
	}
}

func TestSharedRuns(t *testing.T) {
	ix := seedIndex{}
	ix.add("seed", "A transaction begins at 10:00:00, and it commits at 10:00:04. "+
		"Everything downstream inherits the weakest promise in the chain, which nobody wrote down.")

	runs, _ := ix.shared("Note that everything downstream inherits the weakest promise in the chain today.")
	require.Equal(t, []string{"everything downstream inherits the weakest promise in the chain"}, runs)

	runs, _ = ix.shared("Everything downstream inherits the weakest promise in")
	require.Equal(t, []string{"everything downstream inherits the weakest promise in"}, runs, "exactly minRun words is a run")

	runs, _ = ix.shared("Everything downstream inherits the weakest promise")
	require.Empty(t, runs, "six words are not")

	ix.add("table", "T1 10:00:00 10:00:00 yes T2 10:00:01 10:00:01 yes")
	runs, _ = ix.shared("In our table: T1, 10:00:00, 10:00:00, yes; T2, 10:00:01, 10:00:01, yes.")
	require.Empty(t, runs, "figures and function words alone are facts, not prose")

	runs, _ = ix.shared("The write began at 10:00:00, and it commits at 10:00:04 later.")
	require.Len(t, runs, 1)

	runs, _ = ix.shared("A transaction begins at 10:00:00, and then stops.")
	require.Equal(t, []string{"a transaction begins at 10 00 00 and"}, runs, "one word of prose among the figures makes the run count")

	require.Equal(t, []string{"don't", "stop", "10", "00", "04", "t1"}, words("Don’t 'stop' — 10:00:04 (T1)"))
}

func TestParaphrase(t *testing.T) {
	px := &paraphraseIndex{}
	px.add("seed", "Whether an output write happens once depends on the sink being transactional or the write being idempotent.\n"+
		"Offsets, LSNs and timestamps.\n"+
		"13 WHEN NOT MATCHED THEN INSERT VALUES (s.order_id, s.order_date, s.customer_id, s.amount_minor);")

	seed, ok := px.paraphraseOf("Whether a written row appears once depends on a transactional sink or an idempotent write.")
	require.True(t, ok, "words swapped for synonyms, the sentence kept: a paraphrase")
	require.Equal(t, "Whether an output write happens once depends on the sink being transactional or the write being idempotent.", seed.text)

	_, ok = px.paraphraseOf("Only a sink with transactions, or writes that can be repeated without harm, keep rows from appearing twice.")
	require.False(t, ok, "the same fact in a sentence of our own")

	_, ok = px.paraphraseOf("Offsets, LSNs and timestamps are the three kinds of mark this lesson compares.")
	require.False(t, ok, "a seed sentence of fewer than minShared content words is vocabulary, not a sentence")

	_, ok = px.paraphraseOf("INSERT (order_id, customer_id, order_date, amount_minor, source_lsn)")
	require.False(t, ok, "column names are the schema's, not prose")

	require.Equal(t, []string{"One sentence", "Two", "a cell", "another cell", "and a line"},
		sentences("One sentence. Two: a cell | another cell\nand a line"))
	require.Equal(t, map[string]bool{"committ": true, "row": true}, contentWords("committing the rows, committed, 10:00:04, row_id"))
}
