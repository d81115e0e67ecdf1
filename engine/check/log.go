package check

import (
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/prose"
)

// LogView is what a team can see of a partitioned log and its consumers:
// the offsets the consumer-group tool prints, the consumers' own logs of
// what each poll fetched and where a reset moved them, and the version
// column of every row the sink wrote, in the order it wrote them.
type LogView struct {
	Partitions []LogPartition
	Reads      []OffsetRange // what polls fetched, in order
	Resets     []OffsetRange // ranges an offset reset jumped over
	Applied    []Applied     // rows written into targets, in arrival order
}

// LogPartition is one line of the consumer-group tool: a group's committed
// offset on a partition beside the partition's log start and end.
type LogPartition struct {
	Group, Partition string
	Start, End       int64
	Committed        int64 // -1: nothing committed
}

// OffsetRange is offsets [From, To) of one partition, as a group saw them.
type OffsetRange struct {
	Group, Partition string
	From, To         int64
	Why              string
}

// Applied is one row written into a target: its key and the source version
// (or log position) it carries.
type Applied struct {
	Key     string
	Version int
}

func isLogCheck(name string) bool {
	return name == "consumer-lag" || name == "version-order" || name == "offset-gap"
}

func init() {
	About["consumer-lag"] = [2]string{
		"a consumer that is paused, slow, stopped or gone: the distance from each partition's end to the committed offset",
		"records skipped by an offset reset or an early commit: once the committed offset has moved past them, lag says nothing is owed",
	}
	About["version-order"] = [2]string{
		"a key whose writes arrived out of version order, as after a partition-count change spread its history over two partitions",
		"out-of-order arrivals a version-aware merge refused, which never reach the table, and keys whose older version was lost rather than late",
	}
	About["offset-gap"] = [2]string{
		"offsets a consumer never fetched: a reset past deleted segments, or past the end with auto.offset.reset=latest",
		"records fetched and then dropped before the write, such as a crash after an early commit, and events that never reached the log",
	}
}

func consumerLag(cfg Config, o Observation) Result {
	if o.Log == nil || len(o.Log.Partitions) == 0 {
		return Result{Status: NotRun, Detail: "no consumer group reads a topic"}
	}
	var behind []string
	total := int64(0)
	for _, p := range o.Log.Partitions {
		c := p.Committed
		if c < 0 {
			c = p.Start
		}
		lag := p.End - c
		total += max(lag, 0)
		if lag > int64(cfg.MaxLag) {
			s := prose.F("%s on %s lag %d (committed %s, end %d)", p.Group, p.Partition, lag, offsetText(p.Committed), p.End)
			if p.Committed >= 0 && p.Committed < p.Start {
				s += prose.F(", below the log start %d", p.Start)
			}
			behind = append(behind, s)
		}
	}
	if len(behind) > 0 {
		over := "are behind"
		if cfg.MaxLag > 0 {
			over = prose.F("are more than %d behind", cfg.MaxLag)
		}
		return Result{Status: Fail, Detail: prose.F("%d of %s %s: %s", len(behind), plural(len(o.Log.Partitions), "partition", "partitions"), over, strings.Join(limit(behind, 4), "; "))}
	}
	if cfg.MaxLag > 0 {
		return Result{Status: Pass, Detail: prose.F("every partition is within %d of its end (%s, total lag %d)", cfg.MaxLag, plural(len(o.Log.Partitions), "partition", "partitions"), total)}
	}
	return Result{Status: Pass, Detail: prose.F("every group has committed up to the end of %s it reads (total lag %d)", allOf(len(o.Log.Partitions), "partition", "partitions"), total)}
}

func offsetText(c int64) string {
	if c < 0 {
		return "none"
	}
	return strconv.FormatInt(c, 10)
}

func versionOrder(o Observation) Result {
	if o.Log == nil || len(o.Log.Applied) == 0 {
		return Result{Status: NotRun, Detail: "no row has been written from the log yet"}
	}
	last := map[string]int{}
	var bad []string
	seen := map[string]bool{}
	for _, a := range o.Log.Applied {
		if prev, ok := last[a.Key]; ok && a.Version < prev && !seen[a.Key] {
			seen[a.Key] = true
			bad = append(bad, prose.F("%s (version %d after %d)", a.Key, a.Version, prev))
		}
		last[a.Key] = max(last[a.Key], a.Version)
	}
	if len(bad) > 0 {
		return Result{Status: Fail, Detail: prose.F("%s an older version after a newer one: %s", plural(len(bad), "key received", "keys received"), strings.Join(limit(bad, 6), ", "))}
	}
	return Result{Status: Pass, Detail: prose.F("%s over %s, each key's versions in order", plural(len(o.Log.Applied), "write", "writes"), plural(len(last), "key", "keys"))}
}

func offsetGap(o Observation) Result {
	if o.Log == nil || len(o.Log.Reads)+len(o.Log.Resets) == 0 {
		return Result{Status: NotRun, Detail: "no consumer has fetched anything yet"}
	}
	type gp struct{ g, p string }
	covered := map[gp][][2]int64{}
	var order []gp
	for _, r := range o.Log.Reads {
		k := gp{r.Group, r.Partition}
		if _, ok := covered[k]; !ok {
			order = append(order, k)
		}
		covered[k] = append(covered[k], [2]int64{r.From, r.To})
	}
	var holes []string
	for _, r := range o.Log.Resets {
		if r.To > r.From {
			holes = append(holes, prose.F("%s skipped %s offsets %s (%s)", r.Group, r.Partition, rangeText(r.From, r.To), r.Why))
		}
	}
	for _, k := range order {
		next := int64(-1)
		for _, c := range covered[k] {
			if next >= 0 && c[0] > next && !resetCovers(o.Log.Resets, k.g, k.p, next, c[0]) {
				holes = append(holes, prose.F("%s never fetched %s offsets %s", k.g, k.p, rangeText(next, c[0])))
			}
			next = max(next, c[1])
		}
	}
	if len(holes) > 0 {
		return Result{Status: Fail, Detail: strings.Join(limit(holes, 4), "; ")}
	}
	return Result{Status: Pass, Detail: prose.F("the fetched offsets are contiguous on %s read", allOf(len(order), "partition", "partitions"))}
}

func resetCovers(rs []OffsetRange, g, p string, from, to int64) bool {
	for _, r := range rs {
		if r.Group == g && r.Partition == p && r.From <= from && r.To >= to {
			return true
		}
	}
	return false
}

func rangeText(a, b int64) string {
	if b-a == 1 {
		return strconv.FormatInt(a, 10)
	}
	return prose.F("%d–%d", a, b-1)
}

// allOf names a whole set of things: "the 1 partition", "all 3 partitions".
func allOf(n int, one, many string) string {
	if n == 1 {
		return "the 1 " + one
	}
	return "all " + strconv.Itoa(n) + " " + many
}
