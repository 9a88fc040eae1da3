//go:build unix

package transfer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
	"github.com/colabdash/colabdash/api/safefile/safefiletest"
)

// A symbolic link placed at the download's part path (by another user of
// a shared directory) must not redirect the write: the download is
// refused with one line naming it, and the link's target is untouched.
func TestDownloadRefusesLinkAtPartPath(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	dir, _ := stageRandom(t, e, c, "f.bin", 64<<10, 21)
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
	e, c := newEnvClient(t, jupytertest.Emulator)
	dir, _ := stageRandom(t, e, c, "g.bin", 1<<10, 22)
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
	e, c := newEnvClient(t, jupytertest.Emulator)
	dir, _ := stageRandom(t, e, c, "f.bin", 4<<10, 22)
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

// fifoBound is how long a download to a FIFO may take to give up: far
// more than it needs on a busy machine, far less than forever.
const fifoBound = 60 * time.Second

// mkfifo makes a FIFO named name in a temporary directory.
func mkfifo(t *testing.T, name string) string {
	t.Helper()
	return safefiletest.FIFO(t, t.TempDir(), name)
}

// boundedRun runs fn and returns its error, failing the test when it has not
// returned within fifoBound; free then unblocks it (the test's FIFO given
// a reader, or its reader closed), so no goroutine is left behind.
func boundedRun(t *testing.T, what string, free func(), fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(fifoBound):
		free()
		<-done
		t.Fatalf("%s had not returned after %v", what, fifoBound)
		return nil
	}
}

// `cp RT:FILE ./fifo` with no process reading the FIFO: the open for
// writing does not wait for a reader that may never come; the download
// is refused at once with one line naming the FIFO, and the FIFO stays.
// The same through Download, the files pane's call.
func TestDownloadToFIFONobodyReadsIsRefused(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	ctx := context.Background()
	putTree(t, e, c, map[string]string{"f.txt": "remote\n"}) // content/f.txt
	fifo := mkfifo(t, "fifo")
	// A reader opened at last lets a blocked open for writing through.
	free := func() {
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			t.Cleanup(func() { r.Close() })
		}
	}
	for what, fn := range map[string]func() error{
		"DownloadPath": func() error { return c.DownloadPath(ctx, "content/f.txt", fifo, false, CopyOptions{}) },
		"Download":     func() error { _, err := c.Download(ctx, "content/f.txt", fifo, nil); return err },
	} {
		err := boundedRun(t, what+" to a FIFO nobody reads", free, fn)
		var je *proxy.Error
		if !errors.As(err, &je) || !errors.Is(err, proxy.ErrLocal) || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "no process is reading it") {
			t.Fatalf("%s: %v, want a local error naming %s and saying no process reads it", what, err, fifo)
		}
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("%s: the FIFO was replaced: %v", what, err)
		}
	}
}

// A FIFO whose reader stops reading: the download stops when its context
// ends (ctrl+c, --timeout), even while its write waits for room in the
// pipe, and says it was interrupted.
func TestDownloadToAStalledFIFOEndsWithItsContext(t *testing.T) {
	_, c := newEnvClient(t, jupytertest.Emulator)
	body := strings.Repeat("x", 4<<20) // far more than a pipe holds
	if _, err := c.Upload(context.Background(), "content/big.bin", strings.NewReader(body), int64(len(body)), nil); err != nil {
		t.Fatal(err)
	}
	fifo := mkfifo(t, "fifo")
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// A writer of the test's own that never writes: until the download
	// opens the FIFO, the reader waits instead of reading end-of-file.
	w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// The first byte says the download is writing; then the reader
		// stops reading, and the user gives up.
		buf := make([]byte, 1)
		if _, err := r.Read(buf); err == nil {
			cancel()
		}
	}()
	err = boundedRun(t, "a download to a FIFO nobody reads any more", func() { r.Close() }, func() error {
		_, err := c.Download(ctx, "content/big.bin", fifo, nil)
		return err
	})
	if !errors.Is(err, proxy.ErrInterrupted) {
		t.Fatalf("err = %v, want it interrupted", err)
	}
}
