package group

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRangeAssignment(t *testing.T) {
	// Kafka's RangeAssignor: 7 partitions, 3 members → 3, 2, 2 by sorted member id.
	a := Assign(Range, []string{"c3", "c1", "c2"}, 7)
	assert.Equal(t, map[string][]int{"c1": {0, 1, 2}, "c2": {3, 4}, "c3": {5, 6}}, a)
	a = Assign(Range, []string{"c1", "c2", "c3"}, 2)
	assert.Equal(t, map[string][]int{"c1": {0}, "c2": {1}}, a, "more members than partitions: some idle")
	assert.Empty(t, Assign(Range, nil, 3))
}

func TestRoundRobinAssignment(t *testing.T) {
	a := Assign(RoundRobin, []string{"b", "a"}, 5)
	assert.Equal(t, map[string][]int{"a": {0, 2, 4}, "b": {1, 3}}, a)
}

func TestRebalanceOnJoinLeaveAndGrowth(t *testing.T) {
	g := New("billing", "orders", Range, 3)
	assert.True(t, g.Join("c1"))
	assert.False(t, g.Join("c1"))
	g.Rebalance()
	assert.Equal(t, []int{0, 1, 2}, g.Owned("c1"))
	assert.Equal(t, 1, g.Generation)
	g.Join("c2")
	g.Rebalance()
	assert.Equal(t, []int{0, 1}, g.Owned("c1"))
	assert.Equal(t, []int{2}, g.Owned("c2"))
	g.Resize(6)
	g.Rebalance()
	assert.Equal(t, []int{0, 1, 2}, g.Owned("c1"))
	assert.Equal(t, []int{3, 4, 5}, g.Owned("c2"))
	assert.Equal(t, int64(-1), g.Committed[5], "a new partition has no committed offset")
	g.Leave("c1")
	g.Rebalance()
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, g.Owned("c2"))
}

func TestCommitFromAnOldGenerationIsRefused(t *testing.T) {
	g := New("billing", "orders", Range, 2)
	g.Join("c1")
	g.Rebalance()
	gen := g.Generation
	assert.True(t, g.Commit("c1", gen, 0, 5))
	g.Join("c2")
	g.Rebalance()
	assert.False(t, g.Commit("c1", gen, 1, 9), "c1 lost partition 1 in the rebalance")
	assert.Equal(t, int64(-1), g.Committed[1])
	assert.Equal(t, int64(5), g.Committed[0])
}

// TestCommitFromALeftMemberIsRefused: a member that has left is unknown to
// the coordinator, which refuses its commit even before the rebalance its
// leaving began has completed and bumped the generation.
func TestCommitFromALeftMemberIsRefused(t *testing.T) {
	g := New("billing", "orders", Range, 2)
	g.Join("c1")
	g.Join("c2")
	g.Rebalance()
	gen := g.Generation
	g.Leave("c1")
	assert.Equal(t, gen, g.Generation, "the rebalance has not completed")
	assert.False(t, g.Commit("c1", gen, 0, 5), "c1 has left the group")
	assert.Equal(t, int64(-1), g.Committed[0])
	assert.True(t, g.Commit("c2", gen, 1, 7), "c2 is still a member of this generation")
}
