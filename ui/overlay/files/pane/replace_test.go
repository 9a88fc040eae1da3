package pane

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/colabdash/colabdash/api/jupyter"
)

// Without replace, a transfer never replaces a file, even one that
// appeared after the dashboard looked (no question was asked about it):
// a download over an existing local file and an upload over an existing
// remote file stop with ErrExists and both files stay as they were; with
// replace they go ahead.
func TestTransfersReplaceOnlyWhenAsked(t *testing.T) {
	p, sel := onAFile(t)
	dir := t.TempDir()
	dst := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(dst, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := doneOf(t, drive(t, p, p.Download(sel, dir, false)))
	if !errors.Is(done.Err, jupyter.ErrExists) {
		t.Fatalf("download over an existing file without replace: %v, want ErrExists", done.Err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "mine" {
		t.Fatalf("the local file now holds %q", b)
	}
	if done = doneOf(t, drive(t, p, p.Download(sel, dst, true))); done.Err != nil {
		t.Fatal(done.Err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "alpha" {
		t.Fatalf("with replace the local file holds %q", b)
	}
	// Upload a local a.txt into content/, which has one.
	up := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(up, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	done = doneOf(t, drive(t, p, p.Upload(p.Here(), up, false)))
	if !errors.Is(done.Err, jupyter.ErrExists) {
		t.Fatalf("upload over an existing remote file without replace: %v, want ErrExists", done.Err)
	}
	if e, _ := entry(p, "a.txt"); e.Size != 5 {
		t.Fatalf("the remote a.txt is now %d bytes", e.Size)
	}
	if done = doneOf(t, drive(t, p, p.Upload(p.Here(), up, true))); done.Err != nil {
		t.Fatal(done.Err)
	}
	if e, _ := entry(p, "a.txt"); e.Size != 3 {
		t.Fatalf("with replace the remote a.txt is %d bytes", e.Size)
	}
}

// entry is the listed entry of the directory p shows named name.
func entry(p *Pane, name string) (jupyter.Model, bool) {
	for _, e := range p.Listing() {
		if e.Name == name {
			return e, true
		}
	}
	return jupyter.Model{}, false
}
