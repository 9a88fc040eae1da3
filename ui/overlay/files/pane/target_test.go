package pane

import (
	"context"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// A pane acts only on the entries captured from it: another pane of the
// same runtime (the one f opened after this one closed) has the same
// paths, yet its download, plan, upload and delete of them start
// nothing, so an answer that reaches the wrong pane cannot act there.
func TestPaneActsOnlyOnItsOwnTargets(t *testing.T) {
	p, mine := onAFile(t)
	here := p.Here()
	other := New(context.Background(), "rt-pane", p.open, nil)
	t.Cleanup(other.Close)
	for what, owned := range map[string]bool{"its own entry": p.Owns(mine), "its own directory": p.Owns(here)} {
		if !owned {
			t.Fatalf("the pane does not own %s", what)
		}
	}
	if other.Owns(mine) || other.Owns(here) {
		t.Fatal("another pane of the same runtime owns this pane's entries")
	}
	local := t.TempDir()
	for what, cmd := range map[string]tea.Cmd{
		"download": other.Download(mine, local, false),
		"plan":     other.Plan(mine, local),
		"upload":   other.Upload(here, local, false),
		"delete":   other.Delete(mine),
	} {
		if cmd != nil {
			t.Errorf("another pane started a %s of this pane's entry", what)
		}
	}
}
