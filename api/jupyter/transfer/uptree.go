package transfer

// The recursive upload (cp -r to a runtime): the local tree is walked
// first, then each remote directory costs one request (created when its
// parent's listing lacks it, listed once when it exists: that listing
// says which of its files exist and what is in the way), then the files
// move several at a time (concurrent.go), each that fits one request in
// one PUT whose reply carries its size.

import (
	"context"
	"errors"
	"fmt"
	"github.com/colabdash/colabdash/api/plural"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// UploadPath copies a local file or directory to the runtime. The rule
// (the same as DownloadPath's):
//
//   - a file goes to dst, or into dst under its own name when dst ends in
//     "/" (dstDir) or is an existing directory;
//   - a directory (Recursive) goes into dst under its own name when dst
//     is an existing directory (dst/NAME, merged into when present, files
//     overwritten), as cp, scp and docker cp do; when dst does not exist
//     it is created AS dst (its parent must exist). A trailing slash on
//     either side does not change this.
//
// Hidden entries below a directory source (names starting with ".",
// which Jupyter's contents API refuses to create) are skipped with
// everything inside them, and one warning counts them. Nothing is
// created directly in the runtime's root (proxy.Creatable: an
// proxy.ErrTopLevel error before any request).
//
// A directory's files move o.Jobs at a time and are reported (OnFile)
// in the order of their paths. A file that fails (a directory in its
// way, a corrupt copy, a local read error) does not stop the others: a
// single failure is returned as it is once the rest is copied; several
// are each warned about and the error counts them, of the first one's
// kind. A failure that would fail every file (the runtime gone, the
// token refused, the network down after retries, ctx ended) starts no
// other file and is returned once those in flight end.
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
		return c.uploadFile(ctx, src, target, o, nil) // Upload refuses a top-level target (proxy.Creatable); src is followed as named
	}
	if !o.Recursive {
		return &proxy.Error{Op: "upload", Runtime: c.id, Path: dst, Kind: proxy.ErrLocal, Message: src + " is a directory (use -r)"}
	}
	if dst, err = c.uploadDirDest(ctx, src, dst); err != nil {
		return err
	}
	if err := proxy.Creatable(c.id, dst); err != nil {
		return err
	}
	plan, err := c.planUpload(src, dst, o)
	if err != nil {
		return err
	}
	open, err := c.newSrcOpener(src, dst, plan.root, o.FollowLinks)
	if err != nil {
		return err
	}
	defer open.close()
	root := &plan.dirs[0]
	if root.entries, err = c.openRemoteDir(ctx, dst, nil); err != nil {
		return err
	}
	if o.Planned != nil {
		o.Planned(len(plan.files), plan.bytes)
	}
	var failed []error
	fail := func(err error) { failed = append(failed, err) }
	// The directories, one depth at a time: a directory's parent is
	// ready (created or listed) before it.
	for depth := 1; depth <= plan.depth; depth++ {
		var jobs []fileJob
		for i := range plan.dirs {
			d := &plan.dirs[i]
			if d.depth != depth || plan.dirs[d.parent].entries == nil {
				continue
			}
			parent := &plan.dirs[d.parent]
			jobs = append(jobs, fileJob{
				run: func(ctx context.Context) (FileResult, error) {
					var err error
					d.entries, err = c.openRemoteDir(ctx, d.remote, parent.entries)
					return FileResult{}, err
				},
				finish: func(_ FileResult, err error) {
					if err != nil {
						fail(err)
					}
				},
			})
		}
		if err := runPlan(ctx, jobs, o.jobs()); err != nil {
			return err
		}
	}
	var jobs []fileJob
	for _, f := range plan.files {
		parent := plan.dirs[f.parent].entries
		if parent == nil {
			continue // its directory failed, and was reported
		}
		jobs = append(jobs, fileJob{
			run: func(ctx context.Context) (FileResult, error) {
				t, exists := parent[path.Base(f.remote)]
				if exists && t == proxy.TypeDirectory {
					return FileResult{}, &proxy.Error{Op: "upload", Runtime: c.id, Path: f.remote, Kind: proxy.ErrIsDir, Message: "a directory is in the way"}
				}
				return c.sendLocal(ctx, f.local, f.remote, o, &remoteState{exists: exists}, open.file(f))
			},
			finish: func(r FileResult, err error) {
				if err != nil {
					fail(err)
					return
				}
				o.done(r)
			},
		})
	}
	err = runPlan(ctx, jobs, o.jobs())
	if plan.hidden > 0 {
		o.warn("skipped %d hidden %s in %s (names starting with \".\", with everything inside them): the runtime's Jupyter server refuses them; use exec with tar for them",
			plan.hidden, plural.Noun(plan.hidden, "entry", "entries"), src)
	}
	if err != nil {
		return proxy.WithOp(err, "upload", dst)
	}
	return notCopied(c.id, "upload", dst, failed, o)
}

// upPlan is a recursive upload's plan: the local tree, in walk (path)
// order, mapped to the remote.
type upPlan struct {
	dirs   []upDir // dirs[0] is the destination itself
	files  []upFile
	bytes  int64
	depth  int    // the deepest directory's depth (the destination's is 0)
	hidden int    // hidden entries skipped
	root   string // the source directory, its links resolved
}

// upDir is a directory of the plan; entries (its remote listing's names
// and types) is set once it exists on the runtime.
type upDir struct {
	remote  string
	depth   int
	parent  int
	entries map[string]string
}

// upFile is a file of the plan, in the directory plan.dirs[parent].
type upFile struct {
	local, remote string
	parent        int
	rel           string // local's path below the source directory
	link          bool   // a symbolic link (to a file inside the source, without FollowLinks) when planned
}

// planUpload walks the local directory src (lexical order, as
// filepath.WalkDir), skipping hidden names with everything inside them,
// special files, links to anything but a file (a dangling one is said to
// point to nothing), and links that lead out of src unless o.FollowLinks
// (each warned about).
func (c *Copier) planUpload(src, dst string, o CopyOptions) (*upPlan, error) {
	plan := &upPlan{dirs: []upDir{{remote: dst, parent: -1}}}
	index := map[string]int{".": 0}
	root, err := filepath.EvalSymlinks(src)
	if err != nil {
		return nil, &proxy.Error{Op: "upload", Runtime: c.id, Path: dst, Kind: proxy.ErrLocal, Message: err.Error()}
	}
	plan.root = root
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return &proxy.Error{Op: "upload", Runtime: c.id, Path: dst, Kind: proxy.ErrLocal, Message: err.Error()}
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			// Jupyter's contents API refuses to create hidden names:
			// skipped, with everything below them, and
			// counted for one warning; the rest is still copied.
			plan.hidden++
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		// dirs holds the destination too: this entry would be the
		// (len(dirs)+len(files))th below src.
		if len(plan.dirs)+len(plan.files) > maxEntries {
			return &proxy.Error{Op: "upload", Runtime: c.id, Path: dst, Kind: proxy.ErrLocal, Message: "more than a million entries in " + src}
		}
		target := path.Join(dst, filepath.ToSlash(rel))
		parent := index[filepath.Dir(rel)]
		var size int64
		link := false
		switch {
		case d.IsDir():
			depth := plan.dirs[parent].depth + 1
			if depth > proxy.MaxDepth { // the download's limit too
				return &proxy.Error{Op: "upload", Runtime: c.id, Path: dst, Kind: proxy.ErrUnsafeName, Message: src + ": " + proxy.DepthText()}
			}
			index[rel] = len(plan.dirs)
			plan.dirs = append(plan.dirs, upDir{remote: target, depth: depth, parent: parent})
			plan.depth = max(plan.depth, depth)
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			st, err := os.Stat(p)
			if errors.Is(err, fs.ErrNotExist) {
				// A dangling link: "something other than a file" read as
				// a directory or a device.
				if t, rerr := os.Readlink(p); rerr == nil {
					o.warn("skipped %s: a symbolic link that points to nothing (its target %s does not exist)", p, t)
				} else {
					o.warn("skipped %s: a symbolic link that points to nothing (its target does not exist)", p)
				}
				return nil
			}
			if err != nil || !st.Mode().IsRegular() {
				o.warn("skipped %s: a symbolic link to something other than a file", p)
				return nil
			}
			if !o.FollowLinks && !inside(root, p) {
				o.warn("skipped %s: a symbolic link to a file outside %s (cp -L follows it; or copy that file on its own)", p, src)
				return nil
			}
			size, link = st.Size(), true
		case !d.Type().IsRegular():
			o.warn("skipped %s: not a regular file", p)
			return nil
		default:
			if info, err := d.Info(); err == nil {
				size = info.Size()
			}
		}
		plan.files = append(plan.files, upFile{local: p, remote: target, parent: parent, rel: rel, link: link})
		plan.bytes += size
		return nil
	})
	return plan, err
}

// inside reports whether the symbolic link p resolves to a file within
// root (itself resolved). A file is never root's parent itself, so a
// relative path from root that does not climb out is inside; one on
// another volume (Windows) is absolute.
func inside(root, p string) bool {
	t, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, t)
	return err == nil && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// openRemoteDir makes the remote directory remote ready for a recursive
// upload in one request and returns its entries' names and types:
// created (empty) when parent, its parent's entries, lacks it, listed
// when it has it as a directory; an ErrNotDir error when a file is in
// the way. With parent nil (the destination itself) the listing says
// whether it exists; a missing one is created (its parent must exist).
func (c *Copier) openRemoteDir(ctx context.Context, remote string, parent map[string]string) (map[string]string, error) {
	if parent != nil {
		t, ok := parent[path.Base(remote)]
		switch {
		case !ok:
			if _, err := c.Mkdir(ctx, remote); err != nil {
				return nil, err
			}
			return map[string]string{}, nil
		case t != proxy.TypeDirectory:
			return nil, &proxy.Error{Op: "mkdir", Runtime: c.id, Path: remote, Kind: proxy.ErrNotDir}
		}
	}
	entries := map[string]string{}
	_, _, err := c.ListEach(ctx, remote, func(e proxy.Model) error {
		entries[e.Name] = e.Type
		return nil
	})
	switch {
	case err == nil:
		return entries, nil
	case parent == nil && errors.Is(err, proxy.ErrNotFound):
		if _, err := c.Mkdir(ctx, remote); err != nil {
			return nil, err
		}
		return map[string]string{}, nil
	case errors.Is(err, proxy.ErrNotDir):
		return nil, &proxy.Error{Op: "mkdir", Runtime: c.id, Path: remote, Kind: proxy.ErrNotDir}
	}
	return nil, proxy.WithOp(err, "upload", remote)
}

// uploadFile uploads the local file src to remote (UploadFile: a file
// whose stat size is 0 is read to its end, never sent empty) and reports
// it (OnFile).
func (c *Copier) uploadFile(ctx context.Context, src, remote string, o CopyOptions, known *remoteState) error {
	r, err := c.sendLocal(ctx, src, remote, o, known, nil)
	if err != nil {
		return err
	}
	o.done(r)
	return nil
}

// sendLocal uploads the local file src to remote (known: what the
// parent's listing said of it; open: openSource's) and returns what to
// report.
func (c *Copier) sendLocal(ctx context.Context, src, remote string, o CopyOptions, known *remoteState, open func() (*os.File, error)) (FileResult, error) {
	start := time.Now()
	_, n, deleted, err := c.uploadLocal(ctx, src, remote, o.progress(src), known, open)
	if err != nil {
		return FileResult{}, err
	}
	return FileResult{Src: src, Dst: c.id + ":" + remote, Bytes: n, Duration: time.Since(start), Deleted: deleted}, nil
}

// notCopied is the error a recursive copy of root ends with after its
// files' failures (nil when none): a single one as it is; several each
// warned about (in path order) and counted in one error of the first
// one's kind.
func notCopied(id, op, root string, failed []error, o CopyOptions) error {
	switch len(failed) {
	case 0:
		return nil
	case 1:
		return failed[0]
	}
	kind := proxy.ErrLocal
	var remotes []string
	for i, err := range failed {
		o.warn("not copied: %s", err.Error())
		var je *proxy.Error
		if errors.As(err, &je) {
			if i == 0 {
				kind = je.Kind
			}
			remotes = append(remotes, je.Path)
		}
	}
	return &proxy.Error{Op: op, Runtime: id, Path: root, Kind: kind, Message: notCopiedText(id, len(failed), remotes)}
}

// notCopiedText is the closing line's detail of a recursive copy (up or
// down) after n entries were not copied: the count and the first three
// remote paths, written RUNTIME:/PATH as every message writes them (they
// were bare /PATH once, which did not say which runtime).
func notCopiedText(id string, n int, remotes []string) string {
	names := make([]string, 0, 4)
	for i, r := range remotes {
		if i == 3 {
			names = append(names, "…")
			break
		}
		names = append(names, id+":"+proxy.DisplayName("/"+proxy.CleanRemote(r)))
	}
	return fmt.Sprintf("%d %s not copied, each named above; the rest was copied: %s", n, plural.Noun(n, "entry", "entries"), strings.Join(names, ", "))
}
