package templates

import (
	"strconv"

	"github.com/tidemark/tidemark/lessons/course"
)

// LessonView is a lesson page: the lesson's content, plus what the engine
// computed for it at render time — every embedded scenario's outcome and
// every prediction's answer key.
type LessonView struct {
	Layout LayoutView
	Lesson *course.Lesson
	// Embeds holds the outcome of each embed, keyed by EmbedKey.
	Embeds map[string]EmbedView
	// Answers holds the engine's answer to each prediction, by prediction id.
	Answers map[string]course.Answer
}

// EmbedKey identifies an embed by its scenario, knobs and focus.
func EmbedKey(e course.Embed) string {
	return e.Scenario + "?" + course.KnobQuery(e.Knobs) + "#" + e.Focus
}

// Embed returns the view of e; ok is false when the page was built without it.
func (v LessonView) Embed(e course.Embed) (EmbedView, bool) {
	ev, ok := v.Embeds[EmbedKey(e)]
	return ev, ok
}

// EmbedView is one scenario shown in a lesson: its outcome, computed by the
// engine on the server, and a link to the full playground. ScenarioEmbed
// draws it; the interactive widget will take its place there.
type EmbedView struct {
	ID      string
	Title   string
	About   string
	Caption string // inline markup
	Knobs   []KnobSetting
	Href    string // the playground with these knobs
	Missing string // "none" or "3, 4"
	Dupes   string
	Stale   string
	Checks  []EmbedCheck
	Focus   string   // the check the text is about, or ""
	Steps   []string // the timeline as sentences: "10:00:02 extract reads …"
}

// KnobSetting is one knob and the value an embed uses.
type KnobSetting struct {
	Name, Label, Value string
	Default            bool
}

// FocusLine returns the focused check's line, if the embed has one.
func (e EmbedView) FocusLine() (EmbedCheck, bool) {
	for _, c := range e.Checks {
		if c.Name == e.Focus {
			return c, true
		}
	}
	return EmbedCheck{}, false
}

// EmbedCheck is one check's verdict at the end of an embedded scenario.
type EmbedCheck struct {
	Name, Status, Detail, Catches, Misses string
}

// StatusText is the verdict in words, so it never rests on colour alone.
func (c EmbedCheck) StatusText() string {
	switch c.Status {
	case "pass":
		return "✓ pass"
	case "fail":
		return "✗ fail"
	}
	return "– not run"
}

func itoa(n int) string { return strconv.Itoa(n) }
