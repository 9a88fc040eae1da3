package paint

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// screen is a terminal stand-in: what the painter wrote, with a signal on
// each write.
type screen struct {
	mu     sync.Mutex
	writes []string
	wrote  chan struct{}
}

func newScreen() *screen { return &screen{wrote: make(chan struct{}, 64)} }

func (s *screen) Write(b []byte) (int, error) {
	s.mu.Lock()
	s.writes = append(s.writes, string(b))
	s.mu.Unlock()
	s.wrote <- struct{}{}
	return len(b), nil
}

func (s *screen) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.writes, "")
}

// waitFor waits until what was written contains want.
func (s *screen) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(s.all(), want) {
		select {
		case <-s.wrote:
		case <-deadline:
			t.Fatalf("never written: %q\nwritten: %q", want, s.all())
		}
	}
}

func started(t *testing.T, out io.Writer) *Painter {
	t.Helper()
	p := New(nil, out)
	if err := p.Start(func(tea.Msg) {}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

// Only the lines that changed are rewritten, each in place, and what a
// shorter frame leaves below is erased; a line as wide as the screen is
// not followed by an erase, which would take its last character.
func TestDiffRewritesOnlyChangedLines(t *testing.T) {
	got := string(diff([]string{"a", "b", "c", "d"}, []string{"a", "B", "c"}, 10, false))
	want := syncBegin + "\x1b[2;1HB" + eraseRight + "\x1b[4;1H" + eraseBelow + syncEnd
	if got != want {
		t.Errorf("diff = %q, want %q", got, want)
	}
	if got := diff([]string{"a", "b"}, []string{"a", "b"}, 10, false); got != nil {
		t.Errorf("an unchanged frame wrote %q", got)
	}
	if got := string(diff(nil, []string{"0123456789"}, 10, false)); strings.Contains(got, eraseRight) {
		t.Errorf("a full-width line was followed by an erase: %q", got)
	}
	full := string(diff([]string{"a", "b"}, []string{"a", "b"}, 10, true))
	if !strings.HasPrefix(full, syncBegin+clearAll) || !strings.Contains(full, "\x1b[1;1Ha") || !strings.Contains(full, "\x1b[2;1Hb") {
		t.Errorf("a full repaint = %q", full)
	}
}

// A frame is cut to the screen: no more lines than its height, none wider
// than its width (styles kept).
func TestFrameLinesFitTheScreen(t *testing.T) {
	got := frameLines("\x1b[1mabcdef\x1b[0m\nxy\nz", 3, 2)
	if len(got) != 2 || got[1] != "xy" || !strings.HasPrefix(got[0], "\x1b[1mabc") || strings.Contains(got[0], "d") {
		t.Errorf("frameLines = %q", got)
	}
}

// A frame is on screen without waiting for a tick: each one is drawn
// once it comes, with only its changed lines.
func TestFramesAreDrawnAsTheyCome(t *testing.T) {
	s := newScreen()
	p := started(t, s)
	p.Frame("title\nfirst")
	s.waitFor(t, "first")
	n := len(s.all())
	p.Frame("title\nsecond")
	s.waitFor(t, "second")
	if strings.Contains(s.all()[n:], "title") {
		t.Errorf("an unchanged line was rewritten: %q", s.all()[n:])
	}
}

// Release gives the terminal back (main screen, cursor, paste off) and
// nothing is drawn until Restore, which takes it again and repaints the
// newest frame in full.
func TestReleaseHoldsFramesUntilRestore(t *testing.T) {
	s := newScreen()
	p := started(t, s)
	if !strings.HasPrefix(s.all(), takeTerminal) {
		t.Fatalf("Start wrote %q, want the terminal taken first", s.all())
	}
	p.Frame("before")
	s.waitFor(t, "before")
	p.Release()
	if !strings.HasSuffix(s.all(), leaveTerminal) {
		t.Fatalf("Release wrote %q", s.all())
	}
	n := len(s.all())
	p.Frame("while-released")
	p.Frame("newest")
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, "newest")
	after := s.all()[n:]
	if !strings.HasPrefix(after, takeTerminal+clearAll) || strings.Contains(after, "while-released") {
		t.Errorf("after Restore: %q", after)
	}
}

// Stop gives the terminal back once, however often it is called.
func TestStopRestoresTheTerminalOnce(t *testing.T) {
	s := newScreen()
	p := New(nil, s)
	if err := p.Start(func(tea.Msg) {}); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	p.Stop()
	if got := strings.Count(s.all(), leaveTerminal); got != 1 {
		t.Errorf("the terminal was given back %d times: %q", got, s.all())
	}
	var unstarted bytes.Buffer
	New(nil, &unstarted).Stop()
	if unstarted.Len() != 0 {
		t.Errorf("Stop before Start wrote %q", unstarted.String())
	}
}

// A command that takes the terminal runs with it given back, and the
// painter takes it again after, whatever the command returned.
func TestExecReleasesAroundTheCommand(t *testing.T) {
	s := newScreen()
	p := started(t, s)
	var during string
	fail := errors.New("exit status 3")
	c := around{ExecCommand: fakeExec{run: func() error { during = s.all(); return fail }}, p: p}
	if err := c.Run(); !errors.Is(err, fail) {
		t.Errorf("Run = %v, want the command's error", err)
	}
	if !strings.HasSuffix(during, leaveTerminal) {
		t.Errorf("the command ran before the terminal was given back: %q", during)
	}
	if after := s.all()[len(during):]; !strings.HasPrefix(after, takeTerminal) {
		t.Errorf("the terminal was not taken again: %q", after)
	}
}

type fakeExec struct{ run func() error }

func (f fakeExec) Run() error          { return f.run() }
func (f fakeExec) SetStdin(io.Reader)  {}
func (f fakeExec) SetStdout(io.Writer) {}
func (f fakeExec) SetStderr(io.Writer) {}

// A panic in the model gives the terminal back before Bubble Tea prints
// it, so the text stays on the main screen.
func TestPanicReleasesTheTerminal(t *testing.T) {
	s := newScreen()
	p := started(t, s)
	m := Wrap(panicky{}, p)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic was swallowed")
			}
		}()
		m.Update(tea.KeyMsg{})
	}()
	if !strings.HasSuffix(s.all(), leaveTerminal) {
		t.Errorf("after the panic: %q", s.all())
	}
}

type panicky struct{}

func (panicky) Init() tea.Cmd                       { return nil }
func (panicky) Update(tea.Msg) (tea.Model, tea.Cmd) { panic("boom") }
func (panicky) View() string                        { return "" }

// A nil Painter leaves everything to Bubble Tea.
func TestNilPainterIsBubbleTeas(t *testing.T) {
	var p *Painter
	m := panicky{}
	if Wrap(m, p) != tea.Model(m) {
		t.Error("Wrap with no painter changed the model")
	}
	if msg := p.Suspend()(); msg != tea.Suspend() {
		t.Errorf("Suspend = %T, want tea.Suspend", msg)
	}
	p.Frame("x")
	p.Release()
	p.Stop()
}

// Once stopped, the painter takes nothing back: a Restore that comes
// after Stop (a resume racing the end) leaves the terminal as Stop left
// it.
func TestRestoreAfterStopTakesNothing(t *testing.T) {
	s := newScreen()
	p := New(nil, s)
	if err := p.Start(func(tea.Msg) {}); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	n := len(s.all())
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	if after := s.all()[n:]; after != "" {
		t.Errorf("Restore after Stop wrote %q", after)
	}
}

// Out-of-band bytes (a notification's bell) go to the terminal at once
// while the Painter holds it; while a shell has it (released) they wait
// and come after the Painter takes it back, before its repaint; after
// Stop they are dropped.
func TestAsideWaitsWhileReleased(t *testing.T) {
	s := newScreen()
	p := started(t, s)
	p.Aside([]byte("\a1"))
	s.waitFor(t, "\a1")
	p.Release()
	n := len(s.all())
	p.Aside([]byte("\a2"))
	if got := s.all()[n:]; strings.Contains(got, "\a2") {
		t.Fatalf("written while released: %q", got)
	}
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, "\a2")
	if after := s.all()[n:]; strings.Index(after, "\a2") < strings.Index(after, takeTerminal) {
		t.Errorf("the held bytes came before the terminal was taken back: %q", after)
	}
	p.Stop()
	n = len(s.all())
	p.Aside([]byte("\a3"))
	if got := s.all()[n:]; got != "" {
		t.Errorf("written after Stop: %q", got)
	}
}
