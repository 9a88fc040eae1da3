package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/overlay/files"
)

// putRemote writes body to path on the emulator's runtime id.
func putRemote(t *testing.T, e *emu, id, path, body string) {
	t.Helper()
	for _, rt := range e.srv.Runtimes() {
		if rt.ID() != id {
			continue
		}
		c, err := jupyter.New(jupyter.Options{Runtime: rt.Name, Info: *rt.ConnectionInfo})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Upload(context.Background(), path, strings.NewReader(body), int64(len(body)), nil); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("no runtime %s", id)
}

// f opens the files pane of the selected runtime: its content/ listing;
// D downloads the selected file to a typed path, x then y deletes it, and
// both outcomes reach the status line and the event log.
func TestFilesPane(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n1,2\n")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "f")
	v := m.View()
	mustContain(t, v, "FILES", "rt-t4demo7k2p:/content", "sample_data/", "data.csv", "8 B")
	if !topIs[*files.Overlay](m.scr) {
		t.Fatal("f did not open the files pane")
	}
	// The demo's sample_data directory comes first: in and out of it.
	m = e.press(t, m, "enter")
	mustContain(t, m.View(), "rt-t4demo7k2p:/content/sample_data", "README.md")
	m = e.press(t, m, "backspace")
	m = e.press(t, m, "D")
	mustContain(t, m.View(), "select a file to download")
	m = e.press(t, m, "down")
	out := filepath.Join(t.TempDir(), "copy.csv")
	m = e.press(t, m, "D")
	mustContain(t, m.View(), "Download data.csv")
	m = typeText(e, t, m, out)
	m = e.press(t, m, "enter")
	if b, err := os.ReadFile(out); err != nil || string(b) != "a,b\n1,2\n" {
		t.Fatalf("downloaded %q, %v\n%s", b, err, m.View())
	}
	mustContain(t, m.View(), "downloaded data.csv")
	// Delete asks first; only y confirms.
	m = e.press(t, m, "x")
	mustContain(t, m.View(), "Delete data.csv?")
	m = e.press(t, m, "n")
	m = e.press(t, m, "r")
	mustContain(t, m.View(), "data.csv")
	m = e.press(t, m, "x", "y")
	v = m.View()
	mustContain(t, v, "deleted rt-t4demo7k2p:/content/data.csv")
	if strings.Contains(strings.SplitN(v, "deleted", 2)[0], "data.csv") {
		t.Fatalf("data.csv still listed after the delete:\n%s", v)
	}
	// The event log has both transfers.
	m = e.press(t, m, "esc", "L")
	mustContain(t, m.View(), "files download", "files delete")
}

// ctrl+c while console code runs interrupts the session's kernel through
// the runtime proxy: the run ends with KeyboardInterrupt, the session and
// its state stay, and the status line says it was an interrupt.
func TestConsoleCtrlCInterruptsKernel(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "tab", "e")
	sess := m.ex.console().Session()
	e.clk.add(DialogGrace)
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("import time\ntime.sleep(3600)"), Paste: true})
	m, runCmd := update(m, keyMsg("enter"))
	done := goRun(t, "enter on the console's sleep", runCmd)
	for deadline := time.Now().Add(30 * time.Second); e.srv.RunningCode(sess) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the run never started on the server")
		}
		time.Sleep(5 * time.Millisecond)
	}
	m = e.press(t, m, "ctrl+c")
	mustContain(t, strings.Join(strings.Fields(m.View()), " "), "interrupted the kernel of session "+api.LastSegment(sess))
	if d := m.dlg(); d != nil {
		t.Fatalf("an interrupt that worked still asked to stop:\n%s", m.View())
	}
	if k := e.srv.KernelID(sess); e.srv.Interrupts(k) != 1 {
		t.Fatalf("kernel %q interrupted %d times", k, e.srv.Interrupts(k))
	}
	select {
	case msg := <-done:
		m, _ = update(m, msg)
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end after the interrupt")
	}
	mustContain(t, m.View(), "KeyboardInterrupt")
	found := false
	for _, s := range e.srv.Sessions("runtimes/rt-t4demo7k2p") {
		found = found || s.Name == sess
	}
	if !found {
		t.Fatal("the interrupt closed the session")
	}
}
