//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// foreignDir returns a directory another user owns, mode 0755: "/" (root's)
// when the tests run as another user, else a temporary directory given to
// uid 65534 (nobody). No skip either way.
func foreignDir(t *testing.T) (dir string, uid int) {
	t.Helper()
	if os.Getuid() != 0 {
		return "/", 0
	}
	dir = t.TempDir()
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatalf("root could not give a directory to uid 65534: %v", err)
	}
	return dir, 65534
}

func privateError(t *testing.T, err error) *PrivateError {
	t.Helper()
	pe, ok := errors.AsType[*PrivateError](err)
	if !ok || !errors.Is(err, ErrNotPrivate) {
		t.Fatalf("err = %v, want a *PrivateError matching ErrNotPrivate", err)
	}
	return pe
}

// The user's own directory (0700 or 0755, also through a link) is used; a
// missing one is created later; group or world write, another owner, or
// a file where the directory goes is refused with one line naming the
// path and the fix.
func TestPrivateDir(t *testing.T) {
	root := t.TempDir()
	if err := PrivateDir("state directory", filepath.Join(root, "missing")); err != nil {
		t.Errorf("a missing directory: %v", err)
	}
	for _, mode := range []os.FileMode{0o700, 0o755} {
		dir := filepath.Join(root, mode.String())
		if err := os.Mkdir(dir, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		if err := PrivateDir("state directory", dir); err != nil {
			t.Errorf("mode %04o: %v", mode, err)
		}
	}
	for _, mode := range []os.FileMode{0o720, 0o702, 0o777} {
		dir := filepath.Join(root, "w"+mode.String())
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		err := PrivateDir("state directory", dir)
		pe := privateError(t, err)
		want := fmt.Sprintf("state directory %s is writable by others (mode %04o): colabdash refuses to use it, "+
			"since another user could plant files there; fix it with: chmod go-w %s", dir, mode, dir)
		if err.Error() != want || pe.Path != dir {
			t.Errorf("mode %04o:\n got %q\nwant %q", mode, err, want)
		}
	}
	file := filepath.Join(root, "file")
	mustWrite(t, file, nil, 0o600)
	if pe := privateError(t, PrivateDir("config directory", file)); pe.Problem != "is not a directory" || pe.Fix != "remove it" {
		t.Errorf("a file: %+v", pe)
	}
	dir, uid := foreignDir(t)
	for what, env := range map[string]string{"state directory": "XDG_STATE_HOME", "config directory": "XDG_CONFIG_HOME"} {
		err := PrivateDir(what, dir)
		pe := privateError(t, err)
		want := what + " " + dir + " belongs to another user (uid " + strconv.Itoa(uid) + "): colabdash refuses to use it, since another user could plant files there; remove it, or set " + env + " to a directory of your own"
		if err.Error() != want || pe.What != what {
			t.Errorf("another user's directory:\n got %q\nwant %q", err, want)
		}
	}
}

// A run record the user wrote is read; a directory in its place, or a
// file another user owns, is refused.
func TestOwnedFile(t *testing.T) {
	root := t.TempDir()
	mine := filepath.Join(root, "run.json")
	mustWrite(t, mine, []byte("{}"), 0o600)
	f, err := os.Open(mine)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := OwnedFile("run record", f); err != nil {
		t.Errorf("the user's own file: %v", err)
	}
	d, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if pe := privateError(t, OwnedFile("run record", d)); pe.Problem != "is not a regular file" || pe.Path != root {
		t.Errorf("a directory: %+v", pe)
	}
	theirs := "/etc/passwd"
	uid := 0
	if os.Getuid() == 0 {
		theirs, uid = filepath.Join(root, "theirs.json"), 65534
		mustWrite(t, theirs, []byte("{}"), 0o600)
		if err := os.Chown(theirs, uid, uid); err != nil {
			t.Fatalf("root could not give a file to uid 65534: %v", err)
		}
	}
	g, err := os.Open(theirs)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	err = OwnedFile("run record", g)
	if pe := privateError(t, err); pe.Problem != "belongs to another user (uid "+strconv.Itoa(uid)+")" || pe.Fix != "remove it" {
		t.Errorf("another user's file: %+v", pe)
	}
	// A file that is gone is fstat's error, not a refusal.
	f.Close()
	if err := OwnedFile("run record", f); err == nil || errors.Is(err, ErrNotPrivate) {
		t.Errorf("a closed file: %v", err)
	}
}
