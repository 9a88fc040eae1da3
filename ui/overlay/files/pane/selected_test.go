package pane

import (
	"testing"

	"github.com/colabdash/colabdash/api/jupyter"
)

// A failed listing shows only its error, so no key may act on the rows
// it hides: download, upload-into and delete all read Selected.
func TestNothingSelectedWhileAnErrorIsShown(t *testing.T) {
	es := []jupyter.Model{{Name: "data.csv"}}
	p := &Pane{ls: kept{entries: es, shown: es}}
	if _, ok := p.Selected(); !ok {
		t.Fatal("a listed entry under the cursor is not selected")
	}
	p.err = "listing content/: 404"
	if m, ok := p.Selected(); ok {
		t.Fatalf("%q is selected while only the error is on screen", m.Name)
	}
}
