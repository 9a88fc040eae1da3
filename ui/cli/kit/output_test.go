package kit

// Every line a verb prints passes termtext and the
// redactor; these tests guard the doors themselves (Say, Note, WriteJSON,
// Ask, Confirm), one behaviour a user sees per assertion.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state/config"
)

// secret is a proxy token the process learned: registered with the
// redactor, it must never be printed.
const secret = "ya29.a0-proxy-token-0123456789abcdef"

// testVerb is a verb named "session close" writing to out and errb,
// reading in, with secret registered.
func testVerb(in io.Reader, out, errb io.Writer) *Verb {
	red := &api.Redactor{}
	red.Add(secret)
	return NewVerb(&Globals{Logs: Logs{Red: red}}, &Streams{In: in, Out: out, Err: errb}, "session close")
}

// Guards Say: one line on stdout, the secret redacted, controls made
// visible, nothing on stderr.
func TestSayRedactsAndSanitizes(t *testing.T) {
	var out, errb bytes.Buffer
	v := testVerb(nil, &out, &errb)
	v.Say("closed rt-a/s1 " + secret + " \x1b]52;c;aGk=\x07 done")
	got := out.String()
	if strings.Contains(got, secret) || strings.ContainsAny(got, "\x1b\x07") {
		t.Fatalf("stdout holds the secret or a control: %q", got)
	}
	if !strings.HasPrefix(got, "closed rt-a/s1 ") || !strings.HasSuffix(got, " done\n") || strings.Count(got, "\n") != 1 {
		t.Fatalf("stdout %q, want the one line with the secret hidden", got)
	}
	if errb.Len() != 0 {
		t.Fatalf("Say wrote on stderr: %q", errb.String())
	}
}

// Guards SayStyled: the style applies after the line was made safe, and
// nil is plain Say.
func TestSayStyled(t *testing.T) {
	var out bytes.Buffer
	v := testVerb(nil, &out, io.Discard)
	v.SayStyled(nil, "plain "+secret)
	if want := "plain " + api.Redacted + "\n"; out.String() != want {
		t.Fatalf("nil style: %q, want %q", out.String(), want)
	}
	out.Reset()
	st := lipgloss.NewStyle().SetString("").Transform(strings.ToUpper)
	v.SayStyled(&st, "x\x1by "+secret)
	if got, want := out.String(), "X␛Y "+strings.ToUpper(api.Redacted)+"\n"; got != want {
		t.Fatalf("styled: %q, want %q", got, want)
	}
}

// Guards Note: "colabdash: VERB: line" on stderr, redacted and sanitized.
func TestNoteNamesTheVerb(t *testing.T) {
	var out, errb bytes.Buffer
	v := testVerb(nil, &out, &errb)
	v.Note("kept " + secret + "\x07\x1b[2K")
	if want := "colabdash: session close: kept " + api.Redacted + "␇␛[2K\n"; errb.String() != want {
		t.Fatalf("stderr %q, want %q", errb.String(), want)
	}
	if out.Len() != 0 {
		t.Fatalf("Note wrote on stdout: %q", out.String())
	}
}

// Guards the colours: none off a terminal or with NO_COLOR, some on one.
func TestStyleColoursOnlyATerminal(t *testing.T) {
	v := testVerb(nil, io.Discard, io.Discard)
	render := func(tty bool) string {
		return v.Style(io.Discard, tty).NewStyle().Bold(true).Foreground(lipgloss.Color("1")).Render("x")
	}
	t.Setenv("NO_COLOR", "")
	if got := render(false); got != "x" {
		t.Errorf("not a terminal: %q, want plain", got)
	}
	if got := render(true); !strings.Contains(got, "\x1b[") {
		t.Errorf("a terminal: %q, want colour", got)
	}
	t.Setenv("NO_COLOR", "1")
	if got := render(true); got != "x" {
		t.Errorf("a terminal with NO_COLOR: %q, want plain", got)
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// Guards WriteJSON: two-space indentation and a final newline; a value
// that cannot be encoded or a stdout that cannot be written is exit 1
// with a line saying which; only a document printed counts as printed.
func TestWriteJSONDocumentAndFailures(t *testing.T) {
	var out bytes.Buffer
	v := testVerb(nil, &out, io.Discard)
	if err := v.WriteJSON(map[string]any{"ok": true, "runtimes": []string{"rt-a"}}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"ok\": true,\n  \"runtimes\": [\n    \"rt-a\"\n  ]\n}\n"; out.String() != want {
		t.Fatalf("document %q, want %q", out.String(), want)
	}
	if !v.WroteJSON {
		t.Fatal("WroteJSON false after a document was printed")
	}
	out.Reset()
	v = testVerb(nil, &out, io.Discard)
	err := v.WriteJSON(map[string]any{"bad": make(chan int)})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFailure || !strings.HasPrefix(ee.Msg, "encoding JSON: ") {
		t.Fatalf("unencodable: %v, want exit 1 \"encoding JSON: …\"", err)
	}
	if out.Len() != 0 || v.WroteJSON {
		t.Fatalf("unencodable: printed %q (WroteJSON %v), want nothing", out.String(), v.WroteJSON)
	}
	v = NewVerb(&Globals{Logs: Logs{Red: &api.Redactor{}}}, &Streams{Out: failingWriter{}}, "ls")
	if err := v.WriteJSON(1); !errors.As(err, &ee) || ee.Code != ExitFailure || ee.Msg != "writing JSON: broken pipe" {
		t.Fatalf("stdout failing: %v, want exit 1 \"writing JSON: broken pipe\"", err)
	}
}

// Guards Ask: the question on stderr (redacted, controls visible), the
// answer without its blanks; end of input is no answer, with the cursor
// moved to a new line.
func TestAskQuestionAndAnswer(t *testing.T) {
	var errb bytes.Buffer
	v := testVerb(strings.NewReader("  y \nsecond\n"), io.Discard, &errb)
	a, ok, err := v.Ask(context.Background(), "close "+secret+"\x1b[2J? [y/N] ")
	if a != "y" || !ok || err != nil {
		t.Fatalf("answer %q %v %v, want \"y\"", a, ok, err)
	}
	if want := "close " + api.Redacted + "␛[2J? [y/N] "; errb.String() != want {
		t.Fatalf("question %q, want %q", errb.String(), want)
	}
	errb.Reset()
	v = testVerb(strings.NewReader(""), io.Discard, &errb)
	if a, ok, err := v.Ask(context.Background(), "q? "); a != "" || ok || err != nil {
		t.Fatalf("at end of input: %q %v %v, want no answer and no error", a, ok, err)
	}
	if errb.String() != "q? \n" {
		t.Fatalf("at end of input stderr %q, want the question and a newline", errb.String())
	}
	// A last line without its newline is still the answer.
	v = testVerb(strings.NewReader("n"), io.Discard, io.Discard)
	if a, ok, _ := v.Ask(context.Background(), "q? "); a != "n" || !ok {
		t.Fatalf("unterminated answer: %q %v", a, ok)
	}
}

// Guards Confirm: y or yes (any case) confirms; an ended context (ctrl+c)
// is exit 130 saying what was not done.
func TestConfirmYOrYes(t *testing.T) {
	for answer, want := range map[string]bool{"y\n": true, " y \n": true, "yes\n": true, "Y\n": true, "\n": false, "": false, "n\n": false, "ye\n": false} {
		v := testVerb(strings.NewReader(answer), io.Discard, io.Discard)
		got, err := v.Confirm(context.Background(), "delete? ", "y", "nothing was deleted")
		if got != want || err != nil {
			t.Errorf("answer %q: %v %v, want %v", answer, got, err, want)
		}
	}
	r, w := io.Pipe()
	defer w.Close()
	var errb bytes.Buffer
	v := testVerb(r, io.Discard, &errb)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ok, err := v.Confirm(ctx, "delete rt-a? ", "y", "nothing was deleted")
	var ee *ExitError
	if ok || !errors.As(err, &ee) || ee.Code != ExitInterrupted || ee.Msg != "session close interrupted; nothing was deleted" {
		t.Fatalf("interrupted: %v %v, want exit 130 \"session close interrupted; nothing was deleted\"", ok, err)
	}
	if errb.String() != "delete rt-a? \n" {
		t.Fatalf("interrupted: stderr %q, want the question ended by a newline", errb.String())
	}
}

// Guards CanPrompt: a question needs stdin and stderr both terminals.
func TestCanPrompt(t *testing.T) {
	for _, c := range []struct{ in, err, want bool }{{true, true, true}, {true, false, false}, {false, true, false}, {false, false, false}} {
		v := NewVerb(&Globals{}, &Streams{InTTY: c.in, ErrTTY: c.err}, "delete")
		if v.CanPrompt() != c.want {
			t.Errorf("stdin terminal %v, stderr terminal %v: CanPrompt %v", c.in, c.err, !c.want)
		}
	}
}

// Guards the printed command lines: plain words stay bare, the global
// flags given are repeated (a bool flag only when true), and the hints
// built on them say what to paste, or why there is nothing to paste.
func TestPrintedCommandLines(t *testing.T) {
	given := map[string]bool{}
	g := &Globals{Logs: Logs{Red: &api.Redactor{}}, Changed: func(name string) bool { return given[name] },
		Endpoint: "http://127.0.0.1:9/mcp", AccessTokenFile: "/tmp/my t.txt", Config: "/c.yaml", ProfileName: "work",
		Credentials: "/cred.json", QuotaProject: "proj-1"}
	if line, ok := g.CommandLine("session", "close", "rt-a/s1"); !ok || line != "colabdash session close rt-a/s1" {
		t.Fatalf("no flags given: %q %v", line, ok)
	}
	for _, f := range []string{"endpoint", "access-token-file", "config", "profile", "credentials", "quota-project", "demo"} {
		given[f] = true
	}
	want := "colabdash status --config /c.yaml --profile work --endpoint http://127.0.0.1:9/mcp --credentials /cred.json --access-token-file '/tmp/my t.txt' --quota-project proj-1"
	if line, ok := g.CommandLine("status"); !ok || line != want {
		t.Fatalf("flags given:\n got %q\nwant %q", line, want)
	}
	g.Demo = true
	if line, _ := g.CommandLine("status"); !strings.Contains(line, " --profile work --demo --endpoint ") {
		t.Fatalf("--demo given: %q", line)
	}
	given = map[string]bool{}
	if got := g.CommandOr("prose", "exec", "a\nb"); got != "prose" {
		t.Fatalf("CommandOr with an unprintable word: %q, want the prose", got)
	}
	if got := g.CommandOr("prose", "status"); got != "colabdash status" {
		t.Fatalf("CommandOr: %q", got)
	}
	if got := g.RuntimeCommand("rt-a", "sessions"); got != "colabdash sessions rt-a" {
		t.Fatalf("RuntimeCommand: %q", got)
	}
	if got := g.RuntimeCommand("RT;rm", "sessions"); got != "" {
		t.Fatalf("RuntimeCommand with an unusual id: %q, want none", got)
	}
	if got := g.CloseSessionHint("runtimes/rt-a/sessions/s-1"); got != "close it with: colabdash session close rt-a/s-1 --yes" {
		t.Fatalf("CloseSessionHint: %q", got)
	}
	if got := g.CloseSessionHint("runtimes/rt-a/sessions/S 1"); got != "close it with colabdash session close; the session id S 1 is unusual (not an RFC 1034 label), so no command to paste is printed" {
		t.Fatalf("CloseSessionHint, unusual session: %q", got)
	}
	if got := UnusualSession("runtimes/RT/sessions/s-1"); !strings.HasPrefix(got, "the runtime id RT is unusual") {
		t.Fatalf("UnusualSession, unusual runtime: %q", got)
	}
	if arg, ok := SessionArg("runtimes/rt-a/sessions/s-1"); !ok || arg != "rt-a/s-1" {
		t.Fatalf("SessionArg: %q %v", arg, ok)
	}
	if arg, ok := SessionArg("runtimes/rt-a/sessions/S"); ok || arg != "" {
		t.Fatalf("SessionArg, unusual session: %q %v", arg, ok)
	}
	if arg, ok := SessionArg("runtimes/RT/sessions/s"); ok || arg != "" {
		t.Fatalf("SessionArg, unusual runtime: %q %v", arg, ok)
	}
	for w, want := range map[string]string{"rt-a": "rt-a", "azAZ09": "azAZ09", "`": "'`'", "{": "'{'", "[": "'['", "a_b.c/d:e@f,g+h": "a_b.c/d:e@f,g+h", "": "''", "a b": "'a b'", "it's": `'it'\''s'`, "$x": "'$x'", "é": "'é'"} {
		if got := shellQuote(w); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", w, got, want)
		}
	}
	if PrintsAsItself("a\tb", nil) || !PrintsAsItself("plain", nil) {
		t.Error("PrintsAsItself: a tab must not print as itself, a plain word must")
	}
}

// Guards the completion filter's edges: a line without a description, an
// empty Flush, and a failing shell pipe reported.
func TestCompletionWriterEdges(t *testing.T) {
	var b bytes.Buffer
	c := &CompletionWriter{W: &b}
	c.Write([]byte("rt-\x1bx\n"))
	if b.String() != "rt-␛x\n" {
		t.Fatalf("no description: %q", b.String())
	}
	if err := c.Flush(); err != nil || b.String() != "rt-␛x\n" {
		t.Fatalf("Flush with nothing pending: %v %q", err, b.String())
	}
	// An empty line (cobra's separator) goes out at once, not at the end.
	c.Write([]byte("\n:4\n"))
	if b.String() != "rt-␛x\n\n:4\n" {
		t.Fatalf("an empty line: %q", b.String())
	}
	c = &CompletionWriter{W: failingWriter{}}
	if _, err := c.Write([]byte("a\n")); err == nil {
		t.Error("Write to a failing shell pipe: no error")
	}
	c.Write([]byte("tail"))
	if err := c.Flush(); err == nil {
		t.Error("Flush to a failing shell pipe: no error")
	}
}

// Guards Verb.Connect's failure: credentials that cannot be read are exit
// code 3 with a line naming the file, and no connection to close.
func TestConnectCredentialsMissing(t *testing.T) {
	missing := t.TempDir() + "/no-such-token"
	g := &Globals{Profile: config.Profile{Name: "work", Credentials: config.CredentialsAccessToken, AccessTokenFile: missing,
		Endpoint: "http://127.0.0.1:9/mcp"}, Logs: Logs{Red: &api.Redactor{}}}
	conn, err := NewVerb(g, &Streams{}, "status").Connect(context.Background())
	var ee *ExitError
	if conn != nil || !errors.As(err, &ee) || ee.Code != ExitCredential || !strings.Contains(ee.Msg, missing) {
		t.Fatalf("missing token file: %v %v, want exit 3 naming %s", conn, err, missing)
	}
}
