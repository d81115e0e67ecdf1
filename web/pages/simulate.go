package pages

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidemark/tidemark/engine"
	"github.com/tidemark/tidemark/engine/scenario"
	"github.com/tidemark/tidemark/engine/worlds"
	"github.com/tidemark/tidemark/lessons"
	"github.com/tidemark/tidemark/templates/widget"
	"github.com/tidemark/tidemark/web"
)

// The limits of what the server simulates on a visitor's behalf. A bundled
// scenario's run is a pure function of its knobs and seed, so it is kept
// and shared (see traces); anything else (the sandbox's text) is run under
// all three limits. docs/scenarios.md and docs/security.md list them.
const (
	// ServerBudget is the work budget of one run on the server (see
	// engine.BuildWithBudget): a tenth of the browser's (widget.BrowserBudget),
	// so a run keeps at most a few tens of megabytes.
	ServerBudget = 200_000

	// MaxSimulations is how many runs the server does at once. A request
	// that would be one more is answered 503 at once, with Retry-After:
	// nothing queues, so a burst of heavy posts cannot pile up memory or
	// time, and every other page goes on being served.
	MaxSimulations = 2

	// SimulationDeadline bounds the time one run may take.
	SimulationDeadline = 5 * time.Second
)

// slots holds a token per run in progress.
var slots = make(chan struct{}, MaxSimulations)

// running counts the runs in progress, whoever started them; a test reads
// it to see how many run at once.
var running atomic.Int32

// deadline is SimulationDeadline; a test shortens it.
var deadline = SimulationDeadline

// errTooSlow is returned for a run stopped at SimulationDeadline.
var errTooSlow = errors.New("the server stopped running this scenario after " + SimulationDeadline.String())

// simulate returns the trace of f with knobs and seed: a bundled
// scenario's from traces when it was run before; otherwise it runs f within
// ServerBudget and SimulationDeadline, if one of MaxSimulations is free
// (or ctx holds one; see claimSlot).
// Errors: a *scenario.Error or knob error for bad input, a
// *engine.BudgetError past the budget, and one wrapping web.ErrBusy when no
// run is free or the deadline passed.
//
// With faults (a link's fork, injected right after their steps, in step
// order) the run is never kept: the page drawn from it is. A fault that
// cannot apply where it is (no run in flight to crash, a step past the
// run's end) is left out and returned in skipped, with why; the others
// apply.
func simulate(ctx context.Context, f *scenario.File, knobs map[string]string, seed uint64, faults ...engine.Fault) (_ *engine.Trace, skipped []skippedFault, _ error) {
	key, bundled := traceKey(f, knobs, seed)
	bundled = bundled && len(faults) == 0
	if bundled {
		if t := traces.get(key); t != nil {
			return t, nil, nil
		}
	}
	ctx, release, err := claimSlot(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	t, skipped, err := runWithin(ctx, f, knobs, seed, faults...)
	if err != nil {
		return nil, nil, err
	}
	if bundled {
		traces.put(key, t)
	}
	return t, skipped, nil
}

// skippedFault is a link's fault that could not apply, and why.
type skippedFault struct {
	fault engine.Fault
	err   error
}

// slotKey marks a context whose request holds a run slot (see claimSlot).
type slotKey struct{}

// claimSlot takes one of the MaxSimulations run slots for the work done
// with the context it returns, until release is called; a context that
// holds one already keeps it, and release then does nothing. With every
// slot taken it returns an error wrapping web.ErrBusy at once.
func claimSlot(ctx context.Context) (_ context.Context, release func(), _ error) {
	if ctx.Value(slotKey{}) != nil {
		return ctx, func() {}, nil
	}
	select {
	case slots <- struct{}{}:
		return context.WithValue(ctx, slotKey{}, true), func() { <-slots }, nil
	default:
		return ctx, nil, fmt.Errorf("%w: it is running %d scenarios for other visitors already, as many as it runs at once", web.ErrBusy, MaxSimulations)
	}
}

// holdForDrawing takes a run slot for the rest of a request that runs f
// and draws what it ran, when f is not a bundled scenario: drawing a
// visitor's run costs as much as running it (a page of tens of megabytes
// at the server's budget), so it is bounded by the same slots. A bundled
// scenario's runs are small and kept; their requests take a slot only to
// run one (simulate).
func holdForDrawing(ctx context.Context, f *scenario.File) (_ context.Context, release func(), _ error) {
	if sc, ok := lessons.Lookup(f.ID); ok && sc.File == f {
		return ctx, func() {}, nil
	}
	return claimSlot(ctx)
}

// beforeDrawing is called between a run and the drawing of what it ran; a
// test holds it to see that the drawing keeps its slot.
var beforeDrawing = func() {}

// runWithin builds and runs f within ServerBudget, injecting faults right
// after their steps and skipping those that cannot apply, stopping when ctx
// ends.
func runWithin(ctx context.Context, f *scenario.File, knobs map[string]string, seed uint64, faults ...engine.Fault) (_ *engine.Trace, skipped []skippedFault, _ error) {
	running.Add(1)
	defer running.Add(-1)
	w, err := engine.BuildWithBudget(f, knobs, seed, worlds.All(), ServerBudget)
	if err != nil {
		return nil, nil, err
	}
	for i := 1; ; i++ {
		if len(faults) > 0 && w.FaultDue(faults[0]) {
			// A fault that does not apply leaves the world as it was.
			if err := w.Inject(faults[0]); err != nil {
				skipped = append(skipped, skippedFault{faults[0], err})
			}
			faults = faults[1:]
			continue
		}
		if !w.Step() {
			break
		}
		if i%1024 == 0 && ctx.Err() != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, nil, fmt.Errorf("%w: %w", errTooSlow, web.ErrBusy)
			}
			return nil, nil, ctx.Err()
		}
	}
	if err := w.Err(); err != nil {
		return nil, nil, err
	}
	for _, f := range faults {
		skipped = append(skipped, skippedFault{f, engine.FaultPastEnd(w.Trace().Steps(), f)})
	}
	return w.Trace(), skipped, nil
}

// traceKey names f's run with knobs and seed, and reports whether f is a
// bundled scenario (the catalog's own parse of it, not a sandbox text that
// claims its id), whose runs may be kept.
func traceKey(f *scenario.File, knobs map[string]string, seed uint64) (string, bool) {
	sc, ok := lessons.Lookup(f.ID)
	if !ok || sc.File != f {
		return "", false
	}
	settings, err := f.Resolve(knobs) // every knob, defaults filled in
	if err != nil {
		return "", false
	}
	var b strings.Builder
	b.WriteString(f.ID)
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		b.WriteString(" " + k + "=" + settings[k])
	}
	b.WriteString(" seed=" + strconv.FormatUint(seed, 10))
	return b.String(), true
}

// Warm runs every bundled scenario under every combination of its knobs
// with seed 1, the runs the pages link to, so that no visitor waits for
// them or is turned away while the server is busy with others. A
// long-running server calls it once at start.
func Warm() error {
	all, err := lessons.Scenarios()
	if err != nil {
		return err
	}
	for _, sc := range all {
		for _, knobs := range sc.File.KnobSettings() {
			key, _ := traceKey(sc.File, knobs, 1)
			if traces.get(key) != nil {
				continue
			}
			t, _, err := runWithin(context.Background(), sc.File, knobs, 1)
			if err != nil {
				return fmt.Errorf("warm %s: %w", sc.ID, err)
			}
			traces.put(key, t)
		}
	}
	return nil
}

// maxTraces bounds the runs of bundled scenarios kept: every knob
// combination of every bundled scenario with seed 1 (about a hundred), and
// room for other seeds, which visitors choose.
const maxTraces = 512

// traces keeps runs of bundled scenarios by traceKey, least recently used
// first out. A kept trace is shared by concurrent requests, which only read it.
var traces = &traceCache{order: list.New(), byKey: map[string]*list.Element{}}

type traceCache struct {
	mu    sync.Mutex
	order *list.List // of *keptTrace, most recently used first
	byKey map[string]*list.Element
}

type keptTrace struct {
	key string
	t   *engine.Trace
}

func (c *traceCache) get(key string) *engine.Trace {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil
	}
	c.order.MoveToFront(e)
	return e.Value.(*keptTrace).t
}

func (c *traceCache) put(key string, t *engine.Trace) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok {
		return
	}
	c.byKey[key] = c.order.PushFront(&keptTrace{key: key, t: t})
	for c.order.Len() > maxTraces {
		last := c.order.Back()
		delete(c.byKey, last.Value.(*keptTrace).key)
		c.order.Remove(last)
	}
}

// limitMessage explains a run the server refused or stopped, for the sandbox.
func limitMessage(err error) string {
	var be *engine.BudgetError
	switch {
	case errors.As(err, &be):
		return err.Error() + ". That is the server's limit; your browser's is " + strconv.Itoa(widget.BrowserBudget) +
			" (with JavaScript on, this page runs the scenario there as you type), and `tidemark run --max-events N` runs any size."
	case errors.Is(err, errTooSlow):
		return errTooSlow.Error() + "; with JavaScript on, this page runs it in your browser instead."
	case errors.Is(err, web.ErrBusy):
		return "The server is running as many scenarios as it can for other visitors right now; try again in a few seconds. Your text is kept below."
	}
	return err.Error()
}
