package ui

import (
	"context"
	"errors"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter"
)

// remoteClient is a Jupyter client on the emulator's runtime id.
func remoteClient(t *testing.T, e *emu, id string) *jupyter.Client {
	t.Helper()
	for _, rt := range e.srv.Runtimes() {
		if rt.ID() == id {
			c, err := jupyter.New(jupyter.Options{Runtime: rt.Name, Info: *rt.ConnectionInfo})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
	}
	t.Fatalf("no runtime %s", id)
	return nil
}

// remoteExists reports whether path is on the emulator's runtime id.
func remoteExists(t *testing.T, e *emu, id, path string) bool {
	t.Helper()
	_, err := remoteClient(t, e, id).Stat(context.Background(), path)
	if err != nil && !errors.Is(err, jupyter.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// The files pane's question is a dialog like any other: when the screen
// was too small to show it and shows it again, a "y" typed at once does
// not answer it (its grace period starts anew), and the footer says how
// it is answered.
func TestFilesDialogGraceAfterTheScreenShowsItAgain(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f", "down", "x")
	mustContain(t, m.View(), "Delete data.csv?", "y confirm")
	e.clk.add(time.Second) // long past the grace period
	m, _ = update(m, tea.WindowSizeMsg{Width: 40, Height: 10})
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m, cmd := update(m, keyMsg("y"))
	m = drive(t, m, cmd)
	if !remoteExists(t, e, "rt-t4demo7k2p", "content/data.csv") {
		t.Fatal("a y typed as the dialog showed again deleted the file")
	}
	mustContain(t, m.View(), "Delete data.csv?")
	m = e.press(t, m, "y")
	if remoteExists(t, e, "rt-t4demo7k2p", "content/data.csv") {
		t.Fatalf("y after the grace period did not delete:\n%s", m.View())
	}
}
