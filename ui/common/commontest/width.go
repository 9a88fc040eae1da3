package commontest

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// MustFit stops t at once when a line of lines is wider than w cells
// (ANSI sequences take no cell), naming what was drawn, the line's index
// and its width.
func MustFit(t testing.TB, what string, lines []string, w int) {
	t.Helper()
	for i, ln := range lines {
		if lw := ansi.StringWidth(ln); lw > w {
			t.Fatalf("%s: line %d is %d cells wide (max %d): %q", what, i, lw, w, ln)
		}
	}
}
