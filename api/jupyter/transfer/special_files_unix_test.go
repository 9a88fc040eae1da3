//go:build unix

package transfer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// A symbolic link placed at the download's part path (by another user of
// a shared directory) must not redirect the write: the download is
// refused with one line naming it, and the link's target is untouched.
func TestDownloadRefusesLinkAtPartPath(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	writeRandom(t, src, 64<<10, 21)
	if _, err := upload(t, c, src, e.P("f.bin")); err != nil {
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
	_, err := download(t, c, e.P("f.bin"), out)
	if !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), "symbolic link") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("download through a linked part path: %v, want one proxy.ErrLocal line naming the symbolic link", err)
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
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	writeRandom(t, src, 1<<10, 22)
	if _, err := upload(t, c, src, e.P("g.bin")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bin")
	if err := syscall.Mkfifo(out+PartSuffix, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err := download(t, c, e.P("g.bin"), out)
	if !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("download onto a FIFO part path: %v, want proxy.ErrLocal naming the named pipe", err)
	}
}

// A downloaded file is created like any other file (0666 less the umask,
// as cp and curl -o do), not private to its owner: under umask 022 it is
// -rw-r--r--, under 027 -rw-r-----.
func TestDownloadHonoursUmask(t *testing.T) {
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	writeRandom(t, src, 4<<10, 22)
	if _, err := upload(t, c, src, e.P("f.bin")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0o027, 0o640}} {
		old := syscall.Umask(tc.umask)
		out := filepath.Join(dir, "out-"+tc.want.String())
		_, err := download(t, c, e.P("f.bin"), out)
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != tc.want {
			t.Errorf("umask %03o: the downloaded file is %v, want %v", tc.umask, got, tc.want)
		}
	}
}
