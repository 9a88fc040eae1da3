package pane

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/jupyter"
)

// listed is a pane showing n files f00, f01, … (no I/O).
func listed(n int) *Pane {
	p := New(context.Background(), "rt-x", nil, nil)
	for i := range n {
		p.ls.entries = append(p.ls.entries, jupyter.Model{Name: fmt.Sprintf("f%02d", i), Type: "file", Size: 1})
	}
	p.ls.refilter("", 0)
	return p
}

// Names that differ only in case keep the order the server listed them
// in (the sort is by name ignoring case, and stable).
func TestPaneSortKeepsCaseTwinsInOrder(t *testing.T) {
	got := sortEntries([]jupyter.Model{{Name: "b.txt"}, {Name: "B.txt"}, {Name: "a"}})
	if names := got[0].Name + "," + got[1].Name + "," + got[2].Name; names != "a,b.txt,B.txt" {
		t.Fatalf("sorted %s", names)
	}
}

// The cursor's row is always drawn: moved below the rows that fit, the
// list scrolls to show it on the last row.
func TestPaneViewScrollsToTheCursor(t *testing.T) {
	p := listed(10)
	p.Move(5)
	lines := p.View(40, 4, nil) // the title and 3 rows
	if !strings.HasPrefix(lines[3], "›") || !strings.Contains(lines[3], "f05") {
		t.Fatalf("the cursor on f05 is not on the last row:\n%s", strings.Join(lines, "\n"))
	}
}

// A pane drawn in its title line alone keeps its scroll position: drawn
// taller again, it shows what it showed.
func TestPaneViewOfTheTitleAloneKeepsTheScroll(t *testing.T) {
	p := listed(10)
	p.Move(5)
	before := strings.Join(p.View(40, 20, nil), "\n")
	if got := p.View(40, 1, nil); len(got) != 1 || !strings.HasPrefix(got[0], "FILES") {
		t.Fatalf("one line: %q", got)
	}
	if after := strings.Join(p.View(40, 20, nil), "\n"); after != before {
		t.Fatalf("after a one-line view:\n%s\nbefore:\n%s", after, before)
	}
}

// A file's size shows from 0 bytes up; a directory's, and a size the
// server did not give, as "-".
func TestPaneViewSizes(t *testing.T) {
	p := New(context.Background(), "rt-x", nil, nil)
	p.ls.entries = []jupyter.Model{{Name: "dir", Type: "directory"}, {Name: "empty", Type: "file", Size: 0},
		{Name: "five", Type: "file", Size: 5}, {Name: "unknown", Type: "file", Size: -1}}
	p.ls.refilter("", 0)
	lines := p.View(60, 5, nil)
	for i, want := range []string{"-", "0 B", "5 B", "-"} {
		if size := strings.TrimSpace(string([]rune(lines[1+i])[2:11])); size != want { // the marker, then the size in 9 cells
			t.Errorf("row %d: %q, want the size %q", i, lines[1+i], want)
		}
	}
}

// The list scrolls only as far as the cursor needs: reaching the row
// just below the window moves it by one, moving up inside it moves
// nothing, and moving above it brings the cursor's row to the top.
func TestPaneViewScrollsOnlyAsFarAsNeeded(t *testing.T) {
	p := listed(10)
	first := func() string { // the name on the first of 3 rows
		f := strings.Fields(p.View(40, 4, nil)[1])
		return f[len(f)-1]
	}
	p.Move(3) // just below f00 … f02
	if got := first(); got != "f01" {
		t.Fatalf("cursor on f03: the first row shows %s, want f01", got)
	}
	p.Move(-1) // f02, inside the window
	if got := first(); got != "f01" {
		t.Fatalf("cursor up to f02: the first row shows %s, want f01", got)
	}
	p.Move(-2) // f00, above it
	if got := first(); got != "f00" {
		t.Fatalf("cursor up to f00: the first row shows %s, want f00", got)
	}
}
