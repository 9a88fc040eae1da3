package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/files"
)

func TestRunCodePanel(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	// No session is chosen on it: e asks before opening one.
	m = e.press(t, m, "e")
	mustContain(t, m.View(), "Open a new session on rt-t4demo7k2p?", "create_session")
	m = e.press(t, m, "y")
	mustContain(t, m.View(), "RUN CODE · rt-t4demo7k2p · session colabdash-")
	// The footer shows the console's keys, not the dashboard's letters.
	footer := m.View()[strings.LastIndex(m.View(), "\n")+1:]
	mustContain(t, footer, "enter run", "history", "esc back")
	if strings.Contains(footer, "new runtime") || strings.Contains(footer, "delete") {
		t.Fatalf("run-code footer shows dashboard keys: %q", footer)
	}
	m = typeText(e, t, m, "print(1)")
	m = e.press(t, m, "enter")
	v := m.View()
	sid := api.LastSegment(m.ex.console().Session())
	mustContain(t, v, "In ["+sid+"]: print(1)", "  1", "✓ done")
	ss := e.srv.Sessions("runtimes/rt-t4demo7k2p")
	if len(ss) != 3 || !m.cx.Snap.Owned(m.ex.console().Session()) {
		t.Fatalf("sessions %v, panel session %q", ss, m.ex.console().Session())
	}
	m = typeText(e, t, m, "raise ValueError('bad')")
	m = e.press(t, m, "enter")
	v = m.View()
	mustContain(t, v, "ValueError", "✕ ValueError")
	// An exception is a failure: the raising run is not marked done.
	if tail := v[strings.LastIndex(v, "]: raise"):]; strings.Contains(tail, "✓ done") {
		t.Fatalf("a raised exception is reported as success:\n%s", v)
	}
	// History: up recalls the last line.
	m = e.press(t, m, "up")
	if m.ex.console().Input() != "raise ValueError('bad')" {
		t.Fatalf("history %q", m.ex.console().Input())
	}
	m = e.press(t, m, "up")
	if m.ex.console().Input() != "print(1)" {
		t.Fatalf("history %q", m.ex.console().Input())
	}
	// A reattach after DEADLINE_EXCEEDED uses the same executionId.
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: "execute_code", Times: 1})
	m = e.press(t, m, "enter")
	last := m.ex.execState.runs[len(m.ex.execState.runs)-1]
	if last.attempt != 2 || last.err != nil || !strings.Contains(last.res.Stdout, "1") {
		t.Fatalf("reattach: attempt %d err %v res %+v", last.attempt, last.err, last.res)
	}
	// Esc goes back to the dashboard; a run in flight goes on.
	m = typeText(e, t, m, "print(2)")
	e.clk.add(dialogGrace)
	m, cmd := update(m, keyMsg("enter"))
	m, _ = update(m, keyMsg("esc"))
	e.clk.add(5 * time.Second)
	mustContain(t, m.View(), "RUNTIMES", "code running 5s")
	m = drive(t, m, cmd)
	mustContain(t, m.View(), "code run finished")
	m = e.press(t, m, "e")
	mustContain(t, m.View(), "In ["+sid+"]: print(2)")
	// A run reattached to after DEADLINE_EXCEEDED says so in words while
	// it runs.
	m = withConsole(m, m.ex.console().Runtime(), m.ex.console().Session(),
		[]*execRun{{id: 99, code: "train()", attempt: 3, started: e.clk.now().Add(-time.Minute)}}, "")
	mustContain(t, m.View(), "reattached to the running code 2 times (same executionId)")
}

// e runs on the session just opened with o, not on a new one; a
// multi-line paste runs there whole.
func TestRunCodeAfterOpenUsesThatSession(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	const rt = "runtimes/rt-cpudemo4qx"
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "o")
	m = typeText(e, t, m, "mine")
	m = e.press(t, m, "enter", "e")
	mustContain(t, m.View(), "RUN CODE · rt-cpudemo4qx · session mine")
	// A paste keeps its lines (CRLF read as one break), and the whole
	// input runs as one execute_code.
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("print(1)\r\nfor i in range(2):\n    print(i)\n"), Paste: true})
	m = e.press(t, m, "enter")
	if got := m.ex.execState.runs[0].res.Stdout; got != "1\n0\n1\n" {
		t.Fatalf("the multi-line input ran as %q, printed %q", m.ex.execState.runs[0].code, got)
	}
	if n := len(e.srv.Sessions(rt)); n != 2 {
		t.Fatalf("run code created another session: %v", sessionNames(e.srv.Sessions(rt)))
	}
	if got := m.ex.execState.runs[0].session; got != rt+"/sessions/mine" {
		t.Fatalf("ran on %q, want the session o opened", got)
	}
}

// e runs on the session under the cursor when the sessions panel has the
// focus, and never on a session the user closed; each session's console
// shows its own transcript.
func TestRunCodeTargetsSelectedSessionAndNeverAClosedOne(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	const rt = "runtimes/rt-t4demo7k2p"
	m = m.selectID(t, "rt-t4demo7k2p")
	before := sessionNames(e.srv.Sessions(rt))
	// Focus the sessions panel, move to the second session, run there.
	m = e.press(t, m, "tab", "j", "e")
	want := m.cx.Snap.Runtime(rt).Sessions[1].Name
	mustContain(t, m.View(), "· session "+api.LastSegment(want))
	m = typeText(e, t, m, "print(1)")
	m = e.press(t, m, "enter", "esc")
	if got := m.ex.execState.runs[0].session; got != want {
		t.Fatalf("ran on %q, want the selected %q", got, want)
	}
	// From the runtimes panel e goes back to the session used last, with
	// its own transcript.
	m = e.press(t, m, "tab", "e")
	mustContain(t, m.View(), "· session "+api.LastSegment(want), "In ["+api.LastSegment(want)+"]: print(1)")
	m = e.press(t, m, "esc")

	// Run once on a new colabdash session, then close it.
	m = e.press(t, m, "tab", "k", "tab") // first session selected, back on runtimes
	m.ex.lastSession = map[string]sessionPick{}
	m = e.press(t, m, "e")
	mustContain(t, m.View(), "Open a new session on rt-t4demo7k2p?")
	m = e.press(t, m, "y")
	if v := m.View(); strings.Contains(v, "print(1)") {
		t.Fatalf("the new session's console shows another session's run:\n%s", v)
	}
	m = typeText(e, t, m, "print(2)")
	m = e.press(t, m, "enter", "esc")
	own := m.ex.console().Session()
	if own == "" || slices.Contains(before, own) {
		t.Fatalf("run code did not open a new session: %q", own)
	}
	m = e.press(t, m, "tab")
	for i, s := range m.cx.Snap.Runtime(rt).Sessions {
		if s.Name == own {
			m.sess.SetCursor(i)
		}
	}
	m = e.press(t, m, "x", "y", "tab")
	if slices.Contains(sessionNames(e.srv.Sessions(rt)), own) {
		t.Fatal("close did not close the session")
	}
	// e must not reuse (and so resurrect) the closed session: it asks.
	m = e.press(t, m, "e")
	mustContain(t, m.View(), "Open a new session on rt-t4demo7k2p?")
	m = e.press(t, m, "y")
	m = typeText(e, t, m, "print(3)")
	m = e.press(t, m, "enter", "esc", "r")
	if slices.Contains(sessionNames(e.srv.Sessions(rt)), own) {
		t.Fatal("the closed session came back: run code used it again")
	}
	if last := m.ex.execState.runs[len(m.ex.execState.runs)-1]; last.session == own || last.err != nil {
		t.Fatalf("last run on %q err %v", last.session, last.err)
	}
}

// ctrl+c never quits from the console. Idle, it clears the input; while
// code runs it offers to stop it, saying that stopping closes the session
// and discards its state; y closes the session (delete_session), which
// ends the run.
func TestConsoleCtrlCStopsInsteadOfQuitting(t *testing.T) {
	e, m, sess := consoleOnSession(t)
	m = typeText(e, t, m, "x = 1")
	m, cmd := update(m, keyMsg("ctrl+c"))
	mustNotQuit(t, cmd, "ctrl+c quit from the console")
	if m.ex.console().Input() != "" || !topIs[*console.Overlay](m.scr) {
		t.Fatalf("idle ctrl+c: input %q", m.ex.console().Input())
	}
	// A long run (the emulator sleeps an hour).
	m = typeText(e, t, m, "print('start')")
	e.clk.add(dialogGrace)
	m, runCmd := update(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("\ntime.sleep(3600)"), Paste: true})
	m, runCmd = update(m, keyMsg("enter"))
	done := goRun(t, "enter on the console's long run", runCmd)
	mustContain(t, m.View(), "running…")
	for deadline := time.Now().Add(30 * time.Second); e.srv.RunningCode(sess) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the run never started on the server")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The kernel cannot be interrupted through the runtime proxy (its
	// Jupyter server fails): ctrl+c falls back to offering the stop.
	e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/sessions", Status: 503, Times: -1})
	m = e.press(t, m, "ctrl+c")
	mustContain(t, strings.Join(strings.Fields(m.View()), " "), "could not interrupt")
	d := m.dlg()
	if d == nil || d.Title != "Stop the running code?" {
		t.Fatalf("ctrl+c while code runs did not offer to stop it:\n%s", m.View())
	}
	mustContain(t, strings.Join(strings.Fields(m.View()), " "), "Stop the running code?", "delete_session", "discards", "state")
	m = e.press(t, m, "y")
	for _, s := range e.srv.Sessions("runtimes/rt-t4demo7k2p") {
		if s.Name == sess {
			t.Fatal("y did not close the session")
		}
	}
	// The run's own answer (ABORTED) arrives late and is dropped; the
	// transcript already says it stopped.
	select {
	case msg := <-done:
		m, _ = update(m, msg)
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end when its session was closed")
	}
	v := m.View()
	mustContain(t, v, "✕ stopped: the session was closed", "no session (enter asks to open one)")
	if strings.Contains(v, "running…") {
		t.Fatalf("still running:\n%s", v)
	}
	// The next run asks before opening a new session.
	m = typeText(e, t, m, "print(2)")
	m = e.press(t, m, "enter")
	mustContain(t, m.View(), "Open a new session on rt-t4demo7k2p?")
	m = e.press(t, m, "y", "enter")
	if ns := m.ex.console().Session(); ns == sess || ns == "" {
		t.Fatalf("console session after stop: %q", ns)
	}
	mustContain(t, m.View(), "]: print(2)", "  2")
}

// bigRuns are n finished runs of 2 MB of output each (40,000 lines of 50
// bytes).
func bigRuns(at time.Time, n int) []*execRun {
	var b strings.Builder
	for i := 0; i < 40000; i++ {
		fmt.Fprintf(&b, "output line %-38d\n", i)
	}
	out := b.String()
	var runs []*execRun
	for i := 0; i < n; i++ {
		runs = append(runs, &execRun{id: i + 1, code: "big()", done: true, started: at, res: api.ExecuteCodeResult{Stdout: out}})
	}
	return runs
}

// BenchmarkConsoleView renders the console over ten 2 MB outputs: the cost
// follows the screen, not what was printed.
func BenchmarkConsoleView(b *testing.B) {
	_, clk, m := fixture(b)
	m, _ = update(m, tea.WindowSizeMsg{Width: 160, Height: 48})
	benchView(b, withConsole(m, "runtimes/r-alpha", "runtimes/r-alpha/sessions/colabdash-1a2b", bigRuns(clk.now(), 10), ""), "✓ done")
}

// The console asked for with e opens on its new session when that session
// is there, but not over the files pane the user opened meanwhile: it
// waits until the pane is closed, and the pane keeps its keys.
func TestConsoleForANewSessionWaitsForTheDashboard(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "e")
	mustContain(t, m.View(), "Open a new session on rt-t4demo7k2p?")
	e.clk.add(dialogGrace + time.Millisecond)
	m, open := update(m, keyMsg("y")) // create_session, answered later
	m = e.press(t, m, "f")
	m = drive(t, m, open)
	if !topIs[*files.Overlay](m.scr) {
		t.Fatalf("the console opened over the files pane:\n%s", m.View())
	}
	m = e.press(t, m, "esc")
	if !topIs[*console.Overlay](m.scr) {
		t.Fatalf("the console did not open once the files pane closed:\n%s", m.View())
	}
	mustContain(t, m.View(), "RUN CODE")
}

// Quitting while console code runs asks first, and says the code keeps
// running on the runtime: no keeps the dashboard, yes quits (and the
// code is not stopped).
func TestQuitWhileCodeRunsAsks(t *testing.T) {
	e, m, sess := consoleOnSession(t)
	m = typeText(e, t, m, "print('start')")
	e.clk.add(dialogGrace)
	m, runCmd := update(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("\ntime.sleep(3600)"), Paste: true})
	m, runCmd = update(m, keyMsg("enter"))
	goRun(t, "the console's long run", runCmd)
	for deadline := time.Now().Add(30 * time.Second); e.srv.RunningCode(sess) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the run never started on the server")
		}
		time.Sleep(5 * time.Millisecond)
	}
	m = e.press(t, m, "esc") // back on the dashboard; the run goes on
	e.clk.add(dialogGrace)
	m, cmd := update(m, keyMsg("q"))
	mustNotQuit(t, cmd, "q quit while code runs, without asking")
	v := strings.Join(strings.Fields(m.View()), " ")
	mustContain(t, v, "Code is running on rt-t4demo7k2p; quit anyway?", "keeps running on rt-t4demo7k2p")
	m = e.press(t, m, "n")
	mustContain(t, strings.Join(strings.Fields(m.View()), " "), "not quitting: the code keeps running")
	e.clk.add(dialogGrace)
	m, _ = update(m, keyMsg("q"))
	e.clk.add(dialogGrace + time.Millisecond)
	m, cmd = update(m, keyMsg("y"))
	m, cmd = drainToQuit(t, m, cmd)
	if cmd == nil {
		t.Fatalf("y did not quit:\n%s", m.View())
	}
	if e.srv.RunningCode(sess) == 0 {
		t.Fatal("quitting stopped the code")
	}
}

// consoleOnSession is the demo dashboard with the run-code console open
// on rt-t4demo7k2p's session (tab, e), and that session's name.
func consoleOnSession(t *testing.T) (*emu, Model, string) {
	t.Helper()
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "tab", "e")
	return e, m, m.ex.console().Session()
}

// mustNotQuit fails t with why when cmd's message is a tea.QuitMsg.
func mustNotQuit(t *testing.T, cmd tea.Cmd, why string) {
	t.Helper()
	if cmd == nil {
		return
	}
	if _, quit := cmd().(tea.QuitMsg); quit {
		t.Fatal(why)
	}
}

// drainToQuit follows cmd's effects until a tea.QuitMsg (returned as a
// non-nil command) or nothing more.
func drainToQuit(t *testing.T, m Model, cmd tea.Cmd) (Model, tea.Cmd) {
	t.Helper()
	for i := 0; cmd != nil && i < 10; i++ {
		msg := cmd()
		if _, quit := msg.(tea.QuitMsg); quit {
			return m, cmd
		}
		if msg == nil {
			return m, nil
		}
		m, cmd = update(m, msg)
	}
	return m, nil
}
