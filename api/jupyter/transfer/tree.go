package transfer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
	"github.com/colabdash/colabdash/api/safefile"
)

// CopyOptions steer UploadPath and DownloadPath.
type CopyOptions struct {
	// Recursive allows a directory source (cp -r).
	Recursive bool
	// Progress is called as each file moves: its source, done bytes and
	// total (-1 unknown).
	Progress func(src string, done, total int64)
	// OnFile is called after each file copied.
	OnFile func(FileResult)
	// Warn receives one-line warnings (hidden files not listed, special
	// files skipped).
	Warn func(string)
}

// FileResult is one file a copy moved.
type FileResult struct {
	// Src and Dst are the file's source and destination, a remote side
	// written RUNTIME:PATH.
	Src, Dst string
	// Bytes copied; Duration of the copy.
	Bytes    int64
	Duration time.Duration
	// Deleted is true when an upload deleted the existing remote file
	// before its new copy took the name (a chunked replace): the
	// runtime's Jupyter server may keep the old one in its trash
	// (TrashNote, field case 62).
	Deleted bool
}

func (o CopyOptions) progress(src string) Progress {
	return func(done, total int64) {
		if o.Progress != nil {
			o.Progress(src, done, total)
		}
	}
}

func (o CopyOptions) warn(format string, a ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, a...))
	}
}

func (o CopyOptions) done(r FileResult) {
	if o.OnFile != nil {
		o.OnFile(r)
	}
}

// UploadPath copies a local file or directory to the runtime. The rule
// (the same as DownloadPath's, field case 54):
//
//   - a file goes to dst, or into dst under its own name when dst ends in
//     "/" (dstDir) or is an existing directory;
//   - a directory (Recursive) is copied AS dst: dst is created when
//     missing (its parent must exist) and merged into when present, files
//     overwritten. Repeating the command changes nothing more; it never
//     nests src inside dst. A trailing slash on either side does not
//     change this.
//
// Hidden entries below a directory source (names starting with ".",
// which Jupyter's contents API refuses to create) are skipped with
// everything inside them, and one warning counts them. Nothing is
// created directly in the runtime's root (proxy.Creatable: an proxy.ErrTopLevel error
// before any request). It stops at the first failure.
func (c *Copier) UploadPath(ctx context.Context, src, dst string, dstDir bool, o CopyOptions) error {
	dst = proxy.CleanRemote(dst)
	st, err := os.Stat(src)
	if err != nil {
		return c.localError("upload", dst, src, err)
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		// A FIFO would block the upload forever, a device never ends.
		return &proxy.Error{Op: "upload", Runtime: c.id, Path: dst, Kind: proxy.ErrLocal, Message: src + " is not a regular file (" + st.Mode().Type().String() + ")"}
	}
	if !st.IsDir() {
		target := dst
		if dstDir {
			target = path.Join(dst, filepath.Base(src))
		} else if m, err := c.Stat(ctx, dst); err == nil && m.IsDir() {
			target = path.Join(dst, filepath.Base(src))
		}
		return c.uploadFile(ctx, src, target, o) // Upload refuses a top-level target (proxy.Creatable)
	}
	if !o.Recursive {
		return &proxy.Error{Op: "upload", Runtime: c.id, Path: dst, Kind: proxy.ErrLocal, Message: src + " is a directory (use -r)"}
	}
	if err := proxy.Creatable(c.id, dst); err != nil {
		return err
	}
	if err := c.ensureDir(ctx, dst); err != nil {
		return err
	}
	hidden := 0
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return &proxy.Error{Op: "upload", Runtime: c.id, Path: dst, Kind: proxy.ErrLocal, Message: err.Error()}
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			// Jupyter's contents API refuses to create hidden names
			// (field case 52): skipped, with everything below them, and
			// counted for one warning; the rest is still copied.
			hidden++
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := path.Join(dst, filepath.ToSlash(rel))
		switch {
		case d.IsDir():
			return c.ensureDir(ctx, target)
		case d.Type()&fs.ModeSymlink != 0:
			st, err := os.Stat(p)
			if err != nil || !st.Mode().IsRegular() {
				o.warn("skipped %s: a symbolic link to something other than a file", p)
				return nil
			}
			return c.uploadFile(ctx, p, target, o)
		case !d.Type().IsRegular():
			o.warn("skipped %s: not a regular file", p)
			return nil
		}
		return c.uploadFile(ctx, p, target, o)
	})
	if hidden > 0 {
		o.warn("skipped %d hidden %s in %s (names starting with \".\", with everything inside them): the runtime's Jupyter server refuses them; use exec with tar for them",
			hidden, plural(hidden, "entry", "entries"), src)
	}
	return err
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ensureDir creates one remote directory whose parent must exist, and
// accepts an existing one.
func (c *Copier) ensureDir(ctx context.Context, remote string) error {
	m, err := c.Stat(ctx, remote)
	switch {
	case err == nil && m.IsDir():
		return nil
	case err == nil:
		return &proxy.Error{Op: "mkdir", Runtime: c.id, Path: remote, Kind: proxy.ErrNotDir}
	case !errors.Is(err, proxy.ErrNotFound):
		return err
	}
	_, err = c.Mkdir(ctx, remote)
	return err
}

// uploadFile uploads the local file src to remote (UploadFile: a file
// whose stat size is 0 is read to its end, never sent empty).
func (c *Copier) uploadFile(ctx context.Context, src, remote string, o CopyOptions) error {
	start := time.Now()
	_, n, deleted, err := c.uploadLocal(ctx, src, remote, o.progress(src))
	if err != nil {
		return err
	}
	o.done(FileResult{Src: src, Dst: c.id + ":" + remote, Bytes: n, Duration: time.Since(start), Deleted: deleted})
	return nil
}

// localError is the *proxy.Error for a local file problem: proxy.ErrLocalNotFound
// when it does not exist.
func (c *Copier) localError(op, remote, p string, err error) *proxy.Error {
	if errors.Is(err, fs.ErrNotExist) {
		return &proxy.Error{Op: op, Runtime: c.id, Path: remote, Kind: proxy.ErrLocalNotFound, Message: p}
	}
	return &proxy.Error{Op: op, Runtime: c.id, Path: remote, Kind: proxy.ErrLocal, Message: localStatMessage(p, err)}
}

func localStatMessage(p string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// DownloadPath copies a remote file or directory to the local disk, by
// the rule of UploadPath: a file goes to dst (or into dst when dstDir or
// an existing directory); a directory (Recursive) is copied AS dst,
// created when missing (its parent must exist) and merged into when
// present. Every local path is built from validated name components and
// checked to stay inside dst (field case 46); a remote name that becomes
// a local one (a file into a directory, every entry of a directory) must
// pass proxy.LocalName, else the copy stops there with proxy.ErrUnsafeName. An absurd
// depth stops the walk. A name a listing gives twice, and a directory whose
// listing repeats an ancestor's (a loop, listcheck.go), are skipped with a
// warning each; the rest is copied and the copy then fails with
// proxy.ErrBadListing. Jupyter does not list hidden entries: a
// recursive download warns once that any there may be missing (field case
// 52), since the listing cannot say whether there are some.
func (c *Copier) DownloadPath(ctx context.Context, src, dst string, dstDir bool, o CopyOptions) error {
	src = proxy.CleanRemote(src)
	m, err := c.Stat(ctx, src)
	if err != nil {
		return proxy.WithOp(err, "download", src)
	}
	if !m.IsDir() {
		if st, err := os.Stat(dst); dstDir || (err == nil && st.IsDir()) {
			// The local name comes from the runtime: checked as a
			// recursive download checks every entry's, and never
			// followed when a link is there.
			name := path.Base(src)
			if err := proxy.LocalName(name); err != nil {
				return &proxy.Error{Op: "download", Runtime: c.id, Path: src, Kind: proxy.ErrUnsafeName,
					Message: "its name " + err.Error() + "; download it to a local file name of your own"}
			}
			d, err := c.openLocalDir(src, dst)
			if err != nil {
				return err
			}
			defer d.Close()
			return c.downloadFile(ctx, src, d, name, m, o)
		}
		d, name, err := c.openNamed(src, dst)
		if err != nil {
			return err
		}
		defer d.Close()
		return c.downloadFile(ctx, src, d, name, m, o)
	}
	if !o.Recursive {
		return &proxy.Error{Op: "download", Runtime: c.id, Path: src, Kind: proxy.ErrIsDir}
	}
	if err := mkdirLocal(dst); err != nil {
		return c.localError("download", src, filepath.Dir(dst), err)
	}
	d, err := c.openLocalDir(src, dst)
	if err != nil {
		return err
	}
	defer d.Close()
	// Jupyter's listings never show hidden names, so whether src holds
	// any cannot be known from here: the warning says it may.
	o.warn("the runtime's Jupyter server never lists hidden names (starting with \".\"): any in /%s were not copied; use exec with tar for them", src)
	w := &walker{c: c, o: o, root: dst, seen: map[string]bool{}}
	if err := w.down(ctx, src, d, 0); err != nil {
		return err
	}
	return w.incomplete(src)
}

func mkdirLocal(dir string) error {
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s exists and is not a directory", dir)
		}
		return nil
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	return nil
}

type walker struct {
	c       *Copier
	o       CopyOptions
	root    string
	seen    map[string]bool
	entries int
	anc     ancestry // the directories the walk is in (listcheck.go)
	skipped []skip   // entries not copied, each already warned about (skip.go)
}

// down copies the remote directory remote into local, the open local
// directory it maps to (below the destination: reached without
// following any link).
func (w *walker) down(ctx context.Context, remote string, local *safefile.Dir, depth int) error {
	c := w.c
	if depth > proxy.MaxDepth {
		return &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrUnsafeName, Message: "directory tree deeper than 64 levels"}
	}
	if w.seen[remote] {
		return &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrUnsafeName, Message: "the listing loops back to a directory already copied"}
	}
	w.seen[remote] = true
	l, err := c.List(ctx, remote)
	if err != nil {
		if depth > 0 && w.skip(remote, err) {
			return nil
		}
		return proxy.WithOp(err, "download", remote)
	}
	enter, dups := w.vet(remote, l.Entries)
	if !enter {
		return nil
	}
	defer w.anc.leave()
	for _, e := range l.Entries {
		if _, dup := dups[e.Name]; dup {
			continue
		}
		if w.entries++; w.entries > maxEntries {
			return &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrUnsafeName, Message: "more than a million entries"}
		}
		name, err := proxy.SafeName(e, remote)
		if err == nil {
			if lerr := proxy.LocalName(name); lerr != nil {
				err = fmt.Errorf("entry %q %v", name, lerr)
			}
		}
		if err != nil {
			return &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrUnsafeName, Message: err.Error()}
		}
		target := local.Join(name)
		if !within(w.root, target) {
			return &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrUnsafeName, Message: fmt.Sprintf("entry %q leaves the destination", name)}
		}
		child := remote + "/" + name
		if e.IsDir() {
			// A link (out/sub -> /elsewhere) or a file where the
			// directory goes is refused and skipped, as GNU cp does.
			sub, err := local.Sub(name, true)
			if err != nil {
				if refusal(err) {
					w.refuse(&proxy.Error{Op: "download", Runtime: c.id, Path: child, Kind: proxy.ErrLocal, Message: err.Error()})
					continue
				}
				return c.localError("download", child, target, err)
			}
			err = w.down(ctx, child, sub, depth+1)
			sub.Close()
			if err != nil {
				return err
			}
			continue
		}
		// The listing's own model (size, last_modified) is the file's:
		// no second round trip to stat it.
		if err := c.downloadFile(ctx, child, local, name, e, w.o); err != nil {
			var s *skipped
			if errors.As(err, &s) {
				w.refuse(s.e)
				continue
			}
			if w.skip(child, err) {
				continue
			}
			return err
		}
	}
	return nil
}

// downloadFile downloads the remote file whose model m is known to name
// inside dir.
func (c *Copier) downloadFile(ctx context.Context, remote string, dir *safefile.Dir, name string, m proxy.Model, o CopyOptions) error {
	start := time.Now()
	m, err := c.download(ctx, remote, dir, name, m, o.progress(c.id+":"+remote))
	if err != nil {
		return err
	}
	o.done(FileResult{Src: c.id + ":" + remote, Dst: dir.Join(name), Bytes: m.Size, Duration: time.Since(start)})
	return nil
}
