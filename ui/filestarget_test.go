package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// twoDataFiles puts content/data.csv ("top") and content/sub/data.csv
// ("sub") on rt-t4demo7k2p and opens its files pane with the cursor on
// sub/ (after sample_data/).
func twoDataFiles(t *testing.T) (*emu, Model) {
	t.Helper()
	e, m := emuModel(t, colabfake.Options{}, nil)
	if err := remoteClient(t, e, "rt-t4demo7k2p").MkdirAll(context.Background(), "content/sub"); err != nil {
		t.Fatal(err)
	}
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "top")
	putRemote(t, e, "rt-t4demo7k2p", "content/sub/data.csv", "sub")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f", "down")
	mustContain(t, m.View(), "sub/", "data.csv")
	return e, m
}

// A question asked about content/data.csv is answered about it alone: a
// listing of content/sub that lands while the question is open (enter
// pressed just before) puts another data.csv under the cursor, and the
// answer must not act on that one.
func TestFilesDialogActsOnTheEntryItNamed(t *testing.T) {
	t.Run("delete", func(t *testing.T) {
		e, m := twoDataFiles(t)
		m, enter := update(m, keyMsg("enter")) // content/sub, answered late
		m = e.press(t, m, "down", "x")
		mustContain(t, m.View(), "Delete data.csv?", "rt-t4demo7k2p:/content/data.csv")
		m = drive(t, m, enter)
		mustContain(t, m.View(), "rt-t4demo7k2p:/content/sub")
		m = e.press(t, m, "y")
		if !remoteExists(t, e, "rt-t4demo7k2p", "content/sub/data.csv") {
			t.Fatalf("y on \"Delete content/data.csv?\" deleted content/sub/data.csv:\n%s", m.View())
		}
		if !remoteExists(t, e, "rt-t4demo7k2p", "content/data.csv") {
			t.Fatal("deleted content/data.csv though the screen no longer showed it")
		}
		mustContain(t, m.View(), "nothing deleted")
	})
	t.Run("download to", func(t *testing.T) {
		e, m := twoDataFiles(t)
		m, enter := update(m, keyMsg("enter"))
		m = e.press(t, m, "down", "D")
		mustContain(t, m.View(), "Download data.csv", "rt-t4demo7k2p:/content/data.csv")
		m = drive(t, m, enter)
		out := filepath.Join(t.TempDir(), "got.csv")
		m = typeText(e, t, m, out)
		m = e.press(t, m, "enter")
		if b, err := os.ReadFile(out); err != nil || string(b) != "top" {
			t.Fatalf("downloaded %q (%v), want content/data.csv's \"top\"\n%s", b, err, m.View())
		}
	})
	t.Run("upload into", func(t *testing.T) {
		e, m := twoDataFiles(t)
		m, enter := update(m, keyMsg("enter"))
		m = e.press(t, m, "u")
		mustContain(t, m.View(), "Upload to rt-t4demo7k2p:/content")
		m = drive(t, m, enter)
		local := filepath.Join(t.TempDir(), "up.txt")
		if err := os.WriteFile(local, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		m = typeText(e, t, m, local)
		m = e.press(t, m, "enter")
		if !remoteExists(t, e, "rt-t4demo7k2p", "content/up.txt") || remoteExists(t, e, "rt-t4demo7k2p", "content/sub/up.txt") {
			t.Fatalf("the upload did not go to content/, the directory the question named\n%s", m.View())
		}
		if strings.Contains(m.View(), "failed") {
			t.Fatal(m.View())
		}
	})
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
