package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/overlay/console"
)

// Issue 10 defect 2: each session has its own transcript, and each In:
// names its session.
func TestConsoleTranscriptBelongsToItsSession(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "tab", "e") // the first session
	first := m.ex.console().Session()
	m = typeText(e, t, m, "print('first')")
	m = e.press(t, m, "enter", "esc", "j", "e") // the second session
	second := m.ex.console().Session()
	if first == second {
		t.Fatal("j did not choose another session")
	}
	v := m.View()
	if strings.Contains(v, "first") {
		t.Fatalf("the second session's console shows the first one's run:\n%s", v)
	}
	m = typeText(e, t, m, "print('second')")
	m = e.press(t, m, "enter")
	mustContain(t, m.View(), "In ["+api.LastSegment(second)+"]: print('second')")
	m = e.press(t, m, "esc", "k", "e")
	v = m.View()
	mustContain(t, v, "In ["+api.LastSegment(first)+"]: print('first')", "  first")
	if strings.Contains(v, "second") {
		t.Fatalf("the first session's console shows the second one's run:\n%s", v)
	}
}

// ctrl+c never quits from the console. Idle, it clears the input; while
// code runs it offers to stop it, saying that stopping closes the session
// and discards its state; y closes the session (delete_session), which
// ends the run.
func TestConsoleCtrlCStopsInsteadOfQuitting(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "tab", "e")
	sess := m.ex.console().Session()
	m = typeText(e, t, m, "x = 1")
	m, cmd := update(m, keyMsg("ctrl+c"))
	if cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("ctrl+c quit from the console")
		}
	}
	if m.ex.console().Input() != "" || !topIs[*console.Overlay](m.scr) {
		t.Fatalf("idle ctrl+c: input %q", m.ex.console().Input())
	}
	// A long run (the emulator sleeps an hour).
	m = typeText(e, t, m, "print('start')")
	e.clk.add(DialogGrace)
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

// Multi-line input: a paste keeps its lines, alt+enter and ctrl+j add a
// line, enter on an open block adds a line, and enter on a complete
// statement runs the whole input.
func TestConsoleMultiLineInput(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "tab", "e")
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("print(1)\r\nprint(2)"), Paste: true})
	if got := m.ex.console().Input(); got != "print(1)\nprint(2)" {
		t.Fatalf("paste: %q", got)
	}
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
	m = typeText(e, t, m, "print(3)")
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyCtrlJ})
	m = typeText(e, t, m, "for i in range(2):")
	m = e.press(t, m, "enter") // an open block: a new line, not a run
	m = typeText(e, t, m, "    print(i)")
	m = e.press(t, m, "enter") // still inside the block
	if got := m.ex.console().Input(); got != "print(1)\nprint(2)\nprint(3)\nfor i in range(2):\n    print(i)\n" {
		t.Fatalf("input: %q", got)
	}
	mustContain(t, m.View(), ">>> ", "... ")
	m = e.press(t, m, "enter") // the empty line closes the block: it runs
	runs := m.ex.execState.runs
	if len(runs) != 1 || runs[0].code != "print(1)\nprint(2)\nprint(3)\nfor i in range(2):\n    print(i)" {
		t.Fatalf("runs: %+v", runs)
	}
	if got := runs[0].res.Stdout; got != "1\n2\n3\n0\n1\n" {
		t.Fatalf("stdout %q", got)
	}
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
	m = withConsole(m, "runtimes/r-alpha", "runtimes/r-alpha/sessions/colabdash-1a2b", bigRuns(clk.now(), 10), "")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if v := m.View(); !strings.Contains(v, "✓ done") {
			b.Fatal("no output")
		}
	}
}
