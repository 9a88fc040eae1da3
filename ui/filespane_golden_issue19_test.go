package ui

// Issue 19, kind 8: goldens of the files pane and its dialogs (run with
// -update to rewrite them after a deliberate change of the screen).

import (
	"os"
	"regexp"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/colabdash/colabdash/api/colabfake"
)

// stableView masks what differs between runs and machines: times (the
// emulator's files carry the host's modification times) and the working
// directory a default local path starts from.
func stableView(t *testing.T, v string) []byte {
	t.Helper()
	if wd, err := os.Getwd(); err == nil {
		v = regexp.MustCompile(regexp.QuoteMeta(wd)).ReplaceAllString(v, "<cwd>")
	}
	v = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?`).ReplaceAllString(v, "YYYY-MM-DD hh:mm")
	v = regexp.MustCompile(`\b\d\d:\d\d(:\d\d)?\b`).ReplaceAllString(v, "hh:mm")
	return []byte(v)
}

// Guards the files pane's layout and its download and delete dialogs at
// 100×30: a change of what they show fails here until the goldens are
// updated on purpose.
func TestFilesPaneGolden(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n1,2\n")
	m, _ = update(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f")
	mustContain(t, m.View(), "data.csv")
	t.Run("pane", func(t *testing.T) { golden.RequireEqual(t, stableView(t, m.View())) })
	m = e.press(t, m, "down")
	t.Run("selected", func(t *testing.T) { golden.RequireEqual(t, stableView(t, m.View())) })
	dl := e.press(t, m, "D")
	mustContain(t, dl.View(), "Download data.csv")
	t.Run("download_dialog", func(t *testing.T) { golden.RequireEqual(t, stableView(t, dl.View())) })
	// Copies of a Model share one dashboard: esc closes the download dialog
	// before x asks about the same entry.
	rm := e.press(t, e.press(t, dl, "esc"), "x")
	mustContain(t, rm.View(), "Delete data.csv?")
	t.Run("delete_dialog", func(t *testing.T) { golden.RequireEqual(t, stableView(t, rm.View())) })
}
