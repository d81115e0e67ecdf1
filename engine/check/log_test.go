package check_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tidemark/tidemark/engine/check"
)

func TestConsumerLagThreshold(t *testing.T) {
	o := check.Observation{Log: &check.LogView{Partitions: []check.LogPartition{
		{Group: "billing", Partition: "orders-0", Start: 0, End: 12, Committed: 2}, // lag 10
		{Group: "billing", Partition: "orders-1", Start: 5, End: 9, Committed: -1}, // lag 4, from the log start
		{Group: "billing", Partition: "orders-2", Start: 0, End: 3, Committed: 3},  // lag 0
	}}}
	cfg := only("consumer-lag")
	r := one(t, cfg, o)
	assert.Equal(t, check.Fail, r.Status)
	assert.Contains(t, r.Detail, "2 of 3 partitions are behind")

	cfg.MaxLag = 10
	r = one(t, cfg, o)
	assert.Equal(t, check.Pass, r.Status, r.Detail)
	assert.Contains(t, r.Detail, "within 10 of its end")
	assert.Contains(t, r.Detail, "total lag 14")

	cfg.MaxLag = 9
	r = one(t, cfg, o)
	assert.Equal(t, check.Fail, r.Status)
	assert.Contains(t, r.Detail, "1 of 3 partitions is more than 9 behind: billing on orders-0 lag 10")
}

// TestLogChecksCountInWords: one of a thing is one thing.
func TestLogChecksCountInWords(t *testing.T) {
	order := only("version-order")
	bad := one(t, order, check.Observation{Log: &check.LogView{Applied: []check.Applied{{Key: "1", Version: 2}, {Key: "1", Version: 1}}}})
	assert.Equal(t, check.Fail, bad.Status)
	assert.Equal(t, "1 key received an older version after a newer one: 1 (version 1 after 2)", bad.Detail)
	good := one(t, order, check.Observation{Log: &check.LogView{Applied: []check.Applied{{Key: "1", Version: 1}}}})
	assert.Equal(t, "1 write over 1 key, each key's versions in order", good.Detail)

	lag := only("consumer-lag")
	lag.MaxLag = 5
	r := one(t, lag, check.Observation{Log: &check.LogView{Partitions: []check.LogPartition{{Group: "g", Partition: "t-0", End: 3, Committed: 1}}}})
	assert.Equal(t, "every partition is within 5 of its end (1 partition, total lag 2)", r.Detail)
}

// TestConsumerLagWithNothingCommitted: an empty partition nobody has
// committed on has no lag, but the check must not claim a commit.
func TestConsumerLagWithNothingCommitted(t *testing.T) {
	lag := only("consumer-lag")
	r := one(t, lag, check.Observation{Log: &check.LogView{Partitions: []check.LogPartition{
		{Group: "billing", Partition: "orders-0", End: 3, Committed: 3},
		{Group: "billing", Partition: "orders-1", Start: 4, End: 4, Committed: -1},
	}}})
	assert.Equal(t, check.Pass, r.Status)
	assert.Equal(t, "every group is caught up on both partitions it reads (total lag 0); billing on orders-1 has no committed offset, and no record to read yet", r.Detail)
	assert.NotContains(t, r.Detail, "committed up to the end")

	r = one(t, lag, check.Observation{Log: &check.LogView{Partitions: []check.LogPartition{{Group: "g", Partition: "t-0", End: 2, Committed: 2}}}})
	assert.Equal(t, "every group has committed up to the end of the one partition it reads (total lag 0)", r.Detail)
}

// TestLogChecksCountPartitionsNotGroups: two groups on one partition are
// two lines of lag, as Kafka measures lag per group and partition, but
// still one partition. The checks said "both partitions" and "2 of 2
// partitions" of a topic that has one.
func TestLogChecksCountPartitionsNotGroups(t *testing.T) {
	lag := only("consumer-lag")
	behind := one(t, lag, check.Observation{Log: &check.LogView{Partitions: []check.LogPartition{
		{Group: "bill", Partition: "orders-0", End: 2, Committed: 1},
		{Group: "ana", Partition: "orders-0", End: 2, Committed: -1},
	}}})
	assert.Equal(t, check.Fail, behind.Status)
	assert.Equal(t, "2 of 2 group–partition pairs are behind: bill on orders-0 lag 1 (committed 1, end 2); ana on orders-0 lag 2 (committed none, end 2)", behind.Detail)

	caughtUp := &check.LogView{Partitions: []check.LogPartition{
		{Group: "bill", Partition: "orders-0", End: 2, Committed: 2},
		{Group: "ana", Partition: "orders-0", End: 2, Committed: 2},
	}}
	r := one(t, lag, check.Observation{Log: caughtUp})
	assert.Equal(t, check.Pass, r.Status)
	assert.Equal(t, "every group has committed up to the end of each partition it reads (total lag 0)", r.Detail)

	lag.MaxLag = 5
	r = one(t, lag, check.Observation{Log: caughtUp})
	assert.Equal(t, "every group is within 5 of the end of each partition it reads (2 group–partition pairs, total lag 0)", r.Detail)

	lag.MaxLag = 0
	r = one(t, lag, check.Observation{Log: &check.LogView{Partitions: []check.LogPartition{
		{Group: "bill", Partition: "orders-0", Committed: 0},
		{Group: "ana", Partition: "orders-0", Committed: -1},
	}}})
	assert.Equal(t, "every group is caught up on each partition it reads (total lag 0); ana on orders-0 has no committed offset, and no record to read yet", r.Detail)

	gap := one(t, only("offset-gap"), check.Observation{Log: &check.LogView{Reads: []check.OffsetRange{
		{Group: "bill", Partition: "orders-0", From: 0, To: 2},
		{Group: "ana", Partition: "orders-0", From: 0, To: 2},
	}}})
	assert.Equal(t, check.Pass, gap.Status)
	assert.Equal(t, "the fetched offsets are contiguous on every partition each group read", gap.Detail)
}
