package console

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

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
		"s = \"\\\"(\"":                      true, // an escaped quote does not end the string
		"s = \"\"\"a\nb\"\"\"":               true, // a line break inside a triple-quoted string
		"s = \"\"\"a\nb":                     false,
	} {
		if got := completeStatement(code); got != want {
			t.Errorf("completeStatement(%q) = %v", code, got)
		}
	}
}

// Multi-line input: a paste keeps its lines, alt+enter and ctrl+j add a
// line, enter on an open block adds a line, and enter on a complete
// statement runs the whole input (its trailing blank lines cut); enter
// on an empty input does nothing.
func TestMultiLineInput(t *testing.T) {
	c, _, p := fixture(t, 80, 24)
	if eff := commontest.Press(t, p, c, "enter"); eff != nil {
		t.Fatalf("enter on an empty input: %#v", eff)
	}
	// A paste keeps its lines, a CRLF read as one break.
	if eff := p.HandleKey(commontest.Paste("print(1)\r\nprint(2)"), c); eff != nil || p.Input() != "print(1)\nprint(2)" {
		t.Fatalf("paste: input %q, effect %#v", p.Input(), eff)
	}
	p.SetInput("print(1)")
	commontest.Press(t, p, c, "alt+enter", "print(2)", "ctrl+j", "for i in range(2):")
	if eff := commontest.Press(t, p, c, "enter"); eff != nil { // an open block: a new line, not a run
		t.Fatalf("enter on an open block: %#v", eff)
	}
	commontest.Press(t, p, c, "    print(i)")
	if eff := commontest.Press(t, p, c, "enter"); eff != nil { // still inside the block
		t.Fatalf("enter inside the block: %#v", eff)
	}
	if got := p.Input(); got != "print(1)\nprint(2)\nfor i in range(2):\n    print(i)\n" {
		t.Fatalf("input: %q", got)
	}
	commontest.MustContain(t, consoleText(t, p, c), ">>> print(1)", "... print(2)", "...     print(i)")
	eff := commontest.Press(t, p, c, "enter") // the empty line closes the block: it runs
	if rc, ok := eff.(common.RunCode); !ok || rc.Code != "print(1)\nprint(2)\nfor i in range(2):\n    print(i)" {
		t.Fatalf("enter on a complete statement: %#v", eff)
	}
	// The app runs it: the input empties and joins the history.
	p.Ran("print(1)\nprint(2)")
	if p.Input() != "" {
		t.Fatalf("input after the run: %q", p.Input())
	}
	commontest.Press(t, p, c, "up")
	if p.Input() != "print(1)\nprint(2)" {
		t.Fatalf("↑ after a run: %q", p.Input())
	}
}

// The console matches only its own scope's bindings: the dashboard's
// letters are text in it, and a rebound run key runs.
func TestKeysOfOtherScopesAreText(t *testing.T) {
	c, _, p := fixture(t, 80, 24)
	if eff := commontest.Press(t, p, c, "q", "?", "e", "/", "L", "d"); eff != nil {
		t.Fatalf("dashboard keys in the console: %#v", eff)
	}
	if p.Input() != "q?e/Ld" {
		t.Fatalf("input %q", p.Input())
	}
	k := keymap.Default()
	if err := k.Rebind(keymap.ActionConsoleRun, "ctrl+r"); err != nil {
		t.Fatal(err)
	}
	c.Keys = k
	p.SetInput("print(1)")
	if rc, ok := commontest.Press(t, p, c, "ctrl+r").(common.RunCode); !ok || rc.Code != "print(1)" {
		t.Fatalf("the rebound run key did not run: %#v", rc)
	}
	commontest.MustContain(t, commontest.KeyHelp(p, c), "ctrl+r run")
}

// ctrl+c never quits from the console: idle it clears the input and says
// how to go back; while code runs it asks to stop it (the input stays).
// esc goes back, the run going on.
func TestCtrlCAndEsc(t *testing.T) {
	c, runs, p := fixture(t, 80, 24)
	p.SetInput("x = 1")
	commontest.MustContain(t, commontest.KeyHelp(p, c), "enter run · esc back · ctrl+c clear")
	eff := commontest.Press(t, p, c, "ctrl+c")
	if s, ok := eff.(common.Say); !ok || s.Text != "ctrl+c does not quit from the console: esc goes back to the dashboard" {
		t.Fatalf("idle ctrl+c: %#v", eff)
	}
	if p.Input() != "" {
		t.Fatalf("idle ctrl+c left %q", p.Input())
	}
	runs.run = &Run{Session: sess, Started: t0, Attempt: 1}
	p.SetInput("y = 2")
	commontest.MustContain(t, commontest.KeyHelp(p, c), "ctrl+c stop the code")
	if eff := commontest.Press(t, p, c, "ctrl+c"); eff != (common.StopCode{}) {
		t.Fatalf("ctrl+c while code runs: %#v", eff)
	}
	if p.Input() != "y = 2" {
		t.Fatalf("ctrl+c while code runs cleared the input: %q", p.Input())
	}
	if _, ok := commontest.Press(t, p, c, "esc").(common.Close); !ok {
		t.Fatal("esc did not go back")
	}
	// Code running on another session is not this console's to stop.
	runs.run.Session = rt + "/sessions/other"
	if _, ok := commontest.Press(t, p, c, "ctrl+c").(common.Say); !ok {
		t.Fatal("ctrl+c offered to stop another session's code")
	}
}

// The title names the runtime and session, or says that enter asks for a
// new session once it was closed; it says that runs go on after esc.
func TestTitle(t *testing.T) {
	c, runs, p := fixture(t, 100, 24)
	body := consoleBody(t, p, c)
	commontest.MustContain(t, body[0], "RUN CODE · r-alpha · session colabdash-1a2b", "esc back (runs keep going)")
	runs.closed[sess] = true
	commontest.MustContain(t, consoleBody(t, p, c)[0], "RUN CODE · r-alpha · no session (enter asks to open one)")
}

// The run in flight is the transcript's last line: how long it has run,
// how often it was reattached, or that it is being stopped.
func TestRunningLine(t *testing.T) {
	c, runs, p := fixture(t, 120, 24)
	runs.ran(sess, "print(1)", api.ExecuteCodeResult{Stdout: "1\n"})
	runs.transcript(sess).AddIn(sess, "train()")
	runs.run = &Run{Session: sess, Started: t0.Add(-time.Minute), Attempt: 1}
	v := consoleText(t, p, c)
	commontest.MustContain(t, v, "In [colabdash-1a2b]: print(1)", "  1", "✓ done", "In [colabdash-1a2b]: train()",
		"  running… "+state.FormatCountdown(time.Minute))
	if strings.Contains(v, "reattached") {
		t.Fatalf("a first attempt says reattached:\n%s", v)
	}
	// A reattached run says what happened in words.
	runs.run.Attempt = 3
	commontest.MustContain(t, consoleText(t, p, c), "reattached to the running code 2 times (same executionId)")
	runs.run.Stopping = true
	commontest.MustContain(t, consoleText(t, p, c), "  stopping… (closing session colabdash-1a2b)")
	// The run ends: the app writes its outcome.
	runs.run = nil
	runs.transcript(sess).AddFailure("the session was closed", true)
	v = consoleText(t, p, c)
	commontest.MustContain(t, v, "✕ stopped: the session was closed")
	if strings.Contains(v, "running…") || strings.Contains(v, "stopping…") {
		t.Fatalf("still running:\n%s", v)
	}
}

// Each session has its own transcript: the console shows its session's
// only, and a new session shows its newest lines.
func TestTranscriptBelongsToItsSession(t *testing.T) {
	c, runs, p := fixture(t, 100, 24)
	other := rt + "/sessions/colabdash-9z9z"
	runs.ran(sess, "print('first')", api.ExecuteCodeResult{Stdout: "first\n"})
	runs.ran(other, "print('second')", api.ExecuteCodeResult{Stdout: "second\n"})
	v := consoleText(t, p, c)
	commontest.MustContain(t, v, "In [colabdash-1a2b]: print('first')")
	if strings.Contains(v, "second") {
		t.Fatalf("the first session's console shows the second one's run:\n%s", v)
	}
	p.scroll = 5
	p.Show(rt, other)
	if p.scroll != 0 || p.Session() != other || p.Runtime() != rt {
		t.Fatalf("show another session: scroll %d, session %q", p.scroll, p.Session())
	}
	v = consoleText(t, p, c)
	commontest.MustContain(t, v, "In [colabdash-9z9z]: print('second')", "session colabdash-9z9z")
	if strings.Contains(v, "first") {
		t.Fatalf("the second session's console shows the first one's run:\n%s", v)
	}
}

// bigRuns writes n finished runs of 2 MB of output each (40,000 lines of
// 50 bytes) into session's transcript.
func bigRuns(runs *fakeRuns, session string, n int) {
	var b strings.Builder
	for i := 0; i < 40000; i++ {
		fmt.Fprintf(&b, "output line %-38d\n", i)
	}
	out := b.String()
	for i := 0; i < n; i++ {
		runs.ran(session, "big()", api.ExecuteCodeResult{Stdout: out})
	}
}

// The transcript keeps a bounded tail: ten 2 MB outputs leave at most
// MaxTranscriptLines lines and MaxTranscriptBytes bytes, with a marker of
// what was dropped at its top; pgup reaches it, pgdn comes back, the
// footer names the scroll keys.
func TestTranscriptIsBounded(t *testing.T) {
	c, runs, p := fixture(t, 100, 30)
	bigRuns(runs, sess, 10)
	tr := runs.transcripts[sess]
	if len(tr.lines) > MaxTranscriptLines || tr.bytes > MaxTranscriptBytes || tr.dropped == 0 {
		t.Fatalf("transcript: %d lines, %d bytes, %d dropped", len(tr.lines), tr.bytes, tr.dropped)
	}
	commontest.MustContain(t, consoleText(t, p, c), "output line 39999", "✓ done")
	commontest.MustContain(t, commontest.KeyHelp(p, c), "pgup/pgdn scroll")
	// pgup stops at the top, where the marker says what was dropped.
	p.scroll = 1 << 30
	commontest.Press(t, p, c, "pgup")
	top := p.scroll
	commontest.MustContain(t, consoleText(t, p, c), itoaThousands(tr.dropped)+" earlier lines dropped (the console keeps the last 10,000)",
		"newer lines below (pgdn)")
	commontest.MustContain(t, commontest.KeyHelp(p, c), "enter run · esc back · ctrl+c clear · pgup/pgdn scroll (↓ newer below)")
	commontest.Press(t, p, c, "pgup")
	if p.scroll != top {
		t.Fatalf("pgup at the top moved: %d → %d", top, p.scroll)
	}
	commontest.Press(t, p, c, "pgdown")
	if s := p.scroll; s != top-p.consolePage(c) {
		t.Fatalf("pgdn: %d → %d", top, s)
	}
	p.scroll = 3
	commontest.Press(t, p, c, "pgdown")
	if v := consoleText(t, p, c); !strings.Contains(v, "output line 39999") || strings.Contains(v, "below (pgdn)") {
		t.Fatalf("pgdn did not return to the newest output:\n%s", v)
	}
}

// One line past the bound drops one line, and the marker says so in the
// singular.
func TestDropMarkerSingular(t *testing.T) {
	c, runs, p := fixture(t, 100, 30)
	tr := runs.transcript(sess)
	for i := 0; i <= MaxTranscriptLines; i++ {
		tr.add(lineOut, fmt.Sprintf("  line %d", i))
	}
	p.scroll = 1 << 30
	commontest.Press(t, p, c, "pgup")
	v := consoleText(t, p, c)
	commontest.MustContain(t, v, "  … 1 earlier line dropped (the console keeps the last 10,000)", "  line 1")
	if strings.Contains(v, "  line 0\n") {
		t.Fatalf("the dropped line is shown:\n%s", v)
	}
}

// Run-code output and tracebacks wrap at the width instead of being cut,
// pgup/pgdn scroll the output (newest at the bottom), and a long input line
// scrolls so its end and the cursor stay visible.
func TestWrapsAndScrolls(t *testing.T) {
	c, runs, p := fixture(t, 60, 15)
	long := "START" + strings.Repeat("x", 250) + "END"
	frame := "File \"/content/train.py\", line 12, in <module> model.frame.Fit(dataset, epochs=10, callbacks=[checkpoint]) TBEND"
	for i := 0; i < 6; i++ {
		runs.ran(sess, "print(1)", api.ExecuteCodeResult{Stdout: "line one\nline two\n"})
	}
	runs.ran(sess, "run()", api.ExecuteCodeResult{
		Stdout:         long + "\n",
		ExecutionError: &api.ExecuteError{Name: "ValueError", Value: "bad", Traceback: []string{frame}},
	})
	p.SetInput("df = pd.read_csv('/content/drive/MyDrive/data/some_long_file_name.csv') # INPUTEND")
	v := consoleText(t, p, c)
	flat := strings.ReplaceAll(strings.ReplaceAll(v, "\n", ""), " ", "")
	for _, want := range []string{"END", "TBEND", "INPUTEND█", "✕ValueError"} {
		if !strings.Contains(flat, want) {
			t.Errorf("run-code panel lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "START") {
		t.Fatalf("wrapped output all fits?\n%s", v)
	}
	// pgup shows older output and says newer lines are below; pgdn returns.
	commontest.Press(t, p, c, "pgup")
	v = consoleText(t, p, c)
	if !strings.Contains(v, "START") || !strings.Contains(v, "newer line") || !strings.Contains(v, "below (pgdn)") {
		t.Errorf("pgup did not scroll back:\n%s", v)
	}
	commontest.Press(t, p, c, "pgdown", "pgdown", "pgdown", "pgdown", "pgdown")
	if v = consoleText(t, p, c); !strings.Contains(v, "✕ ValueError") || strings.Contains(v, "below (pgdn)") {
		t.Errorf("pgdn did not return to the newest output:\n%s", v)
	}
}

// At the newest output the footer ends with the scroll keys' plain word;
// scrolled back, it says that newer lines are below, right after the
// ways out.
func TestFooterSaysWhenNewerLinesAreBelow(t *testing.T) {
	c, runs, p := fixture(t, 100, 30)
	if got := commontest.KeyHelp(p, c); got != "enter run · esc back · ctrl+c clear · alt+enter/ctrl+j new line · ↑/↓ history · pgup/pgdn scroll" {
		t.Fatalf("footer at the newest output: %q", got)
	}
	bigRuns(runs, sess, 1)
	commontest.Press(t, p, c, "pgup")
	if got := commontest.KeyHelp(p, c); got != "enter run · esc back · ctrl+c clear · pgup/pgdn scroll (↓ newer below) · alt+enter/ctrl+j new line · ↑/↓ history" {
		t.Fatalf("footer scrolled back: %q", got)
	}
}

// pgup at the transcript's top stops there, and from there one pgdn
// shows newer lines at once.
func TestPgdnFromTheTopScrollsAtOnce(t *testing.T) {
	c, runs, p := fixture(t, 100, 30)
	for i := 0; i < 60; i++ {
		runs.transcript(sess).add(lineOut, fmt.Sprintf("  line %02d", i))
	}
	commontest.Press(t, p, c, "pgup", "pgup", "pgup", "pgup", "pgup")
	top := consoleText(t, p, c)
	commontest.MustContain(t, top, "  line 00")
	commontest.Press(t, p, c, "pgdown")
	if v := consoleText(t, p, c); v == top || strings.Contains(v, "  line 00\n") {
		t.Fatalf("pgdn from the top did not scroll:\n%s", v)
	}
}

// A long input takes at most half the console's rows (less its title,
// blank and border lines): the transcript keeps the rest. On the
// smallest screen the dashboard draws (60×15) as on a tall one, the
// title, the input's cursor line and the newest transcript row stay, in
// exactly the body's rows.
func TestLongInputTakesHalfTheConsole(t *testing.T) {
	for _, tc := range []struct{ w, h, lines int }{{60, 15, 12}, {100, 40, 30}} {
		c, runs, p := fixture(t, tc.w, tc.h)
		runs.ran(sess, "print(1)", api.ExecuteCodeResult{Stdout: "1\n"})
		p.SetInput(strings.Repeat("x = 1\n", tc.lines) + "LAST")
		body := consoleBody(t, p, c)
		commontest.MustContain(t, body[0], "RUN CODE")
		input := 0
		for _, l := range body {
			if strings.HasPrefix(l, ">>> ") || strings.HasPrefix(l, "... ") {
				input++
			}
		}
		if want := (len(body) - 4) / 2; input != want {
			t.Fatalf("%d×%d: the input takes %d of %d rows, want %d:\n%s", tc.w, tc.h, input, len(body), want, strings.Join(body, "\n"))
		}
		commontest.MustContain(t, strings.Join(body, "\n"), "LAST█", "✓ done")
	}
}

// Scrolled to the top and then drawn wider, where the lines wrap into
// fewer rows, the console shows the transcript's top with its rows full,
// not rows past it.
func TestWidenedAtTheTopShowsTheTop(t *testing.T) {
	c, runs, p := fixture(t, 60, 20)
	for i := 0; i < 30; i++ {
		runs.transcript(sess).add(lineOut, fmt.Sprintf("  line %02d %s", i, strings.Repeat("w", 70)))
	}
	commontest.Press(t, p, c, "pgup", "pgup", "pgup", "pgup", "pgup", "pgup", "pgup", "pgup", "pgup", "pgup")
	commontest.MustContain(t, consoleText(t, p, c), "  line 00")
	wide, _, _ := fixture(t, 200, 20)
	body := consoleBody(t, p, wide)
	commontest.MustContain(t, strings.Join(body, "\n"), "  line 00")
	if !strings.Contains(body[1], "line 00") {
		t.Fatalf("widened, the transcript's top is not on its first row:\n%s", strings.Join(body, "\n"))
	}
}

// In colour, an input line's prompt ("In [sid]: ") is bold, the code
// after it is not.
func TestInputPromptIsBold(t *testing.T) {
	c, runs, p := fixture(t, 100, 24)
	c.Styles = commontest.ANSIStyles()
	runs.transcript(sess).AddIn(sess, "print(1)")
	if v := consoleText(t, p, c); !strings.Contains(v, c.Styles.Bold.Render("In [colabdash-1a2b]: ")+"print(1)") {
		t.Fatalf("the prompt is not bold:\n%q", v)
	}
}
