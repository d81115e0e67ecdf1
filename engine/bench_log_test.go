package engine_test

import (
	"strings"
	"testing"

	"github.com/tidemark/tidemark/engine/scenario"
)

// benchLogScenario is a million keyed records from one producer over 64
// partitions, read by a group of eight consumers that each poll every 100 ms
// and merge what they read, committing after the write. The producer and the
// polls are scheduled lazily, one pending event each, so the queue stays small.
const benchLogScenario = `scenario bench/log "1M records, 64 partitions, 8 consumers"
topic orders partitions=64
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest
member billing c1 at=09:59:59
member billing c2 at=09:59:59
member billing c3 at=09:59:59
member billing c4 at=09:59:59
member billing c5 at=09:59:59
member billing c6 at=09:59:59
member billing c7 at=09:59:59
member billing c8 at=09:59:59
traffic shop records=1000000 from=10:00:00 every=1ms keys=100000
polls billing from=10:00:00 until=10:16:41 every=100ms max=1000
`

// BenchmarkLogRun builds and runs the log scenario. It reports simulated
// events per second and the heap the finished trace keeps per event.
func BenchmarkLogRun(b *testing.B) {
	f, err := scenario.Parse("bench-log.tdm", []byte(benchLogScenario))
	if err != nil {
		b.Fatal(err)
	}
	measureRuns(b, f, nil)
}

// BenchmarkLogRunCases runs variants of the log scenario that cost more (or
// less) per event than it: every record a new key, an append sink that keeps
// every copy, small polls, polls ten times as often, commits before the
// write, and a second group copying the topic into a second target. Each
// reports what BenchmarkLogRun does; `make bench` leaves them out.
func BenchmarkLogRunCases(b *testing.B) {
	second := "target fct_audit sink=merge key=order_id\n" +
		"group audit topic=orders to=fct_audit commit=after reset=earliest\n" +
		"member audit a1 at=09:59:59\nmember audit a2 at=09:59:59\n" +
		"polls audit from=10:00:00 until=10:16:41 every=100ms max=1000\n"
	cases := []struct{ name, old, new string }{
		{"keys=1000000", "keys=100000", "keys=1000000"},
		{"keys=1000", "keys=100000", "keys=1000"},
		{"sink=append", "sink=merge", "sink=append"},
		{"max=10", "max=1000", "max=10"},
		{"every=10ms", "every=100ms", "every=10ms"},
		{"commit=before", "commit=after", "commit=before"},
		{"two-groups", "", second},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			src := benchLogScenario + c.new
			if c.old != "" {
				src = strings.Replace(benchLogScenario, c.old, c.new, 1)
			}
			f, err := scenario.Parse("bench-log.tdm", []byte(src))
			if err != nil {
				b.Fatal(err)
			}
			measureRuns(b, f, nil)
		})
	}
}
