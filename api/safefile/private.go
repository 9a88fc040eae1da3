package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotPrivate is the cause of PrivateDir's and OwnedFile's refusals: a
// directory or file another local user owns, or one others may write to.
var ErrNotPrivate = errors.New("not private to the user")

// PrivateError is a refusal of PrivateDir or OwnedFile, written as one
// line that names the path and the fix, as ssh does for ~/.ssh: What is
// "state directory", "config directory", "cache directory" or "run record"; Problem what is
// wrong ("is writable by others (mode 0777)"); Fix what to do.
type PrivateError struct {
	What, Path, Problem, Fix string
}

// Error is "WHAT PATH PROBLEM: colabdash refuses to use it; FIX".
func (e *PrivateError) Error() string {
	return e.What + " " + e.Path + " " + e.Problem + ": colabdash refuses to use it, since another user could plant files there; " + e.Fix
}

// Unwrap is ErrNotPrivate.
func (e *PrivateError) Unwrap() error { return ErrNotPrivate }

// PrivateDir checks a directory colabdash keeps its own files in (the
// state and config directories, and the run records below the first):
// when dir exists (a symbolic link to a directory is followed, as a
// dotfiles checkout is commonly linked in), it must be a directory owned
// by the user running colabdash and writable by no one else (no group or
// world write bit). A missing dir is nil: colabdash creates it 0700. what
// names the directory in the error ("state directory"). Outside Unix,
// where there are no such owners and modes, only the directory check is
// made.
func PrivateDir(what, dir string) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return &PrivateError{What: what, Path: dir, Problem: "is not a directory", Fix: "remove it"}
	}
	if uid, ok := foreignOwner(st); ok {
		return &PrivateError{What: what, Path: dir, Problem: fmt.Sprintf("belongs to another user (uid %d)", uid),
			Fix: "remove it, or set " + envFor(what) + " to a directory of your own"}
	}
	if othersMayWrite(st) {
		return &PrivateError{What: what, Path: dir, Problem: fmt.Sprintf("is writable by others (mode %04o)", st.Mode().Perm()),
			Fix: "fix it with: chmod go-w " + dir}
	}
	return nil
}

// OwnedFile checks a file colabdash wrote and reads back (a run record),
// open as f at path: a regular file (not a link: open it with
// O_NOFOLLOW) that the user running colabdash owns. Errors: a
// *PrivateError, or fstat's.
func OwnedFile(what string, f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return &PrivateError{What: what, Path: f.Name(), Problem: "is not a regular file", Fix: "remove it"}
	}
	if uid, ok := foreignOwner(st); ok {
		return &PrivateError{What: what, Path: f.Name(), Problem: fmt.Sprintf("belongs to another user (uid %d)", uid), Fix: "remove it"}
	}
	return nil
}

// envFor is the variable that moves the directory what names.
func envFor(what string) string {
	switch what {
	case "config directory":
		return "XDG_CONFIG_HOME"
	case "cache directory":
		return "XDG_CACHE_HOME"
	}
	return "XDG_STATE_HOME"
}
