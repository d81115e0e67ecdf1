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
	assert.Contains(t, r.Detail, "1 of 3 partitions are more than 9 behind: billing on orders-0 lag 10")
}
