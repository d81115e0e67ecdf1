package engine_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/worlds"
)

// logWorld and streamWorld are the preambles of the log and stream cases
// of TestTimesStayWithinTheDay; their next line is line 7.
const (
	logWorld = `scenario test/day "Day"
topic orders partitions=1
target fct_orders sink=merge key=order_id
producer shop to=orders key=order_id
group billing topic=orders to=fct_orders commit=after reset=earliest
member billing c1 at=10:00:00
`
	streamWorld = `scenario test/day "Day"
topic orders partitions=1
producer shop to=orders key=order_id
target per_min sink=merge key=minute
stream reader from=orders
window pm from=reader tumbling size=1m to=per_min
`
)

// TestTimesStayWithinTheDay: no time outside the day (00:00:00 to
// 23:59:59.999) reaches a trace. A line whose own arguments lead past it is
// refused at the argument; a time only the run reaches (a skewed clock's
// reading, a record read after a lag) stops the run with an error naming
// the line it descends from. Each case is one the review found printed as
// 24:00:00, 25:59:00 or -02:00:00.
func TestTimesStayWithinTheDay(t *testing.T) {
	const rule = "; times stay within one day (00:00:00–23:59:59.999)"
	tests := []struct {
		name, src, pos, msg string
	}{
		{"a workload past midnight", world + "workload txns=3 from=23:59:59 every=1s\n", "b.tdm:6:22", "this workload would run until 24:00:01" + rule},
		{"a workload's last transaction lasting past it", world + "workload txns=2 from=23:00:00 every=1s duration=1h\n", "b.tdm:6:22", "this workload would run until 24:00:01" + rule},
		{"a workload of a vast span", world + "workload txns=10000000 from=10:00:00 every=1000000000h\n", "b.tdm:6:29", "this workload would run until 1000000010:00:00" + rule},
		{"traffic past midnight", logWorld + "traffic shop records=10 from=23:59:55 every=1s\n", "b.tdm:7:30", "this traffic would run until 24:00:04" + rule},
		{"a resend the next day", logWorld + "produce shop at=23:59:00 key=2 fail=timeout retry=app retry-after=1h\n", "b.tdm:7:67", "the resend would come at 24:59:00" + rule},
		{"a connector restarting the next day", "scenario test/day \"Day\"\nsource orders key=order_id\ntopic cdc partitions=1\ncdc capture from=orders to=cdc\ncrash capture at=23:30:00 restart=1h\n", "b.tdm:5:35", "the connector would restart at 24:30:00" + rule},
		{"a batch processed into the next day", logWorld + "poll billing c1 at=23:59:30 process=1h\n", "b.tdm:7:37", "the batch's processing would end at 24:59:30" + rule},
		{"a job restarting the next day", streamWorld + "checkpoint every=10s\nfail reader at=23:30:00 restart=1h\n", "b.tdm:8:33", "the job would restart at 24:30:00" + rule},
		{"reads delayed into the next day", streamWorld + "delay reader partition=0 from=23:00:00 until=23:30:00 by=2h\n", "b.tdm:7:58", "the delayed reads would come at 25:00:00" + rule},
		// Only the run reaches these.
		{"jumps adding up past 12h", world + "jump reader at=10:00:00 by=12h\njump reader at=10:00:01 by=12h\n", "b.tdm:7:1", "at 10:00:01 the reader clock would read 34:00:01" + rule},
		{"a skew and a jump adding up", world + "jump source at=10:00:00 by=-7h\nclock source skew=-6h\n", "b.tdm:6:1", "at 10:00:00 the source clock would read -03:00:00" + rule},
		{"a clock 12h behind read at 10:00", "scenario test/day \"Day\"\nclock source skew=-12h\nsource orders key=order_id\ntarget fct_orders sink=merge key=order_id\npipeline p from=orders to=fct_orders mark=source-timestamp\ntxn T begin=10:00:00 commit=10:00:00 insert\nrun p at=10:00:03\n", "b.tdm:2:1", "at 10:00:00 the source clock would read -02:00:00" + rule},
		{"a clock 12h ahead read at 13:00", "scenario test/day \"Day\"\nclock reader skew=12h\nsource orders key=order_id\ntarget fct_orders sink=merge key=order_id\npipeline p from=orders to=fct_orders\nrun p at=13:00:00\n", "b.tdm:2:1", "at 13:00:00 the reader clock would read 25:00:00" + rule},
		{"a jumped clock read past midnight", world + "jump reader at=10:00:00 by=12h\nrun extract at=12:00:00\n", "b.tdm:6:1", "at 12:00:00 the reader clock would read 24:00:00" + rule},
		{"a record read after its lag the next day", streamWorld + "stream late from=orders lag=1h\nwindow pm2 from=late tumbling size=1m to=per_min\nproduce shop at=23:30:00 key=1\n", "b.tdm:9:1", "an event of this line would come at 24:30:00" + rule},
		{"a mark claimed past the day", world + "expect mark extract=25:00:00\n", "b.tdm:6:21", `expected a mark's value`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := scenario.Parse("b.tdm", []byte(tc.src))
			require.NoError(t, err)
			_, err = engine.Expectations(f)
			if err == nil {
				_, err = engine.Run(f, nil, 1, worlds.All())
			}
			require.Error(t, err)
			var se *scenario.Error
			require.True(t, errors.As(err, &se), "want *scenario.Error, got %T: %v", err, err)
			assert.Equal(t, tc.pos, se.Pos.String(), "position of: %v", err)
			assert.Contains(t, se.Msg, tc.msg)
		})
	}
}

// TestTimesAtTheEdgesOfTheDay: what ends at 23:59:59.999 is within the day,
// and a jump back by 12h undoes one forward, so the two add up to nothing.
func TestTimesAtTheEdgesOfTheDay(t *testing.T) {
	for _, src := range []string{
		world + "workload txns=2 from=23:59:58.999 every=1s\nrun extract at=23:59:59.999\n",
		logWorld + "traffic shop records=5 from=23:59:55 every=1s\npoll billing c1 at=23:59:59.999\n",
		world + "jump reader at=01:00:00 by=12h\njump reader at=01:00:01 by=-12h\njump reader at=01:00:02 by=12h\nrun extract at=02:00:00\n",
		"scenario test/day \"Day\"\nclock source skew=-10h\nsource orders key=order_id\ntarget fct_orders sink=merge key=order_id\npipeline p from=orders to=fct_orders mark=source-timestamp\ntxn T begin=10:00:00 commit=10:00:00 insert\nrun p at=10:00:03\nexpect mark p=00:00:03\n",
	} {
		f, err := scenario.Parse("b.tdm", []byte(src))
		require.NoError(t, err)
		tr, err := engine.Run(f, nil, 1, worlds.All())
		require.NoError(t, err, src)
		assertWithinTheDay(t, tr, true)
		res, err := engine.CheckExpectations(f, 1, worlds.All())
		require.NoError(t, err)
		for _, r := range res {
			assert.NoError(t, r.Err, r.Expectation.Line)
		}
	}
}

// TestAnInjectedClockJumpStaysWithinTheDay: a learner's clock jump that
// would make the clock read another day is refused, and the run goes on.
func TestAnInjectedClockJumpStaysWithinTheDay(t *testing.T) {
	f, err := scenario.Parse("b.tdm", []byte(world+"run extract at=10:00:02\n"))
	require.NoError(t, err)
	w, err := engine.Build(f, nil, 1, worlds.All())
	require.NoError(t, err)
	require.True(t, w.Step())
	err = w.Inject(engine.Fault{AfterStep: 1, Kind: engine.FaultClockJump, Clock: "reader", By: 14 * vtime.Hour})
	require.EqualError(t, err, "the reader clock would read 24:00:02; times stay within one day (00:00:00–23:59:59.999)")
	require.NoError(t, w.Inject(engine.Fault{AfterStep: 1, Kind: engine.FaultClockJump, Clock: "reader", By: 13 * vtime.Hour}))
	tr := w.Run()
	require.NoError(t, w.Err())
	assertWithinTheDay(t, tr, true)
}

// aTime is a time as the trace prints it, with what comes before it.
var aTime = regexp.MustCompile(`(^|[^0-9:.])(-?)([0-9]{2,}):([0-9]{2}):([0-9]{2})`)

// assertWithinTheDay fails t when an event of tr has a time outside the
// day, or, when narrated is set, one of the first thousand sentences of its
// narration does (a scenario whose keys and names spell no time).
func assertWithinTheDay(t testing.TB, tr *engine.Trace, narrated bool) {
	t.Helper()
	for i := range tr.Events {
		e := &tr.Events[i]
		if !e.At.InDay() {
			t.Fatalf("step %d is at %s, outside the day", i+1, e.At)
		}
		if narrated && i < 1000 {
			text := tr.Narration(e)
			for _, m := range aTime.FindAllStringSubmatch(text, -1) {
				if m[2] == "-" || m[3] >= "24" || len(m[3]) > 2 {
					t.Fatalf("step %d narrates a time outside the day: %s", i+1, strings.TrimSpace(text))
				}
			}
		}
	}
}
