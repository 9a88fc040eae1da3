package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/safefile/safefiletest"
)

func write(t *testing.T, name string, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	mustWrite(t, p, []byte(strings.Repeat("x", n)), 0o600)
	return p
}

func TestReadRegularFileUpToTheCap(t *testing.T) {
	p := write(t, "ok", 100)
	b, err := Read(p, 100, 0)
	if err != nil || len(b) != 100 {
		t.Fatalf("Read = %d bytes, %v; want 100 bytes", len(b), err)
	}
}

func TestReadTooLargeNamesFileAndCap(t *testing.T) {
	p := write(t, "big", 64<<10+1)
	_, err := Read(p, MaxTokenFile, 0)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "64 KiB") {
		t.Errorf("error %q should name the file and the 64 KiB cap", err)
	}
}

// A symlink to /dev/zero (once read to 22 GB) fails at once, naming
// the link and where it leads.
func TestReadSymlinkToDevZero(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero")
	}
	link := safefiletest.EndlessLink(t, t.TempDir(), "creds.json")
	_, err := Read(link, MaxCredentialsFile, 0)
	if !errors.Is(err, ErrNotRegular) {
		t.Fatalf("err = %v, want ErrNotRegular", err)
	}
	want := link + " (a link to /dev/zero): is a character device, not a regular file"
	if err.Error() != want {
		t.Errorf("err = %q\nwant  %q", err, want)
	}
}

// A symlink to a regular file is followed.
func TestReadFollowsSymlinkToRegularFile(t *testing.T) {
	target := write(t, "real", 10)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(link, 10, 0); err != nil || len(b) != 10 {
		t.Fatalf("Read = %q, %v", b, err)
	}
}

func TestReadDirectoryAndMissing(t *testing.T) {
	dir := t.TempDir()
	_, err := Read(dir, 0, 0)
	if !errors.Is(err, ErrNotRegular) || err.Error() != dir+": is a directory, not a regular file" {
		t.Errorf("directory: %v", err)
	}
	missing := filepath.Join(dir, "nope")
	_, err = Read(missing, 0, 0)
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != missing+": does not exist" {
		t.Errorf("missing: %v", err)
	}
}

// A file that reports size 0 but has content (as in /proc) is still cut
// at the cap.
func TestReadGrowingFileIsCut(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	_, err := Read("/proc/self/status", 16, 0)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if want := "/proc/self/status: is more than the 16 bytes allowed"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}

// An open or read that hangs (a dead network mount) ends with ErrTimeout.
func TestReadTimesOut(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	old := open
	open = func(string) (*os.File, error) { <-release; return nil, fs.ErrNotExist }
	defer func() { open = old }()
	_, err := Read("/hung/file", 0, 20*time.Millisecond)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "/hung/file") {
		t.Fatalf("err = %v, want ErrTimeout naming the file", err)
	}
}
