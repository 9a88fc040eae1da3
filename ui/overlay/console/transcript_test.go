package console

import (
	"github.com/colabdash/colabdash/api/plural"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/common/commontest"

	"github.com/colabdash/colabdash/api"
)

// texts are the transcript's lines as written.
func texts(t *Transcript) []string {
	var out []string
	for _, l := range t.lines {
		out = append(out, l.text)
	}
	return out
}

// The input is written "In [sid]: code", its continued lines aligned
// under the code; a result writes stdout, stderr, the result, the error
// with its traceback, the server's truncation and the outcome.
func TestTranscriptWritesARun(t *testing.T) {
	var tr Transcript
	tr.AddIn(sess, "for i in x:\n    f(i)")
	tr.AddResult(api.ExecuteCodeResult{
		Stdout: "a\nb\n", Stderr: "warn\n", Result: "42\n43", OutputTruncated: true,
		ExecutionError: &api.ExecuteError{Name: "KeyError", Value: "'k'", Traceback: []string{"tb one\ntb two"}},
	})
	want := []string{
		"In [colabdash-1a2b]: for i in x:",
		"                ...:     f(i)",
		"  a", "  b",
		"  stderr: warn",
		"  Out: 42", "  43",
		"  KeyError: 'k'",
		"    tb one", "    tb two",
		"  (output truncated by the server)",
		"  ✕ KeyError",
	}
	if got := texts(&tr); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("transcript:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// sys.exit as python reads it: 0 is done, n is its exit status.
	tr = Transcript{}
	tr.AddResult(api.ExecuteCodeResult{ExecutionError: &api.ExecuteError{Name: "SystemExit", Value: "0", Traceback: []string{"An exception has occurred"}}})
	tr.AddResult(api.ExecuteCodeResult{ExecutionError: &api.ExecuteError{Name: "SystemExit", Value: "3"}})
	if got := strings.Join(texts(&tr), "|"); got != "  ✓ done|  ✕ exited 3" {
		t.Fatalf("sys.exit: %q", got)
	}
	tr = Transcript{}
	tr.AddResult(api.ExecuteCodeResult{ExecutionError: &api.ExecuteError{}})
	tr.AddResult(api.ExecuteCodeResult{})
	tr.AddFailure("DEADLINE_EXCEEDED", false)
	tr.AddFailure("the session was closed", true)
	if got := strings.Join(texts(&tr), "|"); got != "  : |  ✕ error|  ✓ done|  ✕ DEADLINE_EXCEEDED|  ✕ stopped: the session was closed" {
		t.Fatalf("outcomes: %q", got)
	}
}

// Output from the server never drives the terminal: its escape sequences
// and controls are dropped, its lines kept.
func TestTranscriptDropsControls(t *testing.T) {
	c, runs, p := fixture(t, 100, 24)
	runs.ran(sess, "print('\x1b]52;c;aGk=\x07x')", api.ExecuteCodeResult{Stdout: "\x1b[31mred\x1b[0m\r\nnext\u009b2J\n"})
	v := consoleText(t, p, c)
	if strings.ContainsAny(v, "\x1b\x07\u009b\r") {
		t.Fatalf("controls reached the screen: %q", v)
	}
	commontest.MustContain(t, v, "  red", "  next")
}

// A line longer than maxLineBytes keeps its first maxLineBytes (never
// cutting a character) and says how much was cut.
func TestTranscriptCutsLongLines(t *testing.T) {
	var tr Transcript
	tr.AddResult(api.ExecuteCodeResult{Stdout: strings.Repeat("é", maxLineBytes)}) // 2 bytes each
	got := tr.lines[0].text
	if !strings.HasSuffix(got, "… ("+plural.Count(2*maxLineBytes+2-maxLineBytes, "more byte")+")") {
		t.Fatalf("cut line ends %q", got[len(got)-40:])
	}
	if !strings.HasPrefix(got, "  é") || len(got) > maxLineBytes+40 {
		t.Fatalf("cut line: %d bytes", len(got))
	}
}

// Long lines are bounded by their bytes: lines holding exactly
// MaxTranscriptBytes are all kept, one byte more drops the oldest line,
// and many more keep the transcript within the bound.
func TestTranscriptBoundedByBytes(t *testing.T) {
	var tr Transcript
	line := strings.Repeat("x", 1024)
	for range MaxTranscriptBytes / 1024 {
		tr.add(lineOut, line)
	}
	if tr.dropped != 0 || tr.bytes != MaxTranscriptBytes {
		t.Fatalf("exactly the bound: %d bytes, %d lines dropped", tr.bytes, tr.dropped)
	}
	tr.add(lineOut, "y")
	if tr.dropped != 1 || tr.bytes != MaxTranscriptBytes-1024+1 {
		t.Fatalf("a byte past the bound: %d bytes, %d lines dropped", tr.bytes, tr.dropped)
	}
	for range MaxTranscriptBytes / 1024 {
		tr.add(lineOut, line)
	}
	if tr.bytes > MaxTranscriptBytes || len(tr.lines) >= MaxTranscriptBytes/1024+1 {
		t.Fatalf("twice the bound written: %d bytes in %d lines kept", tr.bytes, len(tr.lines))
	}
}

// A line of exactly maxLineBytes is kept whole; a longer one is cut at
// the last character that starts within the bound, never inside one.
func TestTranscriptCutsAtACharacter(t *testing.T) {
	var tr Transcript
	whole := strings.Repeat("x", maxLineBytes)
	tr.add(lineOut, whole)
	if tr.lines[0].text != whole {
		t.Fatalf("a line of exactly maxLineBytes was cut: %q…", tr.lines[0].text[maxLineBytes-10:])
	}
	odd := "x" + strings.Repeat("é", maxLineBytes/2) // the bound falls inside an é
	tr.add(lineOut, odd)
	want := odd[:maxLineBytes-1] + "… (" + plural.Count(len(odd)-(maxLineBytes-1), "more byte") + ")"
	if got := tr.lines[1].text; got != want {
		t.Fatalf("cut line ends %q, want %q", got[len(got)-30:], want[len(want)-30:])
	}
	// A line with no character starting within the bound (bytes that no
	// decoder made) keeps nothing of its text, and the cut never steps
	// past the line's start.
	junk := strings.Repeat("\x80", maxLineBytes+1)
	tr.add(lineOut, junk)
	if got, want := tr.lines[2].text, "… ("+plural.Count(len(junk), "more byte")+")"; got != want {
		t.Fatalf("a line of continuation bytes was cut to %q, want %q", got, want)
	}
}

// The drop marker's counts are written with thousands separators, never
// one in front.
func TestItoaThousands(t *testing.T) {
	for n, want := range map[int]string{7: "7", 999: "999", 1000: "1,000", 100000: "100,000", 1234567: "1,234,567"} {
		if got := itoaThousands(n); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}
