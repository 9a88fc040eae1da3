package ui

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/overlay/files"
)

// In the files pane, / filters the entries by name as it is typed; enter
// keeps the filter (and the pane), esc clears it; the runtimes table's
// own filter is untouched.
func TestFilesPaneFilter(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
	putRemote(t, e, "rt-t4demo7k2p", "content/notes.txt", "n\n")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f")
	mustContain(t, m.View(), "data.csv", "notes.txt", "sample_data/")
	m = e.press(t, m, "/")
	m = typeText(e, t, m, "NOTE")
	v := m.View()
	mustContain(t, v, "notes.txt", `filter "NOTE": 1 of 3`)
	if strings.Contains(v, "data.csv") || strings.Contains(v, "sample_data/") {
		t.Fatalf("the filter let other entries through:\n%s", v)
	}
	m = e.press(t, m, "enter")
	if !topIs[*files.Overlay](&m) || m.filter != "" {
		t.Fatalf("enter left the pane's filter wrong (table filter %q):\n%s", m.filter, m.View())
	}
	mustContain(t, m.View(), `filter "NOTE": 1 of 3`)
	m = e.press(t, m, "/", "esc")
	mustContain(t, m.View(), "data.csv", "notes.txt", "sample_data/")
	if strings.Contains(m.View(), `filter "`) {
		t.Fatalf("esc kept the filter:\n%s", m.View())
	}
}
