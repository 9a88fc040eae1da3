package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/colabfake"
)

// esc in the create picker goes back one step (answers kept) and cancels
// only from the first step; the hint says which.
func TestPickerEscGoesBackAStep(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = e.press(t, m, "n")
	mustContain(t, m.View(), "New runtime: variant", "esc cancel")
	m = e.press(t, m, "down", "enter") // GPU
	mustContain(t, m.View(), "accelerator (GPU)", "esc back")
	m = e.press(t, m, "enter", "enter") // T4, STANDARD
	mustContain(t, m.View(), "runtime version", "esc back")
	m = e.press(t, m, "esc")
	mustContain(t, m.View(), "shape (GPU T4)")
	m = e.press(t, m, "esc", "esc")
	v := m.View()
	mustContain(t, v, "New runtime: variant")
	if m.dlg().items[m.dlg().cursor].label != "GPU" {
		t.Fatalf("going back lost the answer: cursor on %q", m.dlg().items[m.dlg().cursor].label)
	}
	m = e.press(t, m, "esc")
	if m.dlg() != nil {
		t.Fatal("esc on the first step did not cancel")
	}
	// CPU has no accelerator: its shape step does not say NONE.
	m = e.press(t, m, "n", "enter")
	if m.dlg().title != "New runtime: shape (CPU)" {
		t.Fatalf("CPU shape title %q", m.dlg().title)
	}
}

// The runtime id rules are all listed, and a validation error is wrapped
// under the input at 60 columns, not cut.
func TestPickerIDRulesAndWrappedError(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 24})
	m = e.press(t, m, "n", "down", "enter", "enter", "enter", "enter")
	mustContain(t, m.View(), "runtime id")
	m = typeText(e, t, m, "ab-")
	mustContain(t, strings.Join(m.dlg().body, " "), "1–63", "starts with a letter", "ends with a letter or digit")
	mustContain(t, m.View(), "must end with a letter or", "digit")
	if err := m.dlg().problem(); err == "" {
		t.Fatal("ab- accepted")
	}
	for _, ln := range strings.Split(m.View(), "\n") {
		if strings.Contains(ln, "✕") && strings.Contains(ln, "…") {
			t.Fatalf("validation error cut: %q\n%s", ln, m.View())
		}
	}
}

// Typing the wrong word and Enter in a typed confirmation says what to
// type.
func TestTypedConfirmMismatchSaysSo(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "tab", "x")
	mustContain(t, m.View(), "Close NOTEBOOK session")
	m = typeText(e, t, m, "clos")
	m = e.press(t, m, "enter")
	mustContain(t, m.View(), "type close to confirm")
}

// In demo mode a create is remembered for N in memory, never written to
// (or read from) the user's state directory.
func TestDemoLastSpecStaysInMemory(t *testing.T) {
	var dir string
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.Demo = true; dir = o.StateDir })
	if err := SaveLastSpec(dir, &LastSpec{Spec: specCPU}); err != nil {
		t.Fatal(err)
	}
	m = e.press(t, m, "n", "down", "enter", "enter", "enter", "enter", "enter")
	if e.srv.RuntimesCreated() != 1 {
		t.Fatalf("%d created", e.srv.RuntimesCreated())
	}
	if ls, err := LoadLastSpec(dir); err != nil || ls.Spec != specCPU {
		t.Fatalf("demo create overwrote the real last spec: %+v %v", ls, err)
	}
	if m.ax.lastSpec == nil || m.ax.lastSpec.Spec != specT4 {
		t.Fatalf("demo last spec not kept in memory: %+v", m.ax.lastSpec)
	}
	m = e.press(t, m, "N")
	mustContain(t, m.View(), "Create a runtime like the last one?", "GPU/T4/STANDARD")
	// A demo dashboard does not offer the real account's last spec either.
	if n := New(Options{Service: e.svc, StateDir: dir, Demo: true}); n.ax.lastSpec != nil {
		t.Fatal("demo dashboard loaded the real last spec")
	}
}
