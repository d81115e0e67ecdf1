package dbg

import (
	"fmt"
	"os"
	"testing"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
)

func TestDbg(t *testing.T) {
	src, _ := os.ReadFile(os.Getenv("F"))
	f, err := scenario.Parse("x.tdm", src)
	if err != nil {
		t.Fatal(err)
	}
	w, err := engine.Build(f, nil, 1, worlds.All())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 400 && w.Step(); i++ {
	}
	for k := 0; k < 2000 && w.Step(); k++ {
	}
	tr := w.Trace()
	for i := max(0, len(tr.Events)-12); i < len(tr.Events); i++ {
		e := &tr.Events[i]
		fmt.Println(e.Step, e.At, e.Kind, tr.Actor(e), tr.Narration(e))
	}
}
