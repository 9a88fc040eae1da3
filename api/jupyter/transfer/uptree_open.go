package transfer

// A recursive upload opens each file when it sends it, not when it
// plans: what was a plain file then may be a symbolic link to a secret
// now. Each file is opened below the source directory, opened once,
// one component at a time without following a link (safefile.Dir:
// openat with O_NOFOLLOW), so a file or a directory swapped for a link
// after the plan is refused, never read. A file planned as a link to a
// file inside the source is resolved again when opened, and must still
// lead inside it. cp -L (FollowLinks) follows every link, as asked.

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
	"github.com/colabdash/colabdash/api/safefile"
)

// srcOpener opens the files of a recursive upload's plan.
type srcOpener struct {
	c      *Copier
	dst    string
	root   string        // the source directory, links resolved
	dir    *safefile.Dir // the source directory, opened once (nil with follow)
	follow bool          // cp -L
}

// newSrcOpener opens the source directory src (followed as named: the
// user named it), whose links resolve to root.
func (c *Copier) newSrcOpener(src, dst, root string, follow bool) (*srcOpener, error) {
	o := &srcOpener{c: c, dst: dst, root: root, follow: follow}
	if follow {
		return o, nil
	}
	d, err := safefile.OpenDir(root)
	if err != nil {
		return nil, c.localError("upload", dst, src, err)
	}
	o.dir = d
	return o, nil
}

func (o *srcOpener) close() {
	if o.dir != nil {
		o.dir.Close()
	}
}

// file returns the opener of f for openSource.
func (o *srcOpener) file(f upFile) func() (*os.File, error) {
	if o.follow {
		return nil
	}
	return func() (*os.File, error) {
		rel := f.rel
		if f.link {
			t, err := filepath.EvalSymlinks(f.local)
			if err != nil {
				return nil, err
			}
			r, err := filepath.Rel(o.root, t)
			if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
				return nil, o.refuse(f, "is a symbolic link that now leads out of the source directory (cp -L follows it)")
			}
			rel = r
		}
		file, err := o.openRel(rel)
		if errors.Is(err, safefile.ErrSymlink) {
			return nil, o.refuse(f, "or a directory above it became a symbolic link after the copy was planned: not followed")
		}
		return file, err
	}
}

// openRel opens rel below the source directory, following no link.
func (o *srcOpener) openRel(rel string) (*os.File, error) {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	d := o.dir
	for _, name := range parts[:len(parts)-1] {
		sub, err := d.Sub(name, false)
		if d != o.dir {
			d.Close()
		}
		if err != nil {
			return nil, err
		}
		d = sub
	}
	if d != o.dir {
		defer d.Close()
	}
	return d.OpenFile(parts[len(parts)-1], os.O_RDONLY, 0)
}

// refuse is the one-line error for f, not uploaded.
func (o *srcOpener) refuse(f upFile, why string) error {
	return &proxy.Error{Op: "upload", Runtime: o.c.id, Path: f.remote, Kind: proxy.ErrLocal, Message: f.local + " " + why + "; not uploaded"}
}
