// The dashboard on a fake Service (fakeService, fixture) and on a fake
// clock: what the tests that drive one Model by hand share.

package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/filter"
	"github.com/colabdash/colabdash/ui/overlay/help"
)

// fakeService is an in-memory api.Service with controllable results,
// errors, a gate that holds every call, and a panic switch.
type fakeService struct {
	mu          sync.Mutex
	runtimes    []api.Runtime
	runtimesErr error
	sessions    map[string][]api.Session
	sub         api.Subscription
	specs       []api.RuntimeSpec
	renew       map[string]api.Runtime
	renewErr    map[string]error
	gate        chan struct{} // when non-nil, calls wait until it is closed
	panicOn     string
	calls       map[string]int
}

func newFake() *fakeService {
	return &fakeService{
		sessions: map[string][]api.Session{}, renew: map[string]api.Runtime{}, renewErr: map[string]error{},
		calls: map[string]int{}, sub: api.Subscription{Name: "subscription", Tier: api.TierPro},
	}
}

func (f *fakeService) enter(ctx context.Context, tool string) error {
	f.mu.Lock()
	f.calls[tool]++
	gate, p := f.gate, f.panicOn
	f.mu.Unlock()
	if p == tool {
		panic("boom in " + tool)
	}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (f *fakeService) count(tool string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[tool]
}

// answer is how each read of the fake answers: the call is counted and
// held (or panics) as enter says, then read runs under the lock.
func answer[T any](f *fakeService, ctx context.Context, tool string, read func() (T, error)) (T, error) {
	if err := f.enter(ctx, tool); err != nil {
		var zero T
		return zero, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return read()
}

func (f *fakeService) GetSubscription(ctx context.Context) (api.Subscription, error) {
	return answer(f, ctx, "get_subscription", func() (api.Subscription, error) { return f.sub, nil })
}

func (f *fakeService) ListRuntimeSpecs(ctx context.Context) ([]api.RuntimeSpec, error) {
	return answer(f, ctx, "list_runtime_specs", func() ([]api.RuntimeSpec, error) { return f.specs, nil })
}

func (f *fakeService) ListRuntimes(ctx context.Context) ([]api.Runtime, error) {
	return answer(f, ctx, "list_runtimes", func() ([]api.Runtime, error) {
		return append([]api.Runtime(nil), f.runtimes...), f.runtimesErr
	})
}

func (f *fakeService) GetRuntime(ctx context.Context, name string) (api.Runtime, error) {
	return answer(f, ctx, "get_runtime", func() (api.Runtime, error) {
		if err := f.renewErr[name]; err != nil {
			return api.Runtime{}, err
		}
		if r, ok := f.renew[name]; ok {
			return r, nil
		}
		for _, r := range f.runtimes {
			if r.Name == name {
				return r, nil
			}
		}
		return api.Runtime{}, &api.Error{Code: api.NotFound, Tool: "get_runtime", Message: "runtime not found"}
	})
}

func (f *fakeService) CreateRuntime(context.Context, api.CreateRuntimeRequest) (api.Runtime, error) {
	return api.Runtime{}, fmt.Errorf("not used")
}

func (f *fakeService) DeleteRuntime(context.Context, string) error { return fmt.Errorf("not used") }

func (f *fakeService) CreateSession(context.Context, string, string) (api.Session, error) {
	return api.Session{}, fmt.Errorf("not used")
}

func (f *fakeService) ListSessions(ctx context.Context, parent string) ([]api.Session, error) {
	return answer(f, ctx, "list_sessions", func() ([]api.Session, error) { return f.sessions[parent], nil })
}

func (f *fakeService) DeleteSession(context.Context, string) error { return fmt.Errorf("not used") }

func (f *fakeService) ExecuteCode(context.Context, api.ExecuteCodeRequest) (api.ExecuteCodeResult, error) {
	return api.ExecuteCodeResult{}, fmt.Errorf("not used")
}

func (f *fakeService) Close() error { return nil }

// clock is a settable fake clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var t0 = time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC)

func mkRuntime(id string, spec api.RuntimeSpecKey, expire time.Time, version string) api.Runtime {
	r := api.Runtime{Name: "runtimes/" + id, RuntimeSpec: spec, Version: version}
	if !expire.IsZero() {
		r.ConnectionInfo = &api.ConnectionInfo{URL: "https://" + id + ".prod.colab.dev", Token: secrettest.Token(id), ExpireTime: expire}
	}
	return r
}

var (
	specT4   = api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4", Shape: api.ShapeStandard}
	specCPU  = api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}
	specTPU  = api.RuntimeSpecKey{Variant: api.VariantTPU, Accelerator: "V6E1", Shape: api.ShapeHighMem}
	specA100 = api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "A100", Shape: api.ShapeHighMem}
)

// testModel builds a model on svc and clk whose tick command returns its
// message at once (no real timer), so commands can be run synchronously.
func testModel(svc api.Service, clk *clock) Model {
	m := New(Options{
		Service: svc, Now: clk.now, Location: time.UTC, NoColor: true,
		Endpoint: "colaboratory.googleapis.com/mcp",
	})
	m.life.every = func(_ time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		return func() tea.Msg { return fn(time.Time{}) }
	}
	return m
}

// run executes cmd and everything it leads to, feeding API results back
// into the model, and counts the tick messages and quits it produced (ticks
// are not fed back, so a tick chain does not loop).
type runStats struct {
	ticks, quits int
	results      int
}

func run(t testing.TB, m Model, cmd tea.Cmd) (Model, runStats) {
	t.Helper()
	var st runStats
	walk(cmd, func(msg tea.Msg) tea.Cmd {
		switch msg.(type) {
		case tickMsg:
			st.ticks++
		case tea.QuitMsg:
			st.quits++
		case resultMsg:
			st.results++
			var next tea.Cmd
			m, next = update(m, msg)
			return next
		case notifiedMsg: // a notification (a renewal failed): to the event log
			m, _ = update(m, msg)
		case nil:
		default:
			t.Fatalf("unexpected message %T", msg)
		}
		return nil
	})
	return m, st
}

// collect executes cmd and returns the resultMsgs it produces without
// feeding them back (for delivering them late or out of order).
func collect(cmd tea.Cmd) (out []resultMsg, ticks int) {
	walk(cmd, func(msg tea.Msg) tea.Cmd {
		switch msg := msg.(type) {
		case resultMsg:
			out = append(out, msg)
		case tickMsg:
			ticks++
		}
		return nil
	})
	return out, ticks
}

// walk runs cmd and every command it leads to, one at a time in the
// order they come, the parts of a batch too: each other message goes to
// on, which returns the command it starts (nil: none).
func walk(cmd tea.Cmd, on func(tea.Msg) tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		if batch, ok := msg.(tea.BatchMsg); ok {
			queue = append(queue, batch...)
		} else {
			queue = append(queue, on(msg))
		}
	}
}

func update(m Model, msg tea.Msg) (Model, tea.Cmd) {
	tm, cmd := m.Update(msg)
	return tm.(Model), cmd
}

// keyMsg is the key message a terminal sends for s (commontest.Key).
var keyMsg = commontest.Key

// rowIDs are the runtimes table's rows in order, their ids joined by
// spaces.
func rowIDs(m Model) string {
	var ids []string
	for _, r := range m.rt.Rows() {
		ids = append(ids, r.ID())
	}
	return strings.Join(ids, " ")
}

// liveRuntimes counts the runtimes m's snapshot holds that are not gone.
func liveRuntimes(m Model) int {
	n := 0
	for r := range m.cx.Snap.All() {
		if !r.Gone() {
			n++
		}
	}
	return n
}

// dlg returns the dialog on top of the overlay stack, or nil.
func (m Model) dlg() *dialog.Dialog {
	d, _ := m.scr.top().(*dialog.Dialog)
	return d
}

// helpOpen reports whether the help is on top of the stack.
func (m Model) helpOpen() bool { return topIs[*help.Overlay](m.scr) }

// filtering reports whether the filter line is open.
func (m Model) filtering() bool { _, ok := find[*filter.Overlay](m.scr); return ok }

// console returns the run-code console (open or hidden), or nil.
func (m *execOps) console() *console.Overlay { return m.execState.console }

// withConsole opens the run-code console on session of runtime with runs
// already made (finished ones with their output in the transcript) and
// input typed.
func withConsole(m Model, runtime, session string, runs []*execRun, input string) Model {
	x := &m.ex.execState
	for _, r := range runs {
		r.runtime, r.session = runtime, session
		x.runs = append(x.runs, r)
		x.transcript(session).AddIn(session, r.code)
		if r.done {
			addResult(x.transcript(session), r)
		}
	}
	m.ex.showConsole(runtime, session)
	m.ex.console().SetInput(input)
	return m
}

// goRun runs f in its own goroutine, the way tea.Program runs every
// command (f is usually a tea.Cmd, T then tea.Msg), and returns a channel
// that receives f's result once. A nil f (an update that started nothing)
// fails the test here, on the test goroutine, saying which command was
// nil: calling it inside the goroutine would panic and take the whole ui
// test binary down, hiding every later test's result.
func goRun[T any](t testing.TB, what string, f func() T) <-chan T {
	t.Helper()
	if f == nil {
		t.Fatalf("%s: no command to run (nil)", what)
	}
	done := make(chan T, 1)
	go func() { done <- f() }()
	return done
}

// fixture returns a fake with five runtimes (OK, EXPIRING, EXPIRED,
// UNKNOWN, and one that vanishes) and a model that has loaded them: the
// first list at t0−2m, the second at t0 (r-echo gone), the clock at t0+12s.
func fixture(t testing.TB) (*fakeService, *clock, Model) {
	t.Helper()
	f, clk, m := unloadedFixture()
	return f, clk, loadFixture(t, f, clk, m)
}

// unloadedFixture is fixture's service, clock and dashboard before Init:
// its first frame, before any call was made.
func unloadedFixture() (*fakeService, *clock, Model) {
	f := newFake()
	f.specs = []api.RuntimeSpec{{Key: specT4, Eligible: true}, {Key: specCPU, Eligible: true}}
	f.runtimes = []api.Runtime{
		mkRuntime("r-alpha", specT4, t0.Add(42*time.Minute+17*time.Second), "2025.10"),
		mkRuntime("r-bravo", specCPU, t0.Add(4*time.Minute+59*time.Second), ""),
		mkRuntime("r-charlie", specTPU, t0.Add(-30*time.Second), ""),
		mkRuntime("r-delta", specA100, time.Time{}, "2025.07"),
		mkRuntime("r-echo", specCPU, t0.Add(time.Hour), ""),
	}
	f.sessions["runtimes/r-alpha"] = []api.Session{
		{Name: "runtimes/r-alpha/sessions/colabdash-1a2b"},
		{Name: "runtimes/r-alpha/sessions/3f2c9a7e-5d1b-4c1e-9a63-0c8f2d9e4b71"},
	}
	clk := &clock{t: t0.Add(-2 * time.Minute)}
	return f, clk, testModel(f, clk)
}

// loadFixture loads unloadedFixture's dashboard as fixture returns it.
func loadFixture(t testing.TB, f *fakeService, clk *clock, m Model) Model {
	t.Helper()
	m, _ = update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m, _ = run(t, m, m.Init())
	clk.t = t0
	f.runtimes = f.runtimes[:4]
	m, _ = run(t, m, tea.Batch(m.calls.refresh(t0, false)...))
	clk.t = t0.Add(12 * time.Second)
	return m
}
