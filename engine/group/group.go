// Package group is a Kafka consumer group: members, the assignment of a
// topic's partitions to them, and the offsets the group has committed.
//
// What it models faithfully: one member per partition at a time; every
// join, leave or change in the partition count is a rebalance that bumps the
// generation and reassigns every partition (the classic eager protocol);
// the committed offset is the next offset to read; a commit from an older
// generation, or from a member that has left, is refused. Assignment is
// Kafka's RangeAssignor (the classic protocol's default): members sorted by
// id, each takes a contiguous range, the first count%members take one
// extra. RoundRobin is also offered.
//
// What it simplifies: one topic per group, no session timeouts or
// heartbeats, and no cooperative rebalancing. When a rebalance may complete
// (it waits for members busy with a batch) and when a member is evicted
// for passing max.poll.interval is the log world's to decide
// (engine/logs); Rebalance is the moment it completes.
package group

import (
	"slices"

	"github.com/tidemark/tidemark/engine/sorted"
)

// Strategy is how partitions are shared out.
type Strategy uint8

// Strategies.
const (
	Range Strategy = iota
	RoundRobin
)

// ParseStrategy reads range or roundrobin.
func ParseStrategy(s string) (Strategy, bool) {
	switch s {
	case "range":
		return Range, true
	case "roundrobin", "round-robin":
		return RoundRobin, true
	}
	return 0, false
}

func (s Strategy) String() string { return [...]string{"range", "roundrobin"}[s] }

// Assign shares partitions 0..n-1 among members. The result maps each
// member to its partitions in ascending order; members are taken in sorted
// order whatever order they are given in.
func Assign(s Strategy, members []string, n int) map[string][]int {
	ms := slices.Clone(members)
	sorted.Sort(ms)
	out := make(map[string][]int, len(ms))
	if len(ms) == 0 {
		return out
	}
	switch s {
	case RoundRobin:
		for p := range n {
			m := ms[p%len(ms)]
			out[m] = append(out[m], p)
		}
	default:
		per, extra := n/len(ms), n%len(ms)
		p := 0
		for i, m := range ms {
			c := per
			if i < extra {
				c++
			}
			for range c {
				out[m] = append(out[m], p)
				p++
			}
		}
	}
	return out
}

// Group is a consumer group's shared state.
//
// Invariants: Owner[p] is "" or a member; Generation increases by one per
// rebalance; Committed[p] is -1 when nothing was committed for p.
type Group struct {
	Name       string
	Topic      string
	Strategy   Strategy
	Members    []string // in join order
	Owner      []string // by partition
	Committed  []int64  // by partition
	Generation int
}

// New returns an empty group over a topic of n partitions.
func New(name, topic string, s Strategy, n int) *Group {
	g := &Group{Name: name, Topic: topic, Strategy: s}
	g.Resize(n)
	return g
}

// Resize records that the topic now has n partitions (never fewer).
func (g *Group) Resize(n int) {
	for len(g.Owner) < n {
		g.Owner = append(g.Owner, "")
		g.Committed = append(g.Committed, -1)
	}
}

// Join adds a member; it reports false if it is already one.
func (g *Group) Join(m string) bool {
	if g.Has(m) {
		return false
	}
	g.Members = append(g.Members, m)
	return true
}

// Has reports whether m is a member of the group.
func (g *Group) Has(m string) bool { return slices.Contains(g.Members, m) }

// Leave removes a member; it reports false if it was not one.
func (g *Group) Leave(m string) bool {
	i := slices.Index(g.Members, m)
	if i < 0 {
		return false
	}
	// What slices.Delete does, without its instance for strings in the
	// browser module.
	copy(g.Members[i:], g.Members[i+1:])
	g.Members[len(g.Members)-1] = ""
	g.Members = g.Members[:len(g.Members)-1]
	return true
}

// Rebalance reassigns every partition and starts a new generation. It
// returns the new assignment by member.
func (g *Group) Rebalance() map[string][]int {
	g.Generation++
	a := Assign(g.Strategy, g.Members, len(g.Owner))
	for p := range g.Owner {
		g.Owner[p] = ""
	}
	for m, ps := range a {
		for _, p := range ps {
			g.Owner[p] = m
		}
	}
	return a
}

// Owned lists the partitions member m owns, ascending.
func (g *Group) Owned(m string) []int {
	var out []int
	for p, o := range g.Owner {
		if o == m {
			out = append(out, p)
		}
	}
	return out
}

// Commit stores offset as the next offset to read on partition p, for a
// member of generation gen. A commit from an older generation, from a
// member that no longer owns p, or from one that has left the group (the
// coordinator no longer knows its member id, though the rebalance its
// leaving began may not have completed) is refused.
func (g *Group) Commit(m string, gen, p int, offset int64) bool {
	if gen != g.Generation || g.Owner[p] != m || !g.Has(m) {
		return false
	}
	g.Committed[p] = offset
	return true
}
