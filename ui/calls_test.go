package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state/config"
)

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

// refreshHoldingSessions refreshes (r) and applies the lists' answers,
// holding back the list_sessions answers they lead to: those it returns.
func refreshHoldingSessions(m Model) (Model, []resultMsg) {
	m, cmd := update(m, keyMsg("r"))
	res, _ := collect(cmd)
	var sessCmd tea.Cmd
	for _, r := range res {
		var c tea.Cmd
		m, c = update(m, r)
		sessCmd = tea.Batch(sessCmd, c)
	}
	held, _ := collect(sessCmd)
	return m, held
}

func TestLateResultLandsOnRightRow(t *testing.T) {
	f, clk, m := fixture(t)
	f.sessions["runtimes/r-bravo"] = []api.Session{{Name: "runtimes/r-bravo/sessions/nb-1"}}
	// A refresh goes out; its sessions answers are held back.
	m, late := refreshHoldingSessions(m)
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

// Answers no longer current are dropped. Both cases run on one fixture
// dashboard, the second from the fixture's four runtimes listed again.
func TestStaleResultsDropped(t *testing.T) {
	f, clk, m := fixture(t)
	listed := f.runtimes
	t.Run("sessions of a runtime that vanished", func(t *testing.T) {
		m, held := refreshHoldingSessions(m)
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
		f.runtimes = listed
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
		if live := liveRuntimes(m); live != 1 {
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
	for _, want := range []string{"STALE", "updated 30s ago", "retry in 1m", "refresh failing: UNAUTHENTICATED (HTTP 401", "r-alpha", "check your Google credentials"} {
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

// A refresh interval under the minimum is raised to it (New takes its
// options through withDefaults).
func TestRefreshIntervalMinimum(t *testing.T) {
	if o := (Options{Service: newFake(), RefreshInterval: time.Second}).withDefaults(); o.RefreshInterval != config.MinRefreshInterval {
		t.Fatalf("interval %v", o.RefreshInterval)
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

func (panicService) ListRuntimes(context.Context) ([]api.Runtime, error) { panic("boom") }

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

// A failed get_subscription says so in the header and is retried with the
// refresh until the tier is known.
func TestTierFailureShownAndRetried(t *testing.T) {
	f := newFake()
	f.panicOn = "get_subscription"
	clk := &clock{t: t0}
	m := testModel(f, clk)
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 30})
	mustContain(t, m.View(), "tier …")
	m, _ = run(t, m, m.Init())
	v := m.View()
	mustContain(t, v, "tier unknown (retrying: internal error in get_subscription")
	f.mu.Lock()
	f.panicOn = ""
	f.mu.Unlock()
	clk.add(config.DefaultRefreshInterval)
	m, cmd := update(m, tickMsg{gen: m.life.tickGen})
	m, _ = run(t, m, cmd)
	if f.count("get_subscription") != 2 {
		t.Fatalf("get_subscription called %d times, want a retry with the refresh", f.count("get_subscription"))
	}
	mustContain(t, m.View(), "tier Pro")
}

// r then a failed list_runtimes: "refreshing…" gives way to the failure;
// R ends with what the renewal did.
func TestManualRefreshAndRenewReportOutcome(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "list_runtimes", Times: 1,
		Text: colabfake.GoogleErrorText(api.Unavailable, "backend unavailable", "", 0)})
	m = e.press(t, m, "r")
	v := m.View()
	if strings.Contains(v, "refreshing…") {
		t.Fatalf("refreshing… shown after the refresh failed:\n%s", v)
	}
	mustContain(t, v, "refresh failed: ", "retry in 1m")
	m = e.press(t, m, "r")
	mustContain(t, m.View(), "✓ refreshed")
	m = e.press(t, m, "R")
	mustContain(t, m.View(), "✓ renewed rt-t4demo7k2p (expires in ")
}

// The idle cost is flat in the number of runtimes, and a
// renewal that does not extend the token does not turn into a storm. All on
// the fake clock, through the real client and the emulator.

// A 429 with "Retry-After: 100000" once showed "retry in 24:00:00"
// and stopped refreshing for a day. The wait is capped at five minutes and
// shown as such, `r` still refreshes at once, and automatic refreshes come
// back after the capped wait.
func TestHugeRetryAfterIsCappedAndRStillRefreshes(t *testing.T) {
	s := newStack(t, stackOpts{attempts: 1})
	s.addRuntime(t, "r-alpha", stackT4)
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 429, RetryAfter: "100000", Times: -1,
		Body: `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"slow down"}}`})
	s.start()
	v := s.view()
	if !strings.Contains(v, "retry in 5m") || strings.Contains(v, "24:00:00") || strings.Contains(v, "27:46:40") {
		t.Fatalf("the header should show the capped wait (retry in 5m):\n%s", v)
	}
	// The server recovers: r refreshes at once, without waiting 5 minutes.
	s.srv.ClearFaults()
	s.press("r")
	if v := s.view(); !strings.Contains(v, "r-alpha") || !strings.Contains(v, "● connected") {
		t.Fatalf("r did not refresh during the wait:\n%s", v)
	}
	// Failing again: the automatic refresh comes back after the capped
	// wait, not after a day.
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 429, RetryAfter: "100000", Times: -1})
	s.tick(config.DefaultRefreshInterval + time.Second)
	if v := s.view(); !strings.Contains(v, "retry in 5m") {
		t.Fatalf("want the capped wait shown again:\n%s", v)
	}
	s.srv.ClearFaults()
	s.tick(4 * time.Minute)
	if v := s.view(); strings.Contains(v, "● connected") {
		t.Fatalf("refreshed before the wait ended:\n%s", v)
	}
	s.tick(time.Minute + time.Second)
	if v := s.view(); !strings.Contains(v, "● connected") {
		t.Fatalf("no automatic refresh 5 minutes after a Retry-After of 100000 s:\n%s", v)
	}
}

// A refresh refused for the credentials' scope shows the CLI's words and
// the command that fixes it on the status line, not only the server's
// code cut off in the header.
func TestCredentialFailureShowsTheFix(t *testing.T) {
	s := loaded(t, stackOpts{width: 100})
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 403, Times: -1,
		Body: colabfake.GoogleErrorText(api.PermissionDenied, "Request had insufficient authentication scopes.", api.ReasonScopeInsufficient, 0)})
	s.tick(config.DefaultRefreshInterval + time.Second)
	// At 100 columns the status line goes on over the key help's line:
	// the login command, whole, not a cut server code.
	lines := strings.Split(s.view(), "\n")
	footer := strings.Join(lines[len(lines)-2:], "")
	if !strings.Contains(footer, "credentials lack the Colab scope; fix: run `"+auth.LoginCommand+"`") {
		t.Fatalf("no whole fix in the footer:\n%s", s.view())
	}
	// The rest of the fix is in the event log.
	_, fix := auth.Explain(&api.Error{Reason: api.ReasonScopeInsufficient}, nil)
	s.press("L")
	if v := strings.Join(strings.Fields(s.view()), " "); !strings.Contains(v, "--client-id-file") || !strings.Contains(fix, "--client-id-file") {
		t.Fatalf("the event log lacks the whole fix %q:\n%s", fix, s.view())
	}
}
