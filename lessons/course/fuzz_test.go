package course

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"
)

// FuzzChapter feeds arbitrary text to the lesson reader as a chapter file:
// it must never panic, and every problem it reports must name that file and
// a line and column inside it.
func FuzzChapter(f *testing.F) {
	for _, name := range []string{"01-one.md", "02-two.md"} {
		f.Add(fixture[name])
	}
	for _, s := range []string{
		"# T\n\n## S {#s}\n\n::: embed hwm/ties step=\n:::\n",
		"# T\n\n## S {#s}\n\n::: predict p\nscenario: hwm/ties\noption a: x\nclaim: missing-count 1..\n  in hwm/ties\n:::\n",
		"# T\n\n## S {#s}\n\n::: checks\nrow: r\ncaught: hwm/ties focus=\"gap-scan\nmissed:\n:::\n",
		"# T\n\n## S {#s}\n\n:::plot p\nx-labels: a=\"b\\\" c=\n:::\n",
		"# T\n\n## S {#s seed=\"a|b\" x=1}\n\n{a|} {|b} {a|b|c} {{a}} **{a}**\n",
		"# T\n\n## S {#s}\n\n| a |\n|---|\n\nTable:\n\n:::\n:::note\n\ttext:\n:::",
		":::\n::: \n:::a\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, chapter string) {
		if !utf8.ValidString(chapter) || len(chapter) > 1<<14 {
			return
		}
		fsys := fstest.MapFS{}
		for name, body := range fixture {
			fsys["t/"+name] = &fstest.MapFile{Data: []byte(body)}
		}
		fsys["t/02-two.md"] = &fstest.MapFile{Data: []byte(chapter)}
		lines := strings.Count(chapter, "\n") + 1
		_, err := Load(fsys, "lessons/text", []string{"t"})
		if err == nil {
			return
		}
		var es Errors
		if !errors.As(err, &es) {
			t.Fatalf("not an Errors list: %v", err)
		}
		for _, e := range es {
			if e.Pos.File == "lessons/text/t/02-two.md" && (e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.Col < 0) {
				t.Fatalf("%v: position outside the file (%d lines)", e, lines)
			}
			if !strings.HasPrefix(e.Pos.File, "lessons/text/t") {
				t.Fatalf("%v: names no file of the lesson", e)
			}
		}
	})
}

// FuzzDirective feeds arbitrary header and body text to the directive
// reader and the tokenizer: no panics, and positions stay on their lines.
func FuzzDirective(f *testing.F) {
	f.Add("embed hwm/ties predicate=gte step=3", "caption: x\n  more\n")
	f.Add("predict p", "option a: x\nclaim: clean in hwm/ties sink=merge\nanswer: a, b\n")
	f.Add("note \"Two words\"", "text: \"quoted\" = \\\n\n\t cont\n")
	f.Add("x=\"unclosed", ":\n a:b\nname arg extra: v\n")
	f.Fuzz(func(t *testing.T, header, body string) {
		if !utf8.ValidString(header) || !utf8.ValidString(body) || strings.ContainsAny(header, "\n\r") {
			return
		}
		e := &errs{}
		at := func(off int) Pos { return Pos{File: "f", Line: 1, Col: 4 + off} }
		var lines []bodyLine
		for i, l := range strings.Split(body, "\n") {
			lines = append(lines, bodyLine{text: l, pos: Pos{File: "f", Line: i + 2, Col: 1}})
		}
		d, ok := readDirective(header, at, lines, e)
		if ok && d == nil {
			t.Fatal("ok without a directive")
		}
		for _, x := range e.list {
			if x.Pos.Line < 1 || x.Pos.Line > len(lines)+1 {
				t.Fatalf("%v: line out of range", x)
			}
		}
		if d == nil {
			return
		}
		ts, _ := tokens(d.args, d.argsAt, e)
		for _, tk := range ts {
			if tk.off < 0 || tk.off > len(d.args) {
				t.Fatalf("token %+v outside %q", tk, d.args)
			}
		}
		r := &reader{e: e, gl: map[string]Term{}, src: newSource("f", []byte(body))}
		for _, fl := range d.fields {
			if fl.at(len(fl.value)).Line < fl.pos.Line {
				t.Fatalf("field %q: its value ends before it starts", fl.name)
			}
			r.claim(fl)
			r.inline(fl)
		}
	})
}
