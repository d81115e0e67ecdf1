package scenario_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidemark/tidemark/engine/scenario"
)

// FuzzParse: Parse never panics, and every error is a *scenario.Error whose
// position lies inside the input. The seed corpus in testdata/fuzz/FuzzParse
// holds every bundled scenario and broken variants of them.
func FuzzParse(f *testing.F) {
	f.Add("scenario a/b \"T\"\nknob k = x | y\nrun p at=$k\n")
	f.Fuzz(func(t *testing.T, src string) {
		file, err := scenario.Parse("fuzz.tdm", []byte(src))
		if err == nil {
			if file == nil || file.ID == "" || file.Title == "" {
				t.Fatalf("Parse succeeded with an empty id or title: %+v", file)
			}
			for _, k := range file.Knobs {
				if k.Default != k.Values[0] {
					t.Fatalf("knob %s default %q is not its first value", k.Name, k.Default)
				}
			}
			return
		}
		var se *scenario.Error
		if !errors.As(err, &se) {
			t.Fatalf("error is %T, not *scenario.Error: %v", err, err)
		}
		if file != nil {
			t.Fatalf("Parse returned a file with an error")
		}
		if se.Pos.File != "fuzz.tdm" {
			t.Fatalf("error names file %q", se.Pos.File)
		}
		lines := strings.Split(src, "\n")
		if se.Pos.Line < 1 || se.Pos.Line > len(lines) {
			t.Fatalf("error line %d outside 1..%d: %v", se.Pos.Line, len(lines), err)
		}
		line := lines[se.Pos.Line-1]
		width := utf8.RuneCountInString(line) // an invalid byte counts as one column
		if se.Pos.Col < 1 || se.Pos.Col > width+1 {
			t.Fatalf("error column %d outside 1..%d on line %q: %v", se.Pos.Col, width+1, line, err)
		}
	})
}
