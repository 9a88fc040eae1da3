package transfer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
	// files skipped, files not copied).
	Warn func(string)
	// Jobs is how many files a recursive copy moves at once (0:
	// DefaultJobs; at most MaxJobs). Progress may then be called from
	// several goroutines at once; OnFile and Warn are called one at a
	// time, in the order of the files' paths.
	Jobs int
	// FollowLinks uploads what a symbolic link inside a source directory
	// points at wherever it leads (cp -L). Without it a link is followed
	// only to a file inside the source directory: one that leads out of
	// it (to ~/.ssh/id_rsa in a cloned repository, say) is skipped with
	// a warning naming it.
	FollowLinks bool
	// Links, when set, lists the symbolic links below a directory before
	// DownloadPath walks it (LinkCheck; the contents API lists a link to
	// a directory as a directory): every link is skipped, never walked
	// or fetched, and one warning says how many; a directory that is
	// itself a link, or a check that fails, refuses the copy
	// (proxy.ErrLinks). FollowLinks turns the check off. Nil: no check,
	// the listings are walked as they are (every colabdash front end sets
	// it; tests of the walk alone leave it nil).
	Links LinkCheck
	// Planned is called once a recursive copy knows what it will move,
	// before the first file: how many files and their bytes (the sizes
	// the local walk or the runtime's listings gave).
	Planned func(files int, bytes int64)
	// Overwrite lets a download replace local files that exist (cp -f).
	// Without it a download that would replace one refuses
	// (proxy.ErrLocalExists) before it writes any file: a recursive one
	// after its walk, naming the first such file and counting the others,
	// and removing the directories the walk created. Uploads replace
	// remote files as before.
	Overwrite bool
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
	// (TrashNote).
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
// an existing directory); a directory (Recursive) goes into dst under its
// own name when dst is an existing directory (dst/NAME, then merged into
// when present), else it is created AS dst (its parent must exist). A
// local file is replaced only with o.Overwrite (else ErrLocalExists
// before any file is written). Every local path is built from validated name components and
// checked to stay inside dst; a remote name that becomes
// a local one (a file into a directory, every entry of a directory) must
// pass proxy.LocalName, else the copy stops there with proxy.ErrUnsafeName. An absurd
// depth stops the walk. A name a listing gives twice, and a directory whose
// listing repeats an ancestor's (a loop, listcheck.go), are skipped with a
// warning each; the rest is copied and the copy then fails with
// proxy.ErrBadListing. Jupyter does not list hidden entries: a
// recursive download warns once that any there may be missing,
// since the listing cannot say whether there are some.
//
// A recursive download lists the whole tree first (each listing walked in
// name order), then downloads o.Jobs files at once, reported (OnFile) in
// that order; a file's failure is handled as UploadPath's: the rest is
// copied, a lone failure returned as it is, several warned about and
// counted, and a failure that would fail them all starts no other file.
func (c *Copier) DownloadPath(ctx context.Context, src, dst string, dstDir bool, o CopyOptions) error {
	src = proxy.CleanRemote(src)
	m, err := c.Stat(ctx, src)
	if err != nil {
		return proxy.WithOp(err, "download", src)
	}
	if !m.IsDir() {
		return c.downloadOne(ctx, src, dst, dstDir, m, o)
	}
	if !o.Recursive {
		return &proxy.Error{Op: "download", Runtime: c.id, Path: src, Kind: proxy.ErrIsDir}
	}
	links, hidden, err := c.checkLinks(ctx, src, o)
	if err != nil {
		return err
	}
	if dst, err = c.downloadDirDest(src, dst); err != nil {
		return err
	}
	if err := mkdirLocal(dst); err != nil {
		return c.localError("download", src, filepath.Dir(dst), err)
	}
	d, err := c.openLocalDir(src, dst)
	if err != nil {
		return err
	}
	defer d.Close()
	// With the links listed on the runtime and skipped, the walk meets no
	// link, so no loop: a deep chain of look-alike directories is copied
	// whole instead of being taken for one.
	w := &walker{c: c, o: o, root: dst, seen: map[string]bool{}, src: src, links: links,
		noLoops: o.Links != nil && !o.FollowLinks}
	defer w.closeDirs()
	if err := w.down(ctx, src, newDirRef(d), 0); err != nil {
		return err
	}
	if w.linked > 0 {
		o.warn("skipped %d symbolic link(s) in /%s: a link is never followed, not even to a file (-L copies what they point to)", w.linked, src)
	}
	if len(w.exists) > 0 {
		undoDirs(w.made)
		return c.localExists(src, w.exists)
	}
	// Jupyter's listings never show hidden names: the runtime's own
	// check counted them, and the warning is said only when there are
	// some. Without that check (-L) whether src holds any is not known,
	// and the warning says they may be missing.
	switch {
	case hidden > 0:
		o.warn("%s in /%s not copied: the runtime's Jupyter server never serves names starting with \".\"; use exec with tar for them", hiddenNames(hidden), src)
	case hidden < 0:
		o.warn("the runtime's Jupyter server never lists hidden names (starting with \".\"): any in /%s were not copied; use exec with tar for them", src)
	}
	if o.Planned != nil {
		o.Planned(len(w.jobs), w.bytes)
	}
	if err := runPlan(ctx, w.jobs, o.jobs()); err != nil {
		return err
	}
	if len(w.failed) == 1 && len(w.skipped) == 0 {
		return w.failed[0]
	}
	for _, err := range w.failed {
		w.o.warn("not copied: %s", err.Error())
		var je *proxy.Error
		if errors.As(err, &je) {
			w.note(je.Path, je.Kind)
		} else {
			w.note(src, proxy.ErrLocal)
		}
	}
	return w.incomplete(src)
}

// downloadOne is DownloadPath of the remote file src, whose model m is
// known: into dst under its own name when dstDir or dst is an existing
// directory, else to the file dst (a device or FIFO written in place).
func (c *Copier) downloadOne(ctx context.Context, src, dst string, dstDir bool, m proxy.Model, o CopyOptions) error {
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
		if !o.Overwrite && existingFile(d, name) {
			return c.localExists(src, []string{d.Join(name)})
		}
		return c.downloadFile(ctx, src, d, name, m, o)
	}
	if inPlace(dst) { // a device, a FIFO, /dev/stdout: no part file, no rename
		return c.downloadNamedInPlace(ctx, src, dst, m, o)
	}
	d, name, err := c.openNamed(src, dst)
	if err != nil {
		return err
	}
	defer d.Close()
	if !o.Overwrite && existingFile(d, name) {
		return c.localExists(src, []string{dst})
	}
	return c.downloadFile(ctx, src, d, name, m, o)
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
	src     string          // the directory named
	links   map[string]bool // the links below src, relative to it (Links)
	noLoops bool            // the links were listed and are skipped: no listing can loop
	linked  int             // listed entries skipped as links
	anc     ancestry        // the directories the walk is in (listcheck.go)
	skipped []skip          // entries not copied, each already warned about (listcheck.go)

	jobs   []fileJob // the files to download, in path order
	bytes  int64     // their sizes, as listed
	dirs   []*dirRef // the local directories the jobs write into
	failed []error   // files whose download failed (not skipped)
	exists []string  // local files the jobs would replace (without Overwrite)
	made   []string  // local directories the walk created, parents first
}

// dirRef is an open local directory that download jobs write into: it
// is closed when the walk has left it and its last job has ended, so a
// tree of many directories does not hold them all open.
type dirRef struct {
	d    *safefile.Dir
	refs atomic.Int32
	once sync.Once
}

// newDirRef holds d for the walk, which releases it when it leaves.
func newDirRef(d *safefile.Dir) *dirRef {
	r := &dirRef{d: d}
	r.refs.Store(1)
	return r
}

func (r *dirRef) hold() { r.refs.Add(1) }

func (r *dirRef) release() {
	if r.refs.Add(-1) == 0 {
		r.once.Do(func() { r.d.Close() })
	}
}

// closeDirs closes the directories whose jobs never ran (a copy
// stopped early).
func (w *walker) closeDirs() {
	for _, r := range w.dirs {
		r.once.Do(func() { r.d.Close() })
	}
}

// down plans the copy of the remote directory remote into local, the
// open local directory it maps to (below the destination: reached
// without following any link): its subdirectories are created and
// walked, its files become jobs. It releases local when done.
func (w *walker) down(ctx context.Context, remote string, ref *dirRef, depth int) error {
	defer ref.release()
	local := ref.d
	c := w.c
	if depth > proxy.MaxDepth {
		return &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrUnsafeName, Message: proxy.DepthText()}
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
	// Path order, whatever the server's (jupyter-server lists in the
	// file system's order): the copy reports its files in this order.
	sort.SliceStable(l.Entries, func(i, j int) bool { return l.Entries[i].Name < l.Entries[j].Name })
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
		if w.links[strings.TrimPrefix(child, w.src+"/")] {
			w.linked++
			continue
		}
		if e.IsDir() {
			// A link (out/sub -> /elsewhere) or a file where the
			// directory goes is refused and skipped, as GNU cp does.
			_, merr := local.Mode(name)
			sub, err := local.Sub(name, true)
			if err != nil {
				if refusal(err) {
					w.refuse(&proxy.Error{Op: "download", Runtime: c.id, Path: child, Kind: proxy.ErrLocal, Message: err.Error()})
					continue
				}
				return c.localError("download", child, target, err)
			}
			if isNotExist(merr) {
				w.made = append(w.made, target)
			}
			sr := newDirRef(sub)
			w.dirs = append(w.dirs, sr)
			if err := w.down(ctx, child, sr, depth+1); err != nil {
				return err
			}
			continue
		}
		w.plan(child, ref, name, e)
	}
	return nil
}

// plan adds the download of the remote file child, whose model e the
// listing gave (size, last_modified: no second round trip to stat it),
// to name in ref's directory.
func (w *walker) plan(child string, ref *dirRef, name string, e proxy.Model) {
	if !w.o.Overwrite && existingFile(ref.d, name) {
		w.exists = append(w.exists, ref.d.Join(name))
	}
	ref.hold()
	if e.Size > 0 {
		w.bytes += e.Size
	}
	w.jobs = append(w.jobs, fileJob{
		run: func(ctx context.Context) (FileResult, error) {
			defer ref.release()
			start := time.Now()
			m, err := w.c.download(ctx, child, ref.d, name, e, w.o.progress(w.c.id+":"+child), !w.o.Overwrite)
			return FileResult{Src: w.c.id + ":" + child, Dst: ref.d.Join(name), Bytes: m.Size, Duration: time.Since(start)}, err
		},
		finish: func(r FileResult, err error) {
			var s *skipped
			switch {
			case err == nil:
				w.o.done(r)
			case errors.As(err, &s):
				w.refuse(s.e)
			case w.skip(child, err):
			default:
				w.failed = append(w.failed, err)
			}
		},
	})
}

// downloadFile downloads the remote file whose model m is known to name
// inside dir.
func (c *Copier) downloadFile(ctx context.Context, remote string, dir *safefile.Dir, name string, m proxy.Model, o CopyOptions) error {
	start := time.Now()
	m, err := c.download(ctx, remote, dir, name, m, o.progress(c.id+":"+remote), !o.Overwrite)
	if err != nil {
		return err
	}
	o.done(FileResult{Src: c.id + ":" + remote, Dst: dir.Join(name), Bytes: m.Size, Duration: time.Since(start)})
	return nil
}

// hiddenNames counts hidden names in words: "1 hidden name", "3 hidden
// names".
func hiddenNames(n int) string {
	if n == 1 {
		return "1 hidden name"
	}
	return fmt.Sprintf("%d hidden names", n)
}
