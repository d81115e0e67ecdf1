package engine_test

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/hwm"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/scenario"
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
	// Key ranges at the edges of int64 (issue 9: the size check overflowed
	// and the loop never ended at math.MaxInt64); testdata/fuzz holds them too.
	f.Add(world + "txn T1 begin=10:00:00 commit=10:00:00 insert order_id=9223372036854775807..9223372036854775807\nrun extract at=10:00:01\n")
	f.Add(world + "txn T1 begin=10:00:00 commit=10:00:00 insert order_id=-9223372036854775808..9223372036854775807\n")
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
