package kit

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/ui/termtext"
)

// A table fits the terminal it is printed on: the GiveWay columns are
// cut first (to TableCutFloor at least), then the Drop columns left out
// in order, the cut columns getting back the room; without a width
// (a pipe) every column is whole, and a terminal narrower than what must
// stay cuts each line at its edge.
func TestTableFitsTheWidth(t *testing.T) {
	rows := [][]string{
		{"NAME", "SIZE", "KIND", "NOTE"},
		{"alpha", "12.0 GiB", "directory", "a note long enough to be cut on a narrow terminal"},
		{"beta", "1.0 GiB", "file", "short"},
	}
	tbl := Table{GiveWay: []int{3}, Drop: []int{2}}
	whole := tbl.Lines(rows, 0)
	if !strings.Contains(whole[1], "a note long enough to be cut on a narrow terminal") || !strings.Contains(whole[0], "KIND") {
		t.Fatalf("without a width the table is not whole:\n%s", strings.Join(whole, "\n"))
	}
	if got := tbl.Lines(rows, 200); strings.Join(got, "\n") != strings.Join(whole, "\n") {
		t.Errorf("at 200 cells:\n%s", strings.Join(got, "\n"))
	}
	// 60 cells: the note is cut, KIND stays.
	got := tbl.Lines(rows, 60)
	if !strings.Contains(got[0], "KIND") || !strings.Contains(got[1], "…") || termtext.Width(got[1]) != 60 {
		t.Errorf("at 60 cells, want the note cut to fit and KIND kept:\n%s", strings.Join(got, "\n"))
	}
	// 30 cells: the note cut to its floor is not enough; KIND goes and
	// the note gets its room back.
	got = tbl.Lines(rows, 30)
	if strings.Contains(got[0], "KIND") || strings.Contains(got[1], "directory") || !strings.HasPrefix(got[1], "alpha  12.0 GiB  a note") {
		t.Errorf("at 30 cells, want KIND left out and the note after SIZE:\n%s", strings.Join(got, "\n"))
	}
	for _, w := range []int{30, 60, 12} {
		for _, l := range tbl.Lines(rows, w) {
			if termtext.Width(l) > w {
				t.Errorf("at %d cells a line is %d wide: %q", w, termtext.Width(l), l)
			}
		}
	}
	if rows[1][3] != "a note long enough to be cut on a narrow terminal" {
		t.Errorf("Lines changed its rows: %q", rows[1][3])
	}
}
