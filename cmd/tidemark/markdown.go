package main

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/tidemark/tidemark/engine/scenario"
)

// A Markdown file holds scenarios in fenced code blocks whose info string
// starts with tdm:
//
//	```tdm
//	scenario docs/late-commit "A late commit falls behind the mark"
//	...
//	```
//
// A block whose first command is `scenario` is a whole scenario. A block
// without one is a fragment of the last whole scenario above it in the same
// file (its preamble): the two are read as one file, except that a fragment
// declaring a source, a target or a pipeline replaces every preamble line of
// that kind, and that only the fragment's own expect lines are checked with
// it. That is how docs/scenarios.md shows one command at a time.
//
// Every position stays the Markdown file's own: a block's lines are parsed at
// their line numbers, with whatever stands before the block's text on a line
// (indentation, a list item's or a quote's markers) turned into spaces, so a
// column is the column in the Markdown file too.

// mdBlock is one tdm block of a Markdown file.
type mdBlock struct {
	fence int      // line of the opening fence
	first int      // line of the block's first line of text
	lines []string // the block's lines, each padded to its Markdown columns
	whole bool     // the block has its own scenario line
}

// lineIndex returns the byte offset of each line's start in src, and a
// function giving the line number (from 1) of a byte offset.
func lineIndex(src []byte) (starts []int, lineOf func(off int) int) {
	starts = []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts, func(off int) int {
		i, found := slices.BinarySearch(starts, off)
		if !found {
			i--
		}
		return i + 1
	}
}

// miscasedFences returns the lines of the fences of a Markdown document
// whose language is tdm in another case (TDM, Tdm): a Markdown reader
// takes the language as written, so such a block is not a tdm block and
// nothing checks it, though its author meant it to be checked.
func miscasedFences(src []byte) []int {
	_, lineOf := lineIndex(src)
	var out []int
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if fb, ok := n.(*ast.FencedCodeBlock); entering && ok && fb.Info != nil {
			if lang := string(fb.Language(src)); lang != "tdm" && strings.EqualFold(lang, "tdm") {
				out = append(out, lineOf(fb.Info.Segment.Start))
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// markdownBlocks finds the tdm blocks of a Markdown document, in order.
func markdownBlocks(src []byte) []mdBlock {
	starts, lineOf := lineIndex(src)
	var out []mdBlock
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fb, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok || fb.Info == nil || string(fb.Language(src)) != "tdm" {
			return ast.WalkContinue, nil
		}
		b := mdBlock{fence: lineOf(fb.Info.Segment.Start)}
		segs := fb.Lines()
		for i := 0; i < segs.Len(); i++ {
			seg := segs.At(i)
			line := lineOf(seg.Start)
			if b.first == 0 {
				b.first = line
			}
			for b.first+len(b.lines) < line {
				b.lines = append(b.lines, "")
			}
			lead := utf8.RuneCount(src[starts[line-1]:seg.Start])
			body := strings.TrimRight(string(seg.Value(src)), "\r\n")
			b.lines = append(b.lines, strings.Repeat(" ", lead)+body)
		}
		b.whole = firstWord(b.lines) == "scenario"
		out = append(out, b)
		return ast.WalkSkipChildren, nil
	})
	return out
}

// firstWord is the command word of the first line that holds a command.
func firstWord(lines []string) string {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' {
			continue
		}
		w, _, _ := strings.Cut(l, " ")
		w, _, _ = strings.Cut(w, "\t")
		return w
	}
	return ""
}

// place writes lines into a file's text at their line numbers, starting at first.
func place(text []string, first int, lines []string) []string {
	for len(text) < first-1+len(lines) {
		text = append(text, "")
	}
	copy(text[first-1:], lines)
	return text
}

// mdScenario is a scenario read from a Markdown file, or the error that
// stopped reading it, and the line its block starts at.
type mdScenario struct {
	file *scenario.File
	err  error
	line int
}

// markdownScenarios parses every tdm block of a Markdown file into a
// scenario, reporting errors at the Markdown file's positions. A block that
// does not parse does not stop the blocks after it; a whole scenario that
// does not parse is still the preamble of the fragments below it, which
// then report its error too. A file without tdm blocks holds no scenarios.
func markdownScenarios(name string, src []byte) []mdScenario {
	var out []mdScenario
	var preamble *mdBlock
	for _, b := range markdownBlocks(src) {
		s := mdScenario{line: b.first}
		switch {
		case firstWord(b.lines) == "":
			s.line = b.fence
			s.err = scenario.Errorf(scenario.Pos{File: name, Line: b.fence, Col: 1}, "this tdm block holds no commands; write a scenario in it, or tag it as text")
		case b.whole:
			s.file, s.err = scenario.Parse(name, []byte(strings.Join(place(nil, b.first, b.lines), "\n")))
			preamble = &b
		case preamble == nil:
			s.err = scenario.Errorf(scenario.Pos{File: name, Line: b.first, Col: 1},
				"this tdm block has no `scenario` line and no whole scenario above it to continue; start it with `scenario ID \"Title\"`")
		default:
			s.file, s.err = fragment(name, preamble, b)
		}
		out = append(out, s)
	}
	return out
}

// fragment reads a block without a scenario line as the preamble's
// continuation: the preamble's lines, less those of the kinds the fragment
// declares itself, then the fragment's, with declarations first so that
// what a line names is declared before it.
func fragment(name string, preamble *mdBlock, b mdBlock) (*scenario.File, error) {
	text := place(place(nil, preamble.first, preamble.lines), b.first, b.lines)
	f, err := scenario.Parse(name, []byte(strings.Join(text, "\n")))
	if err != nil {
		return nil, err
	}
	own := func(c scenario.Command) bool { return c.Pos.Line >= b.first }
	replaced := map[string]bool{}
	for _, c := range f.Commands {
		if own(c) && (c.Name == "source" || c.Name == "target" || c.Name == "pipeline") {
			replaced[c.Name] = true
		}
	}
	// The preamble's expectations are checked with the preamble; a
	// fragment's are its own.
	f.Commands = slices.DeleteFunc(f.Commands, func(c scenario.Command) bool { return !own(c) && (replaced[c.Name] || c.Name == "expect") })
	slices.SortStableFunc(f.Commands, func(a, b scenario.Command) int { return cmp.Compare(declarationRank(a.Name), declarationRank(b.Name)) })
	return f, nil
}

// declarationRank orders a fragment's commands: what is named comes before
// what names it (a clock before a table, a table before a pipeline reading
// it); every schedule and check keeps its order after them.
func declarationRank(command string) int {
	switch command {
	case "clock":
		return 0
	case "source", "topic":
		return 1
	case "target":
		return 2
	case "pipeline", "cdc", "publish", "producer", "group":
		return 3
	}
	return 4
}
