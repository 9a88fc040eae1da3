package console

import (
	"github.com/colabdash/colabdash/api/plural"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Bounds of a session's run-code transcript: the newest lines are kept,
// the oldest dropped (and counted) once there are more than
// MaxTranscriptLines or they hold more than MaxTranscriptBytes; a single
// line keeps its first maxLineBytes. So ten 2 MB outputs cost what the
// screen shows, not what was printed.
const (
	MaxTranscriptLines = 10000
	MaxTranscriptBytes = 4 << 20
	maxLineBytes       = 8 << 10
)

// lineKind is how a transcript line is drawn.
type lineKind int

const (
	lineIn lineKind = iota
	lineOut
	lineWarn
	lineErr
	lineDim
)

// tline is one line of a transcript.
type tline struct {
	kind lineKind
	text string
}

// Transcript is the run-code history of one session: each run's input and
// output, as lines, bounded (MaxTranscriptLines, MaxTranscriptBytes). The
// zero value is an empty transcript; the app writes it (AddIn, then
// AddResult or AddFailure once the run ends), the console draws it.
type Transcript struct {
	lines   []tline
	bytes   int
	dropped int // lines dropped from the start
}

// add appends a line, cutting it to maxLineBytes, and drops the oldest
// lines beyond the bounds.
func (t *Transcript) add(kind lineKind, text string) {
	if len(text) > maxLineBytes {
		cut := maxLineBytes
		for cut > 0 && !utf8Start(text[cut]) {
			cut--
		}
		text = text[:cut] + "… (" + plural.Count(len(text)-cut, "more byte") + ")"
	}
	t.lines = append(t.lines, tline{kind, text})
	t.bytes += len(text)
	drop := 0
	for len(t.lines)-drop > MaxTranscriptLines || t.bytes > MaxTranscriptBytes && drop < len(t.lines)-1 {
		t.bytes -= len(t.lines[drop].text)
		drop++
	}
	if drop > 0 {
		t.dropped += drop
		t.lines = t.lines[drop:]
		if cap(t.lines) > 2*MaxTranscriptLines { // let the dropped head be freed
			t.lines = append([]tline(nil), t.lines...)
		}
	}
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// AddIn writes the input of a run: code sent to session (its name,
// "runtimes/{id}/sessions/{sid}"), as "In [sid]: code", continued lines
// aligned under it. Both go through termtext.
func (t *Transcript) AddIn(session, code string) {
	prefix := "In [" + termtext.Line(api.LastSegment(session)) + "]: "
	for i, ln := range strings.Split(termtext.Block(code), "\n") {
		if i > 0 {
			prefix = strings.Repeat(" ", max(0, ansi.StringWidth(prefix)-5)) + "...: "
		}
		t.add(lineIn, prefix+ln)
	}
}

// AddFailure writes the outcome of a run whose execute_code call failed:
// text is the error in one line, already made safe for the terminal
// (termtext); stopped says the user stopped the run.
func (t *Transcript) AddFailure(text string, stopped bool) {
	word := "✕ "
	if stopped {
		word = "✕ stopped: "
	}
	t.add(lineErr, "  "+word+text)
}

// AddResult writes the outcome of a run execute_code answered: its
// stdout, stderr, result, the error it raised with its traceback, and
// whether it is done or failed. Code that ended with sys.exit(n) is read
// as python reads it (state.ExitAsPython, exec's and run's rule): done for
// 0 or None, "exited n" otherwise, without IPython's SystemExit report.
func (t *Transcript) AddResult(res api.ExecuteCodeResult) {
	res, code, exited := state.ExitAsPython(res)
	// Everything from the server (and the code, typed or pasted) goes
	// through termtext: output keeps its lines, never its controls.
	for _, ln := range splitLines(termtext.Output(res.Stdout)) {
		t.add(lineOut, "  "+ln)
	}
	for _, ln := range splitLines(termtext.Output(res.Stderr)) {
		t.add(lineWarn, "  stderr: "+ln)
	}
	for i, ln := range splitLines(termtext.Output(res.Result)) {
		if i == 0 {
			ln = "Out: " + ln
		}
		t.add(lineOut, "  "+ln)
	}
	if e := res.ExecutionError; e != nil {
		t.add(lineErr, "  "+termtext.Line(e.Name)+": "+termtext.Line(e.Value))
		for _, tb := range e.Traceback {
			for _, ln := range splitLines(termtext.Output(tb)) {
				t.add(lineDim, "    "+ln)
			}
		}
	}
	if res.OutputTruncated {
		t.add(lineDim, "  (output truncated by the server)")
	}
	if e := res.ExecutionError; e != nil {
		// The code raised: the run failed, whatever it printed before.
		t.add(lineErr, "  ✕ "+orWord(termtext.Line(e.Name), "error"))
	} else if exited && code != 0 {
		t.add(lineErr, "  ✕ exited "+strconv.Itoa(code))
	} else {
		t.add(lineDim, "  ✓ done")
	}
}

func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// orWord returns s, or def when s is empty.
func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// itoaThousands writes n with thousands separators ("10,000").
func itoaThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
