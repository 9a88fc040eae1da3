package transfer

// Where a copy lands, as cp, scp, docker cp and gsutil decide it: a
// source copied into an existing directory lands below it under its own
// name; a destination that does not exist becomes the copy. And a local
// file is never replaced unless the copy was told to (Overwrite).

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
	"github.com/colabdash/colabdash/api/plural"
	"github.com/colabdash/colabdash/api/safefile"
)

// uploadDirDest is where a recursive upload of the local directory src
// named dst goes: dst/NAME when dst is an existing remote directory (the
// runtime's root included), NAME being src's own name; dst itself when
// it does not exist. A source without a name of its own ("/") or with a
// hidden one (which Jupyter refuses to create) is refused: the user names
// the remote directory in full.
func (c *Copier) uploadDirDest(ctx context.Context, src, dst string) (string, error) {
	m, err := c.Stat(ctx, dst)
	switch {
	case errors.Is(err, proxy.ErrNotFound) || errors.Is(err, proxy.ErrHidden):
		return dst, nil // the copy is dst
	case err != nil:
		return "", proxy.WithOp(err, "upload", dst)
	case !m.IsDir():
		return dst, nil // a file in the way: the walk says so
	}
	name := filepath.Base(src)
	if abs, err := filepath.Abs(src); err == nil {
		name = filepath.Base(abs)
	}
	if name == string(filepath.Separator) || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		return "", &proxy.Error{Op: "upload", Runtime: c.id, Path: dst, Kind: proxy.ErrLocal,
			Message: fmt.Sprintf("%s has no name the runtime accepts to copy it under into this directory; name the new directory in full (RUNTIME:PATH/NAME)", src)}
	}
	return path.Join(dst, name), nil
}

// downloadDirDest is where a recursive download of the remote directory
// src named dst goes: dst/NAME when dst is an existing local directory,
// NAME being src's remote name (checked as every remote name that
// becomes a local one); dst itself when it does not exist. The runtime's
// root has no name: it is copied as dst.
func (c *Copier) downloadDirDest(src, dst string) (string, error) {
	st, err := os.Stat(dst)
	if err != nil || !st.IsDir() || src == "" {
		return dst, nil
	}
	name := path.Base(src)
	if err := proxy.LocalName(name); err != nil {
		return "", &proxy.Error{Op: "download", Runtime: c.id, Path: src, Kind: proxy.ErrUnsafeName,
			Message: "its name " + err.Error() + "; download it to a local directory name of your own"}
	}
	return filepath.Join(dst, name), nil
}

// existingFile reports whether name inside d is a regular file (not
// followed): what a download there would replace.
func existingFile(d *safefile.Dir, name string) bool {
	mode, err := d.Mode(name)
	return err == nil && mode.IsRegular()
}

// localExists is the refusal of a download that would replace the local
// files found (at least one), before any file was written: the first is
// named, the others counted.
func (c *Copier) localExists(src string, found []string) error {
	msg := found[0] + " exists"
	if n := len(found) - 1; n > 0 {
		msg = fmt.Sprintf("%s and %d more %s exist", found[0], n, plural.Noun(n, "file"))
	}
	return &proxy.Error{Op: "download", Runtime: c.id, Path: src, Kind: proxy.ErrLocalExists, Message: msg + "; nothing copied"}
}

// undoDirs removes the directories a refused recursive download created
// (made, in the order they were created: parents first), deepest first.
// No file was written in them; one that is no longer an empty directory
// of ours (something else put there since) stays.
func undoDirs(made []string) {
	for i := len(made) - 1; i >= 0; i-- {
		if st, err := os.Lstat(made[i]); err == nil && st.IsDir() {
			_ = os.Remove(made[i]) // removes only an empty directory
		}
	}
}

// isNotExist reports a missing local name.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
