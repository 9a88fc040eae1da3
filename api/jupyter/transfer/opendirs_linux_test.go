package transfer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

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
	e := newEnv(t, jupytertest.Emulator, colabfake.Options{})
	c := e.client()
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
