package api

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/secrettest"
)

// onTerminal is what a terminal shows of s: escape sequences (CSI, OSC
// and the other strings, ESC and its final byte) and the controls it
// ignores (C0 but tab, newline and carriage return, DEL, C1) taken out.
// It is written apart from the redactor's own reading, as a test oracle.
func onTerminal(s string) string {
	s = terminalSequence.ReplaceAllString(s, "")
	return terminalControl.ReplaceAllString(s, "")
}

var (
	terminalSequence = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-~]`)
	terminalControl  = regexp.MustCompile(`[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]`)
)

// inSecret are the controls and escape sequences a program may write
// inside a secret: a terminal shows the secret whole around them.
var inSecret = map[string]string{
	"BEL": "\a", "NUL": "\x00", "DEL": "\x7f", "C1 NEL": "\u0085", "C1 ST": "\u009c",
	"SGR bold": "\x1b[1m", "SGR reset": "\x1b[0m", "SGR with parameters": "\x1b[38;2;10;20;30m",
	"CSI hide cursor": "\x1b[?25l", "OSC title": "\x1b]0;build\x07", "OSC ended by ST": "\x1b]8;;\x1b\\",
	"charset": "\x1b(B", "SGR and BEL": "\x1b[1m\a\x1b[0m",
}

// drawnAsSymbols is s as colabdash's sanitizers draw it (the jobs'
// drawer, the log viewer): each C0 control, tab, newline and carriage
// return aside, as its picture (␀ … ␟), DEL as ␡, a C1 control as
// U+FFFD; an escape sequence is then text after its ␛.
func drawnAsSymbols(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('\u2421')
		case r >= 0x80 && r <= 0x9f:
			b.WriteRune('\ufffd')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// splitAt is s with ins inserted before each of the byte offsets at.
func splitAt(s, ins string, at ...int) string {
	var b strings.Builder
	last := 0
	for _, i := range at {
		b.WriteString(s[last:i])
		b.WriteString(ins)
		last = i
	}
	b.WriteString(s[last:])
	return b.String()
}

// The three kinds of secret the terminal tests hide controls in: a
// registered proxy token, a Google access token nobody registered, and
// a bearer token's value.
const (
	registered = "pRoXy-t0k3n-Q9w8E7r6T5y4U3i2O1p0zZ"
	access     = "ya29.a0AfB_unRegistered-T0ken_0123456789"
	bearer     = "AbCdEfGh0123456789IjKlMnOpQrStUv"
)

// A secret a terminal shows whole is redacted whole, whatever controls
// or escape sequences its bytes hold: a registered one, a Google access
// token (ya29.…) and a bearer token nobody registered. No 8 characters
// of it are left on the screen, nor in the text read with the controls
// taken out (a log file), nor when the text was drawn with its controls
// as symbols before it was redacted (the jobs' drawer, the log viewer).
func TestRedactSecretAsTheTerminalShowsIt(t *testing.T) {
	var r Redactor
	r.Add(registered)
	for name, ins := range inSecret {
		for _, c := range []struct {
			what, before, secret string
		}{
			{"registered", "proxy said ", registered},
			{"ya29", "sent ", access},
			{"bearer", "Authorization was Bearer ", bearer},
		} {
			n := len(c.secret)
			for _, at := range [][]int{{n / 2}, {3, n - 3}, {9, n - 9}, {2, n / 2, n - 2}, {6}, {n - 4}} {
				in := c.before + splitAt(c.secret, ins, at...) + " (done)"
				got := r.Redact(in)
				screen := onTerminal(got)
				if !secrettest.Check(t, fmt.Sprintf("%s split by %s at %v, on the screen", c.what, name, at), screen, c.secret) {
					t.Logf("Redact(%q) = %q", in, got)
				}
				if !strings.HasSuffix(screen, " (done)") || !strings.HasPrefix(screen, strings.TrimSuffix(c.before, " ")) {
					t.Errorf("Redact(%q) = %q: the text around the secret is lost", in, got)
				}
				if shown := terminalControl.ReplaceAllString(got, ""); !secrettest.Check(t, fmt.Sprintf("%s split by %s at %v, with controls dropped", c.what, name, at), shown, c.secret) {
					t.Logf("Redact(%q) = %q", in, got)
				}
				drawn := drawnAsSymbols(in)
				if got := r.Redact(drawn); !secrettest.Check(t, fmt.Sprintf("%s split by %s at %v, drawn as symbols", c.what, name, at), got, c.secret) {
					t.Logf("Redact(%q) = %q", drawn, got)
				}
			}
		}
	}
}

// What the terminal shows apart from the secret stays as it was written:
// colours before and after it, text with escape sequences and no secret.
func TestRedactKeepsTheEscapesAroundASecret(t *testing.T) {
	const sec = "pRoXy-t0k3n-Q9w8E7r6T5y4U3i2O1p0zZ"
	var r Redactor
	r.Add(sec)
	for in, want := range map[string]string{
		"\x1b[31mred\x1b[0m and \x1b]0;title\x07 plain":    "\x1b[31mred\x1b[0m and \x1b]0;title\x07 plain",
		"\x1b[1mtoken " + sec[:10] + "\x1b[0m" + sec[10:]:  "\x1b[1mtoken " + Redacted,
		"\x1b[33mgot \x1b[1m" + sec + "\x1b[0m.":           "\x1b[33mgot \x1b[1m" + Redacted + "\x1b[0m.",
		"a " + sec[:4] + "\x1b[1m" + sec[4:] + "\x1b[0m z": "a " + Redacted + "\x1b[0m z",
		"Bearer \x1b[1mAbCdEfGh0123456789IjKl\x1b[0m next": "Bearer \x1b[1m" + Redacted + "\x1b[0m next",
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
		if got := string(r.RedactBytes([]byte(in))); got != want {
			t.Errorf("RedactBytes(%q) = %q, want %q", in, got, want)
		}
	}
}

// A secret the escape sequence holds (a window title) is redacted too,
// though the terminal shows it elsewhere than on the line, and so is
// one after a string sequence that never ends, which a terminal hides
// but a sanitizer that draws ESC as ␛ shows, and one whose first letter
// a sequence takes for its final byte (ESC [ 1 B earer …): read as
// written with the controls dropped, or drawn with them as symbols, no
// 8 characters of it are left.
func TestRedactSecretInsideAnEscapeSequence(t *testing.T) {
	var r Redactor
	r.Add(registered)
	for _, in := range []string{
		"got \x1b[1Bearer " + bearer[:5] + "\a" + bearer[5:] + " line",
		"got \x1bBearer " + bearer[:12] + "\x1b[0m" + bearer[12:] + " line",
		"\x1by" + access[1:15] + "\x00" + access[15:] + " line",
		"\x1b]0;" + registered + "\x07 line",
		"\x1b]2;" + access + "\x1b\\ line",
		"\x1b[" + access + " line",
		"\x1b]0;" + access[:12] + "\x00" + access[12:] + "\x07 line",
		"\x1b_" + access[:9] + "\a" + access[9:30] + "\a" + access[30:] + " line",
		"\x1bP" + registered[:5] + "\x00" + registered[5:20] + "\x7f" + registered[20:] + " line",
		"\x1b[" + access[:10] + "\a" + access[10:] + " line",
	} {
		for _, text := range []string{in, drawnAsSymbols(in)} {
			got := r.Redact(text)
			shown := terminalControl.ReplaceAllString(got, "")
			screen := onTerminal(got)
			if !secrettest.Check(t, "text and sequences", shown, registered, access, bearer) ||
				!secrettest.Check(t, "the screen", screen, registered, access, bearer) || !strings.HasSuffix(got, " line") {
				t.Errorf("Redact(%q) = %q", text, got)
			}
		}
	}
}

// BenchmarkRedactColoredLogLine: one redaction of a line of 1 KiB of a
// coloured log (SGR sequences, a progress bar's carriage returns) with
// nothing to redact and one registered token, as `colabdash logs` into a
// pipe and exec's output pass it.
func BenchmarkRedactColoredLogLine(b *testing.B) {
	line := strings.Repeat("\x1b[32mepoch 3/10\x1b[0m step 120 loss \x1b[1m0.4213\x1b[0m lr 3e-4\r", 18)
	var r Redactor
	r.Add("uV9h62qbQ2E-X5MWDaI_proxy-token-0123456789")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if r.Redact(line) != line {
			b.Fatal("the line changed")
		}
	}
}

// unseen are pieces of text a terminal shows nothing of (drawn, some
// show a symbol): a fuzzer builds what it puts inside a secret from them.
var unseen = []string{
	"\a", "\x00", "\x01", "\x7f", "\x1b[0m", "\x1b[1;31m", "\x1b[?25h", "\x1b[2K", "\x1b]0;t\a",
	"\x1b]8;;x\x1b\\", "\x1bP1$r\x1b\\", "\x1b(B", "\x1b=", "\u0085", "\u009c", "\x1b_a\x1b\\",
}

// FuzzRedactSecretSplitOnTheTerminal: any text redacts without a panic,
// RedactBytes as Redact; and a registered secret or a ya29 token with
// pieces a terminal does not show put inside it (the fuzzer's bytes
// choose them and where they go), amid any printable text, leaves no 8
// characters of it on the screen, nor when the text was drawn with its
// controls as symbols.
func FuzzRedactSecretSplitOnTheTerminal(f *testing.F) {
	f.Add("x \x1b[1mya29.\aabc", []byte{3, 1, 20, 5}, "pre ", " post")
	f.Add("Bearer ␇AbC\x1b]0;", []byte{0, 9, 33, 8, 40, 2}, "a\tb", "\n")
	const registered = "pRoXy-t0k3n-Q9w8E7r6T5y4U3i2O1p0zZ"
	const access = "ya29.a0AfB_unRegistered-T0ken_0123456789"
	var r Redactor
	r.Add(registered)
	f.Fuzz(func(t *testing.T, any string, cuts []byte, pre, post string) {
		if got, want := string(r.RedactBytes([]byte(any))), r.Redact(any); got != want {
			t.Fatalf("RedactBytes(%q) = %q, Redact = %q", any, got, want)
		}
		printable := func(s string) string {
			return strings.Map(func(c rune) rune {
				if c == '\t' || c == '\n' || c == '\r' || c >= 0x20 && c < 0x7f {
					return c
				}
				return -1
			}, s)
		}
		pre, post = printable(pre), printable(post)
		for _, sec := range []string{registered, access} {
			var b strings.Builder
			b.WriteString(pre + " ")
			last := 0
			for i := 0; i+1 < len(cuts) && i < 16; i += 2 {
				at := last + int(cuts[i])%(len(sec)-last+1)
				b.WriteString(sec[last:at] + unseen[int(cuts[i+1])%len(unseen)])
				last = at
			}
			b.WriteString(sec[last:] + " " + post)
			in := b.String()
			if got := r.Redact(in); !secrettest.Check(t, "the screen", onTerminal(got), sec) {
				t.Logf("Redact(%q) = %q", in, got)
			}
			drawn := drawnAsSymbols(in)
			if got := r.Redact(drawn); !secrettest.Check(t, "drawn as symbols", got, sec) {
				t.Logf("Redact(%q) = %q", drawn, got)
			}
		}
	})
}
