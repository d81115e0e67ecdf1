package dbg

import (
	"fmt"
	"testing"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

func TestDbg(t *testing.T) {
	s, _ := lessons.Lookup("stream/checkpoint-two-phase")
	set := map[string]string{"commit": "auto"}
	full, _ := engine.Run(s.File, set, 1, worlds.All())
	w, _ := engine.Build(s.File, set, 1, worlds.All())
	for w.Step() {
		w.Trace().Checks()
	}
	tr := w.Trace()
	fmt.Println(full.Steps(), tr.Steps())
	for i := range min(full.Steps(), tr.Steps()) {
		a, b := &full.Events[i], &tr.Events[i]
		if a.At != b.At || a.Kind != b.Kind {
			fmt.Println("diff at", i, a.At, a.Kind, full.Narration(a), "|", b.At, b.Kind, tr.Narration(b))
			break
		}
	}
	fmt.Println(full.Narration(&full.Events[full.Steps()-1]))
	fmt.Println(tr.Narration(&tr.Events[tr.Steps()-1]))
}
