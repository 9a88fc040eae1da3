//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// dirSys is the open directory's file descriptor (-1 once closed).
type dirSys struct{ fd int }

// OpenDir opens the directory at path for writing below it. path itself
// is followed as given, symbolic links included (the user named it);
// nothing below it ever is (see Dir). A path that is not a directory
// gives an *Error with ErrNotDir; a missing one an *fs.PathError matching
// fs.ErrNotExist. Close the result when done.
func OpenDir(path string) (*Dir, error) {
	fd, err := retry(func() (int, error) {
		return unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		if errors.Is(err, unix.ENOTDIR) {
			if st, serr := os.Stat(path); serr == nil {
				return nil, &Error{Path: path, Problem: "is " + kind(st.Mode()) + ", not a directory", Err: ErrNotDir}
			}
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &Dir{path: path, sys: dirSys{fd: fd}}, nil
}

// Close releases the open directory.
func (d *Dir) Close() error {
	if d.sys.fd < 0 {
		return nil
	}
	err := unix.Close(d.sys.fd)
	d.sys.fd = -1
	return err
}

func (d *Dir) sub(name string, create bool) (*Dir, error) {
	open := func() (int, error) {
		return retry(func() (int, error) {
			return unix.Openat(d.sys.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		})
	}
	fd, err := open()
	if errors.Is(err, unix.ENOENT) && create {
		if merr := unix.Mkdirat(d.sys.fd, name, 0o777); merr != nil && !errors.Is(merr, unix.EEXIST) {
			return nil, &fs.PathError{Op: "mkdir", Path: d.Join(name), Err: merr}
		}
		fd, err = open()
	}
	if err != nil {
		// What is there decides the message: ELOOP, ENOTDIR and EMLINK
		// are how different systems refuse a link with O_NOFOLLOW.
		if m, merr := d.mode(name); merr == nil {
			if m&fs.ModeSymlink != 0 {
				return nil, d.symlinkError(name)
			}
			if !m.IsDir() {
				return nil, d.notDirError(name, m)
			}
		}
		return nil, &fs.PathError{Op: "open", Path: d.Join(name), Err: err}
	}
	return &Dir{path: d.Join(name), sys: dirSys{fd: fd}}, nil
}

// OpenFile opens (flag os.O_CREATE: creating with perm less the umask)
// the file name inside d, never through a symbolic link: a link there is
// an *Error with ErrSymlink, left as it is. O_NONBLOCK is added so a
// FIFO placed there does not block the open; the caller checks the type
// of what it opened (f.Stat). Other failures are *fs.PathError.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if err := component(name); err != nil {
		return nil, err
	}
	fd, err := retry(func() (int, error) {
		return unix.Openat(d.sys.fd, name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
	})
	if err != nil {
		if m, merr := d.mode(name); merr == nil && m&fs.ModeSymlink != 0 {
			return nil, d.symlinkError(name)
		}
		return nil, &fs.PathError{Op: "open", Path: d.Join(name), Err: err}
	}
	return os.NewFile(uintptr(fd), d.Join(name)), nil
}

// Rename renames from to to, both inside d (renameat). A symbolic link
// or a directory at to is refused (ErrSymlink, ErrNotRegular), checked
// just before: a link is never replaced, and the rename itself never
// follows one. Other failures are *os.LinkError.
func (d *Dir) Rename(from, to string) error {
	if err := component(from); err != nil {
		return err
	}
	if err := component(to); err != nil {
		return err
	}
	if m, err := d.mode(to); err == nil {
		if m&fs.ModeSymlink != 0 {
			return d.symlinkError(to)
		}
		if m.IsDir() {
			return &Error{Path: d.Join(to), Problem: "is a directory", Err: ErrNotRegular}
		}
	}
	if err := unix.Renameat(d.sys.fd, from, d.sys.fd, to); err != nil {
		return &os.LinkError{Op: "rename", Old: d.Join(from), New: d.Join(to), Err: err}
	}
	return nil
}

// RenameNoReplace renames from to to, both inside d, only when nothing
// is at to when the rename happens (a file written there since a check
// is never replaced): fs.ErrExist (in an *os.LinkError) when something
// is. Where the kernel or file system has no such rename, a hard link
// (which never replaces) and the removal of from do it.
func (d *Dir) RenameNoReplace(from, to string) error {
	if err := component(from); err != nil {
		return err
	}
	if err := component(to); err != nil {
		return err
	}
	err := renameNoReplace(d.sys.fd, from, to)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) {
		if err = unix.Linkat(d.sys.fd, from, d.sys.fd, to, 0); err == nil {
			err = unix.Unlinkat(d.sys.fd, from, 0)
		}
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: d.Join(from), New: d.Join(to), Err: err}
	}
	return nil
}

// Remove removes the file name inside d (a link itself, never what it
// leads to). Failures are *fs.PathError.
func (d *Dir) Remove(name string) error {
	if err := component(name); err != nil {
		return err
	}
	if err := unix.Unlinkat(d.sys.fd, name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: d.Join(name), Err: err}
	}
	return nil
}

// Chtimes sets the access and modification times of name inside d,
// without following a link there.
func (d *Dir) Chtimes(name string, atime, mtime time.Time) error {
	if err := component(name); err != nil {
		return err
	}
	ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	if err := unix.UtimesNanoAt(d.sys.fd, name, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &fs.PathError{Op: "chtimes", Path: d.Join(name), Err: err}
	}
	return nil
}

func (d *Dir) mode(name string) (fs.FileMode, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.sys.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, &fs.PathError{Op: "lstat", Path: d.Join(name), Err: err}
	}
	m := fs.FileMode(uint32(st.Mode) & 0o777)
	switch uint32(st.Mode) & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFREG:
	default:
		m |= fs.ModeIrregular
	}
	return m, nil
}

// readlink says where the link name inside d leads ("" when unknown),
// for the refusal's message.
func (d *Dir) readlink(name string) string {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(d.sys.fd, name, buf)
	if err != nil || n <= 0 {
		return ""
	}
	return string(buf[:n])
}

// retry repeats a call interrupted by a signal (EINTR), as package os
// does for its own.
func retry(call func() (int, error)) (int, error) {
	for {
		fd, err := call()
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}
