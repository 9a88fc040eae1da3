// Package marker keeps the exclusive marker files by which colabdash
// processes sharing one state directory agree on something once: a
// notification told, a --delete-when-done delete claimed, an idle guard's
// keep. One rule holds for every marker:
//
//   - markers live in one subdirectory of the state directory, created
//     with mode 0700 (and the state directory with it when missing); when
//     that name is a symbolic link or not a directory (checked with
//     os.Lstat) it is refused: nothing is created, read or removed
//     through it;
//   - a marker's file name is a hash of its key (SHA-256, its first 16
//     bytes in hex), after an optional prefix, so a key from a server
//     never becomes a path;
//   - a marker is created with O_CREATE|O_EXCL and mode 0600, which never
//     follows a link at its name: of processes racing to create one, one
//     alone succeeds;
//   - only a regular file counts as a marker: a link or anything else at
//     its name does not;
//   - pruning removes the regular files last modified before a cut (each
//     caller keeps its markers a week).
//
// The directory is checked with Lstat just before it is used, a narrower
// guard than safefile.Dir's descriptor-relative calls: enough for a
// directory below the user's private state directory.
package marker

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Causes of Create's failures, matched with errors.Is; the error Create
// returns names the path ("PATH: is a symbolic link or not a directory,
// not followed").
var (
	// ErrNoState: Dir has no state directory.
	ErrNoState = errors.New("no state directory")
	// ErrNotDir: the marker directory is a symbolic link or not a
	// directory; it is not followed.
	ErrNotDir = errors.New("is a symbolic link or not a directory, not followed")
	// ErrNotMarker: something other than a regular file (a symbolic
	// link, a directory) is at the marker's name; it is left as it is.
	ErrNotMarker = errors.New("is not a plain file, not followed")
)

// Dir is one kind of marker: the files named Prefix + hash of their key
// in directory Name of state directory State. Its methods may run
// concurrently, in this process and in others.
type Dir struct {
	// State is colabdash's state directory; "" is none (Create fails
	// with ErrNoState, Exists is false, Prune does nothing).
	State string
	// Name is the marker directory below State: one path component
	// ("notified", "when-done").
	Name string
	// Prefix begins every marker's file name ("kept-"; "" none), so two
	// kinds may share a directory.
	Prefix string
}

// dir is the marker directory's path ("" without a state directory).
func (d Dir) dir() string {
	if d.State == "" {
		return ""
	}
	return filepath.Join(d.State, d.Name)
}

// File is the path of key's marker ("" without a state directory).
func (d Dir) File(key string) string {
	if d.State == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(d.dir(), d.Prefix+hex.EncodeToString(sum[:16]))
}

// isDir reports whether the marker directory is a directory and not a
// symbolic link.
func (d Dir) isDir() bool {
	if d.State == "" {
		return false
	}
	fi, err := os.Lstat(d.dir())
	return err == nil && fi.IsDir()
}

// Create makes key's marker, creating the marker directory when missing.
// created is true when this call made it, false when the marker was
// there already (a regular file, made by this process or another). It
// fails with ErrNoState, ErrNotDir, ErrNotMarker (a link at the marker's
// name: not followed, not replaced), or the *fs.PathError of a directory
// or file that cannot be made (permissions, a full disk).
func (d Dir) Create(key string) (created bool, err error) {
	if d.State == "" {
		return false, ErrNoState
	}
	mkErr := os.MkdirAll(d.dir(), 0o700)
	fi, err := os.Lstat(d.dir())
	switch {
	case err == nil && !fi.IsDir():
		return false, fmt.Errorf("%s: %w", d.dir(), ErrNotDir) // a link, even to a directory, or a file
	case mkErr != nil:
		return false, mkErr
	case err != nil:
		return false, err
	}
	p := d.File(key)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode().IsRegular() {
			return false, nil
		}
		return false, fmt.Errorf("%s: %w", p, ErrNotMarker)
	}
	if err != nil {
		return false, err
	}
	return true, f.Close()
}

// Exists reports whether key's marker is there: a regular file in a
// marker directory that is a directory. Anything else, and any error
// reading them, is false.
func (d Dir) Exists(key string) bool {
	if !d.isDir() {
		return false
	}
	fi, err := os.Lstat(d.File(key))
	return err == nil && fi.Mode().IsRegular()
}

// Prune removes the regular files of the marker directory (every kind
// sharing it, whatever their prefix) last modified before cut. It does
// nothing when the directory is missing, a symbolic link or not a
// directory; a file that cannot be removed is left for the next Prune.
func (d Dir) Prune(cut time.Time) {
	if !d.isDir() {
		return
	}
	es, err := os.ReadDir(d.dir())
	if err != nil {
		return
	}
	for _, e := range es {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.ModTime().Before(cut) {
			_ = os.Remove(filepath.Join(d.dir(), e.Name()))
		}
	}
}
