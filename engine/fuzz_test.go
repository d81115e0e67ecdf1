package engine_test

import (
	"errors"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/stream"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
)

// tooBig reports whether f's expectations would take a fuzz iteration too
// long to check under every knob setting they name: big workloads and
// traffic, long runs and polls series, wide key ranges. The run itself is
// bounded by fuzzBudget; the fuzzer just skips checking these expectations.
func tooBig(f *scenario.File) bool {
	s, err := f.Resolve(nil)
	if err != nil {
		return false // Build will refuse it cheaply
	}
	const limit = 500
	total := 0
	for _, c := range f.Bind(s) {
		total++
		for _, a := range c.Args {
			switch a.Key {
			case "txns", "count", "rows", "records", "keys":
				if n, err := strconv.Atoi(a.Value); err == nil && n > limit {
					return true
				}
			}
			if l, r, ok := strings.Cut(a.Value, ".."); ok {
				lo, err1 := strconv.ParseInt(l, 10, 64)
				hi, err2 := strconv.ParseInt(r, 10, 64)
				// hi-lo overflows int64 for a range across it; as unsigned
				// it is exact when hi >= lo.
				if err1 == nil && err2 == nil && hi >= lo && uint64(hi)-uint64(lo) > limit {
					return true
				}
			}
		}
		if c.Name == "runs" || c.Name == "polls" {
			var from, until vtime.Time
			every := vtime.Second
			for _, a := range c.Args {
				switch a.Key {
				case "from":
					from, _ = vtime.ParseTime(a.Value)
				case "until":
					until, _ = vtime.ParseTime(a.Value)
				case "every":
					if d, err := vtime.ParseDuration(a.Value); err == nil && d > 0 {
						every = d
					}
				}
			}
			if int64(until-from)/int64(every) > limit {
				return true
			}
		}
	}
	return total > 2000
}

// fuzzBudget bounds the work of one fuzz iteration; a scenario past it is
// refused with a *engine.BudgetError, which is one of the answers checked.
const fuzzBudget = 50_000

// FuzzBuildRun: whatever parses, Build and Run never panic nor hang, errors
// are *scenario.Error, *engine.BudgetError or knob errors, and the trace can
// be reported and sought.
func FuzzBuildRun(f *testing.F) {
	all, err := lessons.Scenarios()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range all {
		f.Add(string(s.Source))
	}
	f.Add(world + "workload txns=20 from=10:00:00 every=300ms duration=0s..2s rollback=20\nruns extract from=10:00:00 until=10:00:09 every=1s\n")
	f.Add(world + "begin T1 at=10:00:00\ninsert T1 at=10:00:01 order_id=1..5\nupdate T1 at=10:00:02 order_id=2\ndelete T1 at=10:00:03 order_id=3\ncommit T1 at=10:00:04\nrun extract at=10:00:05 crash=mid-write\nreset extract at=10:00:06 to=none\nrun extract at=10:00:07\n")
	f.Add(world + "txn T1 begin=10:00:00 commit=10:00:01 insert order_id=1\nrun extract at=10:00:02\nnote at-step=2 \"Ask the room\"\nnote at-step=0 \"Start here\"\n")
	// A table's stamping rule changed while a transaction is open, to and
	// from commit stamping.
	f.Add(world + "begin T1 at=10:00:00\ninsert T1 at=10:00:01 order_id=1\nalter orders at=10:00:02 updated_at=commit\ninsert T1 at=10:00:03 order_id=2\nalter orders at=10:00:04 updated_at=statement\ncommit T1 at=10:00:05\nrun extract at=10:00:06\n")
	// Key ranges at the edges of int64 (issue 9: the size check overflowed
	// and the loop never ended at math.MaxInt64); testdata/fuzz holds them too.
	f.Add(world + "txn T1 begin=10:00:00 commit=10:00:00 insert order_id=9223372036854775807..9223372036854775807\nrun extract at=10:00:01\n")
	f.Add(world + "txn T1 begin=10:00:00 commit=10:00:00 insert order_id=-9223372036854775808..9223372036854775807\n")
	// The same in an expect line's claim, which CheckExpectations spells out.
	f.Add(world + "txn T1 begin=10:00:00 commit=10:00:04 insert order_id=9223372036854775807..9223372036854775807\nrun extract at=10:00:06\nexpect missing=9223372036854775807..9223372036854775807 when mark=lsn\nexpect duplicated=-9223372036854775808..9223372036854775807x2\n")
	// Every command of the stream world, and the log world's lines it needs.
	f.Add(streamSeed)
	// A growing buffer that runs out of memory until the job stays down.
	f.Add("scenario fuzz/oom \"Out of memory\"\ntopic t partitions=1\nproducer p to=t key=id\ntarget out sink=append key=id\ntraffic p records=30 from=10:00:00 every=100ms keys=unique\nstream s from=t\ncheckpoint every=1s\nsink k from=s to=out rate=2/s buffer=5 overflow=grow memory=10\n")
	for seed := range uint64(8) {
		f.Add(randomStream(rand.New(rand.NewPCG(seed, 93))).Text())
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			t.Skip()
		}
		file, err := scenario.Parse("fuzz.tdm", []byte(src))
		if err != nil {
			t.Skip()
		}
		tr, err := engine.RunWithBudget(file, nil, 1, worlds.All(), fuzzBudget)
		if err != nil {
			var se *scenario.Error
			var be *engine.BudgetError
			if !errors.As(err, &se) && !errors.As(err, &be) {
				t.Fatalf("Run error is %T, not *scenario.Error or *engine.BudgetError: %v", err, err)
			}
			return
		}
		assertWithinTheDay(t, tr, false) // no event of another day (a fuzzed key may spell 25:00:00)
		_ = report.Build(tr)
		if err := report.Text(io.Discard, tr); err != nil {
			t.Fatal(err)
		}
		mid := tr.Steps() / 2
		tr.TruthAt(mid)
		tr.ChecksAt(mid)
		if ht := hwm.Of(tr); ht != nil {
			ht.MarksAt(mid)
		}
		if st := stream.Of(tr); st != nil {
			for i := range st.Windows {
				st.Results(i, mid)
			}
			st.WrongStarts(tr.Steps())
			st.Unjoined(tr.Steps())
			for k := range st.Late {
				st.WhyLate(k)
			}
		}
		// CheckExpectations runs every knob setting the expectations name,
		// within the default budget: too slow for a fuzz iteration when the
		// numbers are large.
		if tooBig(file) {
			return
		}
		if _, err := engine.Expectations(file); err == nil {
			if _, err := engine.CheckExpectations(file, 1, worlds.All()); err != nil {
				var se *scenario.Error
				if !errors.As(err, &se) && !strings.Contains(err.Error(), "knob") {
					t.Fatalf("CheckExpectations error: %v", err)
				}
			}
		}
	})
}

// streamSeed uses every command of the stream world.
const streamSeed = `scenario fuzz/stream "Every stream command"
knob lateness = 0s | 30s
topic sales partitions=2
topic pay partitions=1
clock t1 skew=1s
producer a to=sales key=sale_id partition=0 clock=t1
producer b to=sales key=sale_id
producer p to=pay key=sale_id
target per_minute sink=merge key=minute
target late sink=append key=event
target paid sink=append key=sale_id
traffic a records=30 from=10:00:00 every=2s keys=5 event-lag=0s..5s amount=1..50
traffic b records=20 from=10:00:00 every=3s keys=5
produce p at=10:00:10 key=1 event=10:00:04 amount=7
produce p at=10:00:20 key=2 event-lag=3s
offline a at=10:00:20 until=10:00:40 backlog=send
burst b at=10:00:50 records=5 event-from=10:00:10 event-every=1s keys=3 amount=5..9
jump t1 at=10:00:30 by=10s
stream s from=sales lag=100ms clock=reader
stream q from=pay event-time=timestamp
watermark s bound=2s emit=periodic interval=500ms idleness=10s scope=per-partition
watermark q bound=1s emit=per-record
filter s min-amount=0 max-amount=1000 keys=1..5
map s shift=0s scale=2
key-by s key
window w from=s tumbling size=20s lateness=$lateness late=side-output to=per_minute side=late
window v from=s sliding size=20s slide=10s agg=sum time=processing contents=off
window x from=s session gap=5s agg=max
join j left=s right=q between=-10s..10s exclusive=both late=drop to=paid
stall s partition=0 at=10:00:05 until=10:00:15
delay s partition=1 from=10:00:00 until=10:00:30 by=4s
check late-records max=3
check watermark-lag max=20s
check recount
check window-counts
check join-recount max=1
expect windows wrong=none
expect late dropped=0 accepted=0 side-output=0
expect joins unjoined=0
`
