package ui

import (
	"bytes"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
)

// A real Bubble Tea program over the fake Service: the table appears, keys
// move the selection, q quits.
func TestTeatestSmoke(t *testing.T) {
	f, clk, _ := fixture(t)
	m := New(Options{Service: f, Now: clk.now, Location: time.UTC, NoColor: true})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("r-charlie")) },
		teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'j'}})
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("SESSIONS · r-charlie")) },
		teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'q'}})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(Model)
	if fm.Selected() != "runtimes/r-charlie" {
		t.Fatalf("selected %q", fm.Selected())
	}
	if fm.life.ctx.Err() == nil {
		t.Fatal("in-flight calls not cancelled on quit")
	}
}
