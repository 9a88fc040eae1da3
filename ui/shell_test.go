package ui

import (
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/tty"
	"github.com/colabdash/colabdash/ui/shell"
)

// S on a runtime suspends the dashboard for its shell (a tea.Exec
// command); under --readonly it is refused with the read-only line; the
// shell's end is said in the status line, the dashboard otherwise as it
// was (the same selection).
func TestShellKey(t *testing.T) {
	_, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m, cmd := update(m, keyMsg("S"))
	if cmd == nil {
		t.Fatal("S started nothing")
	}
	m, _ = update(m, shellDoneMsg{runtime: "runtimes/rt-t4demo7k2p", id: "rt-t4demo7k2p", outcome: shell.Exited})
	mustContain(t, m.View(), "shell on rt-t4demo7k2p: exited")
	if m.Selected() != "runtimes/rt-t4demo7k2p" {
		t.Errorf("selection moved to %q", m.Selected())
	}
	m, _ = update(m, shellDoneMsg{runtime: "runtimes/rt-t4demo7k2p", id: "rt-t4demo7k2p", outcome: shell.Lost,
		err: &tty.CloseError{Code: 1008, Reason: "proxy token expired"}})
	mustContain(t, m.View(), "connection lost", "1008")

	_, ro := emuModel(t, colabfake.Options{}, func(o *Options) { o.ReadOnly = true })
	ro = ro.selectID(t, "rt-t4demo7k2p")
	ro, cmd = update(ro, keyMsg("S"))
	mustContain(t, ro.View(), "read-only mode: S (shell on runtime) is disabled")
	if cmd != nil {
		if msg := cmd(); msg != nil {
			t.Errorf("read-only S returned a command giving %T", msg)
		}
	}
}
