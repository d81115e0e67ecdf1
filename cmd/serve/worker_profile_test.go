//go:build !js

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/websocket"
)

// This file takes a CPU profile of the Worker inside workerd, through the
// V8 inspector that `wrangler dev --inspector-port` opens, and says where a
// request's time goes: instantiating the module, the Go runtime's start,
// the packages' initialisation, main up to workers.Serve, the library's
// conversion of the request and response, the site's handler, and
// JavaScript (the glue and the collector). TestWorker logs it for each kind
// of request; docs/performance.md has the figures.

// cpuProfile is the part of a V8 CPU profile (Profiler.stop) read here.
type cpuProfile struct {
	Nodes []struct {
		ID        int `json:"id"`
		CallFrame struct {
			FunctionName string `json:"functionName"`
			URL          string `json:"url"` // wasm://… for a function of the module
		} `json:"callFrame"`
		Children []int `json:"children"`
	} `json:"nodes"`
	Samples    []int   `json:"samples"`
	TimeDeltas []int64 `json:"timeDeltas"` // microseconds before each sample
}

// frame is a function on the stack of a sample.
type frame struct {
	name string
	wasm bool // a function of the module (Go), not JavaScript
}

// A phase is a part of what the Worker does for a request, recognised by
// the functions on the stack of a sample. The first phase that matches a
// stack takes the sample, so the order matters.
type phase struct {
	name  string
	match func(stack []frame) bool // stack[0] is the running function
}

// has reports whether the stack holds a function whose name satisfies f.
func has(stack []frame, f func(string) bool) bool {
	return slices.ContainsFunc(stack, func(fr frame) bool { return f(fr.name) })
}

// phases are the parts of a request, in the order they are tried. V8 names
// a Go function of the module by its import path with "/" and "."
// replaced by "_" in the package part (github_com_tidemark_…, net_http.…),
// from the module's name section.
var phases = []phase{
	{"instantiating the module (memory, data segments)", func(s []frame) bool {
		return has(s, func(f string) bool { return f == "Instance" })
	}},
	{"package initialisation (runtime.doInit1)", func(s []frame) bool {
		return has(s, func(f string) bool { return f == "runtime.doInit1" })
	}},
	{"main up to workers.Serve (handler built)", func(s []frame) bool {
		return has(s, func(f string) bool { return f == "main.main" })
	}},
	{"the site's handler", func(s []frame) bool {
		return has(s, func(f string) bool {
			return strings.HasPrefix(f, "github.com_tidemark_") || strings.HasPrefix(f, "github.com_a_h_templ") ||
				strings.Contains(f, "ServeHTTP") || strings.HasPrefix(f, "net_http.")
		})
	}},
	{"syumai/workers: request and response conversion", func(s []frame) bool {
		return has(s, func(f string) bool { return strings.HasPrefix(f, "github.com_syumai_workers") })
	}},
	{"the Go runtime (start, scheduler, allocation, stacks)", func(s []frame) bool {
		return has(s, func(f string) bool { return strings.HasPrefix(f, "runtime.") })
	}},
	{"other Go code", func(s []frame) bool { return s[0].wasm }},
	{"V8's garbage collector", func(s []frame) bool { return s[0].name == "(garbage collector)" }},
	{"JavaScript: the glue, wasm_exec.js, the runtime's", func([]frame) bool { return true }},
}

// phaseTime is the CPU time of one phase, in microseconds.
type phaseTime struct {
	phase string
	us    int64
}

// breakdown returns the CPU time of the profile by phase, in the order of
// phases, and the total; idle time and V8's "(program)" are left out.
func (p *cpuProfile) breakdown() (shares []phaseTime, total int64) {
	type node struct {
		frame
		parent int
	}
	nodes := map[int]*node{}
	for _, n := range p.Nodes {
		if nodes[n.ID] == nil {
			nodes[n.ID] = &node{parent: -1}
		}
		nodes[n.ID].frame = frame{n.CallFrame.FunctionName, strings.HasPrefix(n.CallFrame.URL, "wasm://")}
		for _, c := range n.Children {
			if nodes[c] == nil {
				nodes[c] = &node{parent: -1}
			}
			nodes[c].parent = n.ID
		}
	}
	byPhase := make([]int64, len(phases))
	for i, id := range p.Samples {
		if i >= len(p.TimeDeltas) {
			break
		}
		us := p.TimeDeltas[i]
		var stack []frame
		for n, ok := nodes[id]; ok; n, ok = nodes[n.parent] {
			stack = append(stack, n.frame)
		}
		if len(stack) == 0 || stack[0].name == "(idle)" || stack[0].name == "(program)" || stack[0].name == "(root)" {
			continue
		}
		for j, ph := range phases {
			if ph.match(stack) {
				byPhase[j] += us
				break
			}
		}
		total += us
	}
	for j, ph := range phases {
		shares = append(shares, phaseTime{ph.name, byPhase[j]})
	}
	return shares, total
}

// inspector is a connection to the V8 inspector of wrangler dev.
type inspector struct {
	ws   *websocket.Conn
	next int
}

// dialInspector connects to the inspector that wrangler dev serves on
// port. wrangler's proxy wants an Origin header; any will do.
func dialInspector(t *testing.T, port string) *inspector {
	t.Helper()
	var targets []struct {
		URL string `json:"webSocketDebuggerUrl"`
	}
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; {
		var resp *http.Response
		resp, err = http.Get("http://127.0.0.1:" + port + "/json")
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
			if err == nil && len(targets) > 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the inspector on port %s lists no target (%v)", port, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	cfg, err := websocket.NewConfig(targets[0].URL, "http://127.0.0.1")
	require.NoError(t, err)
	ws, err := websocket.DialConfig(cfg)
	require.NoError(t, err, "connect to the inspector at %s", targets[0].URL)
	ws.MaxPayloadBytes = 256 << 20 // a profile of many requests is tens of megabytes
	t.Cleanup(func() { ws.Close() })
	return &inspector{ws: ws}
}

// call sends one inspector command and returns its result, skipping the
// events and the answers to others' commands that come meanwhile.
func (in *inspector) call(method string, params any) (json.RawMessage, error) {
	in.next++
	id := in.next
	if err := websocket.JSON.Send(in.ws, map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	_ = in.ws.SetReadDeadline(time.Now().Add(2 * time.Minute))
	for {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := websocket.JSON.Receive(in.ws, &msg); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if msg.ID != id {
			continue
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, msg.Error.Message)
		}
		return msg.Result, nil
	}
}

// profile makes n requests (request(i) gives the i-th) under V8's sampling
// profiler, logs where their CPU time went by phase, per request, and
// writes the profile to $TIDEMARK_WORKER_PROFILE/<name>.cpuprofile when
// that is set (Chrome's DevTools open it).
func (w *workerd) profile(t *testing.T, name, what string, n int, request func(i int) (method, path, body string)) {
	t.Helper()
	in := w.inspector
	for _, c := range []struct {
		method string
		params any
	}{{"Profiler.enable", struct{}{}}, {"Profiler.setSamplingInterval", map[string]int{"interval": 100}}, {"Profiler.start", struct{}{}}} {
		_, err := in.call(c.method, c.params)
		require.NoError(t, err)
	}
	for i := range n {
		method, path, body := request(i)
		req, err := http.NewRequest(method, w.base+path, strings.NewReader(body))
		require.NoError(t, err)
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := noDecoding.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Less(t, resp.StatusCode, 400, "%s %s", method, path)
	}
	raw, err := in.call("Profiler.stop", struct{}{})
	require.NoError(t, err)
	var res struct {
		Profile json.RawMessage `json:"profile"`
	}
	require.NoError(t, json.Unmarshal(raw, &res))
	if dir := os.Getenv("TIDEMARK_WORKER_PROFILE"); dir != "" {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".cpuprofile"), res.Profile, 0o644))
	}
	var p cpuProfile
	require.NoError(t, json.Unmarshal(res.Profile, &p))
	shares, total := p.breakdown()
	assert.NotZero(t, total, "the profile of %s holds no sample", what)
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%.1f ms\t100%%\t %s\t\n", float64(total)/1000/float64(n), "in all, sampled (the profiler's own cost included)")
	for _, s := range shares {
		fmt.Fprintf(tw, "%.1f ms\t%.0f%%\t %s\t\n", float64(s.us)/1000/float64(n), 100*float64(s.us)/float64(max(total, 1)), s.phase)
	}
	tw.Flush()
	t.Logf("where the CPU time of %s goes, per request, over %d (V8's profiler in workerd):\n%s", what, n, b.String())
}

// TestProfileBreakdown checks that breakdown puts each sample in the first
// phase its stack matches, by the functions on the whole stack, and leaves
// idle time out.
func TestProfileBreakdown(t *testing.T) {
	const js, wasm = "entry.js", "wasm://wasm/0a1b2c3d"
	var p cpuProfile
	add := func(id int, name, url string, children ...int) {
		n := struct {
			ID        int `json:"id"`
			CallFrame struct {
				FunctionName string `json:"functionName"`
				URL          string `json:"url"`
			} `json:"callFrame"`
			Children []int `json:"children"`
		}{ID: id, Children: children}
		n.CallFrame.FunctionName, n.CallFrame.URL = name, url
		p.Nodes = append(p.Nodes, n)
	}
	add(1, "(root)", "", 2, 3, 20, 30, 40)
	add(2, "fetch", js, 4)
	add(4, "run", js, 5, 6)
	add(5, "Instance", "", 7)
	add(7, "(garbage collector)", "") // under Instance: instantiation's
	add(6, "js-to-wasm", "", 8)
	add(8, "runtime.doInit1", wasm, 9)
	add(9, "github.com_yuin_goldmark_parser.init", wasm)
	add(3, "wasm_pc_f_loop", wasm, 10, 11, 12)
	add(10, "github.com_tidemark_tidemark_web_pages.picturePage", wasm, 13)
	add(13, "runtime.mallocgc", wasm) // the handler's allocation is the handler's
	add(11, "github.com_syumai_workers_internal_jshttp.ToRequest", wasm)
	add(12, "runtime.selectgo", wasm)
	add(20, "(garbage collector)", "")
	add(30, "(idle)", "")
	add(40, "main.main", wasm)
	samples := map[int]int64{7: 5, 9: 10, 13: 20, 11: 40, 12: 80, 20: 160, 30: 1000, 40: 320, 5: 640}
	for id, us := range samples {
		p.Samples = append(p.Samples, id)
		p.TimeDeltas = append(p.TimeDeltas, us)
	}
	shares, total := p.breakdown()
	got := map[string]int64{}
	for _, s := range shares {
		got[s.phase] = s.us
	}
	assert.Equal(t, int64(5+10+20+40+80+160+320+640), total, "idle time is left out")
	assert.Equal(t, map[string]int64{
		"instantiating the module (memory, data segments)":      645,
		"package initialisation (runtime.doInit1)":              10,
		"main up to workers.Serve (handler built)":              320,
		"the site's handler":                                    20,
		"syumai/workers: request and response conversion":       40,
		"the Go runtime (start, scheduler, allocation, stacks)": 80,
		"other Go code":          0,
		"V8's garbage collector": 160,
		"JavaScript: the glue, wasm_exec.js, the runtime's": 0,
	}, got)
}
