package ui

import (
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

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
	if m.cr.lastSpec == nil || m.cr.lastSpec.Spec != specT4 {
		t.Fatalf("demo last spec not kept in memory: %+v", m.cr.lastSpec)
	}
	m = e.press(t, m, "N")
	mustContain(t, m.View(), "Create a runtime like the last one?", "GPU/T4/STANDARD")
	// A demo dashboard does not offer the real account's last spec either.
	if n := New(Options{Service: e.svc, StateDir: dir, Demo: true}); n.cr.lastSpec != nil {
		t.Fatal("demo dashboard loaded the real last spec")
	}
}
