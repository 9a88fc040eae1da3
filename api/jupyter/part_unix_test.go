//go:build unix

package jupyter

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// A symbolic link placed at the download's part path (by another user of
// a shared directory) must not redirect the write: the download is
// refused with one line naming it, and the link's target is untouched.
func TestDownloadRefusesLinkAtPartPath(t *testing.T) {
	e := newEnv(t, backendEmulator, colabfake.Options{})
	c := e.client()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	writeRandom(t, src, 64<<10, 21)
	if _, err := upload(t, c, src, e.p("f.bin")); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bin")
	if err := os.Symlink(victim, out+PartSuffix); err != nil {
		t.Fatal(err)
	}
	_, err := download(t, c, e.p("f.bin"), out)
	if !errors.Is(err, ErrLocal) || !strings.Contains(err.Error(), "symbolic link") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("download through a linked part path: %v, want one ErrLocal line naming the symbolic link", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Fatalf("the link's target now holds %d bytes: the write followed the link", len(b))
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Error("the target was created although the download was refused")
	}
	if st, lerr := os.Lstat(out + PartSuffix); lerr != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link at the part path was replaced or removed: %v", lerr)
	}
}

// A FIFO (or anything else that is not a regular file) at the part path
// is refused with a line saying what it is.
func TestDownloadRefusesFIFOAtPartPath(t *testing.T) {
	e := newEnv(t, backendEmulator, colabfake.Options{})
	c := e.client()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	writeRandom(t, src, 1<<10, 22)
	if _, err := upload(t, c, src, e.p("g.bin")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bin")
	if err := syscall.Mkfifo(out+PartSuffix, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err := download(t, c, e.p("g.bin"), out)
	if !errors.Is(err, ErrLocal) || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("download onto a FIFO part path: %v, want ErrLocal naming the named pipe", err)
	}
}
