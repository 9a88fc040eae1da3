//go:build unix

package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/tty"
	"github.com/colabdash/colabdash/ui/shell"
)

func TestReadOnly(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.ReadOnly = true })
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "d", "y", "n", "N", "o", "e", "R")
	if len(m.scr.stack) != 0 || m.ex.console() != nil || len(e.srv.Runtimes()) != 3 || e.srv.CreateCalls() != 0 {
		t.Fatal("a mutating action ran in read-only mode")
	}
	mustContain(t, m.View(), "READONLY")
	m = e.press(t, m, "?")
	v := m.View()
	for _, gone := range []string{"new runtime", "delete", "run code", "open session"} {
		if strings.Contains(v, gone) {
			t.Fatalf("read-only help offers %q:\n%s", gone, v)
		}
	}
	// Renewing a token only reads (get_runtime), so it stays.
	mustContain(t, v, "copy URL", "refresh", "renew token")
	// A disabled key says why it does nothing.
	m = e.press(t, m, "?", "n")
	mustContain(t, m.View(), "read-only mode: n (new runtime) is disabled")
	// The caller's key map is untouched.
	if !New(Options{Service: e.svc}).cx.Keys.Dashboard.DeleteRuntime.Enabled() {
		t.Fatal("read-only leaked into the default key map")
	}
}

// Dialogs, create rows and the run-code panel keep every line inside the
// terminal at every size.
func TestActionViewsFitTerminal(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m.cr.creates = append(m.cr.creates, &createOp{id: 99, spec: specT4, started: e.clk.now(), state: createWaiting, retryAt: e.clk.now().Add(time.Minute)})
	for _, setup := range []func(Model) Model{
		func(m Model) Model { return e.press(t, m, "d") },
		func(m Model) Model { return e.press(t, m, "n") },
		func(m Model) Model {
			m = e.press(t, m, "e", "y")
			return typeText(e, t, m, strings.Repeat("x", 150))
		},
	} {
		m.scr.stack, m.ex.execState.console = nil, nil // the action state is shared by copies
		m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
		m2 := setup(m)
		if len(m2.scr.stack) == 0 {
			t.Fatal("nothing opened")
		}
		for _, sz := range sizes {
			m2, _ = update(m2, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			lines := strings.Split(m2.View(), "\n")
			if len(lines) > sz[1] {
				t.Fatalf("%v: %d lines", sz, len(lines))
			}
			for i, ln := range lines {
				if w := ansi.StringWidth(ln); w > sz[0] {
					t.Fatalf("%v: line %d is %d wide: %q", sz, i, w, ln)
				}
			}
		}
	}
}

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
