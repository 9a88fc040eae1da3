package ui

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/filter"
	"github.com/colabdash/colabdash/ui/overlay/help"
	helpov "github.com/colabdash/colabdash/ui/overlay/help"
	"github.com/colabdash/colabdash/ui/poll"
	"github.com/colabdash/colabdash/ui/theme"
	"github.com/muesli/termenv"
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

func (f *fakeService) GetSubscription(ctx context.Context) (api.Subscription, error) {
	if err := f.enter(ctx, "get_subscription"); err != nil {
		return api.Subscription{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sub, nil
}

func (f *fakeService) ListRuntimeSpecs(ctx context.Context) ([]api.RuntimeSpec, error) {
	if err := f.enter(ctx, "list_runtime_specs"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.specs, nil
}

func (f *fakeService) ListRuntimes(ctx context.Context) ([]api.Runtime, error) {
	if err := f.enter(ctx, "list_runtimes"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.Runtime(nil), f.runtimes...), f.runtimesErr
}

func (f *fakeService) GetRuntime(ctx context.Context, name string) (api.Runtime, error) {
	if err := f.enter(ctx, "get_runtime"); err != nil {
		return api.Runtime{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
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
}

func (f *fakeService) CreateRuntime(context.Context, api.CreateRuntimeRequest) (api.Runtime, error) {
	return api.Runtime{}, fmt.Errorf("not used")
}
func (f *fakeService) DeleteRuntime(context.Context, string) error { return fmt.Errorf("not used") }
func (f *fakeService) CreateSession(context.Context, string, string) (api.Session, error) {
	return api.Session{}, fmt.Errorf("not used")
}

func (f *fakeService) ListSessions(ctx context.Context, parent string) ([]api.Session, error) {
	if err := f.enter(ctx, "list_sessions"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[parent], nil
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
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tickMsg:
			st.ticks++
		case tea.QuitMsg:
			st.quits++
		case resultMsg:
			st.results++
			var next tea.Cmd
			var tm tea.Model
			tm, next = m.Update(msg)
			m = tm.(Model)
			queue = append(queue, next)
		case nil:
		default:
			t.Fatalf("unexpected message %T", msg)
		}
	}
	return m, st
}

// collect executes cmd and returns the resultMsgs it produces without
// feeding them back (for delivering them late or out of order).
func collect(cmd tea.Cmd) (out []resultMsg, ticks int) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case resultMsg:
			out = append(out, msg)
		case tickMsg:
			ticks++
		}
	}
	return out, ticks
}

func update(m Model, msg tea.Msg) (Model, tea.Cmd) {
	tm, cmd := m.Update(msg)
	return tm.(Model), cmd
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		// (Before this case the helper typed s, h, i, f, t… as runes.)
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "ctrl+\\":
		return tea.KeyMsg{Type: tea.KeyCtrlBackslash}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// rowIDs are the runtimes table's rows in order, their ids joined by
// spaces.
func rowIDs(m Model) string {
	var ids []string
	for _, r := range m.rt.Rows() {
		ids = append(ids, r.ID())
	}
	return strings.Join(ids, " ")
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

// The whole stack under test: the dashboard model, the real MCP client and
// the emulator on loopback, on one fake clock. Used by the fault matrix,
// the soak test and the benchmarks.

// stackOAuthToken is the bearer token the stack's client sends; the
// secret-scan test looks for it in everything the program writes.
const stackOAuthToken = "ya29.OAUTH-SECRET-7f3a9c"

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

type stack struct {
	srv *colabfake.Server
	clk *colabfake.Clock
	cli *client.Client
	m   Model

	width  int
	ownSrv bool

	mu     sync.Mutex
	sleeps []time.Duration // client backoff waits (not slept)
	ticks  int
}

type stackOpts struct {
	emu      colabfake.Options
	ui       Options
	attempts int
	realTime bool // use time.Now and real client sleeps (benchmarks)
	width    int  // terminal width (default 160; height 48)
	logger   *slog.Logger
	bearer   string        // bearer token sent (default stackOAuthToken)
	redactor *api.Redactor // the client's Redactor (default: its own)
}

// newStack starts the emulator (runtime limit and create quota off unless
// set) and builds the client and the model (160×48, NoColor). Ticks are
// not scheduled by the model: the test sends them with tick().
func newStack(t testing.TB, o stackOpts) *stack {
	t.Helper()
	s := &stack{clk: colabfake.NewClock(t0)}
	if o.emu.RuntimeLimit == 0 {
		o.emu.RuntimeLimit = -1
	}
	if o.emu.CreatesPerMinute == 0 {
		o.emu.CreatesPerMinute = -1
	}
	if !o.realTime && o.emu.Now == nil {
		o.emu.Now = s.clk.Now
	}
	srv, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", o.emu)
	if err != nil {
		t.Fatal(err)
	}
	s.srv, s.ownSrv = srv, true
	s.build(t, ep, o)
	return s
}

// newStackAt builds a client and model on a running emulator (which the
// stack does not close).
func newStackAt(t testing.TB, srv *colabfake.Server, ep string, o stackOpts) *stack {
	s := &stack{clk: colabfake.NewClock(t0), srv: srv}
	s.build(t, ep, o)
	return s
}

func (s *stack) build(t testing.TB, ep string, o stackOpts) {
	t.Helper()
	if o.attempts == 0 {
		o.attempts = 3
	}
	bearer := stackOAuthToken
	if o.bearer != "" {
		bearer = o.bearer
	}
	if o.redactor == nil && !o.realTime {
		// The redactor forgets a proxy token some time after its
		// expireTime: on the stack's fake clock, as the model reads it,
		// so hours of fake time forget what real hours would.
		o.redactor = &api.Redactor{}
		o.redactor.SetClock(s.clk.Now)
	}
	copts := client.Options{
		Endpoint:    ep,
		HTTPClient:  &http.Client{Transport: bearerTransport{bearer}},
		MaxAttempts: o.attempts,
		BaseDelay:   time.Millisecond,
		Logger:      o.logger,
		Redactor:    o.redactor,
	}
	if !o.realTime {
		copts.Sleep = func(ctx context.Context, d time.Duration) error {
			s.mu.Lock()
			s.sleeps = append(s.sleeps, d)
			s.mu.Unlock()
			return ctx.Err()
		}
	}
	cli, err := client.New(context.Background(), copts)
	if err != nil {
		t.Fatal(err)
	}
	s.cli = cli
	uo := o.ui
	uo.Service = cli
	if uo.Now == nil && !o.realTime {
		uo.Now = s.clk.Now
	}
	uo.Location = time.UTC
	uo.NoColor = true
	s.m = New(uo)
	s.m.life.every = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	if o.width == 0 {
		o.width = 160
	}
	s.width = o.width
	s.m, _ = update(s.m, tea.WindowSizeMsg{Width: o.width, Height: 48})
	t.Cleanup(s.close)
}

func (s *stack) close() {
	s.m.life.cancel()
	s.cli.Close()
	if s.ownSrv {
		s.srv.Close()
	}
}

// drive runs cmd the way tea.Program does (every command in its own
// goroutine, each result fed to Update as soon as it arrives and what
// Update returns started at once), until nothing is left. Ticks the model
// schedules are dropped.
func (s *stack) drive(cmd tea.Cmd) {
	msgs := make(chan tea.Msg)
	pending := 0
	launch := func(c tea.Cmd) {
		if c == nil {
			return
		}
		pending++
		go func() { msgs <- c() }()
	}
	launch(cmd)
	for pending > 0 {
		msg := <-msgs
		pending--
		switch msg := msg.(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				launch(c)
			}
		case resultMsg, poll.ResultMsg:
			var c tea.Cmd
			s.m, c = update(s.m, msg)
			launch(c)
		}
	}
}

// start runs Init to completion: tier, specs, runtimes and every
// runtime's sessions are loaded.
func (s *stack) start() { s.drive(s.m.Init()) }

// tick advances the fake clock by d and delivers one tick, running the
// calls it starts to completion.
func (s *stack) tick(d time.Duration) {
	s.clk.Advance(d)
	s.ticks++
	var c tea.Cmd
	s.m, c = update(s.m, tickMsg{gen: s.m.life.tickGen})
	s.drive(c)
}

// idle delivers one tick per second for d.
func (s *stack) idle(d time.Duration) {
	for i := time.Duration(0); i < d; i += time.Second {
		s.tick(time.Second)
	}
}

func (s *stack) view() string { return s.m.View() }

var (
	stackT4  = api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4", Shape: api.ShapeStandard}
	stackCPU = api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}
)

// addRuntime adds a ready runtime with a proxy token issued now (TTL).
func (s *stack) addRuntime(t testing.TB, id string, spec api.RuntimeSpecKey) api.Runtime {
	t.Helper()
	rt, err := s.srv.AddRuntime(api.Runtime{Name: id, RuntimeSpec: spec, ConnectionInfo: &api.ConnectionInfo{Token: secrettest.Token(id)}})
	if err != nil {
		t.Fatal(err)
	}
	return rt
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
	m := testModel(f, clk)
	m, _ = update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m, _ = run(t, m, m.Init())
	clk.t = t0
	f.runtimes = f.runtimes[:4]
	m, _ = run(t, m, tea.Batch(m.calls.refresh(t0, false)...))
	clk.t = t0.Add(12 * time.Second)
	return f, clk, m
}

func TestFirstFrameBeforeAnyCallReturns(t *testing.T) {
	f := newFake()
	f.gate = make(chan struct{})
	clk := &clock{t: t0}
	m := testModel(f, clk)
	cmd := m.Init()
	if cmd == nil {
		t.Fatal("Init returned no command")
	}
	// Run Init's commands in the background: they block on the gate.
	done := make(chan []resultMsg)
	go func() { out, _ := collect(cmd); done <- out }()
	v := m.View()
	for _, want := range []string{"connecting", "loading runtimes", "tier …"} {
		if !strings.Contains(v, want) {
			t.Fatalf("first frame lacks %q:\n%s", want, v)
		}
	}
	if m.calls.inFlight() != 3 {
		t.Fatalf("in flight = %d, want 3 (subscription, specs, runtimes)", m.calls.inFlight())
	}
	close(f.gate)
	if got := <-done; len(got) != 3 {
		t.Fatalf("%d results, want 3", len(got))
	}
}

func TestUpdateKeys(t *testing.T) {
	type check func(t *testing.T, m Model, st runStats)
	selected := func(id string) check {
		return func(t *testing.T, m Model, _ runStats) {
			t.Helper()
			if m.Selected() != "runtimes/"+id {
				t.Fatalf("selected %q, want %s", m.Selected(), id)
			}
		}
	}
	for _, tc := range []struct {
		name  string
		keys  []string
		check check
	}{
		{"starts on first row", nil, selected("r-alpha")},
		{"down", []string{"down"}, selected("r-bravo")},
		{"vim j j k", []string{"j", "j", "k"}, selected("r-bravo")},
		{"up at top stays", []string{"up", "k"}, selected("r-alpha")},
		{"G bottom is the gone runtime", []string{"G"}, selected("r-echo")},
		{"g top", []string{"G", "g"}, selected("r-alpha")},
		{"keys typed fast arrive in one read", []string{"jj"}, selected("r-charlie")},
		{"help typed right after a move", []string{"j?"}, func(t *testing.T, m Model, _ runStats) {
			if m.Selected() != "runtimes/r-bravo" || !m.helpOpen() {
				t.Fatalf("selected %q, help %v", m.Selected(), m.helpOpen())
			}
		}},
		{"filter typed ahead in one read", []string{"/t4", "enter"}, func(t *testing.T, m Model, _ runStats) {
			if m.rt.Filter() != "t4" || len(m.rt.Rows()) != 1 {
				t.Fatalf("filter %q rows %d", m.rt.Filter(), len(m.rt.Rows()))
			}
		}},
		{"filter t4", []string{"/", "t", "4", "enter"}, func(t *testing.T, m Model, _ runStats) {
			if len(m.rt.Rows()) != 1 || m.rt.Rows()[0].ID() != "r-alpha" || m.filtering() {
				t.Fatalf("rows %d filtering %v", len(m.rt.Rows()), m.filtering())
			}
			if !strings.Contains(m.View(), "filter: t4") {
				t.Fatal("filter not shown")
			}
		}},
		{"filter keeps q as text", []string{"/", "q"}, func(t *testing.T, m Model, st runStats) {
			if st.quits != 0 || m.rt.Filter() != "q" {
				t.Fatalf("quits %d filter %q", st.quits, m.rt.Filter())
			}
		}},
		{"filter backspace", []string{"/", "c", "p", "x", "backspace"}, func(t *testing.T, m Model, _ runStats) {
			if m.rt.Filter() != "cp" || len(m.rt.Rows()) != 2 {
				t.Fatalf("filter %q rows %d", m.rt.Filter(), len(m.rt.Rows()))
			}
		}},
		{"esc clears filter", []string{"/", "t", "4", "esc"}, func(t *testing.T, m Model, _ runStats) {
			if m.rt.Filter() != "" || len(m.rt.Rows()) != 5 {
				t.Fatalf("filter %q rows %d", m.rt.Filter(), len(m.rt.Rows()))
			}
		}},
		{"filter matches the displayed latest version", []string{"/", "l", "a", "t", "e", "s", "t", "enter"}, func(t *testing.T, m Model, _ runStats) {
			if len(m.rt.Rows()) != 3 {
				t.Fatalf("filter latest: %d rows, want 3 (r-bravo, r-charlie, r-echo show latest)", len(m.rt.Rows()))
			}
		}},
		{"filter with no match", []string{"/", "z", "z", "enter"}, func(t *testing.T, m Model, _ runStats) {
			if m.Selected() != "" || !strings.Contains(m.View(), "no runtime matches") {
				t.Fatalf("selected %q", m.Selected())
			}
		}},
		{"selection follows the runtime when re-sorted", []string{"j", "T"}, func(t *testing.T, m Model, _ runStats) {
			// sorted by expiry: charlie, bravo, alpha, delta, echo
			if m.rt.SortWord() != "expiry" || m.Selected() != "runtimes/r-bravo" || m.rt.Cursor() != 1 {
				t.Fatalf("sort %v selected %q cursor %d", m.rt.SortWord(), m.Selected(), m.rt.Cursor())
			}
		}},
		{"s cycles the sort to the next column", []string{"s"}, func(t *testing.T, m Model, _ runStats) {
			// sorted by spec: bravo CPU, delta GPU/A100, alpha GPU/T4, charlie TPU, echo (gone) last
			if got := rowIDs(m); m.rt.SortWord() != "spec" || got != "r-bravo r-delta r-alpha r-charlie r-echo" {
				t.Fatalf("sort %v rows %s", m.rt.SortWord(), got)
			}
		}},
		{"tab focuses sessions and moves there", []string{"tab", "down"}, func(t *testing.T, m Model, _ runStats) {
			if m.cx.Focus != common.PanelSessions || m.sess.Cursor() != 1 || m.Selected() != "runtimes/r-alpha" {
				t.Fatalf("focus %v sess %d sel %q", m.cx.Focus, m.sess.Cursor(), m.Selected())
			}
		}},
		{"tab twice back to runtimes", []string{"tab", "tab", "down"}, selected("r-bravo")},
		{"enter shows details", []string{"enter"}, func(t *testing.T, m Model, _ runStats) {
			v := m.View()
			if !m.scr.showDetails || !strings.Contains(v, "DETAILS · r-alpha") || !strings.Contains(v, "https://r-alpha.prod.colab.dev") {
				t.Fatalf("details not shown:\n%s", v)
			}
		}},
		{"esc closes details", []string{"enter", "esc"}, func(t *testing.T, m Model, _ runStats) {
			if m.scr.showDetails {
				t.Fatal("details still open")
			}
		}},
		{"? full help", []string{"?"}, func(t *testing.T, m Model, _ runStats) {
			v := m.View()
			if !m.helpOpen() || !strings.Contains(v, "HELP") || !strings.Contains(v, "next panel") || !strings.Contains(v, "page down") || !strings.Contains(v, "back/clear") {
				t.Fatalf("help not shown:\n%s", v)
			}
		}},
		{"? twice closes help", []string{"?", "?"}, func(t *testing.T, m Model, _ runStats) {
			if m.helpOpen() || strings.Contains(m.View(), "page down") {
				t.Fatal("help still open")
			}
		}},
		{"q quits", []string{"q"}, func(t *testing.T, m Model, st runStats) {
			if st.quits != 1 || m.life.ctx.Err() == nil {
				t.Fatalf("quits %d, ctx %v", st.quits, m.life.ctx.Err())
			}
		}},
		{"ctrl+c quits even while filtering", []string{"/", "ctrl+c"}, func(t *testing.T, m Model, st runStats) {
			if st.quits != 1 {
				t.Fatal("no quit")
			}
		}},
		{"r refreshes", []string{"r"}, func(t *testing.T, m Model, st runStats) {
			if st.results < 2 { // list_runtimes + get_subscription (+ sessions)
				t.Fatalf("refresh made %d calls", st.results)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, m := fixture(t)
			var total runStats
			for _, k := range tc.keys {
				var cmd tea.Cmd
				m, cmd = update(m, keyMsg(k))
				var st runStats
				m, st = run(t, m, cmd)
				total.quits += st.quits
				total.results += st.results
				total.ticks += st.ticks
			}
			tc.check(t, m, total)
			if total.ticks != 0 {
				t.Fatalf("keys started %d tick chains", total.ticks)
			}
		})
	}
}

// Exactly one tick chain, whatever refreshes, resizes and results
// happen (a second chain would speed up the countdown and waste CPU);
// ticks of another generation are dropped.
func TestOneTickChain(t *testing.T) {
	f, clk, m := fixture(t)
	ticks := 0
	for i := 0; i < 5; i++ {
		var cmd tea.Cmd
		m, cmd = update(m, keyMsg("r"))
		var st runStats
		m, st = run(t, m, cmd)
		ticks += st.ticks
	}
	for i := 0; i < 10; i++ {
		var cmd tea.Cmd
		m, cmd = update(m, tea.WindowSizeMsg{Width: 60 + i*10, Height: 15 + i})
		_, n := collect(cmd)
		ticks += n
	}
	f.runtimesErr = &api.Error{Code: api.Unavailable, Message: "down"}
	clk.add(time.Hour)
	m, cmd := update(m, tickMsg{gen: m.life.tickGen})
	m, st := run(t, m, cmd)
	if st.ticks != 1 || ticks != 0 {
		t.Fatalf("a tick produced %d ticks; other events produced %d", st.ticks, ticks)
	}
	if _, cmd := update(m, tickMsg{gen: m.life.tickGen + 1}); cmd != nil {
		t.Fatal("a tick of another generation was not dropped")
	}
	frame := m.life.frame
	m, _ = update(m, tickMsg{gen: 99})
	if m.life.frame != frame {
		t.Fatal("stale tick advanced the spinner")
	}
}

func TestLateResultLandsOnRightRow(t *testing.T) {
	f, clk, m := fixture(t)
	f.sessions["runtimes/r-bravo"] = []api.Session{{Name: "runtimes/r-bravo/sessions/nb-1"}}
	// A refresh goes out; its sessions answers are held back.
	m, cmd := update(m, keyMsg("r"))
	res, _ := collect(cmd)
	var sessCmd tea.Cmd
	for _, r := range res {
		var c tea.Cmd
		m, c = update(m, r)
		sessCmd = tea.Batch(sessCmd, c)
	}
	late, _ := collect(sessCmd)
	// Meanwhile the user moves to another runtime.
	m, _ = update(m, keyMsg("j"))
	m, _ = update(m, keyMsg("j"))
	clk.add(3 * time.Second)
	for _, r := range late {
		m, _ = update(m, r)
	}
	if got := m.cx.Snap.Runtime("runtimes/r-bravo").Sessions; len(got) != 1 || got[0].ID() != "nb-1" {
		t.Fatalf("r-bravo sessions = %v", got)
	}
	if got := m.cx.Snap.Runtime("runtimes/r-alpha").Sessions; len(got) != 2 {
		t.Fatalf("r-alpha sessions = %v", got)
	}
	if m.Selected() != "runtimes/r-charlie" || m.cx.Snap.Runtime("runtimes/r-charlie").SessionsFresh.Loaded() == false {
		t.Fatalf("selected %q", m.Selected())
	}
}

func TestStaleResultsDropped(t *testing.T) {
	t.Run("sessions of a runtime that vanished", func(t *testing.T) {
		f, _, m := fixture(t)
		m, cmd := update(m, keyMsg("r"))
		res, _ := collect(cmd)
		var sessCmd tea.Cmd
		for _, r := range res {
			var c tea.Cmd
			m, c = update(m, r)
			sessCmd = tea.Batch(sessCmd, c)
		}
		held, _ := collect(sessCmd)
		// Next refresh: r-alpha is gone.
		f.runtimes = f.runtimes[1:]
		m.calls.pending = map[callKey]pendingCall{} // refresh not coalesced with the held calls
		m, _ = run(t, m, tea.Batch(m.calls.refresh(m.cx.Now(), false)...))
		for _, r := range held {
			m, _ = update(m, r)
		}
		a := m.cx.Snap.Runtime("runtimes/r-alpha")
		if !a.Gone() || len(a.Sessions) != 0 {
			t.Fatalf("gone %v sessions %v", a.Gone(), a.Sessions)
		}
	})
	t.Run("superseded list_runtimes", func(t *testing.T) {
		f, clk, m := fixture(t)
		m, cmd := update(m, keyMsg("r"))
		first, _ := collect(cmd)
		// The first call hangs past its timeout; a new refresh supersedes it.
		clk.add(DefaultCallTimeout + 6*time.Second)
		f.runtimes = f.runtimes[:1]
		m, cmd = update(m, keyMsg("r"))
		second, _ := collect(cmd)
		f.runtimes = nil
		// The stale answer (the old four runtimes) arrives while the newer
		// call is still pending: only its generation tells them apart.
		for _, r := range first {
			m, _ = update(m, r)
		}
		for _, r := range second {
			m, _ = update(m, r)
		}
		live := 0
		for r := range m.cx.Snap.All() {
			if !r.Gone() {
				live++
			}
		}
		if live != 1 {
			t.Fatalf("%d live runtimes: the stale answer was applied", live)
		}
	})
}

// Stale data is never shown as live, and the refresh schedule:
// auto-refresh every interval, a failure keeps the data marked stale
// with the reason and backs off, a success clears it.
func TestAutoRefreshStaleAndBackoff(t *testing.T) {
	f, clk, m := fixture(t)
	tick := func() runStats {
		var cmd tea.Cmd
		m, cmd = update(m, tickMsg{gen: m.life.tickGen})
		var st runStats
		m, st = run(t, m, cmd)
		return st
	}
	calls := func() int { return f.count("list_runtimes") }
	n := calls()
	clk.t = t0.Add(29 * time.Second)
	tick()
	if calls() != n {
		t.Fatal("refreshed before the interval")
	}
	f.runtimesErr = &api.Error{Code: api.Unauthenticated, HTTPStatus: 401, Message: "Request had invalid authentication credentials."}
	clk.t = t0.Add(30 * time.Second)
	tick()
	if calls() != n+1 {
		t.Fatal("no refresh at the interval")
	}
	m, _ = update(m, tea.WindowSizeMsg{Width: 160, Height: 48})
	v := m.View()
	for _, want := range []string{"STALE", "updated 30s ago", "retry in 1:00", "refresh failing: UNAUTHENTICATED (HTTP 401", "r-alpha", "check your Google credentials"} {
		if !strings.Contains(v, want) {
			t.Fatalf("stale view lacks %q:\n%s", want, v)
		}
	}
	// Backoff: the next try is 60 s later, not 30.
	clk.add(31 * time.Second)
	tick()
	if calls() != n+1 {
		t.Fatal("did not back off")
	}
	clk.add(30 * time.Second)
	tick()
	if calls() != n+2 {
		t.Fatal("no retry after the backoff")
	}
	// The wall clock jumps back two hours: the refresh is not postponed.
	f.runtimesErr = nil
	clk.add(-2 * time.Hour)
	tick()
	if calls() != n+3 {
		t.Fatal("clock jump back postponed the refresh")
	}
	if v := m.View(); strings.Contains(v, "STALE") || !strings.Contains(v, "connected") {
		t.Fatalf("success did not clear the stale mark:\n%s", v)
	}
	// Retry delay from the server wins over a shorter backoff.
	if d := m.calls.backoff(1, &api.Error{Code: api.ResourceExhausted, RetryDelay: 4 * time.Minute}); d != 4*time.Minute {
		t.Fatalf("backoff = %v", d)
	}
	if d := m.calls.backoff(20, nil); d != MaxBackoff {
		t.Fatalf("backoff cap = %v", d)
	}
}

func TestRefreshIntervalMinimum(t *testing.T) {
	m := New(Options{Service: newFake(), RefreshInterval: time.Second})
	if m.opts.RefreshInterval != config.MinRefreshInterval {
		t.Fatalf("interval %v", m.opts.RefreshInterval)
	}
}

// An expired proxy token on a listed runtime is renewed with
// get_runtime; the runtime is only gone when NOT_FOUND confirms it.
func TestTokenRenewal(t *testing.T) {
	f, clk, m := fixture(t)
	row := func(id string) string {
		for _, ln := range strings.Split(m.View(), "\n") {
			if strings.Contains(ln, id) && !strings.Contains(ln, "SESSIONS") && !strings.Contains(ln, "DETAILS") {
				return ln
			}
		}
		return ""
	}
	if r := row("r-charlie"); !strings.Contains(r, "0:00 EXPIRED") {
		t.Fatalf("expired row: %q", r)
	}
	f.renew["runtimes/r-charlie"] = mkRuntime("r-charlie", specTPU, clk.now().Add(time.Hour), "")
	f.renewErr["runtimes/r-bravo"] = &api.Error{Code: api.Unavailable, Message: "connection refused"}
	m, cmd := update(m, tickMsg{gen: m.life.tickGen})
	m, _ = run(t, m, cmd)
	if got := f.count("get_runtime"); got != 2 { // r-bravo (expiring) and r-charlie (expired)
		t.Fatalf("get_runtime calls = %d, want 2", got)
	}
	if r := row("r-charlie"); !strings.Contains(r, "1:00:00 OK") {
		t.Fatalf("renewed row: %q", r)
	}
	if r := row("r-bravo"); !strings.Contains(r, "! r-bravo") || m.cx.Snap.Runtime("runtimes/r-bravo").Gone() {
		t.Fatalf("failed renewal row: %q", r)
	}
	// No hammering: the next tick does not retry within RenewRetry.
	m, cmd = update(m, tickMsg{gen: m.life.tickGen})
	m, _ = run(t, m, cmd)
	if got := f.count("get_runtime"); got != 2 {
		t.Fatalf("renewal retried too soon: %d calls", got)
	}
	// NOT_FOUND: the runtime is gone.
	f.renewErr["runtimes/r-bravo"] = &api.Error{Code: api.NotFound, HTTPStatus: 404}
	clk.add(RenewRetry)
	m, cmd = update(m, tickMsg{gen: m.life.tickGen})
	m, _ = run(t, m, cmd)
	if !m.cx.Snap.Runtime("runtimes/r-bravo").Gone() || !strings.Contains(row("r-bravo"), "GONE") {
		t.Fatalf("NOT_FOUND did not mark gone: %q", row("r-bravo"))
	}
}

func TestCountdownFollowsWallClock(t *testing.T) {
	_, clk, m := fixture(t)
	if !strings.Contains(m.View(), "42:05 OK") {
		t.Fatalf("countdown:\n%s", m.View())
	}
	clk.add(40 * time.Minute) // a suspended laptop wakes up
	if v := m.View(); !strings.Contains(v, "2:05 EXPIRING") {
		t.Fatalf("after the jump:\n%s", v)
	}
}

func TestServicePanicBecomesError(t *testing.T) {
	f := newFake()
	f.panicOn = "list_runtimes"
	clk := &clock{t: t0}
	m := testModel(f, clk)
	m, _ = run(t, m, m.Init())
	if err := m.cx.Snap.RuntimesFresh.Err; err == nil || !strings.Contains(err.Error(), "internal error in list_runtimes: boom") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(m.View(), "not connected") {
		t.Fatal("panic not shown as an error")
	}
}

var sizes = [][2]int{{60, 15}, {80, 24}, {160, 48}, {100, 30}, {61, 16}, {59, 15}, {60, 14}, {40, 10}, {20, 5}, {1, 1}, {120, 40}}

// No rendered line is wider than the terminal, whatever the
// names and errors; below the minimum, "terminal too small".
func TestNoLineWiderThanTerminal(t *testing.T) {
	f, clk, m := fixture(t)
	f.runtimes = append(f.runtimes,
		mkRuntime("r-"+strings.Repeat("x", 68), specT4, t0.Add(time.Hour), strings.Repeat("v", 30)),
		mkRuntime("ランタイム名前ランタイム名前ランタイム名前ランタイム名前", specT4, t0.Add(time.Hour), ""),
		mkRuntime("cafe\u0301-e\u0301te\u0301-🧪🧪🧪-combining-and-emoji-names-are-long", specT4, t0.Add(time.Hour), ""),
	)
	f.sessions["runtimes/ランタイム名前ランタイム名前ランタイム名前ランタイム名前"] = []api.Session{{Name: "runtimes/x/sessions/セッション名前セッション名前セッション名前セッション名前"}}
	m, _ = run(t, m, tea.Batch(m.calls.refresh(clk.now(), true)...))
	m.cx.Snap.ApplyError(state.ListRuntimes, clk.now(), &api.Error{Code: api.Internal, Message: strings.Repeat("très long message d'erreur ", 12)})
	for _, showDetails := range []bool{false, true} {
		for _, help := range []bool{false, true} {
			m.scr.showDetails, m.scr.stack = showDetails, nil
			if help {
				m.scr.push(helpov.New(""))
			}
			for _, sel := range []string{"g", "G", "k"} {
				m, _ = update(m, keyMsg(sel))
				for _, sz := range sizes {
					m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
					v := m.View()
					lines := strings.Split(v, "\n")
					if len(lines) > sz[1] {
						t.Fatalf("%dx%d: %d lines", sz[0], sz[1], len(lines))
					}
					for i, ln := range lines {
						if w := ansi.StringWidth(ln); w > sz[0] {
							t.Fatalf("%dx%d details=%v help=%v: line %d is %d wide: %q", sz[0], sz[1], showDetails, help, i, w, ln)
						}
					}
					small := sz[0] < MinWidth || sz[1] < MinHeight
					if small != strings.Contains(v, "Terminal too small"[:min(len(v), 8)]) && sz[0] >= 8 {
						t.Fatalf("%dx%d: too-small message = %v:\n%s", sz[0], sz[1], !small, v)
					}
				}
			}
		}
	}
}

// Resize 120×40 → 40×10 → 20×5 → 120×40 gives the same frame as a direct
// 120×40 (every panel re-laid out, nothing left over).
func TestResizeRelayout(t *testing.T) {
	_, _, m := fixture(t)
	m, _ = update(m, keyMsg("G"))
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	want := m.View()
	for _, sz := range [][2]int{{40, 10}, {20, 5}, {120, 40}} {
		m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
	}
	if got := m.View(); got != want {
		t.Fatalf("frame differs after resizes:\n%s\n---\n%s", got, want)
	}
	// A small table scrolls to keep the selection visible.
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	if !strings.Contains(m.View(), "›  r-echo") {
		t.Fatalf("selected row not visible at 60x15:\n%s", m.View())
	}
}

// With NoColor no frame has an escape code, and no frame shows any piece
// of a proxy token: the details' token line is the mask and nothing else.
// The test process has no terminal, so the process-wide renderer would
// draw no colour anyway: it is forced to true colour here (and a model
// without NoColor must then show escape codes), so colour leaking past
// NoColor fails the test.
func TestNoColorAndNoSecrets(t *testing.T) {
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() { lipgloss.SetColorProfile(old) })
	f, clk, m := fixture(t)
	colour := New(Options{Service: f, Now: clk.now, Location: time.UTC})
	colour, _ = update(colour, tea.WindowSizeMsg{Width: 80, Height: 24})
	if !strings.Contains(colour.View(), "\x1b[") {
		t.Fatal("control: without NoColor the frame has no escape codes either, so the check below cannot fail")
	}
	var secrets []string
	for _, rt := range f.runtimes {
		if rt.ConnectionInfo != nil {
			secrets = append(secrets, rt.ConnectionInfo.Token)
		}
	}
	tokenLine := regexp.MustCompile(`\btoken +(\S.*)$`)
	masked := 0
	for _, details := range []bool{false, true} {
		m.scr.showDetails = details
		for _, sz := range sizes {
			m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			v := m.View()
			if strings.Contains(v, "\x1b[") {
				t.Fatalf("%v: escape codes with NoColor:\n%q", sz, v)
			}
			secrettest.Check(t, fmt.Sprintf("the %dx%d frame", sz[0], sz[1]), v, secrets...)
			for _, ln := range strings.Split(v, "\n") {
				if mt := tokenLine.FindStringSubmatch(ln); mt != nil {
					masked++
					if val := strings.TrimRight(mt[1], " │"); val != state.MaskToken("x") {
						t.Errorf("%v: the token line shows %q, not only the mask", sz, val)
					}
				}
			}
		}
	}
	if masked == 0 {
		t.Fatal("no frame had a token line: the mask check saw nothing")
	}
}

func TestNoColorFromEnv(t *testing.T) {
	for v, want := range map[string]bool{"": false, "1": true, "yes": true, "true": true, "0": true} {
		t.Setenv("NO_COLOR", v)
		if theme.NoColorFromEnv() != want {
			t.Errorf("NO_COLOR=%q: %v", v, !want)
		}
	}
}

func TestGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {60, 15}, {160, 48}} {
		for _, details := range []bool{false, true} {
			name := "dashboard_" + itoa(sz[0]) + "x" + itoa(sz[1])
			if details {
				name += "_details"
			}
			t.Run(name, func(t *testing.T) {
				_, _, m := fixture(t)
				m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
				if details {
					m, _ = update(m, keyMsg("enter"))
				}
				golden.RequireEqual(t, []byte(m.View()))
			})
		}
	}
	t.Run("loading_80x24", func(t *testing.T) {
		m := testModel(newFake(), &clock{t: t0})
		golden.RequireEqual(t, []byte(m.View()))
	})
	t.Run("help_80x24", func(t *testing.T) {
		_, _, m := fixture(t)
		m, _ = update(m, keyMsg("?"))
		golden.RequireEqual(t, []byte(m.View()))
	})
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestAuthErrorScreen(t *testing.T) {
	info := AuthErrorInfo{
		Headline: "No Google credentials found",
		Tried: []string{
			"GOOGLE_APPLICATION_CREDENTIALS: not set",
			"~/.config/gcloud/application_default_credentials.json: not found",
		},
		Fix:     []string{"gcloud auth application-default login --scopes=https://www.googleapis.com/auth/colaboratory,https://www.googleapis.com/auth/cloud-platform"},
		NoColor: true,
	}
	m := NewAuthError(info)
	tm, _ := m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	m = tm.(AuthErrorModel)
	v := m.View()
	for _, want := range []string{"No Google credentials found", "GOOGLE_APPLICATION_CREDENTIALS", "gcloud auth", "continue in demo mode"} {
		if !strings.Contains(v, want) {
			t.Fatalf("screen lacks %q:\n%s", want, v)
		}
	}
	for _, ln := range strings.Split(v, "\n") {
		if ansi.StringWidth(ln) > 60 {
			t.Fatalf("line too wide: %q", ln)
		}
	}
	// At the smallest size the keys to go on stay visible.
	tm, _ = m.Update(tea.WindowSizeMsg{Width: 60, Height: 15})
	if v := tm.(AuthErrorModel).View(); !strings.Contains(v, "continue in demo mode") || strings.Count(v, "\n") >= 15 {
		t.Fatalf("at 60x15 the demo key is cut off or the screen overflows:\n%s", v)
	}
	info.Tried = append(info.Tried, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j")
	tm, _ = NewAuthError(info).Update(tea.WindowSizeMsg{Width: 60, Height: 15})
	if v := tm.(AuthErrorModel).View(); !strings.Contains(v, "continue in demo mode") {
		t.Fatalf("with a long list of paths tried the demo key is cut off:\n%s", v)
	}
	tm, cmd := m.Update(keyMsg("d"))
	if !tm.(AuthErrorModel).WantsDemo() || cmd == nil {
		t.Fatal("d did not choose demo")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("d did not quit")
	}
	tm, cmd = m.Update(keyMsg("q"))
	if tm.(AuthErrorModel).WantsDemo() || cmd == nil {
		t.Fatal("q chose demo or did not quit")
	}
}

// Below the split width the sessions panel is stacked above the details,
// so the focused panel is always on screen, also with the details expanded
// (enter, or v revealing the token).
func TestNarrowTerminalsShowTheFocusedPanel(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {90, 30}, {60, 15}, {99, 20}} {
		for _, expand := range []bool{false, true} {
			_, _, m := fixture(t)
			m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			if expand {
				m, _ = update(m, keyMsg("enter"))
			}
			v := m.View()
			mustContain(t, v, "SESSIONS · r-alpha", "DETAILS · r-alpha", "expires")
			m, _ = update(m, keyMsg("tab"))
			v = m.View()
			mustContain(t, v, "▶ SESSIONS · r-alpha", "› colabdash-1a2b")
			m, _ = update(m, keyMsg("j"))
			v = m.View()
			// x acts on the session the user sees under the cursor.
			mustContain(t, v, "› 3f2c9a7e")
			if m.selectedSession() != "runtimes/r-alpha/sessions/3f2c9a7e-5d1b-4c1e-9a63-0c8f2d9e4b71" {
				t.Fatalf("%v: selected session %q", sz, m.selectedSession())
			}
		}
	}
}

// A real Bubble Tea program over the fake Service: the table appears, keys
// move the selection, q quits.
func TestTeatestSmoke(t *testing.T) {
	f, clk, _ := fixture(t)
	m := New(Options{Service: f, Now: clk.now, Location: time.UTC, NoColor: true})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("r-charlie")) },
		teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'j'}})
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("SESSIONS · r-charlie")) },
		teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'q'}})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(Model)
	if fm.Selected() != "runtimes/r-charlie" {
		t.Fatalf("selected %q", fm.Selected())
	}
	if fm.life.ctx.Err() == nil {
		t.Fatal("in-flight calls not cancelled on quit")
	}
}

// panicService panics in every call.
type panicService struct{ api.Service }

func (panicService) DeleteRuntime(context.Context, string) error { panic("boom") }
func (panicService) CreateSession(context.Context, string, string) (api.Session, error) {
	panic("boom")
}
func (panicService) DeleteSession(context.Context, string) error { panic("boom") }
func (panicService) CreateRuntime(context.Context, api.CreateRuntimeRequest) (api.Runtime, error) {
	panic("boom")
}
func (panicService) ExecuteCode(context.Context, api.ExecuteCodeRequest) (api.ExecuteCodeResult, error) {
	panic("boom")
}
func (panicService) ListRuntimes(context.Context) ([]api.Runtime, error)     { panic("boom") }
func (panicService) GetRuntime(context.Context, string) (api.Runtime, error) { panic("boom") }
func (panicService) ListSessions(context.Context, string) ([]api.Session, error) {
	panic("boom")
}
func (panicService) GetSubscription(context.Context) (api.Subscription, error) { panic("boom") }
func (panicService) ListRuntimeSpecs(context.Context) ([]api.RuntimeSpec, error) {
	panic("boom")
}

// Every command that calls out goes through the one guard: a panicking
// Service becomes the call's error, naming the tool; a missing Service is
// an error too, never a crash. Every Colab tool the dashboard calls is
// here: a tool missing from the table fails the test.
func TestEveryCallIsGuarded(t *testing.T) {
	for _, svc := range []api.Service{panicService{}, nil} {
		m := New(Options{Service: svc, Now: (&clock{t: t0}).now})
		now := t0
		op := &createOp{id: 1, requestID: "r", spec: specCPU}
		m.cr.creates = append(m.cr.creates, op)
		run := &execRun{id: 1, session: "runtimes/r/sessions/s", code: "1"}
		m.ex.execState.runs = append(m.ex.execState.runs, run)
		cmds := map[string]tea.Cmd{
			api.ToolDeleteRuntime: m.ops.startDelete("runtimes/r", now),
			api.ToolCreateSession: m.ops.startOpenSession("runtimes/r", "s", false, now),
			api.ToolDeleteSession: m.ops.startCloseSession("runtimes/r/sessions/s", now),
			api.ToolCreateRuntime: m.cr.sendCreate(op, now),
			api.ToolExecuteCode:   m.ex.sendExec(run, now),
		}
		for _, k := range []callKey{{kind: callRuntimes}, {kind: callSessions, runtime: "runtimes/r"},
			{kind: callSubscription}, {kind: callSpecs}, {kind: callRenew, runtime: "runtimes/r"}} {
			delete(m.calls.pending, k) // New issued the first lists already
			cmds[k.kind.String()] = m.calls.issue(k, now)
		}
		for _, tool := range api.ToolNames() {
			if cmds[tool] == nil {
				t.Errorf("%s: no guarded command tested", tool)
			}
		}
		for tool, cmd := range cmds {
			var err error
			switch msg := cmd().(type) {
			case deleteDoneMsg:
				err = msg.err
			case sessionOpenedMsg:
				err = msg.err
			case sessionClosedMsg:
				err = msg.err
			case createDoneMsg:
				err = msg.err
			case execDoneMsg:
				err = msg.err
			case resultMsg:
				err = msg.err
			default:
				t.Fatalf("%s: %T", tool, msg)
			}
			want := "internal error in " + tool + ": boom"
			if svc == nil {
				want = tool + ": no Colab service configured"
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err %v, want %q", tool, err, want)
			}
		}
	}
}

// A start notice (a runtime left by an unfinished `colabdash run`) is in
// the status line when the dashboard opens and stays in the event log.
func TestStartNoticesShown(t *testing.T) {
	const notice = "runtime run-1a2b3c4d (CPU/STANDARD) was created by a run that did not finish; delete it with: colabdash run --reap"
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.Notices = []string{notice} })
	found := false
	for _, ev := range m.Events() {
		found = found || ev.Tool == "run" && ev.Note == notice
	}
	if !found {
		t.Errorf("no run event with the notice in %+v", m.Events())
	}
	mustContain(t, m.View(), "run-1a2b3c4d (CPU/STANDARD) was created by a run")
	mustContain(t, e.press(t, m, "L").View(), "did not finish")
}

// The config's renewLead and autoRenew reach the renewal loop: with a
// one-minute lead only the expired token is renewed, not the one with
// 4:47 left; with autoRenew off nothing is.
func TestRenewLeadAndNoAutoRenew(t *testing.T) {
	f, _, m := fixture(t)
	m.opts.RenewLead = time.Minute
	m.calls.renew.Lead = time.Minute // what New makes of Options.RenewLead
	m, cmd := update(m, tickMsg{gen: m.life.tickGen})
	m, _ = run(t, m, cmd)
	if got := f.count("get_runtime"); got != 1 {
		t.Fatalf("renewLead 1m: %d get_runtime calls, want 1 (only the expired token)", got)
	}
	f2, _, m2 := fixture(t)
	m2.opts.NoAutoRenew = true
	m2, cmd = update(m2, tickMsg{gen: m2.life.tickGen})
	run(t, m2, cmd)
	if got := f2.count("get_runtime"); got != 0 {
		t.Fatalf("autoRenew off: %d get_runtime calls", got)
	}
	if n := New(Options{Service: f, ExpiringThreshold: 7 * time.Minute}); n.opts.RenewLead != 7*time.Minute {
		t.Fatalf("RenewLead default %v, want the expiring threshold", n.opts.RenewLead)
	}
}
