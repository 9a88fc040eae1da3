package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

// Issue 10 defect 2: each session has its own transcript, and each In:
// names its session.
func TestConsoleTranscriptBelongsToItsSession(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "tab", "e") // the first session
	first := m.console().session
	m = typeText(e, t, m, "print('first')")
	m = e.press(t, m, "enter", "esc", "j", "e") // the second session
	second := m.console().session
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
	sess := m.console().session
	m = typeText(e, t, m, "x = 1")
	m, cmd := update(m, keyMsg("ctrl+c"))
	if cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("ctrl+c quit from the console")
		}
	}
	if m.console().in.Value() != "" || !topIs[*consoleOverlay](&m) {
		t.Fatalf("idle ctrl+c: input %q", m.console().in.Value())
	}
	// A long run (the emulator sleeps an hour).
	m = typeText(e, t, m, "print('start')")
	e.clk.add(DialogGrace)
	m, runCmd := update(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("\ntime.sleep(3600)"), Paste: true})
	m, runCmd = update(m, keyMsg("enter"))
	done := make(chan tea.Msg, 1)
	go func() { done <- runCmd() }()
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
	if ns := m.console().session; ns == sess || ns == "" {
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
	if got := m.console().in.Value(); got != "print(1)\nprint(2)" {
		t.Fatalf("paste: %q", got)
	}
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
	m = typeText(e, t, m, "print(3)")
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyCtrlJ})
	m = typeText(e, t, m, "for i in range(2):")
	m = e.press(t, m, "enter") // an open block: a new line, not a run
	m = typeText(e, t, m, "    print(i)")
	m = e.press(t, m, "enter") // still inside the block
	if got := m.console().in.Value(); got != "print(1)\nprint(2)\nprint(3)\nfor i in range(2):\n    print(i)\n" {
		t.Fatalf("input: %q", got)
	}
	mustContain(t, m.View(), ">>> ", "... ")
	m = e.press(t, m, "enter") // the empty line closes the block: it runs
	runs := m.ax.exec.runs
	if len(runs) != 1 || runs[0].code != "print(1)\nprint(2)\nprint(3)\nfor i in range(2):\n    print(i)" {
		t.Fatalf("runs: %+v", runs)
	}
	if got := runs[0].res.Stdout; got != "1\n2\n3\n0\n1\n" {
		t.Fatalf("stdout %q", got)
	}
}

func TestCompleteStatement(t *testing.T) {
	for code, want := range map[string]bool{
		"print(1)":                           true,
		"print(1":                            false,
		"x = [1,\n2]":                        true,
		"def f():":                           false,
		"for i in range(2):\n    print(i)":   false,
		"for i in range(2):\n    print(i)\n": true,
		`s = """abc`:                         false,
		`s = """abc"""`:                      true,
		"x = 1 \\":                           false,
		"print('(')":                         true,
		"# a comment with (":                 true,
	} {
		if got := completeStatement(code); got != want {
			t.Errorf("completeStatement(%q) = %v", code, got)
		}
	}
}

// The transcript keeps a bounded tail: ten 2 MB outputs leave at most
// MaxTranscriptLines lines and MaxTranscriptBytes bytes, with a marker of
// what was dropped at its top; pgup reaches it, pgdn comes back, the
// footer names the scroll keys.
func TestConsoleTranscriptIsBounded(t *testing.T) {
	_, clk, m := fixture(t)
	m, _ = update(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = withConsole(m, "runtimes/r-alpha", "runtimes/r-alpha/sessions/colabdash-1a2b", bigRuns(clk.now(), 10), "")
	tr := m.ax.exec.transcripts["runtimes/r-alpha/sessions/colabdash-1a2b"]
	if len(tr.lines) > MaxTranscriptLines || tr.bytes > MaxTranscriptBytes || tr.dropped == 0 {
		t.Fatalf("transcript: %d lines, %d bytes, %d dropped", len(tr.lines), tr.bytes, tr.dropped)
	}
	v := m.View()
	mustContain(t, v, "output line 39999", "✓ done", "pgup/pgdn")
	// pgup stops at the top, where the marker says what was dropped.
	m.console().scroll = 1 << 30
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyPgUp})
	top := m.console().scroll
	mustContain(t, m.View(), itoaThousands(tr.dropped)+" earlier lines dropped", "newer lines below (pgdn)")
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyPgUp})
	if m.console().scroll != top {
		t.Fatalf("pgup at the top moved: %d → %d", top, m.console().scroll)
	}
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyPgDown})
	if s := m.console().scroll; s != top-m.console().consolePage(m.cx) {
		t.Fatalf("pgdn: %d → %d", top, s)
	}
	m.console().scroll = 3
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyPgDown})
	if v := m.View(); !strings.Contains(v, "output line 39999") || strings.Contains(v, "below (pgdn)") {
		t.Fatalf("pgdn did not return to the newest output:\n%s", v)
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
