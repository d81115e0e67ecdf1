package watermark_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/engine/vtime"
	"github.com/tidemark/tidemark/engine/watermark"
)

func at(s string) vtime.Time {
	t, err := vtime.ParseTime(s)
	if err != nil {
		panic(err)
	}
	return t
}

func source(t *testing.T, cfg watermark.Config, n int) *watermark.Source {
	t.Helper()
	s, err := watermark.New(cfg, n)
	require.NoError(t, err)
	return s
}

// The formula: the largest event time seen, minus the bound, minus 1 ms;
// None before anything is seen; a record behind the largest moves nothing.
func TestGeneratorFormula(t *testing.T) {
	g := watermark.NewGenerator(2 * vtime.Second)
	assert.Equal(t, watermark.None, g.Current(), "no record yet: the watermark claims nothing")
	g.OnEvent(at("10:00:05"))
	assert.Equal(t, at("10:00:02.999"), g.Current())
	g.OnEvent(at("10:00:03"))
	assert.Equal(t, at("10:00:02.999"), g.Current(), "an out-of-order record moves nothing")
	g.OnEvent(at("10:00:07"))
	assert.Equal(t, at("10:00:04.999"), g.Current())

	zero := watermark.NewGenerator(0)
	zero.OnEvent(at("10:00:00"))
	assert.Equal(t, at("09:59:59.999"), zero.Current(), "with no bound the watermark is 1 ms behind the newest record")

	neg := watermark.NewGenerator(0)
	neg.OnEvent(vtime.Time(-5000))
	assert.Equal(t, vtime.Time(-5001), neg.Current(), "negative event times work the same")
}

func TestConfigValidate(t *testing.T) {
	ok := watermark.Config{Interval: 200 * vtime.Millisecond}
	require.NoError(t, ok.Validate())
	for _, c := range []struct {
		cfg         watermark.Config
		field, want string
	}{
		{watermark.Config{Bound: -1, Interval: 1}, "bound", "bound cannot be negative"},
		{watermark.Config{}, "interval", "interval must be positive"},
		{watermark.Config{Interval: 1, Idleness: -vtime.Second}, "idleness", "idleness cannot be negative"},
		{watermark.Config{Interval: 1, Emission: 9}, "emit", "unknown watermark emission"},
		{watermark.Config{Interval: 1, Scope: 9}, "scope", "unknown watermark scope"},
	} {
		err := c.cfg.Validate()
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.want)
		var ce *watermark.ConfigError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, c.field, ce.Field, "the setting at fault, named as the watermark line's argument")
	}
	_, err := watermark.New(ok, 0)
	assert.ErrorContains(t, err, "at least one partition")
}

// The source's watermark is the minimum over its partitions, and a partition
// that has produced nothing holds it at None.
func TestMinimumOverPartitions(t *testing.T) {
	s := source(t, watermark.Config{Interval: vtime.Second}, 3)
	s.Record(0, at("10:00:10"))
	s.Record(1, at("10:00:04"))
	u := s.Tick(at("10:00:11"))
	assert.Equal(t, watermark.None, u.Watermark, "partition 2 has produced nothing and is not idle")
	assert.False(t, u.Advanced)

	s.Record(2, at("10:00:06"))
	assert.Equal(t, watermark.None, s.Watermark(), "periodic emission waits for the next tick")
	u = s.Tick(at("10:00:12"))
	assert.Equal(t, watermark.Update{Watermark: at("10:00:03.999"), Advanced: true}, u, "min(10:00:09.999, 10:00:03.999, 10:00:05.999)")
	assert.Equal(t, watermark.Partition{MaxSeen: at("10:00:10"), Records: 1, Watermark: at("10:00:09.999")}, s.Partition(0))
	assert.Equal(t, watermark.Partition{MaxSeen: at("10:00:04"), Records: 1, Watermark: at("10:00:03.999")}, s.Partition(1))

	s.Record(1, at("10:00:20"))
	u = s.Tick(at("10:00:13"))
	assert.Equal(t, at("10:00:05.999"), u.Watermark, "partition 2 is now the slowest")
}

// Idleness is judged at ticks only: the first tick without a record starts
// the countdown, and the partition is idle at the first tick strictly more
// than the idleness after that.
func TestIdlenessInAndOut(t *testing.T) {
	cfg := watermark.Config{Interval: vtime.Second, Idleness: 3 * vtime.Second}
	s := source(t, cfg, 2)
	s.Record(1, at("10:00:00.500")) // partition 1's only record for a while

	var idleAt vtime.Time
	for sec := 1; sec <= 9; sec++ {
		now := at("10:00:00").Add(vtime.Duration(sec) * vtime.Second)
		s.Record(0, now.Add(-100*vtime.Millisecond)) // partition 0 produces every second
		s.Tick(now)
		if s.Partition(1).Idle && idleAt == 0 {
			idleAt = now
		}
		if now == at("10:00:05") {
			// Countdown started at the tick of 10:00:02 (the first without a
			// record); at 10:00:05 exactly 3 s have passed, which is not more.
			assert.False(t, s.Partition(1).Idle)
			assert.Equal(t, at("10:00:00.499"), s.Watermark(), "the quiet partition holds the watermark back")
		}
	}
	assert.Equal(t, at("10:00:06"), idleAt, "idle at the first tick more than 3 s after the countdown began")
	assert.Equal(t, at("10:00:08.899"), s.Watermark(), "with partition 1 idle, partition 0 alone drives it")

	// Partition 1 produces again, far behind. The mark stays until its next
	// emission, and then the watermark does not go back: it waits.
	s.Record(1, at("10:00:03"))
	assert.True(t, s.Partition(1).Idle, "a record does not clear the idle mark by itself")
	before := s.Watermark()
	s.Record(0, at("10:00:12"))
	u := s.Tick(at("10:00:10"))
	assert.False(t, s.Partition(1).Idle, "the tick's emission makes it active again")
	assert.Equal(t, before, u.Watermark, "the minimum is now partition 1's 10:00:02.999, below the watermark, which stays")
	assert.False(t, u.Advanced)

	s.Record(1, at("10:00:30"))
	u = s.Tick(at("10:00:11"))
	assert.Equal(t, at("10:00:11.999"), u.Watermark, "once caught up, the minimum moves again")
}

// A partition that never produces is marked idle too, and when every
// partition is idle the source is idle and keeps its watermark.
func TestAllIdle(t *testing.T) {
	s := source(t, watermark.Config{Interval: vtime.Second, Idleness: 2 * vtime.Second}, 2)
	s.Record(0, at("10:00:00"))
	for sec := 1; sec <= 4; sec++ {
		s.Tick(at("10:00:00").Add(vtime.Duration(sec) * vtime.Second))
	}
	// Partition 1 never produced: countdown at the first tick (10:00:01),
	// idle at 10:00:04 (3 s > 2 s). Partition 0's record came before the first
	// tick, so its countdown starts at 10:00:02 and it is idle at 10:00:05.
	assert.True(t, s.Partition(1).Idle)
	assert.False(t, s.Partition(0).Idle)
	assert.Equal(t, at("09:59:59.999"), s.Watermark())
	u := s.Tick(at("10:00:05"))
	assert.True(t, u.Idle)
	assert.Equal(t, at("09:59:59.999"), u.Watermark, "an idle source keeps its watermark")
}

// Per-source generation: one generator sees every partition, so the
// fastest partition drives the watermark and a slower one's records fall
// behind it.
func TestPerSourceFastestPartitionDrives(t *testing.T) {
	s := source(t, watermark.Config{Interval: vtime.Second, Scope: watermark.PerSource}, 2)
	s.Record(0, at("10:00:10"))
	s.Record(1, at("10:00:02"))
	u := s.Tick(at("10:00:10"))
	assert.Equal(t, at("10:00:09.999"), u.Watermark)
	assert.Greater(t, u.Watermark, s.Partition(1).MaxSeen, "partition 1's newest record is already behind the watermark")
	assert.Equal(t, u.Watermark, s.Partition(1).Watermark, "both partitions report the shared generator")

	pp := source(t, watermark.Config{Interval: vtime.Second}, 2)
	pp.Record(0, at("10:00:10"))
	pp.Record(1, at("10:00:02"))
	assert.Equal(t, at("10:00:01.999"), pp.Tick(at("10:00:10")).Watermark, "per partition, the slower one sets it")
}

// Per source with several readers, each reader has its own generator over
// the partitions it reads (p mod Readers), as a strategy applied after a
// Flink source runs once per subtask, and the source's watermark is their
// minimum: the fastest partition drives only its own reader's.
func TestPerSourceOneGeneratorPerReader(t *testing.T) {
	s := source(t, watermark.Config{Interval: vtime.Second, Scope: watermark.PerSource, Readers: 2}, 3)
	s.Record(0, at("10:00:10"))
	s.Record(2, at("10:00:04"))
	s.Record(1, at("10:00:02"))
	u := s.Tick(at("10:00:10"))
	assert.Equal(t, at("10:00:01.999"), u.Watermark, "reader 1 (partition 1) holds the minimum back")
	assert.Equal(t, at("10:00:09.999"), s.Partition(2).Watermark, "partitions 0 and 2 share reader 0's generator")
	assert.Equal(t, s.Partition(0).Watermark, s.Partition(2).Watermark)

	// More readers than partitions: a generator per partition, and a
	// partition added later comes with its reader's first generator.
	many := source(t, watermark.Config{Interval: vtime.Second, Scope: watermark.PerSource, Readers: 4}, 1)
	many.Record(0, at("10:00:10"))
	assert.Equal(t, at("10:00:09.999"), many.Tick(at("10:00:10")).Watermark)
	many.Grow(2)
	many.Record(0, at("10:00:20"))
	assert.Equal(t, at("10:00:09.999"), many.Tick(at("10:00:20")).Watermark, "the new reader has seen nothing and holds the minimum")

	_, err := watermark.New(watermark.Config{Interval: vtime.Second, Readers: -1}, 1)
	assert.Error(t, err)
}

// Per-record emission moves the watermark as each record is read.
func TestPerRecordEmission(t *testing.T) {
	s := source(t, watermark.Config{Interval: vtime.Second, Emission: watermark.PerRecord, Bound: vtime.Second}, 2)
	u := s.Record(0, at("10:00:05"))
	assert.Equal(t, watermark.None, u.Watermark, "partition 1 has not emitted")
	u = s.Record(1, at("10:00:03"))
	assert.Equal(t, watermark.Update{Watermark: at("10:00:01.999"), Advanced: true}, u)
	u = s.Record(1, at("10:00:09"))
	assert.Equal(t, watermark.Update{Watermark: at("10:00:03.999"), Advanced: true}, u)
	u = s.Tick(at("10:00:10"))
	assert.False(t, u.Advanced, "a tick emits nothing new when emitting per record")
}

// A partition added later starts at None and holds the minimum back.
func TestGrowHoldsBack(t *testing.T) {
	s := source(t, watermark.Config{Interval: vtime.Second}, 1)
	s.Record(0, at("10:00:05"))
	assert.Equal(t, at("10:00:04.999"), s.Tick(at("10:00:05")).Watermark)
	s.Grow(2)
	s.Record(0, at("10:00:09"))
	u := s.Tick(at("10:00:09"))
	assert.Equal(t, at("10:00:04.999"), u.Watermark, "the new partition holds it; it never goes back")
	assert.Equal(t, 2, s.Partitions())
}

func TestCombinerInputs(t *testing.T) {
	c := watermark.NewCombiner(2)
	assert.False(t, c.Emit(0, at("10:00:10")), "input 1 is still at None")
	assert.True(t, c.Emit(1, at("10:00:04")))
	assert.Equal(t, at("10:00:04"), c.Watermark())
	assert.True(t, c.MarkIdle(1), "without the slow input the fast one drives")
	assert.Equal(t, at("10:00:10"), c.Watermark())
	assert.False(t, c.MarkActive(1), "the returning input is behind: the watermark waits")
	assert.Equal(t, at("10:00:10"), c.Watermark())
	assert.False(t, c.Emit(1, at("10:00:04")), "not a move forward")
	assert.False(t, c.Emit(1, at("10:00:12")), "input 0 is now the minimum, and it is where the watermark already is")
	assert.Equal(t, at("10:00:10"), c.Watermark())
	w, idle := c.Input(1)
	assert.Equal(t, at("10:00:12"), w)
	assert.False(t, idle)
	assert.True(t, c.MarkIdle(0), "input 0 idle: input 1 alone")
	assert.Equal(t, at("10:00:12"), c.Watermark())
	assert.False(t, c.MarkIdle(1))
	assert.True(t, c.Idle())
	assert.Equal(t, 2, c.Len())
}

// Property: whatever records, ticks and idleness happen, the source's
// watermark and every partition's watermark never go backwards, and the
// source never claims more than it has seen (the largest event time read
// minus the bound minus 1 ms).
func TestPropertyWatermarkNeverGoesBack(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 1))
		n := 1 + r.IntN(5)
		cfg := watermark.Config{
			Bound:    vtime.Duration(r.IntN(3000)),
			Emission: watermark.Emission(r.IntN(2)),
			Interval: vtime.Duration(100 + r.IntN(1000)),
			Idleness: vtime.Duration(r.IntN(2)) * vtime.Duration(500+r.IntN(5000)),
			Scope:    watermark.Scope(r.IntN(2)),
		}
		s, err := watermark.New(cfg, n)
		require.NoError(t, err)
		prev := s.Watermark()
		prevPart := make([]vtime.Time, 16)
		for i := range prevPart {
			prevPart[i] = watermark.None
		}
		largest := watermark.None
		now := vtime.Time(36_000_000)
		for range 400 {
			now = now.Add(vtime.Duration(r.IntN(400)))
			var u watermark.Update
			switch k := r.IntN(10); {
			case k < 6:
				p := r.IntN(s.Partitions())
				if r.IntN(4) == 0 {
					p = 0 // one busy partition, so others go quiet
				}
				et := now.Add(-vtime.Duration(r.IntN(20_000)))
				largest = max(largest, et)
				u = s.Record(p, et)
			case k < 9:
				u = s.Tick(now)
			default:
				if s.Partitions() < 16 {
					s.Grow(s.Partitions() + 1)
				}
				u = s.Tick(now)
			}
			// Plain comparisons: testify's reflection would make this loop slow.
			if u.Watermark < prev {
				t.Fatalf("seed %d: the source's watermark went back from %d to %d", seed, prev, u.Watermark)
			}
			if u.Advanced != (u.Watermark > prev) {
				t.Fatalf("seed %d: Advanced=%v but the watermark went from %d to %d", seed, u.Advanced, prev, u.Watermark)
			}
			if claim := largest - vtime.Time(cfg.Bound) - 1; largest == watermark.None && u.Watermark != watermark.None || largest != watermark.None && u.Watermark > claim {
				t.Fatalf("seed %d: watermark %d claims more than the largest event time seen, %d, allows", seed, u.Watermark, largest)
			}
			prev = u.Watermark
			for p := range s.Partitions() {
				w := s.Partition(p).Watermark
				if w < prevPart[p] {
					t.Fatalf("seed %d: partition %d's watermark went back from %d to %d", seed, p, prevPart[p], w)
				}
				prevPart[p] = w
			}
		}
	}
}

// NextTick names the first tick that can change anything: the next one
// after a record, the one at which a countdown runs out, none when every
// partition is idle or there is nothing to hand on; ticks it skips change
// nothing.
func TestNextTick(t *testing.T) {
	s, err := watermark.New(watermark.Config{Bound: 0, Interval: 100, Idleness: 1000}, 2)
	require.NoError(t, err)
	s.Record(0, 500)
	s.Record(1, 500)
	at, ok := s.NextTick(600)
	require.True(t, ok)
	assert.Equal(t, vtime.Time(600), at, "records since the last tick")
	s.Tick(600) // hands on 499; the counters are read
	at, ok = s.NextTick(700)
	require.True(t, ok)
	assert.Equal(t, vtime.Time(700), at, "the next tick starts the countdowns")
	s.Tick(700) // the countdowns start at 700
	at, ok = s.NextTick(800)
	require.True(t, ok)
	assert.Equal(t, vtime.Time(1701), at, "strictly more than 1000 after 700")
	for now := vtime.Time(800); now < 1701; now += 100 {
		u := s.Tick(now)
		assert.False(t, u.Advanced || u.Idle, "a skipped tick changes nothing")
	}
	u := s.Tick(1701)
	assert.True(t, u.Idle, "both idle at the tick the countdown runs out")
	_, ok = s.NextTick(1800)
	assert.False(t, ok, "nothing can change while every partition is idle")

	p, err := watermark.New(watermark.Config{Bound: 0, Interval: 100}, 1)
	require.NoError(t, err)
	_, ok = p.NextTick(0)
	assert.False(t, ok, "no idleness and nothing read: no tick needed")
	p.Record(0, 300)
	at, ok = p.NextTick(400)
	require.True(t, ok)
	assert.Equal(t, vtime.Time(400), at, "a watermark to hand on")
	p.Tick(400)
	_, ok = p.NextTick(500)
	assert.False(t, ok)
}
