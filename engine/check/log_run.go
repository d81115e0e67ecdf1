//go:build !tm_hwm

package check

import (
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/engine/prose"
)

// The log checks themselves, on an observation with a log. The build of
// the browser module of the high-water-mark world alone (tag tm_hwm, see
// wasm/worlds_hwm.go) has log_none.go instead: no observation it makes has
// a log, so consumerLag, versionOrder and offsetGap answer before they
// call these.

func consumerLagOf(cfg Config, o Observation) Result {
	// Kafka measures lag per group and partition, a line each: the lines
	// are the partitions only when one group reads them.
	ps := o.Log.Partitions
	pairs := false
	for _, p := range ps {
		pairs = pairs || p.Group != ps[0].Group
	}
	lines, reads := prose.Count(len(ps), "partition", "partitions"), allOf(len(ps), "partition", "partitions")
	if pairs {
		lines, reads = prose.Count(len(ps), "group–partition pair", "group–partition pairs"), "each partition"
	}
	var behind []string
	total := int64(0)
	for _, p := range ps {
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
		over := prose.IsAre(len(behind)) + " behind"
		if cfg.MaxLag > 0 {
			over = prose.F("%s more than %d behind", prose.IsAre(len(behind)), cfg.MaxLag)
		}
		return Result{Status: Fail, Detail: prose.F("%d of %s %s: %s", len(behind), lines, over, strings.Join(limit(behind, 4), "; "))}
	}
	if cfg.MaxLag > 0 {
		if pairs {
			return Result{Status: Pass, Detail: prose.F("every group is within %d of the end of each partition it reads (%s, total lag %d)", cfg.MaxLag, lines, total)}
		}
		return Result{Status: Pass, Detail: prose.F("every partition is within %d of its end (%s, total lag %d)", cfg.MaxLag, lines, total)}
	}
	// A partition with nothing committed has no lag only because it holds
	// nothing to read: say so rather than claim a commit that never happened.
	var none []string
	for _, p := range o.Log.Partitions {
		if p.Committed < 0 {
			none = append(none, p.Group+" on "+p.Partition)
		}
	}
	if len(none) == 0 {
		return Result{Status: Pass, Detail: prose.F("every group has committed up to the end of %s it reads (total lag %d)", reads, total)}
	}
	return Result{Status: Pass, Detail: prose.F("every group is caught up on %s it reads (total lag %d); %s %s no committed offset, and no record to read yet", reads, total, strings.Join(limit(none, 4), ", "), hasHave(len(none)))}
}

func offsetText(c int64) string {
	if c < 0 {
		return "none"
	}
	return strconv.FormatInt(c, 10)
}

func versionOrderOf(o Observation) Result {
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
		return Result{Status: Fail, Detail: prose.F("%s an older version after a newer one: %s", prose.Count(len(bad), "key received", "keys received"), strings.Join(limit(bad, 6), ", "))}
	}
	return Result{Status: Pass, Detail: prose.F("%s over %s, each key's versions in order", prose.Count(len(o.Log.Applied), "write", "writes"), prose.Count(len(last), "key", "keys"))}
}

func offsetGapOf(o Observation) Result {
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
	reads := allOf(len(order), "partition", "partitions")
	for _, k := range order {
		if k.g != order[0].g {
			reads = "every partition each group" // a line per group and partition
		}
	}
	return Result{Status: Pass, Detail: prose.F("the fetched offsets are contiguous on %s read", reads)}
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

// allOf names a whole set of things: "the one partition", "all 3 partitions".
func allOf(n int, one, many string) string {
	switch n {
	case 1:
		return "the one " + one
	case 2:
		return "both " + many
	}
	return "all " + strconv.Itoa(n) + " " + many
}
