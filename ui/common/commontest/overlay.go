package commontest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
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
	"ctrl+p":    {Type: tea.KeyCtrlP},
	"ctrl+q":    {Type: tea.KeyCtrlQ},
	"ctrl+r":    {Type: tea.KeyCtrlR},
	`ctrl+\`:    {Type: tea.KeyCtrlBackslash},
	"f1":        {Type: tea.KeyF1},
}

// Key is the key message a terminal sends for name: "enter",
// "alt+enter", "esc", "up", "down", "left", "right", "tab", "shift+tab",
// "backspace", "pgup", "pgdown", "space", "ctrl+c", "ctrl+j", "ctrl+p",
// "ctrl+q", "ctrl+r", `ctrl+\` or "f1"; any other name is typed as runes
// in one read ("j", "/t4").
func Key(name string) tea.KeyMsg {
	if k, ok := keys[name]; ok {
		return k
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}

// Paste is the key message a terminal sends for text pasted in one
// piece (bracketed paste), controls and all.
func Paste(text string) tea.KeyMsg {
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(text), Paste: true}
}

// OverlayContext is the fixture Context of a w×h dashboard (see Context)
// as the dashboard hands it to an overlay: rts listed, the first of them
// (if any) selected, and with readOnly the read-only key map and the
// ReadOnly flag (--readonly).
func OverlayContext(w, h int, readOnly bool, rts ...api.Runtime) *common.Context {
	c := Context(w, h, rts...)
	if len(rts) > 0 {
		c.Selected = rts[0].Name
	}
	c.Keys.SetReadOnly(readOnly)
	c.ReadOnly = readOnly
	return c
}

// Alpha is the runtime r-alpha most overlay fixtures hold: CPU, STANDARD,
// its token's expiry unknown.
func Alpha() api.Runtime {
	return Runtime("r-alpha", api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}, time.Time{})
}

// Sized is a copy of c whose Layout is that of a w×h dashboard, for
// drawing c's overlays on a screen of another size.
func Sized(c *common.Context, w, h int) *common.Context {
	s := *c
	s.Layout = Context(w, h).Layout
	return &s
}

// Draw paints o, and then each of over in turn (a filter line over its
// overlay), on a blank frame of c's size and returns its lines, failing
// the test at once unless they are exactly c.Layout.H lines, none wider
// than c.Layout.W cells.
func Draw(t testing.TB, o common.Overlay, c *common.Context, over ...common.Overlay) []string {
	t.Helper()
	return DrawOver(t, o, c, nil, over...)
}

// DrawOver is Draw on a frame already holding under (c.Layout.H lines;
// nil: blank ones), as the panes leave it for an overlay.
func DrawOver(t testing.TB, o common.Overlay, c *common.Context, under []string, over ...common.Overlay) []string {
	t.Helper()
	f := frame.New(c.Layout.W, c.Layout.H)
	f.Lines = frame.PadLines(append(f.Lines, under...), c.Layout.H)
	names := []string{o.Name()}
	o.Draw(c, f)
	for _, x := range over {
		x.Draw(c, f)
		names = append(names, x.Name())
	}
	name := strings.Join(names, " under ")
	if len(f.Lines) != c.Layout.H {
		t.Fatalf("%s: %d lines drawn, want %d:\n%s", name, len(f.Lines), c.Layout.H, strings.Join(f.Lines, "\n"))
	}
	for i, l := range f.Lines {
		if w := ansi.StringWidth(l); w > c.Layout.W {
			t.Fatalf("%s: line %d is %d cells wide at %d: %q", name, i, w, c.Layout.W, l)
		}
	}
	return f.Lines
}

// Screen is Draw's lines as one text, a line a row.
func Screen(t testing.TB, o common.Overlay, c *common.Context, over ...common.Overlay) string {
	t.Helper()
	return strings.Join(Draw(t, o, c, over...), "\n")
}

// Boxed is what draws as a box of lines (a dialog): Lines are its lines
// for a screen w cells wide.
type Boxed interface {
	Lines(c *common.Context, w int) []string
}

// Box is b's lines for a screen w cells wide as one text, failing the
// test at once when one is wider than w cells.
func Box(t testing.TB, b Boxed, c *common.Context, w int) string {
	t.Helper()
	lines := b.Lines(c, w)
	for i, ln := range lines {
		if lw := ansi.StringWidth(ln); lw > w {
			t.Fatalf("line %d is %d cells wide, more than %d: %q", i, lw, w, ln)
		}
	}
	return strings.Join(lines, "\n")
}

// KeyHelp is the footer's key help while o is on top: each of o.Keys as
// "key desc", joined by " · ".
func KeyHelp(o common.Overlay, c *common.Context) string {
	var parts []string
	for _, b := range o.Keys(c) {
		parts = append(parts, b.Help().Key+" "+b.Help().Desc)
	}
	return strings.Join(parts, " · ")
}

// Keyboard hands named keys (see Key) to overlays as the dashboard's
// router does. The zero Keyboard hands every key at once to one overlay.
type Keyboard struct {
	// Clock, when not nil, moves by Gap before each key (a guarded dialog
	// ignores keys that come inside its grace period); the test reads
	// and moves it through the Keyboard too.
	*Clock
	Gap time.Duration
	// Route, when not nil, is handed each key's effect before the next key
	// is pressed (the test applies it there: drives a command, opens or
	// closes an overlay) and says which overlay takes the next key; nil
	// says none does, and a further key fails the test.
	Route func(common.Effect) common.Overlay
}

// Effects hands each of keys in turn to o (after the first, to the
// overlay Route named) and returns their effects, one a key, failing
// the test at once when no overlay is there to take a key.
func (kb Keyboard) Effects(t testing.TB, o common.Overlay, c *common.Context, keys ...string) []common.Effect {
	t.Helper()
	effs := make([]common.Effect, 0, len(keys))
	for _, k := range keys {
		if o == nil {
			t.Fatalf("no overlay takes the key %q", k)
		}
		if kb.Clock != nil {
			kb.Clock.Add(kb.Gap)
		}
		e := o.HandleKey(Key(k), c)
		effs = append(effs, e)
		if kb.Route != nil {
			o = kb.Route(e)
		}
	}
	return effs
}

// Press is Effects' last effect (nil without keys).
func (kb Keyboard) Press(t testing.TB, o common.Overlay, c *common.Context, keys ...string) common.Effect {
	t.Helper()
	effs := kb.Effects(t, o, c, keys...)
	if len(effs) == 0 {
		return nil
	}
	return effs[len(effs)-1]
}

// Press hands each of keys in turn to o and returns the last one's
// effect (nil without keys): Keyboard{}.Press.
func Press(t testing.TB, o common.Overlay, c *common.Context, keys ...string) common.Effect {
	t.Helper()
	return Keyboard{}.Press(t, o, c, keys...)
}

// Drive runs cmd and every command the messages it yields lead to, as
// Bubble Tea's runtime would: step takes each message and returns the
// next command (nil: done). It returns the messages in the order they
// came, failing the test when commands still follow one another after
// 60 s.
func Drive(t testing.TB, cmd tea.Cmd, step func(tea.Msg) tea.Cmd) []tea.Msg {
	t.Helper()
	var seen []tea.Msg
	deadline := time.Now().Add(60 * time.Second)
	for cmd != nil {
		msg := cmd()
		seen = append(seen, msg)
		cmd = step(msg)
		if cmd != nil && time.Now().After(deadline) {
			t.Fatalf("commands had not ended after 60 s (%d messages, the last %T)", len(seen), msg)
		}
	}
	return seen
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

// KeyEffect is a key, named as Key names it, and the effect it should
// have: only the effect's kind counts (see SameKind; nil: none).
type KeyEffect struct {
	Key  string
	Want common.Effect
}

// AssertEffects hands each case's key to the overlay o returns for it
// and fails the test, going on, for each effect not of the kind the case
// wants.
func AssertEffects(t testing.TB, o func() common.Overlay, c *common.Context, cases []KeyEffect) {
	t.Helper()
	for _, tc := range cases {
		if got := o().HandleKey(Key(tc.Key), c); !SameKind(got, tc.Want) {
			t.Errorf("%s: %#v, want %#v", tc.Key, got, tc.Want)
		}
	}
}

// OverlaySpec is what an overlay shows a user of itself: its Name (as
// the dashboard names it), its footer's key help (Footer, as KeyHelp
// joins it) and what its keys do: the keys that close it, that quit,
// that do nothing (a dashboard key under it), and any other key with its
// effect (Keys).
type OverlaySpec struct {
	Name, Footer       string
	Close, Quit, Inert []string
	Keys               []KeyEffect
}

// AssertOverlay fails the test, going on, for each way the overlay o
// returns differs from want (each key handed to the overlay o returns
// for it, as AssertEffects does), and when it does not fit c.
func AssertOverlay(t testing.TB, o func() common.Overlay, c *common.Context, want OverlaySpec) {
	t.Helper()
	var cases []KeyEffect
	for _, k := range want.Close {
		cases = append(cases, KeyEffect{Key: k, Want: common.Close{}})
	}
	for _, k := range want.Quit {
		cases = append(cases, KeyEffect{Key: k, Want: common.Quit{}})
	}
	for _, k := range want.Inert {
		cases = append(cases, KeyEffect{Key: k})
	}
	AssertEffects(t, o, c, append(cases, want.Keys...))
	if got := KeyHelp(o(), c); got != want.Footer {
		t.Errorf("footer keys: %q, want %q", got, want.Footer)
	}
	if x := o(); x.Name() != want.Name || !x.Fits(c) {
		t.Errorf("name %q (want %q), fits %v", x.Name(), want.Name, x.Fits(c))
	}
}

// SameKind reports whether effects a and b are of the same type (Close
// and Quit carry nothing an overlay sets, so their kind is the answer).
func SameKind(a, b common.Effect) bool { return fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b) }
