package widget

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// actions are the learner actions FuzzSessionActs plays, in the order its
// opcodes name them.
var actions = []string{
	"seek", "truth", "explain", "text", "steps", "present", "drawn", "fill",
	"knob", "settings", "undo", "crash", "jump", "add-partition", "pause",
	"stall", "delay", "burst", "producer-clock", "fail", "slow", "burst-key",
}

// names is what a scenario's trace names, for the fuzz target's arguments:
// the names a learner's controls would send, so that most actions are
// taken and the run forks.
type names struct {
	topics, groups, producers, streams []string
	parts                              []int // each stream's partition count
	knobs                              [][2]string
}

func namesOf(s *Session) names {
	var n names
	if lt := logs.Of(s.trace); lt != nil {
		for _, t := range lt.Topics {
			n.topics = append(n.topics, t.Name)
		}
		for _, g := range lt.Groups {
			n.groups = append(n.groups, g.Name)
		}
		for _, p := range lt.Producers {
			n.producers = append(n.producers, p.Name)
		}
	}
	if st := stream.Of(s.trace); st != nil {
		for _, sh := range st.Streams {
			n.streams = append(n.streams, sh.Name)
			n.parts = append(n.parts, len(sh.Parts))
		}
		for _, op := range st.Ops {
			n.streams = append(n.streams, op.Name)
			n.parts = append(n.parts, 1)
		}
	}
	for _, k := range s.file.Knobs {
		for _, v := range k.Values {
			n.knobs = append(n.knobs, [2]string{k.Name, v})
		}
	}
	return n
}

// choose returns xs[b mod len(xs)], or "x" when xs is empty.
func choose(xs []string, b byte) string {
	if len(xs) == 0 {
		return "x"
	}
	return xs[int(b)%len(xs)]
}

// argFor makes the argument of action from two bytes and, for the actions
// that read text a page or a link could send, the fuzzer's own text.
func argFor(s *Session, n names, action string, b1, b2 byte, text string) string {
	lengths := []string{"10s", "30s", "1m", "3m", "0s", "-5s"}
	switch action {
	case "seek", "fill":
		return strconv.Itoa(int(b1)*int(b2)%(s.trace.Steps()+3) - 1)
	case "truth", "text", "steps":
		return choose([]string{"on", "off"}, b1)
	case "present":
		return choose([]string{"on", "notes", ""}, b1)
	case "explain":
		return choose([]string{"", "1", "2", "3", text}, b1)
	case "knob":
		if len(n.knobs) == 0 {
			return "mark=" + text
		}
		k := n.knobs[int(b1)%len(n.knobs)]
		return k[0] + "=" + k[1]
	case "settings":
		return text
	case "jump":
		return choose([]string{"-5s", "+1m", "30s", "0s", "2d", text}, b1) + choose([]string{"", " source", " " + choose(n.producers, b2)}, b2)
	case "add-partition":
		return choose(append(n.topics, text), b1)
	case "pause":
		return choose(n.groups, b1) + choose([]string{"", " 30s", " 1m", " 0s"}, b2)
	case "stall", "delay":
		i := int(b1) % max(1, len(n.streams))
		parts := 1
		if i < len(n.parts) {
			parts = max(1, n.parts[i])
		}
		return choose(n.streams, b1) + " " + strconv.Itoa(int(b2)%(parts+1)) + " " + choose(lengths, b2>>4)
	case "burst", "producer-clock":
		return choose(n.producers, b1)
	case "fail":
		return choose(n.streams, b1) + choose([]string{"", " now", " barrier", " snapshot", " commit", " never"}, b2)
	case "slow":
		return choose(n.streams, b1)
	case "burst-key":
		return choose(n.producers, b1) + " " + choose([]string{"1", "7", "hot"}, b2)
	}
	return text
}

// FuzzSessionActs plays a sequence of learner actions on a bundled
// scenario, as a page's controls, keys and a presenter's notes window
// send them, and checks what the widget promises a learner:
//   - no action panics, and every run it starts completes;
//   - an action refused (an error, no run) loses nothing: the step, the
//     knobs and the faults on screen are as they were;
//   - the step shown is within the run;
//   - Undo after a change that was taken returns to the step and settings
//     before it.
//
// The input is the scenario's index among the bundled ones, the actions
// as three bytes each (the action, then two that choose its argument), and
// text for the arguments a visitor could write (a settings query, a key).
func FuzzSessionActs(f *testing.F) {
	all, err := lessons.Scenarios()
	require.NoError(f, err)
	op := func(name string) byte {
		for i, a := range actions {
			if a == name {
				return byte(i)
			}
		}
		panic("no action " + name)
	}
	seq := func(steps ...any) []byte {
		var b []byte
		for i := 0; i+2 < len(steps); i += 3 {
			b = append(b, op(steps[i].(string)), byte(steps[i+1].(int)), byte(steps[i+2].(int)))
		}
		return b
	}
	plays := [][]byte{
		seq("seek", 3, 4, "crash", 0, 0, "undo", 0, 0, "knob", 1, 0, "jump", 0, 1, "undo", 0, 0),
		seq("seek", 5, 3, "pause", 0, 1, "add-partition", 0, 0, "burst", 0, 0, "undo", 0, 0, "undo", 0, 0),
		seq("seek", 2, 7, "stall", 0, 1, "delay", 1, 0x21, "fail", 0, 1, "slow", 1, 0, "burst-key", 0, 1, "undo", 0, 0),
		seq("knob", 2, 0, "seek", 9, 9, "settings", 0, 0, "explain", 4, 0, "present", 1, 0, "undo", 0, 0),
	}
	texts := []string{"", "step=3&fault=3~crash", "mark=lsn&step=99999", "fault=2~stall~x~0~30s&fault=1~crash", "%zz&step=-1"}
	for i := range all {
		p := i % len(plays)
		f.Add(uint8(i), plays[p], texts[i%len(texts)])
	}
	f.Fuzz(func(t *testing.T, which uint8, ops []byte, text string) {
		sc := all[int(which)%len(all)]
		if len(ops) > 3*12 {
			ops = ops[:3*12] // a dozen actions a run: each may run the scenario again
		}
		s, err := Open("tm", string(sc.Source), sc.File.Name, "/scenarios/"+sc.ID, url.Values{}, false, worlds.All())
		require.NoError(t, err, sc.ID)
		finish(t, s, 5000)
		was := s.View(true).Query // what is on screen before each action
		var undoTo []string       // the query before each change taken, for Undo
		for i := 0; i+2 < len(ops); i += 3 {
			action := actions[int(ops[i])%len(actions)]
			n := namesOf(s)
			arg := argFor(s, n, action, ops[i+1], ops[i+2], text)
			rerun, err := s.Act(action, arg)
			if rerun {
				for calls := 0; ; calls++ {
					require.Less(t, calls, 1<<16, "%s: the run after %s %q never completes", sc.ID, action, arg)
					done, aerr := s.Advance(5000)
					if aerr != nil && err == nil {
						err = aerr
					}
					if done {
						break
					}
				}
			}
			v := s.View(i%2 == 0)
			require.GreaterOrEqual(t, v.Step, 0, "%s: %s %q", sc.ID, action, arg)
			require.LessOrEqual(t, v.Step, v.Steps, "%s: %s %q", sc.ID, action, arg)
			switch {
			case err != nil && !rerun:
				require.Equal(t, was, v.Query, "%s: %s %q was refused (%v) but changed what is on screen", sc.ID, action, arg, err)
				require.NotEmpty(t, err.Error())
			case action == "undo" && err == nil && len(undoTo) > 0:
				require.Equal(t, settingsOf(undoTo[len(undoTo)-1], true), settingsOf(v.Query, true), "%s: undo did not return to the step and settings before the last change", sc.ID)
				undoTo = undoTo[:len(undoTo)-1]
			case action == "undo":
				undoTo = nil // undoing a link's fault, or nothing: the history is no longer ours to follow
			case rerun && err == nil:
				undoTo = append(undoTo, was)
			case rerun:
				// A change the run refused is undone (Session.refuse): the
				// screen is back to what it was.
				require.Equal(t, settingsOf(was, false), settingsOf(v.Query, false), "%s: %s %q was refused (%v) but changed the settings", sc.ID, action, arg, err)
			}
			was = v.Query
		}
	})
}

// settingsOf is a view's query without the view's own parameters (and
// without its step unless step): the knobs and faults a learner has set.
func settingsOf(query string, step bool) string {
	q, err := url.ParseQuery(strings.TrimPrefix(query, "?"))
	if err != nil {
		return query
	}
	for _, k := range []string{"truth", "explain", "present"} {
		q.Del(k)
	}
	if !step {
		q.Del("step")
	}
	return q.Encode()
}
