package transfer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
	"github.com/colabdash/colabdash/api/safefile/safefiletest"
)

// `cp RT:FILE /dev/stdout >> log`: a download to a descriptor's name
// (here /dev/fd/N, open on log for appending, as the shell opens it)
// writes in place: log keeps its lines, gets the file after them, and is
// the same file afterwards (nothing renamed over it, no part file beside
// it). The same through Download, the files pane's call.
func TestDownloadToDescriptorAppendsInPlace(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	ctx := context.Background()
	putTree(t, e, c, map[string]string{"f.txt": "remote\n"}) // content/f.txt
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	if err := os.WriteFile(log, []byte("line 1\nline 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(log)
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	target := fmt.Sprintf("/dev/fd/%d", f.Fd())
	var results []FileResult
	if err := c.DownloadPath(ctx, "content/f.txt", target, false, CopyOptions{OnFile: func(r FileResult) { results = append(results, r) }}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Download(ctx, "content/f.txt", target, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(log)
	if string(b) != "line 1\nline 2\nremote\nremote\n" {
		t.Errorf("log holds %q, want its lines and then the file twice", b)
	}
	after, err := os.Stat(log)
	if err != nil || !os.SameFile(before, after) {
		t.Errorf("log was replaced (renamed over): %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%s holds %d entries, want only log (no part file)", dir, len(ents))
	}
	if len(results) != 1 || results[0].Dst != target || results[0].Bytes != 7 {
		t.Errorf("reported %+v, want one file of 7 bytes to %s", results, target)
	}
}

// A FIFO is written in place too, not replaced by a regular file.
func TestDownloadToFIFOWritesInPlace(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	ctx := context.Background()
	putTree(t, e, c, map[string]string{"f.txt": "remote\n"}) // content/f.txt
	fifo := safefiletest.FIFO(t, t.TempDir(), "fifo")
	// Opened for reading first (non-blocking), so the download's open for
	// writing finds a reader.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := c.DownloadPath(ctx, "content/f.txt", fifo, false, CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := r.Read(buf)
	if string(buf[:n]) != "remote\n" {
		t.Errorf("the FIFO gave %q, want the file", buf[:n])
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st.Mode(), err)
	}
}

// openBelow counts this process's open file descriptors on dir or below
// it (Linux's /proc/self/fd).
func openBelow(t *testing.T, dir string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("cannot read /proc/self/fd: %v", err)
	}
	n := 0
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && (target == dir || strings.HasPrefix(target, dir+string(filepath.Separator))) {
			n++
		}
	}
	return n
}

// A recursive download closes each local directory once its files are
// copied (and the walk has left it), rather than holding every directory
// of a wide tree open to the end: by the time it reports its last file,
// none is open.
func TestRecursiveDownloadClosesDirectoriesItIsDoneWith(t *testing.T) {
	e, c := newEnvClient(t, jupytertest.Emulator)
	ctx := context.Background()
	const dirs = 60
	files := map[string]string{}
	for i := range dirs {
		files[fmt.Sprintf("s%02d/f.txt", i)] = "f"
	}
	if err := c.UploadPath(ctx, localTree(t, files), e.P("wide"), false, CopyOptions{Recursive: true}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var mu sync.Mutex
	var open []int // descriptors open below out at each file reported
	o := CopyOptions{Recursive: true, Jobs: 2, OnFile: func(FileResult) {
		n := openBelow(t, out)
		mu.Lock()
		open = append(open, n)
		mu.Unlock()
	}}
	if err := c.DownloadPath(ctx, e.P("wide"), out, false, o); err != nil {
		t.Fatal(err)
	}
	if len(open) != dirs {
		t.Fatalf("reported %d files, want %d", len(open), dirs)
	}
	// The last file is reported once every file has ended: nothing is
	// in flight, so nothing below the destination is left open.
	if last := open[len(open)-1]; last != 0 {
		t.Errorf("%d descriptors open below the destination as the last of %d directories' files was reported, want 0: the directories done with were kept open", last, dirs)
	}
	if n := openBelow(t, out); n != 0 {
		t.Errorf("%d descriptors still open below the destination after the copy", n)
	}
}
