//go:build unix

package ui

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
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
	// S (a shell on the runtime) is refused with the read-only line.
	m = e.press(t, m, "esc")
	m, cmd := update(m, keyMsg("S"))
	mustContain(t, m.View(), "read-only mode: S (shell on runtime) is disabled")
	if cmd != nil {
		if msg := cmd(); msg != nil {
			t.Errorf("read-only S returned a command giving %T", msg)
		}
	}
}
