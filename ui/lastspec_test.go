package ui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/ops"
)

// Remembering the spec is file I/O, done in a command, not in Update; a
// state directory that cannot be written is reported and the create goes
// on.
func TestLastSpecSaveFailureIsReported(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.StateDir = filepath.Join(blocker, "colabdash") })
	m.cr.lastSpec = &ops.LastSpec{Spec: specCPU}
	m = e.press(t, m, "N", "y")
	var logged bool
	for _, ev := range m.Events() {
		logged = logged || ev.Tool == "state file" && ev.Err != nil
	}
	if !logged {
		t.Fatalf("the failed save is not in the event log: %+v", m.Events())
	}
	if e.srv.RuntimesCreated() != 1 {
		t.Fatalf("the create did not go on: %d created", e.srv.RuntimesCreated())
	}
}

// In demo mode a create is remembered for N in memory, never written to
// (or read from) the user's state directory.
func TestDemoLastSpecStaysInMemory(t *testing.T) {
	var dir string
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.Demo = true; dir = o.StateDir })
	if err := ops.SaveLastSpec(dir, &ops.LastSpec{Spec: specCPU}); err != nil {
		t.Fatal(err)
	}
	m = e.press(t, m, "n", "down", "enter", "enter", "enter", "enter", "enter")
	if e.srv.RuntimesCreated() != 1 {
		t.Fatalf("%d created", e.srv.RuntimesCreated())
	}
	if ls, err := ops.LoadLastSpec(dir); err != nil || ls.Spec != specCPU {
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
