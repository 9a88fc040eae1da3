package transfer

// Where a download lands locally: the directory the user named, opened
// once (safefile.Dir), and names below it that are never followed when
// they are symbolic links.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
	"github.com/colabdash/colabdash/api/safefile"
)

// skipped is a download of one file refused because of what is in the
// way locally (a symbolic link, a directory where the file goes, a
// non-file at its part path): nothing was written. A recursive download
// reports it, goes on with the rest and fails at the end. errors.As finds
// the *proxy.Error inside.
type skipped struct{ e *proxy.Error }

// Error is the *proxy.Error's line.
func (s *skipped) Error() string { return s.e.Error() }

// Unwrap returns the *proxy.Error.
func (s *skipped) Unwrap() error { return s.e }

// refusal reports whether err is a local write refused for what is in the
// way (safefile's ErrSymlink, proxy.ErrNotDir, ErrNotRegular) rather than a
// failure of the disk (permission, space).
func refusal(err error) bool {
	return errors.Is(err, safefile.ErrSymlink) || errors.Is(err, safefile.ErrNotDir) || errors.Is(err, safefile.ErrNotRegular)
}

// openLocalDir opens the local directory dir the user named (following
// it as given) for a download of remote: proxy.ErrLocalNotFound when it is
// missing, proxy.ErrLocal when it is not a directory or cannot be opened.
func (c *Copier) openLocalDir(remote, dir string) (*safefile.Dir, error) {
	d, err := safefile.OpenDir(dir)
	switch {
	case err == nil:
		return d, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrLocalNotFound, Message: dir}
	case errors.Is(err, safefile.ErrNotDir):
		return nil, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrLocal, Message: dir + " is not a directory"}
	}
	return nil, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrLocal, Message: localStatMessage(dir, err)}
}

// openNamed splits target, a local file path the user named, into its
// directory (opened) and its name. A symbolic link at target is the
// user's and is followed, as cp writes through one; a link to nothing is
// refused (as cp refuses it), since following it would create a file
// wherever it points.
func (c *Copier) openNamed(remote, target string) (*safefile.Dir, string, error) {
	local := func(msg string) error {
		return &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrLocal, Message: msg}
	}
	if strings.HasSuffix(target, "/") || strings.HasSuffix(target, string(filepath.Separator)) {
		// A directory is meant; a missing one is missing.
		if st, err := os.Stat(target); err == nil && st.IsDir() {
			return nil, "", local(target + " is a directory")
		}
		return nil, "", &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrLocalNotFound, Message: target}
	}
	if st, err := os.Lstat(target); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		resolved, err := filepath.EvalSymlinks(target)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, "", local(target + " is a symbolic link to nothing: not writing through it (remove it or name another file)")
			}
			return nil, "", local(localStatMessage(target, err))
		}
		target = resolved
	}
	if st, err := os.Stat(target); err == nil && st.IsDir() {
		return nil, "", local(target + " is a directory") // "." and ".." too
	}
	d, err := c.openLocalDir(remote, filepath.Dir(target))
	if err != nil {
		return nil, "", err
	}
	return d, filepath.Base(target), nil
}
