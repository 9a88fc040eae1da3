package pane

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/jupyter"
)

// The files pane's download into a directory (d, or D with a directory
// typed) never writes through a symbolic link at the file's name there:
// the plan refuses it in one line, the download refuses it
// also with replace (the question may have been answered before the
// link appeared), and the link's target keeps its bytes. A file name the
// user types is theirs to be a link, as with cp, and is written through.
func TestPaneDownloadRefusesALinkInTheDirectory(t *testing.T) {
	p, _ := setup(t)
	drive(t, p, p.Init())
	p.Move(1) // a.txt
	sel, _ := p.Selection()
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "a.txt")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatalf("cannot make the symbolic link this test needs: %v", err)
	}
	if _, err := PlanDownload(sel, dir); !errors.Is(err, jupyter.ErrLocal) || !strings.Contains(err.Error(), link+" is a symbolic link") {
		t.Errorf("PlanDownload with a link at the name: %v, want ErrLocal naming it", err)
	}
	for _, replace := range []bool{false, true} {
		done := doneOf(t, drive(t, p, p.Download(sel, dir, replace)))
		if !errors.Is(done.Err, jupyter.ErrLocal) || !strings.Contains(done.Err.Error(), "symbolic link") || strings.Contains(done.Err.Error(), "\n") {
			t.Errorf("download (replace %v) onto a link: %v, want one ErrLocal line", replace, done.Err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatalf("the link's target holds %q: the download wrote through the link", b)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the user's link was replaced: %v", err)
	}
	// Typed as the file name: the user's own link, written through.
	done := doneOf(t, drive(t, p, p.Download(sel, link, true)))
	if done.Err != nil {
		t.Fatal(done.Err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "alpha" {
		t.Errorf("a link named as the file: its target holds %q, want the download", b)
	}
}
