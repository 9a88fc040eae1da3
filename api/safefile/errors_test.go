package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Each kind of file a path may lead to is named in the refusal.
func TestKindNamesEveryFileType(t *testing.T) {
	for _, c := range []struct {
		m    fs.FileMode
		want string
	}{
		{0o644, "a regular file"},
		{fs.ModeDir | 0o755, "a directory"},
		{fs.ModeSymlink | 0o777, "a symbolic link"},
		{fs.ModeNamedPipe | 0o600, "a FIFO (named pipe)"},
		{fs.ModeSocket | 0o755, "a socket"},
		{fs.ModeDevice | fs.ModeCharDevice | 0o666, "a character device"},
		{fs.ModeDevice | 0o660, "a block device"},
		{fs.ModeIrregular, "not a plain file (?---------)"},
	} {
		if got := kind(c.m); got != c.want {
			t.Errorf("kind(%v) = %q, want %q", c.m, got, c.want)
		}
	}
}

// A cap reads in the largest unit that divides it.
func TestHumanNamesTheCap(t *testing.T) {
	for n, want := range map[int64]string{
		1 << 20: "1 MiB", 3 << 20: "3 MiB", 1<<20 + 1<<10: "1025 KiB", 64 << 10: "64 KiB",
		1 << 10: "1 KiB", 1<<10 + 1: "1025 bytes", 1<<20 - 1: "1048575 bytes", 1000: "1000 bytes",
	} {
		if got := human(n); got != want {
			t.Errorf("human(%d) = %q, want %q", n, got, want)
		}
	}
}

// A link that leads nowhere: the error names the link and where it
// leads, as for one that leads to the wrong kind of file.
func TestReadDanglingLinkNamesItsTarget(t *testing.T) {
	dir := t.TempDir()
	link, target := filepath.Join(dir, "creds.json"), filepath.Join(dir, "gone", "creds.json")
	symlink(t, target, link)
	_, err := Read(link, 0, 0)
	if want := link + " (a link to " + target + "): does not exist"; !errors.Is(err, fs.ErrNotExist) || err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// A file that cannot be examined or read after it opened gives one line
// saying which step failed, and its cause.
func TestReadStatAndReadFailures(t *testing.T) {
	p := write(t, "creds.json", 10)
	old := open
	defer func() { open = old }()

	open = func(path string) (*os.File, error) { // closed: its Stat fails
		f, err := os.Open(path)
		if err == nil {
			f.Close()
		}
		return f, err
	}
	_, err := Read(p, 0, 0)
	var e *Error
	if !errors.As(err, &e) || e.Path != p || !errors.Is(err, os.ErrClosed) || len(e.Problem) < len("cannot stat: ") || e.Problem[:len("cannot stat: ")] != "cannot stat: " {
		t.Errorf("a Stat that fails: %v", err)
	}

	open = func(path string) (*os.File, error) { return os.OpenFile(path, os.O_WRONLY, 0) } // its Read fails
	_, err = Read(p, 0, 0)
	if !errors.As(err, &e) || e.Path != p || len(e.Problem) < len("read failed: ") || e.Problem[:len("read failed: ")] != "read failed: " || e.Err == nil {
		t.Errorf("a Read that fails: %v", err)
	}
}
