package engine_test

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/report"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/lessons"
)

// tooBig reports whether building f would schedule so much work that a fuzz
// iteration would take too long: big workloads and traffic, long runs and
// polls series, wide key ranges. The engine accepts these; the fuzzer just
// skips them.
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
				if err1 == nil && err2 == nil && hi-lo > limit {
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

// FuzzBuildRun: whatever parses, Build and Run never panic, errors are
// *scenario.Error or knob errors, and the trace can be reported and sought.
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
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			t.Skip()
		}
		file, err := scenario.Parse("fuzz.tdm", []byte(src))
		if err != nil || tooBig(file) {
			t.Skip()
		}
		tr, err := engine.Run(file, nil, 1)
		if err != nil {
			var se *scenario.Error
			if !errors.As(err, &se) {
				t.Fatalf("Run error is %T, not *scenario.Error: %v", err, err)
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
		for _, h := range tr.Marks {
			tr.MarkAt(h, mid)
		}
		if _, err := engine.Expectations(file); err == nil {
			if _, err := engine.CheckExpectations(file, 1); err != nil {
				var se *scenario.Error
				if !errors.As(err, &se) && !strings.Contains(err.Error(), "knob") {
					t.Fatalf("CheckExpectations error: %v", err)
				}
			}
		}
	})
}
