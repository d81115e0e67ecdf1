package stream_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The checks of a step read each target's rows and each stream's records
// once, however many operators name them. A file of a thousand sinks from
// one stream into one table made every step's recount read the table once
// per sink: seconds a step, for work the budget never charged (the square
// of what it did). The counts are the same as read one sink at a time.
func TestRecountOfManySinksReadsEachTableOnce(t *testing.T) {
	const sinks = 2000
	var b strings.Builder
	b.WriteString(`scenario t/x "X"
topic orders
producer shop to=orders key=order_id
target fct sink=append key=order_id
target totals sink=upsert key=order_id
traffic shop records=60 from=10:00:00 every=1s keys=unique
stream s from=orders
aggregate sum from=s agg=sum to=totals
`)
	for i := range sinks {
		b.WriteString("sink load" + strconv.Itoa(i) + " from=s to=fct\n")
	}
	b.WriteString("check recount\n")
	tr, _ := run(t, b.String())
	start := time.Now()
	results := tr.ChecksAt(tr.Steps())
	took := time.Since(start)
	require.Len(t, results, 1)
	assert.Equal(t, "2000 of 2001 tables differ from the topic: "+strings.Repeat("fct has 120000 rows for the 60 events the topic still holds; ", 4)+"and 1996 more",
		results[0].Detail, "each sink's table is the whole of fct; the aggregate's matches")
	assert.Less(t, took, 2*time.Second, "the checks of one step")
}
