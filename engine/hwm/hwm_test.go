package hwm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

func run(t *testing.T, id string, domains []engine.Domain) *engine.Trace {
	t.Helper()
	sc, ok := lessons.Lookup(id)
	require.True(t, ok, id)
	tr, err := engine.Run(sc.File, nil, 1, domains)
	require.NoError(t, err)
	return tr
}

// TestOfIsNilWithoutTheWorld: a trace of the log alone has no part of the
// high-water-mark world, and one of a pipeline has it with every record.
func TestOfIsNilWithoutTheWorld(t *testing.T) {
	assert.Nil(t, hwm.Of(run(t, "dist/producer-retry", worlds.All())), "producers alone declare nothing of the world")
	h := hwm.Of(run(t, "hwm/visibility-gap", worlds.All()))
	require.NotNil(t, h)
	assert.NotEmpty(t, h.Txns)
	assert.NotEmpty(t, h.Runs)
	require.Len(t, h.Pipes, 1)
	assert.Equal(t, "extract", h.Pipes[0].Name)
	require.Len(t, h.Tables, 1)
	assert.Equal(t, "orders", h.Tables[0].Name)
	assert.Equal(t, len(h.Marks), len(h.MarksAt(3)))
}

// TestSourceOf finds the source database of the world a World is composed
// of, and nothing without it.
func TestSourceOf(t *testing.T) {
	f, err := scenario.Parse("w.tdm", []byte(world))
	require.NoError(t, err)
	w, err := engine.Build(f, nil, 1, worlds.All())
	require.NoError(t, err)
	src := engine.SourceOf(w)
	require.NotNil(t, src)
	assert.NotNil(t, src.Table("orders"))
	assert.Nil(t, src.Table("nothing"))

	topicOnly := `scenario test/t "A topic"
topic orders partitions=1
`
	f, err = scenario.Parse("t.tdm", []byte(topicOnly))
	require.NoError(t, err)
	w, err = engine.Build(f, nil, 1, []engine.Domain{logs.Domain})
	require.NoError(t, err)
	assert.Nil(t, engine.SourceOf(w))
}

// TestExplainAKeyAConsumerWrote names the consumer that wrote a key of a
// log scenario, where no extractor run wrote it.
func TestExplainAKeyAConsumerWrote(t *testing.T) {
	tr := run(t, "dist/producer-retry", worlds.All())
	require.NotEmpty(t, tr.Targets)
	rows := tr.TargetAt(tr.Targets[0].Name, tr.Steps())
	require.NotEmpty(t, rows)
	why := hwm.Explain(tr, tr.RowKey(&rows[0]), tr.Steps())
	assert.Contains(t, why, "consumer billing/c1 at ")
	// Key 2, which the producer's retry put in the log twice, is in the
	// append-only target twice: said as a record the log held twice, not
	// as an extractor's re-read.
	why = hwm.Explain(tr, "2", tr.Steps())
	assert.Equal(t, "Order 2 is in the target 2 times: written by consumer billing/c1 at 10:00:05 and by consumer billing/c1 at 10:00:05. Each is a record a consumer wrote: the log held the event more than once (a producer's retry), or a consumer read it again (its offset not committed before a crash or a rebalance), and an append-only target keeps every copy.", why)

	// A stream job's append sink writes a row again after a restore.
	tr = run(t, "stream/checkpoint-append", worlds.All())
	require.Contains(t, tr.Final().Duplicated, "43")
	why = hwm.Explain(tr, "43", tr.Steps())
	assert.Contains(t, why, "written by stream orders_in at 10:00:42 and by stream orders_in at 10:00:52.")
	assert.Contains(t, why, "restored from a checkpoint")
	assert.NotContains(t, why, "consumer")

	// A producer's event is sent, with no commit and no LSN; until a
	// consumer writes it, it has not reached the target.
	tr = run(t, "dist/rebalance", worlds.All())
	assert.Equal(t, "Order 1 was sent by shop at 10:00:01 with updated_at 10:00:01; it has not reached fct_orders by this step.", hwm.Explain(tr, "1", 5))
	assert.Equal(t, "Order 1 was sent by shop at 10:00:01 with updated_at 10:00:01; consumer billing/c1 at 10:00:07 copied it to the target, and it is current.", hwm.Explain(tr, "1", tr.Steps()))
	// A row change capture publishes was committed in the source.
	tr = run(t, "dist/connector-restart", worlds.All())
	rows = tr.TargetAt(tr.Targets[0].Name, tr.Steps())
	require.NotEmpty(t, rows)
	assert.Regexp(t, `^\w+ \S+ committed at \S+ \(lsn \d+\) with updated_at`, hwm.Explain(tr, tr.RowKey(&rows[0]), tr.Steps()))
}

// TestSecondTargetOfATableIsRefused: the truth follows a table's rows into
// one target. A second pipeline copying them into another target, or a
// change capture group doing so, is refused at its to=, where before every
// row of one table was judged against the other's (duplicates that never
// happened). A second pipeline into the same target is fine.
func TestSecondTargetOfATableIsRefused(t *testing.T) {
	const head = `scenario test/two "Two targets"
source orders key=order_id
target fct_orders sink=merge key=order_id
target fct_copy sink=merge key=order_id
pipeline extract from=orders to=fct_orders mark=lsn
`
	for line, want := range map[string]string{
		"pipeline extract2 from=orders to=fct_copy mark=lsn":                                    "two.tdm:6:34: the rows of orders already reach fct_orders, and the truth follows them into one target; pipeline extract2 copying them into fct_copy as well is not modelled: write to fct_orders",
		"pipeline extract2 from=orders to=fct_orders mark=lsn":                                  "",
		"topic cdc partitions=1\ncdc capture from=orders to=cdc\ngroup g topic=cdc to=fct_copy": "two.tdm:8:22: the rows of orders already reach fct_orders, and the truth follows them into one target; group g copying them into fct_copy as well",
	} {
		f, err := scenario.Parse("two.tdm", []byte(head+line+"\n"))
		require.NoError(t, err, line)
		_, err = engine.Build(f, nil, 1, worlds.All())
		if want == "" {
			assert.NoError(t, err, line)
			continue
		}
		assert.ErrorContains(t, err, want, line)
	}
}
