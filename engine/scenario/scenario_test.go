package scenario_test

import (
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/scenario"
)

const header = "scenario test/x \"Title\"\n"

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, pos, msg string
	}{
		{"missing header", "source orders key=order_id\n", "f.tdm:1:1", "expected the first command to be `scenario ID \"Title\"`"},
		{"empty file", "# only a comment\n\n", "f.tdm:1:1", "the file has no commands"},
		{"header after a blank and comment", "\n# c\n  source orders\n", "f.tdm:3:3", `found "source"`},
		{"two headers", header + "scenario test/y \"Again\"\n", "f.tdm:2:1", "this file already has one"},
		{"bad id", "scenario Test/X \"T\"\n", "f.tdm:1:10", "expected a scenario id of lower-case words"},
		{"missing title", "scenario test/x\n", "f.tdm:1:16", "expected a quoted title after the id"},
		{"words after the title", "scenario test/x \"T\" extra\n", "f.tdm:1:21", `unexpected "extra" after the title`},
		{"unquoted title", "scenario test/x Title\n", "f.tdm:1:17", "expected a quoted title"},
		{"unterminated quote", header + "about \"never closed\n", "f.tdm:2:7", "the quoted string is not closed"},
		{"unterminated quoted value", header + "target t sink=\"merge\n", "f.tdm:2:15", "the quoted string is not closed"},
		{"bad escape", header + "about \"a\\nb\"\n", "f.tdm:2:9", `expected \" or \\ after a backslash`},
		{"empty value", header + "source orders key= clock=x\n", "f.tdm:2:19", "expected a value after key="},
		{"no space after quote", header + "about \"x\"y\n", "f.tdm:2:10", `expected a space after "\"x\""`},
		{"spaces around =", header + "run extract at = 10:00:02\n", "f.tdm:2:16", `expected no spaces around "=": write at=10:00:02`},
		{"space before =", header + "run extract at =10:00:02\n", "f.tdm:2:16", `expected no space before "=": write at=10:00:02`},
		{"= with no key", header + "run =10:00:02\n", "f.tdm:2:5", `expected a name before "=" with no space between, as in KEY=VALUE`},
		{"a lone = at the end", header + "run extract at=10:00:02 =\n", "f.tdm:2:25", `expected no spaces around "=", as in KEY=VALUE`},
		{"line starts with key=value", header + "  key=v\n", "f.tdm:2:3", "expected a command word at the start of the line"},
		{"line starts with a digit", header + "9lives x\n", "f.tdm:2:1", `a name such as source, found "9lives"`},
		{"about twice-worded", header + "about one two\n", "f.tdm:2:1", "expected `about \"text\"`"},
		{"knob without values", header + "knob mark\n", "f.tdm:2:1", "expected `knob NAME = value | value ...`"},
		{"knob trailing bar", header + "knob mark = a | b |\n", "f.tdm:2:19", "expected a value after the last |"},
		{"knob double bar", header + "knob mark = a || b\n", "f.tdm:2:16", `expected a value, found "|"`},
		{"knob missing bar", header + "knob mark = a b\n", "f.tdm:2:15", "expected | between values"},
		{"knob repeated value", header + "knob mark = a | a\n", "f.tdm:2:17", `value "a" is listed twice`},
		{"knob bad name", header + "knob 9x = a | b\n", "f.tdm:2:6", "expected a knob name"},
		{"knob bad value", header + "knob x = a | b*c\n", "f.tdm:2:14", "expected a knob value of letters"},
		{"knob label not last", header + "knob x = a \"label\" | b\n", "f.tdm:2:20", "the label comes last"},
		{"duplicate knob", header + "knob mark = a | b\nknob mark = c | d\n", "f.tdm:3:6", `knob "mark" is already declared at f.tdm:2:6`},
		{"unknown $knob", header + "knob mark = a | b\npipeline p from=o mark=$mrak\n", "f.tdm:3:24", "unknown knob $mrak; declared knobs: $mark"},
		{"unknown $knob mid-value", header + "run p at=10:00:0$sec\n", "f.tdm:2:17", "unknown knob $sec; declared knobs: none"},
		{"unknown $knob in quotes", header + "x y=\"ab$zz\"\n", "f.tdm:2:8", "unknown knob $zz"},
		{"invalid utf-8", header + "about \"ok\"\nx \xff\n", "f.tdm:3:3", "not valid UTF-8"},
		{"columns count characters", header + "about \"é\"\"\n", "f.tdm:2:10", "expected a space after"},
		{"no-break space between words", header + "pipeline extract from=orders\u00a0to=fct\n", "f.tdm:2:29", "a no-break space (U+00A0) here looks like a space but is not one"},
		{"no-break space after the command", header + "run extract\u00a0at=10:00:02\n", "f.tdm:2:12", "a no-break space (U+00A0)"},
		{"a doubled carriage return", header + "run extract at=10:00:02\r\r\n", "f.tdm:2:24", "a carriage return (U+000D) here ends no line: save the file with LF or CRLF line endings"},
		{"old Mac line endings", "scenario x/y \"Y\"\rsource orders\r", "f.tdm:1:17", "a carriage return (U+000D) here ends no line"},
		{"zero-width space in a key", header + "source orders key\u200b=order_id\n", "f.tdm:2:18", "an invisible character (U+200B)"},
		{"ideographic space", header + "source\u3000orders\n", "f.tdm:2:7", "a Unicode space (U+3000)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := scenario.Parse("f.tdm", []byte(tc.src))
			require.Error(t, err)
			assert.Nil(t, f)
			var se *scenario.Error
			require.True(t, errors.As(err, &se), "want *scenario.Error, got %T", err)
			assert.Equal(t, tc.pos, se.Pos.String(), "position of: %v", err)
			assert.Contains(t, se.Msg, tc.msg)
			assert.True(t, strings.HasPrefix(err.Error(), tc.pos+": "), "error should read file:line:col: message, got %q", err)
		})
	}
}

func TestParse(t *testing.T) {
	src := `# a comment
scenario hwm/demo "A \"quoted\" title" # trailing comment
about "First part."
about "Second part."
knob mark = timestamp | lsn "What the mark holds"
knob predicate=gt|gte

source orders key=order_id	clock=source
pipeline extract from=orders mark=$mark predicate=$predicate note="a b=c"
`
	f, err := scenario.Parse("demo.tdm", []byte(src))
	require.NoError(t, err)
	assert.Equal(t, "hwm/demo", f.ID)
	assert.Equal(t, `A "quoted" title`, f.Title)
	assert.Equal(t, "First part. Second part.", f.About)
	assert.Equal(t, src, f.Source)
	require.Len(t, f.Knobs, 2)
	assert.Equal(t, scenario.Knob{Name: "mark", Label: "What the mark holds", Values: []string{"timestamp", "lsn"}, Default: "timestamp",
		Pos: scenario.Pos{File: "demo.tdm", Line: 5, Col: 6}}, f.Knobs[0])
	assert.Equal(t, []string{"gt", "gte"}, f.Knobs[1].Values)
	assert.Equal(t, "gt", f.Knobs[1].Default)

	require.Len(t, f.Commands, 2)
	src0 := f.Commands[0]
	assert.Equal(t, "source", src0.Name)
	assert.Equal(t, scenario.Pos{File: "demo.tdm", Line: 8, Col: 1}, src0.Pos)
	require.Len(t, src0.Args, 3)
	assert.Equal(t, scenario.Arg{Value: "orders", Pos: scenario.Pos{"demo.tdm", 8, 8}, ValuePos: scenario.Pos{"demo.tdm", 8, 8}}, src0.Args[0])
	assert.Equal(t, scenario.Arg{Key: "key", Value: "order_id", Pos: scenario.Pos{"demo.tdm", 8, 15}, ValuePos: scenario.Pos{"demo.tdm", 8, 19}}, src0.Args[1])
	assert.Equal(t, "clock", src0.Args[2].Key)
	assert.Equal(t, 28, src0.Args[2].Pos.Col, "a tab counts as one column")

	p := f.Commands[1]
	last := p.Args[len(p.Args)-1]
	assert.Equal(t, "note", last.Key)
	assert.Equal(t, "a b=c", last.Value)
	assert.True(t, last.Quoted)

	// Resolve fills defaults, applies choices, and refuses unknowns.
	s, err := f.Resolve(nil)
	require.NoError(t, err)
	assert.Equal(t, scenario.Settings{"mark": "timestamp", "predicate": "gt"}, s)
	s, err = f.Resolve(map[string]string{"mark": "lsn"})
	require.NoError(t, err)
	assert.Equal(t, scenario.Settings{"mark": "lsn", "predicate": "gt"}, s)
	_, err = f.Resolve(map[string]string{"mark": "sundial"})
	require.EqualError(t, err, `knob mark cannot be "sundial"; expected one of timestamp | lsn`)
	_, err = f.Resolve(map[string]string{"colour": "red"})
	require.EqualError(t, err, `scenario hwm/demo has no knob "colour" (knobs: mark, predicate)`)

	// Bind substitutes knob values without touching the parsed file.
	bound := f.Bind(scenario.Settings{"mark": "lsn", "predicate": "gte"})
	assert.Equal(t, "lsn", bound[1].Args[2].Value)
	assert.Equal(t, "gte", bound[1].Args[3].Value)
	assert.Equal(t, "$mark", f.Commands[1].Args[2].Value, "Bind must not change the file's own commands")
}

// TestNoBreakSpaceInAQuotedString: inside quotes a no-break space is text.
func TestNoBreakSpaceInAQuotedString(t *testing.T) {
	f, err := scenario.Parse("f.tdm", []byte("scenario a/b \"Late\u00a0commits\"\n"))
	require.NoError(t, err)
	assert.Equal(t, "Late\u00a0commits", f.Title)
}

func TestParseCRLF(t *testing.T) {
	f, err := scenario.Parse("w.tdm", []byte("scenario a/b \"T\"\r\nsource orders\r\n"))
	require.NoError(t, err)
	require.Len(t, f.Commands, 1)
	assert.Equal(t, "orders", f.Commands[0].Args[0].Value)
}

// TestParseByteOrderMark: a file an editor saved with a UTF-8 byte order
// mark reads as the same file without it, as in the browser; a mark later
// in the text is still an error.
func TestParseByteOrderMark(t *testing.T) {
	f, err := scenario.Parse("w.tdm", []byte("\ufeffscenario a/b \"T\"\r\nsource orders\r\n"))
	require.NoError(t, err)
	assert.Equal(t, "a/b", f.ID)
	assert.Equal(t, "scenario a/b \"T\"\r\nsource orders\r\n", f.Source)
	_, err = scenario.Parse("w.tdm", []byte("scenario a/b \"T\"\n\ufeffsource orders\n"))
	assert.ErrorContains(t, err, "w.tdm:2:1:")
}

// TestErrorsClipWhatTheyRepeat holds an error to a short quote of a long
// value: a 28 KB duration is named by its start and its length, not echoed.
func TestErrorsClipWhatTheyRepeat(t *testing.T) {
	long := strings.Repeat("1000000000h", 2600)
	err := scenario.Errorf(scenario.Pos{File: "f.tdm", Line: 3, Col: 9}, "expected a duration such as 5s, found %q", long)
	assert.Equal(t, `f.tdm:3:9: expected a duration such as 5s, found "1000000000h1000000000h1000000000h1000000000h1000000000h10000… (28600 bytes)"`, err.Error())
	short := scenario.Errorf(scenario.Pos{File: "f.tdm", Line: 1, Col: 1}, "found %q", "5 minutes")
	assert.Equal(t, `f.tdm:1:1: found "5 minutes"`, short.Error())
	wide := strings.Repeat("é", 50) // two bytes each: the cut keeps whole characters
	assert.Equal(t, `f.tdm:1:1: found "`+strings.Repeat("é", 30)+`… (100 bytes)"`, scenario.Errorf(scenario.Pos{File: "f.tdm", Line: 1, Col: 1}, "found %q", wide).Error())
}

// TestAppendKeys reads key lists as every world writes them: single keys,
// ranges, a NAME: prefix where the caller allows it, a suffix, and a limit
// it refuses before spelling anything, with ranges at the edges of int64.
func TestAppendKeys(t *testing.T) {
	arg := func(v string) scenario.Arg {
		return scenario.Arg{Key: "keys", Value: v, ValuePos: scenario.Pos{File: "k.tdm", Line: 2, Col: 6}}
	}
	got, err := scenario.AppendKeys(nil, arg("3,7..9"), "3,7..9", 10, false, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"3", "7", "8", "9"}, got)
	got, err = scenario.AppendKeys([]string{"x"}, arg("fct:1..2,5"), "fct:1..2,5", 10, true, "x2")
	require.NoError(t, err)
	assert.Equal(t, []string{"x", "fct:1x2", "fct:2x2", "5x2"}, got)
	got, err = scenario.AppendKeys(nil, arg("9223372036854775806..9223372036854775807"), "9223372036854775806..9223372036854775807", 10, false, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"9223372036854775806", "9223372036854775807"}, got, "a range ending at MaxInt64 ends")
	_, err = scenario.AppendKeys(nil, arg("1..5"), "1..5", 4, false, "")
	assert.ErrorIs(t, err, scenario.ErrTooManyKeys)
	_, err = scenario.AppendKeys(nil, arg("a:1..2"), "a:1..2", 10, false, "")
	assert.EqualError(t, err, `k.tdm:2:6: expected a key range such as 90..94 (whole numbers, at most 100000 keys), found "a:1..2"`, "no prefix unless allowed")
	_, err = scenario.AppendKeys(nil, arg("1,,2"), "1,,2", 10, false, "")
	assert.EqualError(t, err, `k.tdm:2:6: expected keys separated by commas, found an empty one in "1,,2"`)
}

// KnobSettings lists every combination of the knobs' values, the first
// knob varying slowest, every knob at its first value first.
func TestKnobSettings(t *testing.T) {
	f, err := scenario.Parse("c.tdm", []byte("scenario t/c \"C\"\nknob a = x | y\nknob b = 1 | 2 | 3\n"))
	require.NoError(t, err)
	got := f.KnobSettings()
	require.Len(t, got, 6)
	assert.Equal(t, map[string]string{"a": "x", "b": "1"}, got[0], "the defaults first")
	assert.Equal(t, map[string]string{"a": "x", "b": "2"}, got[1], "the last knob varies fastest")
	assert.Equal(t, map[string]string{"a": "y", "b": "3"}, got[5])
	none, err := scenario.Parse("n.tdm", []byte("scenario t/n \"N\"\n"))
	require.NoError(t, err)
	assert.Equal(t, []map[string]string{{}}, none.KnobSettings(), "no knobs: one setting, empty")
}

// TestParseDayTime: a scenario's times are within its one simulated day;
// 25:00:04, a typo for 15:00:04 or 23:00:04, is refused, not run.
func TestParseDayTime(t *testing.T) {
	got, err := scenario.ParseDayTime("23:59:59.999")
	require.NoError(t, err)
	assert.Equal(t, "23:59:59.999", got.String())
	for _, bad := range []string{"24:00:00", "25:00:04", "99:59:59"} {
		_, err := scenario.ParseDayTime(bad)
		assert.ErrorContains(t, err, "past the end of the day", bad)
	}
	_, err = scenario.ParseDayTime("10:00:6")
	assert.Error(t, err)
}

// TestOddSpacesAreUnicodesSpaces: the spaces the reader names are exactly
// unicode.IsSpace's, less the space and the tab that separate words (and
// the line breaks, which end a line before it is read).
func TestOddSpacesAreUnicodesSpaces(t *testing.T) {
	for r := rune(0); r <= 0x10ffff; r++ {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			continue
		}
		_, odd := scenario.OddSpace(r)
		if unicode.IsSpace(r) {
			assert.True(t, odd, "U+%04X is a space", r)
		} else if odd {
			assert.Contains(t, []rune{'\u200b', '\u2060', '\ufeff'}, r, "U+%04X is no space", r)
		}
	}
}

// TestKnobSets: Bind marks the values a knob sets, and KnobSets reads the
// mark by key.
func TestKnobSets(t *testing.T) {
	f, err := scenario.Parse("k.tdm", []byte("scenario t/k \"K\"\nknob mark = lsn | timestamp\npipeline p from=o to=t mark=$mark overlap=5s\n"))
	require.NoError(t, err)
	s, err := f.Resolve(nil)
	require.NoError(t, err)
	c := f.Bind(s)[0]
	assert.True(t, scenario.KnobSets(c, "mark"))
	assert.False(t, scenario.KnobSets(c, "overlap"), "a literal value")
	assert.False(t, scenario.KnobSets(c, "initial"), "no such argument")
}
