//go:build unix

package pane

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/jupyter"
)

// A FIFO where the files pane's download would land (typed as the file
// for D, or already in the directory under the file's name for d): the
// plan refuses it as not a regular file, and so does the download itself
// when the FIFO appeared after the question (even after a y to replace
// what was there), at once, instead of the open waiting for a reader.
// The FIFO stays as it was.
func TestDownloadRefusesAFIFOWithoutWaiting(t *testing.T) {
	p, tg := onAFile(t)
	dir := t.TempDir()
	typed := filepath.Join(dir, "typed")
	for _, fifo := range []string{typed, filepath.Join(dir, "a.txt")} {
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("no FIFO here: %v", err)
		}
	}
	for _, c := range []struct{ what, local, fifo string }{
		{"D to the FIFO's path", typed, typed},
		{"d into the directory holding a FIFO under the file's name", dir, filepath.Join(dir, "a.txt")},
	} {
		_, err := PlanDownload(tg, c.local)
		if !errors.Is(err, jupyter.ErrLocal) || !strings.Contains(err.Error(), c.fifo+" is not a regular file") {
			t.Fatalf("%s: the plan said %v, want %s refused as not a regular file", c.what, err, c.fifo)
		}
		for _, replace := range []bool{false, true} {
			err := doneWithin(t, p, p.Download(tg, c.local, replace), c.fifo)
			if !errors.Is(err, jupyter.ErrLocal) || !strings.Contains(err.Error(), c.fifo+" is not a regular file") {
				t.Fatalf("%s (replace %v): the download ended with %v, want %s refused as not a regular file", c.what, replace, err, c.fifo)
			}
		}
		if st, err := os.Lstat(c.fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("%s: the FIFO was replaced: %v", c.what, err)
		}
	}
}

// doneWithin drives cmd, a transfer of p, to its DoneMsg and returns its
// error, failing the test when a message takes over 60 s (the transfer
// waits on the FIFO fifo: a reader opened then lets it through).
func doneWithin(t *testing.T, p *Pane, cmd tea.Cmd, fifo string) error {
	t.Helper()
	for cmd != nil {
		got := make(chan tea.Msg, 1)
		go func(cmd tea.Cmd) { got <- cmd() }(cmd)
		var msg tea.Msg
		select {
		case msg = <-got:
		case <-time.After(60 * time.Second):
			if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				defer r.Close()
			}
			<-got
			t.Fatalf("the download to %s had not ended after 60 s", fifo)
		}
		if d, ok := msg.(DoneMsg); ok {
			p.Update(d)
			return d.Err
		}
		if cmd, _ = p.Update(msg); cmd == nil {
			t.Fatalf("the transfer stopped without its end (%T)", msg)
		}
	}
	t.Fatal("no transfer started")
	return nil
}
