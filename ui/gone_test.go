package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/colabfake"
)

// A runtime the user deleted leaves the list at once, even when a list
// that raced the delete still has it; the header count follows.
func TestDeletedRuntimeLeavesTheList(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	mustContain(t, m.View(), "RUNTIMES 3 ")
	// A refresh sent before the delete answers after it.
	m, late := update(m, keyMsg("r"))
	m = e.press(t, m, "d", "y")
	m = drive(t, m, late)
	v := m.View()
	mustContain(t, v, "✓ deleted rt-t4demo7k2p", "RUNTIMES 2 ")
	for _, r := range m.rows {
		if r.ID() == "rt-t4demo7k2p" {
			t.Fatal("deleted runtime still listed")
		}
	}
	if strings.Contains(v, "rt-t4demo7k2p  ") || strings.Contains(v, "gone") || m.Selected() == "runtimes/rt-t4demo7k2p" {
		t.Fatalf("deleted runtime still shown or selected:\n%s", v)
	}
}

// A runtime Colab reclaimed stays listed as gone but is not counted as a
// runtime, and actions on it say it is gone, not "no runtime selected".
func TestGoneRowCountedApartAndActionsSayGone(t *testing.T) {
	_, clk, m := fixture(t)
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	mustContain(t, m.View(), "RUNTIMES 4 · 1 gone")
	m, _ = update(m, keyMsg("G"))
	if m.Selected() != "runtimes/r-echo" {
		t.Fatalf("selected %q", m.Selected())
	}
	for _, k := range []string{"d", "o", "e", "y", "R"} {
		clk.add(time.Second)
		m, _ = update(m, keyMsg(k))
		m.ax.dlg = nil
		v := m.View()
		mustContain(t, v, "r-echo is gone (reclaimed")
		if strings.Contains(v, "no runtime") {
			t.Fatalf("%s: %s", k, v)
		}
	}
}
