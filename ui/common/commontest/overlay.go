package commontest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// Clock is a fixture clock a test moves by hand; the zero Clock reads
// T0. Not safe for concurrent use.
type Clock struct{ T time.Time }

// Now is the clock's time: T, or T0 while T is zero.
func (c *Clock) Now() time.Time {
	if c.T.IsZero() {
		return T0
	}
	return c.T
}

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) { c.T = c.Now().Add(d) }

// keys are the key messages a terminal sends for the names Key knows.
var keys = map[string]tea.KeyMsg{
	"enter":     {Type: tea.KeyEnter},
	"alt+enter": {Type: tea.KeyEnter, Alt: true},
	"esc":       {Type: tea.KeyEsc},
	"up":        {Type: tea.KeyUp},
	"down":      {Type: tea.KeyDown},
	"left":      {Type: tea.KeyLeft},
	"right":     {Type: tea.KeyRight},
	"tab":       {Type: tea.KeyTab},
	"shift+tab": {Type: tea.KeyShiftTab},
	"backspace": {Type: tea.KeyBackspace},
	"pgup":      {Type: tea.KeyPgUp},
	"pgdown":    {Type: tea.KeyPgDown},
	"space":     {Type: tea.KeySpace, Runes: []rune{' '}},
	"ctrl+c":    {Type: tea.KeyCtrlC},
	"ctrl+j":    {Type: tea.KeyCtrlJ},
	"ctrl+q":    {Type: tea.KeyCtrlQ},
	"ctrl+r":    {Type: tea.KeyCtrlR},
	`ctrl+\`:    {Type: tea.KeyCtrlBackslash},
}

// Key is the key message a terminal sends for name: "enter", "alt+enter",
// "esc", "up", "down", "left", "right", "tab", "shift+tab", "backspace",
// "pgup", "pgdown", "space", "ctrl+c", "ctrl+j", "ctrl+q", "ctrl+r" or
// `ctrl+\`; any other name is typed as runes in one read ("j", "/t4").
func Key(name string) tea.KeyMsg {
	if k, ok := keys[name]; ok {
		return k
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}

// Draw paints o on a blank frame of c's size and returns its lines,
// failing the test unless they are exactly c.Layout.H lines, none wider
// than c.Layout.W cells.
func Draw(t testing.TB, o common.Overlay, c *common.Context) []string {
	t.Helper()
	f := frame.New(c.Layout.W, c.Layout.H)
	f.Lines = frame.PadLines(nil, c.Layout.H)
	o.Draw(c, f)
	if len(f.Lines) != c.Layout.H {
		t.Fatalf("%s: %d lines drawn, want %d:\n%s", o.Name(), len(f.Lines), c.Layout.H, strings.Join(f.Lines, "\n"))
	}
	for i, l := range f.Lines {
		if w := ansi.StringWidth(l); w > c.Layout.W {
			t.Fatalf("%s: line %d is %d cells wide at %d: %q", o.Name(), i, w, c.Layout.W, l)
		}
	}
	return f.Lines
}

// MustContain fails the test at once, showing s, when s lacks any of
// want.
func MustContain(t testing.TB, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Fatalf("lacks %q:\n%s", w, s)
		}
	}
}

// SameKind reports whether effects a and b are of the same type (Close
// and Quit carry nothing an overlay sets, so their kind is the answer).
func SameKind(a, b common.Effect) bool { return fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b) }
