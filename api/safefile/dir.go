package safefile

// Writing below a destination directory without following a symbolic
// link that is already there: the one place cp, cp -r, the
// files pane's download and every part file go through.

import (
	"errors"
	"io/fs"
	"path/filepath"
)

// More sentinel causes, for the *Error a Dir method returns.
var (
	// ErrSymlink: a name below the destination is a symbolic link, which
	// a write never follows (nor replaces).
	ErrSymlink = errors.New("is a symbolic link")
	// ErrNotDir: a name that must be a directory below the destination
	// is something else (a file, a FIFO).
	ErrNotDir = errors.New("not a directory")
)

// Dir is a local directory that writes go into: the directory the user
// named (opened following any symbolic link in that path, as cp does:
// that is the user's choice) or one reached from it by Sub. Every name a
// method takes is one path component inside it, and none is ever
// followed when it is a symbolic link: on Unix each operation is relative
// to the open directory (openat, mkdirat, renameat with O_NOFOLLOW and
// AT_SYMLINK_NOFOLLOW), so a link that appears between a check and a
// write cannot redirect it either. Elsewhere each name is checked with
// Lstat just before it is used (a narrower guard). A Dir is not safe for
// concurrent Close; its other methods may run concurrently.
type Dir struct {
	path string // as the user gave it, joined with the names below it
	sys  dirSys // the open directory (Unix) or nothing
}

// Path returns the directory's path as shown to the user: the path
// given to OpenDir joined with the names Sub went through.
func (d *Dir) Path() string { return d.path }

// Join returns the displayed path of name inside d.
func (d *Dir) Join(name string) string { return filepath.Join(d.path, name) }

// Sub opens the directory name inside d, creating it (mode 0777 less the
// umask) when it is missing and create is set. A symbolic link there is
// refused, never followed: an *Error with ErrSymlink naming the path and
// where the link leads. Something that is not a directory gives ErrNotDir;
// a missing name without create an *fs.PathError matching
// fs.ErrNotExist. Close the result when done.
func (d *Dir) Sub(name string, create bool) (*Dir, error) {
	if err := component(name); err != nil {
		return nil, err
	}
	return d.sub(name, create)
}

// Mode returns the type and permission bits of name inside d without
// following it (fs.ModeSymlink for a link); an *fs.PathError matching
// fs.ErrNotExist when nothing is there.
func (d *Dir) Mode(name string) (fs.FileMode, error) {
	if err := component(name); err != nil {
		return 0, err
	}
	return d.mode(name)
}

// symlinkError is the one-line refusal of a link below the destination:
// "out/sub (a link to /elsewhere): is a symbolic link, not followed:
// nothing is written through it".
func (d *Dir) symlinkError(name string) *Error {
	return &Error{Path: d.Join(name), Target: d.readlink(name),
		Problem: "is a symbolic link, not followed: nothing is written through it", Err: ErrSymlink}
}

// notDirError says a name that must be a directory is not one.
func (d *Dir) notDirError(name string, mode fs.FileMode) *Error {
	return &Error{Path: d.Join(name), Problem: "is " + kind(mode) + ", not a directory", Err: ErrNotDir}
}

// component refuses a name that is not exactly one path component: the
// callers build names from validated parts, and this keeps a slip from
// walking anywhere else.
func component(name string) error {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name || filepath.IsAbs(name) {
		return &Error{Path: name, Problem: "is not a single path component", Err: fs.ErrInvalid}
	}
	return nil
}
