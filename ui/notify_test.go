package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/ops"
)

// driveAll is drive, feeding every answer to Update (not only the calls'
// answers), and returns the notifications told meanwhile.
func (s *stack) driveAll(cmd tea.Cmd) []notifiedMsg { return s.run(cmd, true) }

// tickAll advances the clock by d, delivers a tick and runs what it
// starts to completion.
func (s *stack) tickAll(d time.Duration) []notifiedMsg {
	s.clk.Advance(d)
	var c tea.Cmd
	s.m, c = update(s.m, tickMsg{gen: s.m.life.tickGen})
	return s.driveAll(c)
}

// pressAll delivers key and runs what it starts to completion.
func (s *stack) pressAll(key string) []notifiedMsg {
	var c tea.Cmd
	s.m, c = update(s.m, keyMsg(key))
	return s.driveAll(c)
}

// notifyEvents are the event log's notification entries, newest first.
func notifyEvents(m Model) []Event {
	var out []Event
	for _, e := range m.Events() {
		if strings.HasPrefix(e.Tool, "notify ") {
			out = append(out, e)
		}
	}
	return out
}

// twoDashboards starts one emulator on clock clk and two monitoring
// dashboards on it that share state directory dir, with the notify
// settings n; the three clocks start at t0 and are advanced alike.
func twoDashboards(t *testing.T, clk *colabfake.Clock, dir string, n config.Notify) (a, b *stack) {
	t.Helper()
	emu := colabfake.Options{Seed: colabfake.SeedDemo, RuntimeLimit: -1, CreatesPerMinute: -1, Now: clk.Now}
	srv, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", emu)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	o := func() stackOpts {
		return stackOpts{ui: Options{Monitor: apimon.New(apimon.Options{}), StateDir: dir, Notify: n,
			Getenv: func(k string) string { return map[string]string{"TERM": "xterm-256color"}[k] }, Environ: []string{"PATH=" + os.Getenv("PATH")}}}
	}
	a = newStackAt(t, srv, ep, o())
	b = newStackAt(t, srv, ep, o())
	return a, b
}

// A job seen running by two dashboards on one emulator, sharing a state
// directory, ends: it is told once in all (one command run, one bell),
// the other dashboard's event log saying another colabdash told it; its
// hostile command line reaches neither the terminal nor the command
// unsanitized, and no shell runs it.
func TestJobEndToldOnceByTwoDashboards(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "hook.jsonl")
	marker := filepath.Join(dir, "pwned")
	clk := colabfake.NewClock(t0)
	a, b := twoDashboards(t, clk, dir, config.Notify{Terminal: state.NotifyOSC777, Command: "tee", Args: []string{"-a", got}, Timeout: 10 * time.Second})
	for _, s := range []*stack{a, b} {
		s.driveAll(s.m.Init())
	}
	step := func(d time.Duration) []notifiedMsg {
		clk.Advance(d)
		return append(a.tickAll(d), b.tickAll(d)...)
	}
	step(time.Second)
	a.m, b.m = a.m.selectID(t, "rt-cpudemo4qx"), b.m.selectID(t, "rt-cpudemo4qx")
	sel := a.m.cx.Snap.Runtime(a.m.rt.Selected())
	// The runtime as b, which ticked last, holds it (its token renewed).
	jcOf := func() *jupyter.Client {
		r := b.m.cx.Snap.Runtime(sel.Name)
		jc, err := jupyter.New(jupyter.Options{Runtime: r.Name, Info: *r.ConnectionInfo, Now: b.clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		return jc
	}
	jc := jcOf()
	now := a.clk.Now()
	spec := jobs.Spec{ID: "train-4kq9zt", File: "train.py", Created: now.Add(-time.Minute),
		Args: []string{"\x1b]52;c;cHduZWQ=\a", "$(touch " + marker + ")", "`id`;", "\x1b[2J"}}
	putJob(t, jc, spec, &jobs.Status{Pid: 8, Started: now.Add(-time.Minute), Heartbeat: now})
	listed := func(s *stack) bool { js, ok := s.m.jobs.Jobs(sel.Name); return ok && len(js) == 1 }
	for i := 0; !listed(a) || !listed(b); i++ {
		if i == 20 {
			t.Fatalf("the dashboards did not list the running job: %q / %q", a.m.cx.Status.Text, b.m.cx.Status.Text)
		}
		if told := step(jobsSelectedEvery); len(told) != 0 {
			t.Fatalf("a running job was told: %+v", told)
		}
	}
	now = a.clk.Now()
	putJob(t, jcOf(), spec, &jobs.Status{Pid: 8, Started: now.Add(-2 * time.Minute), Ended: now, ExitCode: 3, Heartbeat: now})
	var told []notifiedMsg
	for i := 0; len(notifyEvents(a.m)) == 0 || len(notifyEvents(b.m)) == 0; i++ {
		if i == 20 {
			t.Fatalf("the end was not seen by both: %+v", told)
		}
		told = append(told, step(jobsSelectedEvery)...)
	}
	told = append(told, step(jobsSelectedEvery)...) // nothing new: no second telling
	if len(told) != 2 {
		t.Fatalf("want one notification from each dashboard, got %d: %+v", len(told), told)
	}
	var rang []byte
	tellers := 0
	for _, n := range told {
		if n.d.Told {
			tellers++
			rang = n.d.Terminal
		}
		if n.ev.Kind != state.EventJobEnded || n.ev.Status != "exited 3" || n.ev.Job != "train-4kq9zt" {
			t.Errorf("event %+v", n.ev)
		}
	}
	if tellers != 1 {
		t.Fatalf("%d dashboards told the end, want 1", tellers)
	}
	if !bytes.HasPrefix(rang, []byte("\x1b]777;notify;colabdash: job train-4kq9zt exited 3;")) || !bytes.HasSuffix(rang, []byte("\x1b\\\a")) ||
		bytes.Count(rang, []byte("\x1b")) != 2 || bytes.Count(rang, []byte("\a")) != 1 {
		t.Errorf("terminal bytes %q", rang)
	}
	line, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(line, []byte("\n")) != 1 || bytes.ContainsAny(line, "\x1b\a") {
		t.Fatalf("the command read %q, want one clean JSON line", line)
	}
	var ev map[string]string
	if err := json.Unmarshal(line, &ev); err != nil || ev["kind"] != "job-ended" || ev["runtime"] != "rt-cpudemo4qx" ||
		!strings.Contains(ev["text"], "$(touch") {
		t.Errorf("the command's event %v (%v)", ev, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the job's command line ran in a shell")
	}
	for _, s := range []*stack{a, b} {
		es := notifyEvents(s.m)
		if len(es) != 1 || !strings.Contains(es[0].Told, "job train-4kq9zt exited 3") {
			t.Fatalf("event log %+v", es)
		}
	}
	if la, lb := notifyEvents(a.m)[0].Told, notifyEvents(b.m)[0].Told; strings.Contains(la, "another colabdash") == strings.Contains(lb, "another colabdash") {
		t.Errorf("exactly one event log should say another colabdash told it:\n%s\n%s", la, lb)
	}
}

// A runtime Colab reclaims is told (runtime-gone) with its name; one the
// user deleted is not. A notify command that hangs is ended at its
// timeout, and the event log says so.
func TestReclaimToldAndHangingHookEnded(t *testing.T) {
	dir := t.TempDir()
	s := newStack(t, stackOpts{emu: colabfake.Options{Seed: colabfake.SeedDemo}, ui: Options{StateDir: dir,
		Notify: config.Notify{Terminal: state.NotifyBell, Command: "sleep", Args: []string{"60"}, Timeout: time.Second}}})
	s.driveAll(s.m.Init())
	s.tickAll(time.Second)
	if !s.srv.Reclaim("runtimes/rt-cpudemo4qx") {
		t.Fatal("no runtime to reclaim")
	}
	start := time.Now()
	told := s.pressAll("r")
	told = append(told, s.tickAll(time.Second)...)
	if len(told) != 1 || told[0].ev.Kind != state.EventRuntimeGone || told[0].ev.Runtime != "rt-cpudemo4qx" {
		t.Fatalf("told %+v", told)
	}
	if took := time.Since(start); told[0].d.Command != "timed out after 1s" || took > 30*time.Second {
		t.Errorf("the hanging command: %q after %s", told[0].d.Command, took)
	}
	if string(told[0].d.Terminal) != "\a" {
		t.Errorf("terminal bytes %q, want the bell", told[0].d.Terminal)
	}
	if es := notifyEvents(s.m); len(es) != 1 || !strings.Contains(es[0].Told, "command timed out after 1s") || es[0].Outcome() != "notified" {
		t.Errorf("event log %+v", es)
	}
	// The user's own delete is no news.
	s.m = s.m.selectID(t, "rt-t4demo7k2p")
	s.pressAll("d")
	s.pressAll("y")
	if told := append(s.tickAll(time.Second), s.tickAll(time.Second)...); len(told) != 0 {
		t.Errorf("the user's delete was told: %+v", told)
	}
}

// guardStack is a dashboard on the demo emulator whose idle guard is
// after 30m with action, and whose runtimes' verdicts are verdicts'
// (by runtime id; none: not read).
func guardStack(t *testing.T, action string, readOnly bool, verdicts map[string]monitor.Verdict) *stack {
	t.Helper()
	s := newStack(t, stackOpts{emu: colabfake.Options{Seed: colabfake.SeedDemo}, ui: Options{ReadOnly: readOnly,
		Notify:    config.Notify{Terminal: state.NotifyBell},
		IdleGuard: func(string) config.IdleGuard { return config.IdleGuard{After: 30 * time.Minute, Action: action} }}})
	s.m.notes.verdict = func(name string, now time.Time) (monitor.Verdict, bool) {
		v, ok := verdicts[api.LastSegment(name)]
		if ok && v.State == monitor.StateIdle {
			v.For = now.Sub(v.Since)
		}
		return v, ok
	}
	s.driveAll(s.m.Init())
	return s
}

// listed reports whether the emulator still lists runtime id.
func listed(s *stack, id string) bool {
	for _, r := range s.srv.Runtimes() {
		if api.LastSegment(r.Name) == id {
			return true
		}
	}
	return false
}

// The idle guard with action delete, on the emulator's clock: a runtime
// idle by every signal is warned at 30m (the status line naming the key
// that keeps it) and deleted 5m after, through the dashboard's delete,
// told and logged; one idle with a signal unknown, one busy, and one the
// user kept with ctrl+g after its warning are never deleted.
func TestIdleGuardDeletesOnlyAfterItsWarning(t *testing.T) {
	idle := func(unknown ...monitor.Signal) monitor.Verdict {
		return monitor.Verdict{Activity: monitor.Activity{State: monitor.StateIdle, Kernels: 1, Since: t0}, By: monitor.SignalKernel, Unknown: unknown}
	}
	s := guardStack(t, config.GuardDelete, false, map[string]monitor.Verdict{
		"rt-t4demo7k2p": idle(),
		"rt-cpudemo4qx": idle(monitor.SignalTerminal),
		"rt-v6edemo2mw": idle(),
	})
	var told []notifiedMsg
	for range 29 {
		told = append(told, s.tickAll(time.Minute)...)
	}
	if len(told) != 0 || !listed(s, "rt-t4demo7k2p") {
		t.Fatalf("before 30m of idleness: %+v", told)
	}
	told = s.tickAll(time.Minute)
	if len(told) != 2 {
		t.Fatalf("at 30m: want the last warnings of the two runtimes idle by every signal, got %+v", told)
	}
	for _, n := range told {
		if n.ev.Kind != state.EventGuardDelete || !strings.Contains(n.ev.Text, "unless ctrl+g keeps it") || n.ev.Runtime == "rt-cpudemo4qx" {
			t.Errorf("warning %+v", n.ev)
		}
	}
	// Both warned in one tick: the status line names both.
	if st := s.m.cx.Status.Text; !strings.Contains(st, "2 runtimes") || !strings.Contains(st, "rt-t4demo7k2p") ||
		!strings.Contains(st, "rt-v6edemo2mw") || !strings.Contains(st, "in 5m") || !strings.Contains(st, "ctrl+g") {
		t.Errorf("status line %q", st)
	}
	for _, id := range []string{"rt-t4demo7k2p", "rt-v6edemo2mw"} {
		if !strings.Contains(guardLog(s.m), "last warning: "+id) {
			t.Errorf("the event log does not name %s:\n%s", id, guardLog(s.m))
		}
	}
	s.m = s.m.selectID(t, "rt-v6edemo2mw")
	s.m, _ = update(s.m, tea.KeyMsg{Type: tea.KeyCtrlG})
	if st := s.m.cx.Status.Text; !strings.Contains(st, "keeps rt-v6edemo2mw") || !strings.Contains(guardLog(s.m), "kept rt-v6edemo2mw") {
		t.Errorf("after ctrl+g: %q\n%s", st, guardLog(s.m))
	}
	told = nil
	for range 4 {
		told = append(told, s.tickAll(time.Minute)...)
	}
	if len(told) != 0 || !listed(s, "rt-t4demo7k2p") {
		t.Fatalf("inside the grace: %+v", told)
	}
	told = s.tickAll(time.Minute)
	if listed(s, "rt-t4demo7k2p") {
		t.Fatalf("5m after its last warning the runtime idle by every signal is still there: %q", s.m.cx.Status.Text)
	}
	if len(told) != 1 || told[0].ev.Status != "deleted by the idle guard" || told[0].ev.Runtime != "rt-t4demo7k2p" {
		t.Errorf("the delete was told as %+v", told)
	}
	if !strings.Contains(guardLog(s.m), "deleted rt-t4demo7k2p") {
		t.Errorf("event log:\n%s", guardLog(s.m))
	}
	for range 60 {
		if told := s.tickAll(time.Minute); len(told) != 0 {
			t.Fatalf("after the delete: %+v", told)
		}
	}
	if !listed(s, "rt-cpudemo4qx") || !listed(s, "rt-v6edemo2mw") {
		t.Error("the guard deleted a runtime with a signal unknown, or one the user kept")
	}
}

// guardLog is the idle guard's entries in the event log, newest first.
func guardLog(m Model) string {
	var log []string
	for _, e := range m.Events() {
		if e.Tool == "idle guard" {
			log = append(log, e.Note)
		}
	}
	return strings.Join(log, "\n")
}

// In --readonly the guard with action delete only warns (runtime-idle),
// once per stretch of idleness, and deletes nothing.
func TestIdleGuardNeverDeletesReadOnly(t *testing.T) {
	s := guardStack(t, config.GuardDelete, true, map[string]monitor.Verdict{
		"rt-t4demo7k2p": {Activity: monitor.Activity{State: monitor.StateIdle, Kernels: 1, Since: t0}, By: monitor.SignalKernel},
	})
	var told []notifiedMsg
	for range 120 {
		told = append(told, s.tickAll(time.Minute)...)
	}
	if len(told) != 1 || told[0].ev.Kind != state.EventRuntimeIdle || told[0].ev.Status != "idle 30m" {
		t.Fatalf("told %+v", told)
	}
	if !listed(s, "rt-t4demo7k2p") || s.srv.CallCount(api.ToolDeleteRuntime) != 0 {
		t.Error("the guard deleted in --readonly")
	}
}

// A reclaimed runtime whose id carries terminal controls (the hostile
// seed's OSC 52, bidi override and C1 CSI): the terminal's OSC 777 and
// the command's JSON and environment carry it as plain text only, and
// the command runs without a shell.
func TestHostileRuntimeNameToldPlain(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "hook.jsonl")
	s := newStack(t, stackOpts{emu: colabfake.Options{Seed: colabfake.SeedHostile}, ui: Options{StateDir: dir,
		Getenv: func(k string) string { return map[string]string{"TERM": "foot"}[k] }, Environ: []string{"PATH=" + os.Getenv("PATH")},
		Notify: config.Notify{Terminal: state.NotifyAuto, Command: "tee", Args: []string{"-a", got}, Timeout: 10 * time.Second}}})
	s.driveAll(s.m.Init())
	s.tickAll(time.Second)
	var told []notifiedMsg
	for _, id := range []string{"rt-clip" + colabfake.HostileOSC52 + "board", "rt-bidi" + colabfake.HostileRLO + "txt.exe" + colabfake.HostileC1CSI} {
		if !s.srv.Reclaim("runtimes/" + id) {
			t.Fatalf("no runtime %q", id)
		}
	}
	told = append(s.pressAll("r"), s.tickAll(time.Second)...)
	if len(told) != 2 {
		t.Fatalf("told %d events: %+v", len(told), told)
	}
	for _, n := range told {
		b := n.d.Terminal
		if !bytes.HasPrefix(b, []byte("\x1b]777;notify;colabdash: rt-")) || bytes.Count(b, []byte("\x1b")) != 2 || bytes.Count(b, []byte("\a")) != 1 ||
			bytes.Contains(b, []byte("\u009b")) || bytes.Contains(b, []byte("\u202e")) {
			t.Errorf("terminal bytes %q", b)
		}
	}
	line, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(line, []byte("\n")) != 2 || bytes.ContainsAny(line, "\x1b\a") || bytes.Contains(line, []byte("\u009b")) || bytes.Contains(line, []byte("\u202e")) {
		t.Errorf("the command read %q", line)
	}
}

// A proxy token that cannot be renewed is told once, however many
// retries fail, with the runtime and the error.
func TestTokenNotRenewedToldOnce(t *testing.T) {
	s := newStack(t, stackOpts{emu: colabfake.Options{Seed: colabfake.SeedDemo}, ui: Options{Notify: config.Notify{Terminal: state.NotifyBell}}})
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "get_runtime", Times: -1,
		Text: colabfake.GoogleErrorText(api.Unavailable, "backend unavailable", "", 0)})
	told := s.driveAll(s.m.Init())
	for range 4 {
		told = append(told, s.tickAll(30*time.Second)...)
	}
	n := 0
	for _, m := range told {
		if !m.d.Told {
			t.Errorf("asked to tell again: %+v", m.ev)
		}
		if m.ev.Kind == state.EventTokenFailed && m.ev.Runtime == "rt-cpudemo4qx" {
			n++
			if !strings.Contains(m.ev.Text, "could not be renewed") || !strings.Contains(m.ev.Text, "backend unavailable") {
				t.Errorf("text %q", m.ev.Text)
			}
		}
	}
	if n != 1 || s.srv.CallCount("get_runtime") < 3 {
		t.Fatalf("told %d times after %d renewals: %+v", n, s.srv.CallCount("get_runtime"), told)
	}
}

// runToEnd runs cmd (a console run's) and feeds its answer and what that
// starts to m, returning the notifications told.
func runToEnd(m *Model, cmd tea.Cmd) []notifiedMsg {
	var told []notifiedMsg
	walk(cmd, func(msg tea.Msg) tea.Cmd {
		var c tea.Cmd
		switch msg := msg.(type) {
		case execDoneMsg:
			*m, c = update(*m, msg)
		case notifiedMsg:
			told = append(told, msg)
			*m, _ = update(*m, msg)
		}
		return c
	})
	return told
}

// Code run from the console that finishes while the dashboard is on
// screen instead is told (code-done); one that finishes under the
// user's eyes is not.
func TestCodeDoneToldWhenLookingElsewhere(t *testing.T) {
	e, m, _ := consoleOnSession(t)
	m = typeText(e, t, m, "print(1)")
	m, runCmd := update(m, keyMsg("enter"))
	if told := runToEnd(&m, runCmd); len(told) != 0 {
		t.Fatalf("a run the console showed was told: %+v", told)
	}
	m = typeText(e, t, m, "print(2)")
	m, runCmd = update(m, keyMsg("enter"))
	m = e.press(t, m, "esc") // back on the dashboard before the answer
	told := runToEnd(&m, runCmd)
	if len(told) != 1 || told[0].ev.Kind != state.EventCodeDone || told[0].ev.Runtime != "rt-t4demo7k2p" || told[0].ev.Status != "code finished" {
		t.Fatalf("told %+v", told)
	}
}

// A runtime that goes while a job note of this machine asked for its
// delete when its job ended (another colabdash, wait or jobs --watch,
// carried it out) is not told as a loss: no runtime-gone notification,
// and the status line says why it went.
func TestRuntimeGoneAsItsJobNoteAskedIsNotALoss(t *testing.T) {
	dir := t.TempDir()
	s := newStack(t, stackOpts{emu: colabfake.Options{Seed: colabfake.SeedDemo}, ui: Options{StateDir: dir,
		Monitor: apimon.New(apimon.Options{}), Notify: config.Notify{Terminal: state.NotifyBell}}})
	s.driveAll(s.m.Init())
	s.tickAll(time.Second)
	note := ops.JobNote{ID: "train-4kq9zt", Runtime: "runtimes/rt-cpudemo4qx", DeleteWhenDone: true}
	s.m, _ = update(s.m, jobNotesMsg{gen: s.m.jobs.gen, notes: []ops.JobNote{note}})
	s.m, _ = update(s.m, jobNotesMsg{gen: s.m.jobs.gen}) // the deleter forgot the note
	if !s.srv.Reclaim("runtimes/rt-cpudemo4qx") {
		t.Fatal("no runtime to delete")
	}
	told := s.pressAll("r")
	told = append(told, s.tickAll(time.Second)...)
	for _, n := range told {
		if n.ev.Kind == state.EventRuntimeGone {
			t.Fatalf("told as a loss: %+v", n.ev)
		}
	}
	if st := s.m.cx.Status.Text; !strings.Contains(st, "rt-cpudemo4qx is gone: its job train-4kq9zt ended and asked for delete-when-done") {
		t.Fatalf("status %q", st)
	}
}
