package logs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// TestOfIsNilWithoutATopic: a scenario of the high-water-mark world alone
// has no log, and one with a topic has its topics, groups and feeds.
func TestOfIsNilWithoutATopic(t *testing.T) {
	sc, ok := lessons.Lookup("hwm/visibility-gap")
	require.True(t, ok)
	tr, err := engine.Run(sc.File, nil, 1, worlds.All())
	require.NoError(t, err)
	assert.Nil(t, logs.Of(tr))
	assert.Nil(t, logs.Of(tr).LogAt(tr.Steps()), "a nil log reads as empty")

	sc, ok = lessons.Lookup("dist/dual-write")
	require.True(t, ok)
	tr, err = engine.Run(sc.File, nil, 1, worlds.All())
	require.NoError(t, err)
	l := logs.Of(tr)
	require.NotNil(t, l)
	assert.NotEmpty(t, l.Topics)
	assert.NotEmpty(t, l.Groups)
	assert.NotEmpty(t, l.Feeds)
	assert.NotNil(t, l.TopicNamed(l.Topics[0].Name))
	assert.NotEmpty(t, l.LogAt(tr.Steps()))
	for _, f := range l.Feeds {
		assert.Contains(t, tr.Routes(), engine.Route{Table: f.Table, Target: f.Target}, "a feed of the log is a route of the core")
	}
}

// TestPartitionChangeDescription: dist/partition-change's description names
// the customers whose key moved partition when the topic grew, and says
// exactly which of them end with a stale status: a moved key suffers only
// when its old update is read after its new one.
func TestPartitionChangeDescription(t *testing.T) {
	sc, ok := lessons.Lookup("dist/partition-change")
	require.True(t, ok)
	tr, err := engine.Run(sc.File, nil, 1, worlds.All())
	require.NoError(t, err)
	l := logs.Of(tr)
	require.NotNil(t, l)
	h := l.Topics[0]
	first := map[string]int{} // the partition of each key's first update
	moved := map[string]bool{}
	for p, part := range h.Parts {
		for i := range part.Records {
			r := &part.Records[i]
			k := h.Key(r)
			if r.Seq == 1 {
				first[k] = p
			}
		}
	}
	for p, part := range h.Parts {
		for i := range part.Records {
			if r := &part.Records[i]; r.Seq == 2 && first[h.Key(r)] != p {
				moved[h.Key(r)] = true
			}
		}
	}
	stale := tr.Final().Stale
	require.NotEmpty(t, stale)
	var movedKeys []string
	for _, k := range []string{"1", "2", "3", "4", "5", "6"} {
		if moved[k] {
			movedKeys = append(movedKeys, k)
		}
	}
	assert.Equal(t, []string{"1", "3", "6"}, movedKeys)
	assert.Equal(t, []string{"1", "6"}, stale, "not every moved key suffers")
	assert.Contains(t, sc.About, "moves customers 1, 3 and 6 to new partitions")
	assert.Contains(t, sc.About, "Customers 1 and 6 leave partitions")
	assert.Contains(t, sc.About, "Customer 3 moves too, but")
	assert.NotContains(t, sc.About, "those whose key moved have their second update read by another consumer first")
}
