package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/logs"
	"github.com/tidemark/tidemark/engine/topic"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// Property tests of the partitioned-log world over generated scenarios (see
// logGen). A failure prints the seed and the scenario text, which can be
// saved as a .tdm file and run with `tidemark run FILE --seed N`.

// recID names one record: its partition and offset.
type recID struct {
	part int
	off  int64
}

// firstReads numbers, for the one group of a generated scenario, the first
// time each record was fetched, in fetch order: polls in step order, and
// within a poll its partitions in the order it read them and each
// partition's offsets ascending.
func firstReads(g *logs.GroupHistory) map[recID]int {
	first := map[recID]int{}
	n := 0
	for _, r := range g.Reads {
		for o := r.From; o < r.To; o++ {
			id := recID{int(r.Partition), o}
			if _, ok := first[id]; !ok {
				first[id] = n
			}
			n++
		}
	}
	return first
}

// (a) While the partition count is unchanged, the records of one key are
// consumed in the order they were produced: the first fetch of each record
// of a key comes after the first fetch of every earlier record of that key
// that was fetched at all. (Records can be fetched again after a crash or a
// rebalance, and some are never fetched — skipped by a reset or an early
// commit — so it is first fetches that are ordered.) Across an
// add-partitions the property is expected to fail, and the test counts how
// often it does to show it is not vacuous.
func TestPropertyLogKeyOrder(t *testing.T) {
	inversionsAcrossGrowth := 0
	for seed := range uint64(seeds()) {
		r := rand.New(rand.NewPCG(seed, 11))
		g := randomLog(r)
		tr := runLogGen(t, g, seed)
		h := logs.Of(tr).Topics[0]
		first := firstReads(logs.Of(tr).Groups[0])
		type produced struct {
			id    recID
			step  int32
			epoch int
		}
		byKey := map[string][]produced{}
		var order []string
		for p, part := range h.Parts {
			for o, rec := range part.Records {
				key := h.Key(&rec)
				if _, ok := byKey[key]; !ok {
					order = append(order, key)
				}
				byKey[key] = append(byKey[key], produced{recID{p, int64(o)}, rec.Step, epochAt(h, rec.Step)})
			}
		}
		for _, k := range order {
			rs := byKey[k]
			// Production order: the step that appended each record (a key's
			// records within one partition are in offset order already).
			sortProduced(rs, func(a, b produced) bool { return a.step < b.step })
			last, lastEpoch, lastID := -1, -1, recID{}
			for _, x := range rs {
				n, ok := first[x.id]
				if !ok {
					continue
				}
				if last >= 0 && n < last {
					if x.epoch != lastEpoch {
						inversionsAcrossGrowth++
					} else {
						require.Failf(t, "key order", "seed %d: key %s: %s-%d@%d (step %d) was first consumed before the earlier %s-%d@%d\n%s",
							seed, k, h.Name, x.id.part, x.id.off, x.step, h.Name, lastID.part, lastID.off, g.Text())
					}
				}
				last, lastEpoch, lastID = n, x.epoch, x.id
			}
		}
	}
	if !testing.Short() {
		require.Positive(t, inversionsAcrossGrowth, "adding partitions never reordered a key: the generator does not exercise it")
	}
}

// epochAt is how many partition-count changes happened by step.
func epochAt(h *logs.TopicHistory, step int32) int {
	e := 0
	for _, c := range h.Counts[1:] {
		if c.Step <= step {
			e++
		}
	}
	return e
}

func sortProduced[T any](xs []T, less func(a, b T) bool) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && less(xs[j], xs[j-1]); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// (b) A group that commits after the write, into a merge sink, never loses a
// record still within retention: once the group has drained, every record
// the log still holds is in the target at its version or a later one —
// whatever the crashes, rebalances, pauses and partition additions before.
// This needs auto.offset.reset=earliest: latest skips held records by
// design, and none stops the consumer, which then reads nothing.
func TestPropertyLogCommitAfterMerge(t *testing.T) {
	for seed := range uint64(seeds()) {
		r := rand.New(rand.NewPCG(seed, 12))
		g := randomLog(r)
		g.Commit, g.Sink, g.Reset = "after", "merge", "earliest"
		tr := runLogGen(t, g, seed)
		target := map[string]int{}
		for _, row := range tr.TargetAt("fct", tr.Steps()) {
			target[tr.RowKey(&row)] = max(target[tr.RowKey(&row)], int(row.Seq))
		}
		h := logs.Of(tr).Topics[0]
		for _, part := range h.Parts {
			for o, rec := range part.Records {
				if part.DeletedAt(int64(o)) != topic.Live {
					continue
				}
				v, ok := target[h.Key(&rec)]
				require.True(t, ok && v >= int(rec.Seq), "seed %d: %s-%d@%d (key %s version %d) is still in the log but the target has %s\n%s",
					seed, part.Topic, part.ID, o, h.Key(&rec), rec.Seq, versionText(v, ok), g.Text())
			}
		}
	}
}

func versionText(v int, ok bool) string {
	if !ok {
		return "no row for it"
	}
	return "only version " + strconv.Itoa(v)
}

// (c) Nothing is ever read below the log start: every offset a poll fetched
// was held at that step (at or above the log start, below the log end, and
// not yet deleted by retention).
func TestPropertyLogNoReadBelowStart(t *testing.T) {
	for seed := range uint64(seeds()) {
		r := rand.New(rand.NewPCG(seed, 13))
		g := randomLog(r)
		if g.Retention == "" {
			g.Retention, g.Segment = "10s", "2s"
		}
		tr := runLogGen(t, g, seed)
		h := logs.Of(tr).Topics[0]
		for _, rr := range logs.Of(tr).Groups[0].Reads {
			part := h.Parts[rr.Partition]
			require.GreaterOrEqual(t, rr.From, part.StartAt(rr.Step), "seed %d: step %d read %s-%d from %d, below the log start %d\n%s",
				seed, rr.Step, h.Name, rr.Partition, rr.From, part.StartAt(rr.Step), g.Text())
			require.LessOrEqual(t, rr.To, part.EndAt(rr.Step), "seed %d: step %d read %s-%d past the log end\n%s", seed, rr.Step, h.Name, rr.Partition, g.Text())
			for o := rr.From; o < rr.To; o++ {
				require.Greater(t, part.DeletedAt(o), rr.Step, "seed %d: step %d read %s-%d@%d, deleted at step %d\n%s",
					seed, rr.Step, h.Name, rr.Partition, o, part.DeletedAt(o), g.Text())
			}
		}
	}
}

// The same log scenario and seed give the same trace: every event, every
// sentence and the whole report.
func TestPropertyLogDeterministic(t *testing.T) {
	for seed := range uint64(seeds()) {
		r := rand.New(rand.NewPCG(seed, 14))
		g := randomLog(r)
		a, b := runLogGen(t, g, seed), runLogGen(t, g, seed)
		require.Equal(t, a.Events, b.Events, "seed %d: events differ\n%s", seed, g.Text())
		require.Equal(t, strings.Join(a.Narrations(), "\n"), strings.Join(b.Narrations(), "\n"), "seed %d: narration differs\n%s", seed, g.Text())
		require.Equal(t, string(reportJSON(t, a)), string(reportJSON(t, b)), "seed %d: reports differ\n%s", seed, g.Text())
	}
}

// A member the trace calls stopped (GroupHistory.StoppedAt, which the
// group's panel shows) reads nothing until it runs again: over generated
// scenarios, whose auto.offset.reset=none and retention stop members, and
// over the bundled scenarios under each knob setting, which stop them on
// records their code cannot read too. Some must stop, or the property says
// nothing. So does a static member whose consumer closed without leaving
// (GroupHistory.ClosedAt), which generated scenarios whose members crash
// and leave make.
func TestPropertyStoppedMembersReadNothing(t *testing.T) {
	stops, closes := 0, 0
	check := func(tr *engine.Trace, what string) {
		for _, g := range logs.Of(tr).Groups {
			stops += len(g.Stops)
			closes += len(g.Closes)
			for _, r := range g.Reads {
				if r.To > r.From {
					member := g.Members[r.Member]
					require.Empty(t, g.StoppedAt(member, int(r.Step)), "%s: group %s's %s reads at step %d, stopped", what, g.Name, member, r.Step)
					require.False(t, g.ClosedAt(member, int(r.Step)), "%s: group %s's %s reads at step %d, its consumer closed", what, g.Name, member, r.Step)
				}
			}
		}
	}
	for seed := range uint64(seeds()) {
		r := rand.New(rand.NewPCG(seed, 15))
		g := randomLog(r)
		if g.Retention == "" {
			g.Retention, g.Segment = "10s", "2s"
		}
		check(runLogGen(t, g, seed), "seed "+strconv.FormatUint(seed, 10)+"\n"+g.Text())
	}
	all, err := lessons.Scenarios()
	require.NoError(t, err)
	for _, s := range all {
		for _, set := range knobSettings(s.File) {
			tr, err := engine.Run(s.File, set, 1, worlds.All())
			require.NoError(t, err)
			if logs.Of(tr) != nil {
				check(tr, s.ID+" "+fmt.Sprint(set))
			}
		}
	}
	require.Positive(t, stops, "no member stopped anywhere")
	require.Positive(t, closes, "no static member closed its consumer anywhere")
}
