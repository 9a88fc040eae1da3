//go:build unix

package ops

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/safefile"
)

// last-spec.json is read back at start and on every profile switch: a
// FIFO nobody writes to (hung the read forever), a link to /dev/zero (read
// without end), a directory or a huge file in its place must give an
// error at once, and the dashboard then simply has no remembered spec
// (red team).
func TestLastSpecFileIsReadBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LastSpecFile)
	cases := map[string]func() error{
		"fifo":      func() error { return syscall.Mkfifo(path, 0o600) },
		"/dev/zero": func() error { return os.Symlink("/dev/zero", path) },
		"directory": func() error { return os.Mkdir(path, 0o700) },
		"huge": func() error {
			return os.WriteFile(path, []byte(`{"spec":{"variant":"VARIANT_CPU"},"x":"`+strings.Repeat("a", safefile.MaxStateFile)+`"}`), 0o600)
		},
	}
	for name, setup := range cases {
		os.RemoveAll(path)
		if err := setup(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { _, err := LoadLastSpec(dir); done <- err }()
		select {
		case err := <-done:
			var se *safefile.Error
			if !errors.As(err, &se) || !strings.Contains(err.Error(), LastSpecFile) {
				t.Errorf("%s: LoadLastSpec = %v, want a safefile error naming %s", name, err, LastSpecFile)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: LoadLastSpec still reading after 30s", name)
		}
	}
}
