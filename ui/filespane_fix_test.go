package ui

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// The files pane never offers to delete /content itself or another
// top-level directory (the rule `colabdash rm` applies, jupyter.Removable):
// x says why in the status line and opens no dialog. Paths are written
// with one slash, in the root as below it.
func TestFilesPaneNeverDeletesContent(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f", "backspace")
	mustContain(t, m.View(), "FILES · rt-t4demo7k2p:/ ", "content/")
	m = e.press(t, m, "x")
	if m.dlg() != nil {
		t.Fatalf("x on content/ offered a delete:\n%s", m.View())
	}
	mustContain(t, m.View(), "not deleting rt-t4demo7k2p:/content", "never removes /content itself")
	m = e.press(t, m, "y")
	if !remoteExists(t, e, "rt-t4demo7k2p", "content/data.csv") {
		t.Fatal("/content/data.csv is gone after x, y on /content")
	}
	// Back into /content from the root: one slash in the title and in the
	// delete dialog.
	m = e.press(t, m, "enter")
	v := m.View()
	mustContain(t, v, "FILES · rt-t4demo7k2p:/content ")
	if strings.Contains(v, ":/"+"/") {
		t.Fatalf("a doubled slash in the title:\n%s", v)
	}
	m = e.press(t, m, "down", "x")
	v = m.View()
	mustContain(t, v, "Delete data.csv?", "rt-t4demo7k2p:/content/data.csv")
	if strings.Contains(v, ":/"+"/") {
		t.Fatalf("a doubled slash in the delete dialog:\n%s", v)
	}
}

// With NO_COLOR (no attributes at all) the files pane still shows which
// row is selected: the cursor's row, and only it, starts with "›", and the
// marker follows the cursor.
func TestFilesPaneSelectionShowsWithoutColour(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil) // NoColor
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f")
	marked := func(m Model) []string {
		var out []string
		for _, l := range strings.Split(m.View(), "\n") {
			if strings.Contains(l, "\x1b") {
				t.Fatalf("an escape code under NoColor: %q", l)
			}
			if strings.HasPrefix(l, "›") {
				out = append(out, l)
			}
		}
		return out
	}
	if rows := marked(m); len(rows) != 1 || !strings.Contains(rows[0], "sample_data/") {
		t.Fatalf("marked rows %q, want only sample_data/:\n%s", rows, m.View())
	}
	m = e.press(t, m, "down")
	if rows := marked(m); len(rows) != 1 || !strings.Contains(rows[0], "data.csv") {
		t.Fatalf("marked rows %q after down, want only data.csv:\n%s", rows, m.View())
	}
}
