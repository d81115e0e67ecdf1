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
