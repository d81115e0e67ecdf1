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
//   - the Go source of this package, of engine/check, of the chain builder
//     (lessons/chain, web/chainpage) and of the lesson and chain pages'
//     views (tests excluded): its string literals, unquoted, and its
//     comments;
//   - every bundled scenario (lessons/scenarios/**/*.tdm);
//   - docs/*.md and README.md;
//   - the pages' templ files and the lesson and chain builder's scripts.
//
// A run found in several places is listed once, with every place.
const minRun = 8

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
	for _, f := range seedFiles {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		ix.add(filepath.Base(f), string(b))
	}

	found := map[string][]string{} // run → places, "seed: run" as key
	var order []string
	record := func(place, text string) {
		runs, seeds := ix.shared(text)
		for i, r := range runs {
			k := seeds[i] + ": \"" + r + "\""
			if _, ok := found[k]; !ok {
				order = append(order, k)
			}
			if !slices.Contains(found[k], place) {
				found[k] = append(found[k], place)
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
	// The Go that holds what the pages say: the course and the checks, the
	// chain builder's hops and options, and the lesson and chain pages' views.
	var goFiles []string
	for _, p := range slices.Concat(glob("lessons/course/*.go"), glob("engine/check/*.go"), glob("lessons/chain/*.go"),
		glob("web/chainpage/*.go"), glob("web/lessonpage/*.go"), glob("templates/chainview.go"), glob("templates/lesson/view.go")) {
		if !strings.HasSuffix(p, "_test.go") {
			goFiles = append(goFiles, p)
		}
	}
	require.NotEmpty(t, goFiles)
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
	// The pages' own words: the templ files and the lesson and chain
	// builder's scripts.
	plain = append(plain, glob("templates/*.templ")...)
	plain = append(plain, glob("templates/lesson/*.templ")...)
	plain = append(plain, glob("web/static/lesson.js")...)
	plain = append(plain, glob("web/static/chain.js")...)
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
		fmt.Fprintf(&b, "%d runs of %d or more words are copied from a source document; say them in our own words:\n", len(order), minRun)
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

	runs, _ = ix.shared("Everything downstream inherits the weakest promise in the")
	require.Equal(t, []string{"everything downstream inherits the weakest promise in the"}, runs, "exactly minRun words is a run")

	runs, _ = ix.shared("Everything downstream inherits the weakest promise in")
	require.Empty(t, runs, "seven words are not")

	ix.add("table", "T1 10:00:00 10:00:00 yes T2 10:00:01 10:00:01 yes")
	runs, _ = ix.shared("In our table: T1, 10:00:00, 10:00:00, yes; T2, 10:00:01, 10:00:01, yes.")
	require.Empty(t, runs, "figures and function words alone are facts, not prose")

	runs, _ = ix.shared("The write began at 10:00:00, and it commits at 10:00:04 later.")
	require.Len(t, runs, 1)

	runs, _ = ix.shared("A transaction begins at 10:00:00, and then stops.")
	require.Equal(t, []string{"a transaction begins at 10 00 00 and"}, runs, "one word of prose among the figures makes the run count")

	require.Equal(t, []string{"don't", "stop", "10", "00", "04", "t1"}, words("Don’t 'stop' — 10:00:04 (T1)"))
}
