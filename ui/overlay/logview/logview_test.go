package logview

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
)

// While following, each new line appears at the bottom as it arrives.
func TestFollowingShowsLinesAsTheyArrive(t *testing.T) {
	v := open(t, 80, 24)
	if !strings.Contains(v.screen(), "waiting for output…") {
		t.Fatalf("an empty log:\n%s", v.screen())
	}
	v.lines(0, 3)
	if got := v.rows()[:3]; got[0] != "line 1" || strings.TrimSpace(got[2]) != "line 3" {
		t.Fatalf("first rows %q", got)
	}
	v.lines(3, 100)
	if got := v.lastRow(); got != "line 103" {
		t.Fatalf("after 103 lines the last row is %q:\n%s", got, v.screen())
	}
	if !strings.Contains(v.screen(), "lines 86–103 of 103") {
		t.Fatalf("the footer does not say which lines are shown:\n%s", v.screen())
	}
	v.feed("partial")
	if got := v.lastRow(); got != "partial" {
		t.Fatalf("a line not ended yet: last row %q", got)
	}
	v.feed(" and done\n")
	if got := v.lastRow(); got != "partial and done" {
		t.Fatalf("the line ended: last row %q", got)
	}
	if s := v.screen(); !strings.Contains(s, "LOG · job train-4kq9zt on r-alpha · running") || !strings.Contains(s, "● following") {
		t.Fatalf("title or footer:\n%s", s)
	}
}

// f stops following: new lines no longer move the view; f again jumps to
// the bottom and follows.
func TestFStopsFollowing(t *testing.T) {
	v := open(t, 80, 24)
	v.lines(0, 50)
	if e := v.press("f"); e == nil || !strings.Contains(e.(common.Say).Text, "following off") {
		t.Fatalf("f said %#v", e)
	}
	before := v.rows()
	v.lines(50, 30)
	if after := v.rows(); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatalf("new lines moved a paused view:\nbefore %q\nafter  %q", before, after)
	}
	if !strings.Contains(v.screen(), "‖ paused (f follows)") {
		t.Fatalf("the footer does not say it is paused:\n%s", v.screen())
	}
	v.press("f")
	if got := v.lastRow(); got != "line 80" {
		t.Fatalf("f again: last row %q", got)
	}
	v.lines(80, 1)
	if got := v.lastRow(); got != "line 81" {
		t.Fatalf("following again: last row %q", got)
	}
}

// Scrolling up stops following; g goes to the first line, G to the last
// (following again), j/k and pgup/pgdn move as in the other overlays.
func TestScrollKeys(t *testing.T) {
	v := open(t, 80, 24)
	v.lines(0, 100)
	room := len(v.rows())
	v.press("k")
	if v.o.Following() || v.lastRow() != "line 99" {
		t.Fatalf("k: following %v, last row %q", v.o.Following(), v.lastRow())
	}
	v.press("g")
	if got := v.rows()[0]; strings.TrimSpace(got) != "line 1" {
		t.Fatalf("g: first row %q", got)
	}
	v.press("pgdown")
	if got := strings.TrimSpace(v.rows()[0]); got != "line "+itoa(room) {
		t.Fatalf("pgdn: first row %q, want line %d (a page less one line)", got, room)
	}
	v.press("j")
	if got := strings.TrimSpace(v.rows()[0]); got != "line "+itoa(room+1) {
		t.Fatalf("j: first row %q", got)
	}
	v.press("k", "G")
	if got := v.lastRow(); got != "line 100" || !v.o.Following() {
		t.Fatalf("G: last row %q, following %v", got, v.o.Following())
	}
	v.press("j", "j", "pgdown")
	if got := v.lastRow(); got != "line 100" || !v.o.Following() {
		t.Fatalf("down at the bottom moved past it: last row %q", got)
	}
	v.lines(100, 5)
	if got := v.lastRow(); got != "line 105" {
		t.Fatalf("after G, new lines do not show: last row %q", got)
	}
}

func itoa(n int) string { return thousands(n) }

// / searches (ignoring case) and highlights every hit; n and N go to the
// next and previous line holding it, wrapping around.
func TestSearchFindsAndHighlights(t *testing.T) {
	v := open(t, 80, 24)
	v.c.Styles = commontest.ANSIStyles()
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		switch i {
		case 30, 120:
			b.WriteString("epoch " + itoa(i) + " loss=NaN detected\n")
		default:
			b.WriteString("epoch " + itoa(i) + " loss=0.1\n")
		}
	}
	v.feed(b.String())
	v.press("g") // at the top, paused: a hit on screen does not move the view
	sl := v.press("/").(common.Open).Overlay.(*SearchLine)
	if e := commontest.Press(t, sl, v.c, "epoch 5 ", "enter"); !strings.Contains(e.(common.Close).Text, "line 5 holds") ||
		strings.TrimSpace(v.rows()[0]) != "epoch 1 loss=0.1" {
		t.Fatalf("a hit on screen: %#v, first row %q", e, v.rows()[0])
	}
	e := v.press("/")
	sl, ok := e.(common.Open).Overlay.(*SearchLine)
	if !ok {
		t.Fatalf("/ opened %#v", e)
	}
	v.press("g") // the view's top: the search starts there
	e = commontest.Press(t, sl, v.c, "nan", "enter")
	if cl, ok := e.(common.Close); !ok || !strings.Contains(cl.Text, "line 30 holds") {
		t.Fatalf("enter: %#v", e)
	}
	raw := commontest.Screen(t, v.o, v.c)
	if !strings.Contains(raw, "\x1b[7mNaN") {
		t.Fatalf("the hit is not highlighted (reverse video):\n%q", raw)
	}
	if !strings.Contains(v.screen(), "epoch 30 loss=NaN detected") {
		t.Fatalf("line 30 is not on screen:\n%s", v.screen())
	}
	e = v.press("n")
	if s := e.(common.Say); !strings.Contains(s.Text, "line 120 holds") || !strings.Contains(v.screen(), "epoch 120 loss=NaN") {
		t.Fatalf("n: %q\n%s", s.Text, v.screen())
	}
	e = v.press("n")
	if s := e.(common.Say); !strings.Contains(s.Text, "line 30 holds") || !strings.Contains(s.Text, "wrapped") {
		t.Fatalf("n past the last hit: %q", s.Text)
	}
	e = v.press("N")
	if s := e.(common.Say); !strings.Contains(s.Text, "line 120 holds") {
		t.Fatalf("N: %q", s.Text)
	}
	if v.o.Following() {
		t.Fatal("a search left the view following")
	}
	sl = v.press("/").(common.Open).Overlay.(*SearchLine)
	if e := commontest.Press(t, sl, v.c, "zebra", "enter"); !e.(common.Close).Err {
		t.Fatalf("a search that finds nothing: %#v", e)
	}
}

// w wraps long lines; without it they are cut with "…".
func TestWrap(t *testing.T) {
	v := open(t, 80, 24)
	long := strings.Repeat("abcdefghij", 15) // 150 cells
	v.feed(long + "END\nnext\n")
	rows := v.rows()
	if !strings.HasSuffix(strings.TrimRight(rows[0], " "), "…") || strings.TrimSpace(rows[1]) != "next" {
		t.Fatalf("unwrapped rows %q", rows[:2])
	}
	v.press("w")
	rows = v.rows()
	if strings.TrimSpace(rows[0])+strings.TrimSpace(rows[1]) != long+"END" || strings.TrimSpace(rows[2]) != "next" {
		t.Fatalf("wrapped rows %q", rows[:3])
	}
	v.press("w")
	if rows = v.rows(); strings.TrimSpace(rows[1]) != "next" {
		t.Fatalf("w again: %q", rows[:2])
	}
}

// A log's own "\r" redraws its line in place, as a terminal draws it: a
// progress bar is one line showing its last state; a shorter redraw
// leaves the rest of the line.
func TestCarriageReturnRedrawsInPlace(t *testing.T) {
	v := open(t, 80, 24)
	v.feed(" 10%|#         |\r 50%|#####     |\r")
	v.feed("100%|##########|\n")
	v.feed("abcdef\rXY\n")
	v.feed("done\r\n")
	rows := v.rows()
	if strings.TrimSpace(rows[0]) != "100%|##########|" || strings.TrimSpace(rows[1]) != "XYcdef" ||
		strings.TrimSpace(rows[2]) != "done" || strings.TrimSpace(rows[3]) != "" {
		t.Fatalf("rows %q", rows[:4])
	}
}

// Colours (SGR) are drawn and a backspace moves back, as on a terminal; no
// other escape sequence or control of the log reaches the terminal: each
// is shown, inert.
func TestEscapeSequencesAreNotEmitted(t *testing.T) {
	v := open(t, 80, 24)
	v.c.Styles = commontest.ANSIStyles()
	v.feed("\x1b[31mred\x1b[0m plain\n")
	v.feed("clip \x1b]52;c;ZXZpbA==\x07 clear \x1b[2J title \x1b]0;pwned\x1b\\ bell \x07 bs X\bY\n")
	v.feed("long \x1b[" + strings.Repeat("1;", 5000) + "31mcolour\n") // no program's colour: left out
	v.feed("half \x1b[3")                                             // an SGR split across two reads
	v.feed("2mgreen\x1b[0m\n")
	raw := commontest.Screen(t, v.o, v.c)
	commontest.AssertInert(t, "log with escapes", raw, 80)
	if strings.Contains(raw, "1;1;1;") {
		t.Fatalf("a 10 KB SGR sequence was drawn")
	}
	if !strings.Contains(raw, "\x1b[31mred") || !strings.Contains(raw, "\x1b[32mgreen") {
		t.Fatalf("the log's colours are not drawn:\n%q", raw)
	}
	v.c.Styles = commontest.Context(80, 24).Styles // NO_COLOR: not even the log's colours
	if raw := commontest.Screen(t, v.o, v.c); strings.Contains(raw, "\x1b") {
		t.Fatalf("with NO_COLOR an escape reached the screen:\n%q", raw)
	}
	s := v.screen()
	for _, want := range []string{"␛]52;c;ZXZpbA==␇", "␛[2J", "␛]0;pwned␛\\", "bell ␇", "bs Y"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q is not shown inert:\n%s", want, s)
		}
	}
}

// A secret the redactor knows never shows, is not found by a search and
// is not saved.
func TestSecretIsRedacted(t *testing.T) {
	v := open(t, 80, 24)
	const secret = "ya29.a0AfB_secretvalue"
	v.c.Redact = func(s string) string { return strings.ReplaceAll(s, secret, "[redacted]") }
	v.feed("token " + secret + " in \x1b[33mcolour\x1b[0m\n")
	if s := commontest.Screen(t, v.o, v.c); strings.Contains(s, "secretvalue") || !strings.Contains(s, "token [redacted] in colour") {
		t.Fatalf("screen:\n%s", s)
	}
	sl := v.press("/").(common.Open).Overlay.(*SearchLine)
	if e := commontest.Press(t, sl, v.c, "secretvalue", "enter"); !e.(common.Close).Err {
		t.Fatalf("a search found the secret: %#v", e)
	}
	path := filepath.Join(t.TempDir(), "out.log")
	m := v.o.Save(v.c, path, false)().(SavedMsg)
	if b, err := os.ReadFile(path); err != nil || strings.Contains(string(b), "secretvalue") || m.Err != nil {
		t.Fatalf("saved %q, %v, %v", b, err, m.Err)
	}
}

// s saves exactly the bytes received, "\r" and colours included; an
// existing file is replaced only after a y.
func TestSaveWritesWhatWasReceivedAndAsksBeforeReplacing(t *testing.T) {
	v := open(t, 80, 24)
	got := "epoch 1\r\x1b[32mepoch 2\x1b[0m\nlast line without newline"
	v.feed(got[:10])
	v.feed(got[10:])
	d := v.press("s").(common.Open).Overlay.(*dialog.Dialog)
	if !strings.Contains(commontest.Box(t, d, v.c, 80), "train-4kq9zt.log") {
		t.Fatalf("the save dialog does not offer a name:\n%s", commontest.Box(t, d, v.c, 80))
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "train.log")
	m := v.o.Save(v.c, path, false)().(SavedMsg)
	e := v.o.Saved(m, v.c)
	if b, err := os.ReadFile(path); err != nil || string(b) != got {
		t.Fatalf("saved %q (%v), want %q", b, err, got)
	}
	if s := e.(common.Say); s.Err || !strings.Contains(s.Text, "saved") || !strings.Contains(s.Text, path) {
		t.Fatalf("status %#v", s)
	}
	if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	m = v.o.Save(v.c, path, false)().(SavedMsg)
	if !m.Exists {
		t.Fatalf("an existing file: %#v", m)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep me" {
		t.Fatalf("an existing file was replaced without asking: %q", b)
	}
	q, ok := v.o.Saved(m, v.c).(common.Open).Overlay.(*dialog.Dialog)
	if !ok || !strings.Contains(commontest.Box(t, q, v.c, 80), "Replace train.log?") {
		t.Fatalf("no question whether to replace")
	}
	clock := &commontest.Clock{}
	v.c.Now = clock.Now
	clock.Add(time.Second) // past the question's grace
	e = commontest.Press(t, q, v.c, "y")
	run := e.(common.Answer).Then.(common.Run)
	m = run.Cmd().(SavedMsg)
	if b, _ := os.ReadFile(path); string(b) != got || m.Err != nil {
		t.Fatalf("after y: %q, %v", b, m.Err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "link.log")); err != nil {
		t.Skip(err)
	}
	m = v.o.Save(v.c, filepath.Join(dir, "link.log"), true)().(SavedMsg)
	if m.Err == nil {
		t.Fatal("saving over a symbolic link was not refused")
	}
	if _, err := os.Stat(filepath.Join(dir, "elsewhere")); err == nil {
		t.Fatal("a save followed a symbolic link")
	}
	if s := v.o.Saved(m, v.c).(common.Say); !s.Err || strings.Contains(s.Text, "\n") {
		t.Fatalf("a failed save says %#v", s)
	}
}

// The end of the source is shown: the footer says how the job ended, the
// title its state, and no read follows.
func TestEndIsShown(t *testing.T) {
	for _, tc := range []struct {
		st   jobs.Status
		want string
	}{
		{jobs.Status{Ended: commontest.T0, ExitCode: 3}, "exited 3"},
		{jobs.Status{Ended: commontest.T0, ExitCode: -1, Signal: 9}, "killed by SIGKILL (signal 9)"},
		{jobs.Status{}, "lost"},
		{jobs.Status{Error: "python not found"}, "failed: python not found"},
	} {
		v := open(t, 80, 24)
		v.lines(0, 2)
		v.end(tc.st)
		s := v.screen()
		if !strings.Contains(s, "■ the job ended: "+tc.want) || !strings.Contains(strings.Split(s, "\n")[2], tc.want) {
			t.Errorf("%s:\n%s", tc.want, s)
		}
		if v.next == nil {
			t.Fatalf("%s: no command closes the source", tc.want)
		}
		if v.next(); !isClosed(v.src) {
			t.Errorf("%s: the source was not closed", tc.want)
		}
	}
}

func isClosed(f *fakeSource) bool {
	select {
	case <-f.closed:
		return true
	default:
		return false
	}
}

// A failed read is shown and retried later, not at once; esc and q close
// the viewer and its source.
func TestFailedReadAndClose(t *testing.T) {
	v := open(t, 80, 24)
	v.src.ch <- fakeNext{err: errors.New("proxy: 502 bad gateway")}
	v.step()
	if !strings.Contains(v.screen(), "▲ read failed (1 time), retrying every 5s: proxy: 502 bad gateway") {
		t.Fatalf("a failed read:\n%s", v.screen())
	}
	if v.next != nil || v.o.Tick(v.c.Now().Add(RetryAfter-time.Second)) != nil {
		t.Fatal("a failed read was retried at once")
	}
	if v.next = v.o.Tick(v.c.Now().Add(RetryAfter)); v.next == nil {
		t.Fatal("no retry after RetryAfter")
	}
	v.lines(0, 1)
	if strings.Contains(v.screen(), "read failed") {
		t.Fatalf("the failure stays after a read worked:\n%s", v.screen())
	}
	for _, k := range []string{"esc", "q"} {
		e, ok := v.press(k).(common.Close)
		if !ok || e.Cmd == nil {
			t.Fatalf("%s: %#v", k, e)
		}
	}
	v.press("q").(common.Close).Cmd()
	if !isClosed(v.src) {
		t.Fatal("closing left the source open")
	}
	if v.step(); v.next != nil {
		t.Fatal("a closed viewer asked for another read")
	}
}

// The buffer keeps the newest MaxLines lines; the view starts with a
// note saying how many were dropped.
func TestBufferIsBounded(t *testing.T) {
	v := open(t, 80, 24)
	var b strings.Builder
	for i := 1; i <= MaxLines+25; i++ {
		b.WriteString("l" + itoa(i) + "\n")
	}
	v.feed(b.String())
	if v.o.buf.Dropped() != 25 || v.o.buf.Len() != MaxLines {
		t.Fatalf("kept %d, dropped %d", v.o.buf.Len(), v.o.buf.Dropped())
	}
	v.press("g")
	rows := v.rows()
	if !strings.Contains(rows[0], "25 earlier lines dropped (the viewer keeps the last 10,000 lines, 4 MiB)") || strings.TrimSpace(rows[1]) != "l26" {
		t.Fatalf("top rows %q", rows[:2])
	}
	huge := strings.Repeat("x", MaxLineCells+100) + "\n"
	v.feed(huge)
	if l := v.o.buf.line(v.o.buf.Len() - 1); len(l.plain) > MaxLineCells+len("…") || !strings.HasSuffix(l.plain, "…") {
		t.Fatalf("a huge line kept %d bytes", len(l.plain))
	}
}

// Wide characters and characters split across reads are drawn whole.
func TestSplitCharactersAndWideCells(t *testing.T) {
	v := open(t, 80, 24)
	s := "日本語 ✓ héllo\n"
	for i := 0; i < len(s); i++ {
		v.feed(s[i : i+1])
	}
	v.feed("ab日\rX\n") // X overwrites a, b stays, then the wide character
	rows := v.rows()
	if strings.TrimSpace(rows[0]) != "日本語 ✓ héllo" || strings.TrimSpace(rows[1]) != "Xb日" {
		t.Fatalf("rows %q", rows[:2])
	}
	for _, sz := range [][2]int{{80, 24}, {200, 50}, {60, 15}} {
		commontest.Draw(t, v.o, commontest.Sized(v.c, sz[0], sz[1]))
	}
}

// BenchmarkBufferWrite is the cost of taking a MiB of log: lines of 80
// characters with a colour and a progress bar's "\r" now and then.
func BenchmarkBufferWrite(b *testing.B) {
	var chunk strings.Builder
	for chunk.Len() < 1<<20 {
		chunk.WriteString("\x1b[32mepoch\x1b[0m 12: loss 0.1234 acc 0.9876 " + strings.Repeat("x", 40) + "\r 50%|#####     |\n")
	}
	data := []byte(chunk.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var buf Buffer
		_, _ = buf.Write(data)
	}
}
