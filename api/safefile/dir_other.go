//go:build !unix

package safefile

import (
	"io/fs"
	"os"
	"time"
)

// dirSys: outside Unix nothing is held open; each name is checked with
// Lstat just before it is used.
type dirSys struct{}

// OpenDir opens the directory at path for writing below it. path itself
// is followed as given (the user named it); below it, each name is
// checked with Lstat before it is used. A path that is not a directory
// gives an *Error with ErrNotDir; a missing one an *fs.PathError matching
// fs.ErrNotExist.
func OpenDir(path string) (*Dir, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, &Error{Path: path, Problem: "is " + kind(st.Mode()) + ", not a directory", Err: ErrNotDir}
	}
	return &Dir{path: path}, nil
}

// Close does nothing outside Unix.
func (d *Dir) Close() error { return nil }

func (d *Dir) sub(name string, create bool) (*Dir, error) {
	m, err := d.mode(name)
	if err != nil && create && os.IsNotExist(err) {
		if merr := os.Mkdir(d.Join(name), 0o777); merr != nil && !os.IsExist(merr) {
			return nil, merr
		}
		m, err = d.mode(name)
	}
	switch {
	case err != nil:
		return nil, err
	case m&fs.ModeSymlink != 0:
		return nil, d.symlinkError(name)
	case !m.IsDir():
		return nil, d.notDirError(name, m)
	}
	return &Dir{path: d.Join(name)}, nil
}

// OpenFile opens (os.O_CREATE: creating with perm) the file name inside
// d, refusing a symbolic link there (ErrSymlink) found by Lstat.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if err := component(name); err != nil {
		return nil, err
	}
	if m, err := d.mode(name); err == nil && m&fs.ModeSymlink != 0 {
		return nil, d.symlinkError(name)
	}
	return os.OpenFile(d.Join(name), flag, perm)
}

// Rename renames from to to inside d, refusing a symbolic link or a
// directory at to.
func (d *Dir) Rename(from, to string) error {
	if err := component(from); err != nil {
		return err
	}
	if err := component(to); err != nil {
		return err
	}
	if m, err := d.mode(to); err == nil {
		switch {
		case m&fs.ModeSymlink != 0:
			return d.symlinkError(to)
		case m.IsDir():
			return &Error{Path: d.Join(to), Problem: "is a directory", Err: ErrNotRegular}
		}
	}
	return os.Rename(d.Join(from), d.Join(to))
}

// RenameNoReplace renames from to to inside d only when nothing is at to
// (fs.ErrExist otherwise); here the check and the rename are two steps.
func (d *Dir) RenameNoReplace(from, to string) error {
	if err := component(from); err != nil {
		return err
	}
	if err := component(to); err != nil {
		return err
	}
	if _, err := d.mode(to); err == nil {
		return &os.LinkError{Op: "rename", Old: d.Join(from), New: d.Join(to), Err: fs.ErrExist}
	}
	return os.Rename(d.Join(from), d.Join(to))
}

// Remove removes the file name inside d.
func (d *Dir) Remove(name string) error {
	if err := component(name); err != nil {
		return err
	}
	return os.Remove(d.Join(name))
}

// Chtimes sets the times of name inside d.
func (d *Dir) Chtimes(name string, atime, mtime time.Time) error {
	if err := component(name); err != nil {
		return err
	}
	if m, err := d.mode(name); err == nil && m&fs.ModeSymlink != 0 {
		return d.symlinkError(name)
	}
	return os.Chtimes(d.Join(name), atime, mtime)
}

func (d *Dir) mode(name string) (fs.FileMode, error) {
	st, err := os.Lstat(d.Join(name))
	if err != nil {
		return 0, err
	}
	return st.Mode(), nil
}

func (d *Dir) readlink(name string) string {
	t, _ := os.Readlink(d.Join(name))
	return t
}
