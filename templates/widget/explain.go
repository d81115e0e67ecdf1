package widget

import (
	"strings"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/sorted"
)

// explain returns the heading and the text that say why the row with key
// stands as it does at step n, or, for a late record's key (see lateKey),
// why the record was late.
func explain(t *engine.Trace, key string, n int) (head, why string) {
	if head, why, ok := streamWhy(t, key, n); ok {
		return head, why
	}
	return "Why key " + key + "? ", hwm.Explain(t, key, n)
}

// readsAt returns what the group's polls read at exactly step n. Reads are
// in step order.
func readsAt(g *logs.GroupHistory, n int) []logs.ReadRange {
	i, _ := sorted.Search(len(g.Reads), func(k int) int {
		r := g.Reads[k]
		if int(r.Step) < n {
			return -1
		}
		if int(r.Step) > n {
			return 1
		}
		return 0
	})
	j := i
	for j < len(g.Reads) && int(g.Reads[j].Step) == n {
		j++
	}
	return g.Reads[i:j]
}

// pts prints polygon points from x, y pairs.
func pts(xy ...float64) string {
	var sb strings.Builder
	for i := 0; i+1 < len(xy); i += 2 {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(ftoa(xy[i]) + "," + ftoa(xy[i+1]))
	}
	return sb.String()
}

// plural is "1 partition" or "3 partitions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa(n) + " " + noun + "s"
}
