package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/state/monitor"
)

// guardPeers is one demo emulator on clock clk and a way to start
// dashboards on it, at the clock's time, sharing state directory dir,
// whose idle guard deletes after 30m and whose runtimes' verdicts are
// idle since idleSince[id] by every signal (none: not read).
type guardPeers struct {
	t         *testing.T
	clk       *colabfake.Clock
	srv       *colabfake.Server
	ep, dir   string
	idleSince map[string]time.Time
}

func newGuardPeers(t *testing.T) *guardPeers {
	t.Helper()
	g := &guardPeers{t: t, clk: colabfake.NewClock(t0), dir: t.TempDir(), idleSince: map[string]time.Time{}}
	emu := colabfake.Options{Seed: colabfake.SeedDemo, RuntimeLimit: -1, CreatesPerMinute: -1, Now: g.clk.Now}
	srv, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", emu)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	g.srv, g.ep = srv, ep
	return g
}

// dashboard starts a dashboard now.
func (g *guardPeers) dashboard() *stack {
	g.t.Helper()
	s := newStackAt(g.t, g.srv, g.ep, stackOpts{ui: Options{StateDir: g.dir, Notify: config.Notify{Terminal: state.NotifyBell},
		IdleGuard: func(string) config.IdleGuard {
			return config.IdleGuard{After: 30 * time.Minute, Action: config.GuardDelete}
		}}})
	s.clk.Advance(g.clk.Now().Sub(t0))
	s.m.notes.verdict = func(name string, now time.Time) (monitor.Verdict, bool) {
		since, ok := g.idleSince[api.LastSegment(name)]
		return monitor.Verdict{Activity: monitor.Activity{State: monitor.StateIdle, Kernels: 1, Since: since, For: now.Sub(since)},
			By: monitor.SignalKernel}, ok
	}
	s.driveAll(s.m.Init())
	return s
}

// step advances every clock by d and ticks the dashboards running.
func (g *guardPeers) step(d time.Duration, running ...*stack) []notifiedMsg {
	g.clk.Advance(d)
	var told []notifiedMsg
	for _, s := range running {
		told = append(told, s.tickAll(d)...)
	}
	return told
}

// toldFresh are the notifications actually told (not found told already).
func toldFresh(ns []notifiedMsg) []notifiedMsg {
	var out []notifiedMsg
	for _, n := range ns {
		if n.d.Told {
			out = append(out, n)
		}
	}
	return out
}

// The user keeps a runtime with ctrl+g in one of two dashboards sharing a
// state directory: the other one, due to delete it, leaves it alone, and
// so does a dashboard started after the first quit, until the runtime has
// worked and gone idle again; then it is warned afresh and deleted 5m
// after that warning.
func TestIdleGuardKeepIsSharedAndOutlivesTheDashboard(t *testing.T) {
	g := newGuardPeers(t)
	g.idleSince["rt-cpudemo4qx"] = t0
	a, b := g.dashboard(), g.dashboard()
	var told []notifiedMsg
	for range 30 {
		told = append(told, g.step(time.Minute, a, b)...)
	}
	if len(told) != 2 || len(toldFresh(told)) != 1 || told[0].ev.Kind != state.EventGuardDelete {
		t.Fatalf("at 30m: want the last warning told once by two dashboards, got %+v", told)
	}
	for _, s := range []*stack{a, b} {
		if st := s.m.cx.Status.Text; !strings.Contains(st, "rt-cpudemo4qx idle 30m: the idle guard deletes it in 5m") {
			t.Fatalf("a dashboard's status line: %q", st)
		}
	}
	a.m = a.m.selectID(t, "rt-cpudemo4qx")
	var keep tea.Cmd
	a.m, keep = update(a.m, tea.KeyMsg{Type: tea.KeyCtrlG})
	a.driveAll(keep)
	if st := a.m.cx.Status.Text; !strings.Contains(st, "keeps rt-cpudemo4qx") {
		t.Fatalf("after ctrl+g: %q", st)
	}
	for range 10 {
		told = g.step(time.Minute, a, b)
		if len(told) != 0 {
			t.Fatalf("after the keep: %+v", told)
		}
	}
	if !listed(b, "rt-cpudemo4qx") || g.srv.CallCount(api.ToolDeleteRuntime) != 0 {
		t.Fatalf("the other dashboard deleted the runtime kept in the first:\n%s", guardLog(b.m))
	}
	if !strings.Contains(guardLog(b.m), "left rt-cpudemo4qx alone: kept with ctrl+g") {
		t.Errorf("the other dashboard's event log:\n%s", guardLog(b.m))
	}
	// a quits; c starts on the same machine.
	c := g.dashboard()
	for range 60 {
		if told := g.step(time.Minute, b, c); len(told) != 0 {
			t.Fatalf("a dashboard started after the keep warned: %+v", told)
		}
	}
	if !listed(c, "rt-cpudemo4qx") || g.srv.CallCount(api.ToolDeleteRuntime) != 0 {
		t.Fatal("a dashboard started after the keep deleted the runtime")
	}
	// The runtime works, then goes idle again: a new stretch (b quit).
	g.idleSince["rt-cpudemo4qx"] = g.clk.Now()
	told = nil
	for range 30 {
		told = append(told, g.step(time.Minute, c)...)
	}
	if len(toldFresh(told)) != 1 || !strings.Contains(c.m.cx.Status.Text, "rt-cpudemo4qx idle 30m") {
		t.Fatalf("a new stretch of idleness was not warned: %+v, %q", told, c.m.cx.Status.Text)
	}
	for range 4 {
		g.step(time.Minute, c)
	}
	if !listed(c, "rt-cpudemo4qx") {
		t.Fatal("deleted before the grace was over")
	}
	g.step(time.Minute, c)
	if listed(c, "rt-cpudemo4qx") {
		t.Fatalf("not deleted 5m after the warning of its new stretch:\n%s", guardLog(c.m))
	}
}

// A dashboard warned and quit without a keep; one started later gives
// its own last warning, told afresh (the first one's telling does not
// stand in for it) and on its status line, and deletes only 5m after it.
func TestIdleGuardDeletesOnlyAfterItsOwnWarning(t *testing.T) {
	g := newGuardPeers(t)
	g.idleSince["rt-cpudemo4qx"] = t0
	a := g.dashboard()
	var told []notifiedMsg
	for range 31 {
		told = append(told, g.step(time.Minute, a)...)
	}
	if len(toldFresh(told)) != 1 {
		t.Fatalf("the first dashboard's warning: %+v", told)
	}
	g.step(8 * time.Minute) // a quits; nothing runs for 8 minutes
	c := g.dashboard()
	told = g.step(time.Second, c)
	if len(told) != 1 || !told[0].d.Told || told[0].ev.Kind != state.EventGuardDelete {
		t.Fatalf("the new dashboard's last warning was not told afresh: %+v\n%s", told, logText(c.m))
	}
	if st := c.m.cx.Status.Text; !strings.Contains(st, "rt-cpudemo4qx") || !strings.Contains(st, "deletes it in 5m") {
		t.Fatalf("the new dashboard's status line: %q", st)
	}
	for range 4 {
		g.step(time.Minute, c)
	}
	if !listed(c, "rt-cpudemo4qx") {
		t.Fatalf("deleted less than 5m after this dashboard's own warning:\n%s", guardLog(c.m))
	}
	g.step(time.Minute, c)
	if listed(c, "rt-cpudemo4qx") {
		t.Fatalf("not deleted 5m after its own warning:\n%s", guardLog(c.m))
	}
}

// logText is the event log, one entry a line, newest first.
func logText(m Model) string {
	var out []string
	for _, e := range m.Events() {
		out = append(out, e.Tool+" "+e.Target+" "+e.Note+" "+e.Told)
	}
	return strings.Join(out, "\n")
}

// A runtime with no kernels, never used, on the emulator with the
// monitor reading every signal: the row keeps the word "no kernels", the
// details say it is idle since first seen, and the idle guard warns at
// 30m and deletes it 5m later (it bills all the same).
func TestIdleGuardDeletesARuntimeNeverUsed(t *testing.T) {
	s := newStack(t, stackOpts{emu: colabfake.Options{Seed: colabfake.SeedDemo}, ui: Options{Monitor: apimon.New(apimon.Options{}),
		Notify: config.Notify{Terminal: state.NotifyBell},
		IdleGuard: func(string) config.IdleGuard {
			return config.IdleGuard{After: 30 * time.Minute, Action: config.GuardDelete}
		}}})
	s.driveAll(s.m.Init())
	s.m = s.m.selectID(t, "rt-v6edemo2mw")
	var told []notifiedMsg
	for range 20 {
		told = append(told, s.tickAll(time.Minute)...)
	}
	v := s.view()
	if !strings.Contains(v, "no kernels") || !strings.Contains(v, "m since first seen (kernels, terminals, jobs, GPU agree)") {
		t.Fatalf("after 20 minutes the screen lacks the word or the quiet time:\n%s", v)
	}
	for range 12 {
		told = append(told, s.tickAll(time.Minute)...)
	}
	var warned bool
	for _, n := range told {
		if n.ev.Runtime == "rt-v6edemo2mw" && n.ev.Kind == state.EventGuardDelete {
			warned = true
		}
	}
	if !warned {
		t.Fatalf("no last warning for the runtime never used: %+v\n%s\n%s", told, guardLog(s.m), s.view())
	}
	for range 6 {
		s.tickAll(time.Minute)
	}
	if listed(s, "rt-v6edemo2mw") {
		t.Fatalf("the runtime never used was not deleted:\n%s", guardLog(s.m))
	}
}

// The idle guard's last warning counts down in the status line at each
// tick of the dashboard's clock, to the second, with the idle time
// growing; a runtime that works again (a new stretch: no delete coming)
// leaves the line, and so does the line once none is left.
func TestIdleGuardLastWarningCountsDown(t *testing.T) {
	idle := monitor.Verdict{Activity: monitor.Activity{State: monitor.StateIdle, Kernels: 1, Since: t0}, By: monitor.SignalKernel}
	verdicts := map[string]monitor.Verdict{"rt-t4demo7k2p": idle, "rt-v6edemo2mw": idle}
	s := guardStack(t, config.GuardDelete, false, verdicts)
	for range 30 {
		s.tickAll(time.Minute)
	}
	status := func() string { return s.m.cx.Status.Text }
	if st := status(); !strings.Contains(st, "2 runtimes idle: the idle guard deletes rt-t4demo7k2p, rt-v6edemo2mw in 5m ·") {
		t.Fatalf("at the last warning: %q", st)
	}
	s.tickAll(time.Second)
	if st := status(); !strings.Contains(st, "deletes rt-t4demo7k2p, rt-v6edemo2mw in 4m59s ·") {
		t.Fatalf("a second later: %q", st)
	}
	// rt-v6edemo2mw works and goes idle again: its delete is off.
	busy := idle
	busy.Since = t0.Add(31 * time.Minute)
	verdicts["rt-v6edemo2mw"] = busy
	s.tickAll(time.Minute + 30*time.Second)
	want := "rt-t4demo7k2p idle 31m: the idle guard deletes it in 3m29s · select it and press ctrl+g to keep it"
	if st := status(); st != want {
		t.Fatalf("after rt-v6edemo2mw worked, 1m31s into the grace: %q, want %q", st, want)
	}
	if !listed(s, "rt-t4demo7k2p") {
		t.Fatal("deleted inside the grace")
	}
	// It too works again: no delete is coming, the line goes.
	verdicts["rt-t4demo7k2p"] = busy
	s.tickAll(time.Second)
	if st := status(); st != "" {
		t.Fatalf("no delete is coming, yet the status line says %q", st)
	}
}

// Keeping one of two runtimes the last warning names (ctrl+g) shows the
// keep for a while; then the countdown comes back for the other, whose
// delete is still coming, rather than leaving the line blank until it is
// deleted.
func TestIdleGuardCountdownComesBackAfterAnotherStatus(t *testing.T) {
	idle := monitor.Verdict{Activity: monitor.Activity{State: monitor.StateIdle, Kernels: 1, Since: t0}, By: monitor.SignalKernel}
	s := guardStack(t, config.GuardDelete, false, map[string]monitor.Verdict{"rt-t4demo7k2p": idle, "rt-v6edemo2mw": idle})
	for range 30 {
		s.tickAll(time.Minute)
	}
	status := func() string { return s.m.cx.Status.Text }
	if st := status(); !strings.Contains(st, "2 runtimes idle: the idle guard deletes") {
		t.Fatalf("at the last warning: %q", st)
	}
	s.m = s.m.selectID(t, "rt-v6edemo2mw")
	var keep tea.Cmd
	s.m, keep = update(s.m, tea.KeyMsg{Type: tea.KeyCtrlG})
	s.driveAll(keep)
	if st := status(); !strings.Contains(st, "keeps rt-v6edemo2mw") {
		t.Fatalf("after ctrl+g: %q", st)
	}
	for range 10 {
		s.tickAll(time.Second)
	}
	want := "rt-t4demo7k2p idle 30m: the idle guard deletes it in 4m50s · select it and press ctrl+g to keep it"
	if st := status(); st != want {
		t.Fatalf("10s after the keep: %q, want %q", st, want)
	}
}

// Runtimes warned in different ticks are all in the countdown line: a
// later last warning does not hide an earlier one whose delete is still
// coming (the line names every runtime the guard is about to delete).
func TestIdleGuardCountdownNamesRuntimesWarnedEarlier(t *testing.T) {
	early := monitor.Verdict{Activity: monitor.Activity{State: monitor.StateIdle, Kernels: 1, Since: t0}, By: monitor.SignalKernel}
	late := early
	late.Since = t0.Add(time.Minute)
	s := guardStack(t, config.GuardDelete, false, map[string]monitor.Verdict{"rt-t4demo7k2p": early, "rt-v6edemo2mw": late})
	for range 31 {
		s.tickAll(time.Minute)
	}
	want := "2 runtimes idle: the idle guard deletes rt-t4demo7k2p, rt-v6edemo2mw in 4m ·"
	if st := s.m.cx.Status.Text; !strings.Contains(st, want) {
		t.Fatalf("after the second runtime's last warning, a minute after the first's: %q, want %q", st, want)
	}
}
