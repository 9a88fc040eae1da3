package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

func TestDeleteConfirmOnlyY(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m, _ = update(m, keyMsg("d"))
	mustContain(t, m.View(), "Delete runtime rt-t4demo7k2p?", "runtimes/rt-t4demo7k2p", "accelerator T4", "cannot be undone", "files", "session")
	// A "y" already on its way when the dialog opened does not confirm.
	m, cmd := update(m, keyMsg("y"))
	m = drive(t, m, cmd)
	if m.dlg() == nil || !serverHas(e.srv, "runtimes/rt-t4demo7k2p") {
		t.Fatal("a keystroke inside the grace period answered the dialog")
	}
	// Enter cancels.
	m = e.press(t, m, "enter")
	if m.dlg() != nil || !serverHas(e.srv, "runtimes/rt-t4demo7k2p") {
		t.Fatal("enter did not cancel, or deleted")
	}
	// Esc and any other key cancel too.
	for _, k := range []string{"esc", "n", "Y"} {
		m = e.press(t, m, "d", k)
		if m.dlg() != nil || !serverHas(e.srv, "runtimes/rt-t4demo7k2p") {
			t.Fatalf("%q did not cancel", k)
		}
	}
	m = e.press(t, m, "d", "y")
	if serverHas(e.srv, "runtimes/rt-t4demo7k2p") || len(e.srv.Runtimes()) != 2 {
		t.Fatalf("not deleted: %v", e.srv.Runtimes())
	}
	r := m.cx.Snap.Runtime("runtimes/rt-t4demo7k2p")
	if r != nil && !r.Gone() {
		t.Fatal("row not gone after delete")
	}
	mustContain(t, m.View(), "deleted rt-t4demo7k2p")
}

// The list refreshes and reorders while the dialog is open: the runtime
// captured when it opened is deleted, no other.
func TestDeleteAfterReorder(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "d")
	// A new runtime that sorts first appears; the selection moves.
	if _, err := e.srv.AddRuntime(api.Runtime{Name: "runtimes/aaa-first", RuntimeSpec: specCPU}); err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, tea.Batch(m.calls.refresh(e.clk.now(), true)...))
	m.rt.Select(m.rt.Rows()[0].Name)
	m.syncRows()
	if m.Selected() != "runtimes/aaa-first" {
		t.Fatalf("selected %s", m.Selected())
	}
	m = e.press(t, m, "y")
	if serverHas(e.srv, "runtimes/rt-t4demo7k2p") {
		t.Fatal("captured runtime not deleted")
	}
	if !serverHas(e.srv, "runtimes/aaa-first") || len(e.srv.Runtimes()) != 3 {
		t.Fatalf("another runtime was deleted: %v", e.srv.Runtimes())
	}
}

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
	for _, r := range m.rt.Rows() {
		if r.ID() == "rt-t4demo7k2p" {
			t.Fatal("deleted runtime still listed")
		}
	}
	if strings.Contains(v, "rt-t4demo7k2p  ") || strings.Contains(v, "gone") || m.Selected() == "runtimes/rt-t4demo7k2p" {
		t.Fatalf("deleted runtime still shown or selected:\n%s", v)
	}
}
