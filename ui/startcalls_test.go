package ui

import (
	"reflect"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/ui/theme"
)

// StartCalls sends the first calls before the program runs (while the
// caller waits for the terminal's theme), and Init hands over their
// results: each call is made once.
func TestStartCallsBeforeRun(t *testing.T) {
	f := newFake()
	m := New(Options{Service: f})
	m.StartCalls()
	for deadline := time.Now().Add(30 * time.Second); f.count("list_runtimes") == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no list_runtimes before Run")
		}
	}
	msgs := runBatch(m.Init())
	got := 0
	for _, msg := range msgs {
		if _, ok := msg.(resultMsg); ok {
			got++
		}
	}
	if got != 3 { // the tier, the specs, the runtimes
		t.Errorf("Init delivered %d call results, want 3: %v", got, msgs)
	}
	if n := f.count("list_runtimes"); n != 1 {
		t.Errorf("list_runtimes made %d times, want once", n)
	}
}

// runBatch runs cmd and, for a batch, each of its commands but the
// tick chain's (which waits a second), returning the messages.
func runBatch(cmd tea.Cmd) []tea.Msg {
	msg := cmd()
	b, ok := msg.(tea.BatchMsg)
	if !ok {
		return []tea.Msg{msg}
	}
	var out []tea.Msg
	for _, c := range b[1:] { // b[0] is the tick (Init puts it first)
		out = append(out, runBatch(c)...)
	}
	return out
}

// SetTheme changes the styles every pane already holds: a theme learnt
// after New is drawn from the first frame on.
func TestSetThemeReachesHeldStyles(t *testing.T) {
	m := New(Options{Service: newFake(), Theme: ThemeDark})
	held := m.cx.Styles
	if reflect.DeepEqual(*held, *theme.New(false, ThemeLight)) {
		t.Fatal("the dark and light styles are alike: the test would prove nothing")
	}
	m.SetTheme(ThemeLight)
	if !reflect.DeepEqual(*held, *theme.New(false, ThemeLight)) {
		t.Error("the styles held since New are not the light theme's")
	}
}
