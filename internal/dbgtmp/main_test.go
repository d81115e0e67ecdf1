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
	tr, err := engine.Run(f, nil, 1, worlds.All())
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range tr.Targets {
		for _, r := range h.Rows {
			if tr.RowKey(&r) == "1" && r.AddedStep > 280 && r.AddedStep < 400 {
				fmt.Println(r.KeyID, r.Amount, r.Seq, r.AddedStep, r.RemovedStep)
			}
		}
	}
}
