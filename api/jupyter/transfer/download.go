package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
	"github.com/colabdash/colabdash/api/safefile"
)

// partFile is the download's temporary file (an *os.File; tests wrap it
// to fail writes like a full disk).
type partFile interface {
	io.WriterAt
	Truncate(size int64) error
	Sync() error
	Close() error
}

// errRestart asks Download to start again from byte 0 (the server ignored
// or mangled Range, or the remote file changed).
type errRestart struct{ why string }

func (e *errRestart) Error() string { return e.why }

// Download copies the remote file p to the local file target and returns
// the remote model. The bytes go to target + PartSuffix; after a dropped
// connection (or a stall of IdleTimeout) the transfer resumes with Range
// from the bytes already written, appending only when the answer's
// Content-Range starts there, rewriting from 0 on a 200 without
// Content-Range, and restarting when the remote file's size changed.
// target appears, by rename, only once the part file's
// size equals the remote size.
//
// A target that is not a regular file (a device, a FIFO, /dev/stdout or
// another descriptor's name: inPlace) is written in place instead,
// appending, with no part file and no rename (inplace.go). A FIFO no
// process is reading is refused at once with proxy.ErrLocal (the open
// never waits for a reader), and a write the FIFO's reader keeps waiting
// ends when ctx does.
//
// target is a path the user named: a symbolic link there is followed as
// cp follows one (a link to nothing is refused), and so is any link in
// the directories above it. Every file written below that directory (the
// part file, the final rename) is opened relative to it and never
// through a link (safefile.Dir): a link at the part path is refused, not
// followed. To write a name that came from the runtime into a directory,
// use DownloadInto.
//
// A part file left by an interrupted run is resumed only when the stamp
// Download appended when it kept it names this remote path, its size and
// its last_modified (partstamp.go); otherwise (another version of the
// file, another remote file, no stamp) it is started afresh. On a
// permanent failure (remote file missing, local
// directory missing, disk full, runtime gone) the part file is removed;
// when the connection keeps failing or ctx ends it is kept and the error
// says so, so the same command resumes.
//
// A file whose size the runtime did not report is bounded by
// Options.MaxUnknownSize: past it the download stops with proxy.ErrTooLarge
// and the part file is removed.
//
// Errors (*proxy.Error): proxy.ErrNotFound, proxy.ErrHidden, proxy.ErrIsDir, proxy.ErrLocal,
// proxy.ErrLocalNotFound, proxy.ErrCorrupt, proxy.ErrTooLarge, proxy.ErrRuntimeGone, proxy.ErrRefused,
// proxy.ErrTransport, proxy.ErrServer; the context's error when ctx ends.
func (c *Copier) Download(ctx context.Context, p, target string, progress Progress) (proxy.Model, error) {
	remote := proxy.CleanRemote(p)
	m, err := c.Stat(ctx, remote)
	if err != nil {
		return proxy.Model{}, proxy.WithOp(err, "download", remote)
	}
	if inPlace(target) {
		return c.downloadInPlace(ctx, remote, target, m, progress)
	}
	dir, name, err := c.openNamed(remote, target)
	if err != nil {
		return m, err
	}
	defer dir.Close()
	return c.download(ctx, remote, dir, name, m, progress, false)
}

// DownloadInto is Download of the remote file p into the local directory
// dir (a path the user named, followed as given) under name: one path
// component that came from the runtime, which must pass proxy.LocalName and is
// never followed. A symbolic link or a directory already at dir/name is
// refused with an proxy.ErrLocal error naming it; nothing is written through
// it, and it is left as it is.
func (c *Copier) DownloadInto(ctx context.Context, p, dir, name string, progress Progress) (proxy.Model, error) {
	remote := proxy.CleanRemote(p)
	if err := proxy.LocalName(name); err != nil {
		return proxy.Model{}, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrUnsafeName,
			Message: "the local name " + err.Error()}
	}
	m, err := c.Stat(ctx, remote)
	if err != nil {
		return proxy.Model{}, proxy.WithOp(err, "download", remote)
	}
	d, err := c.openLocalDir(remote, dir)
	if err != nil {
		return m, err
	}
	defer d.Close()
	return c.download(ctx, remote, d, name, m, progress, false)
}

// download is Download of the remote file whose model m the caller
// already has (from a Stat or a directory listing) to name inside dir:
// no request is spent on stat-ing it again. A refusal of what is in the
// way locally (a link, a directory at name, a non-file at the part path)
// is a *skipped. With noReplace, a file found at name when the download ends
// (written there since the caller checked: cp without -f) is not
// replaced: proxy.ErrLocalExists, and the part file is removed.
func (c *Copier) download(ctx context.Context, remote string, dir *safefile.Dir, name string, m proxy.Model, progress Progress, noReplace bool) (proxy.Model, error) {
	if progress == nil {
		progress = func(int64, int64) {}
	}
	if m.IsDir() {
		return m, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrIsDir}
	}
	local := func(format string, a ...any) *proxy.Error {
		return &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrLocal, Message: fmt.Sprintf(format, a...)}
	}
	target := dir.Join(name)
	if mode, err := dir.Mode(name); err == nil {
		switch {
		case mode&fs.ModeSymlink != 0:
			return m, &skipped{local("%s is a symbolic link, not followed: nothing is written through it", target)}
		case mode.IsDir():
			return m, &skipped{local("%s is a directory", target)}
		}
	}
	part := name + PartSuffix
	f, off, err := openPart(dir, part, remote, m)
	if err != nil {
		if refusal(err) {
			return m, &skipped{local("%v", err)}
		}
		return m, local("%v", err)
	}
	var pf partFile = f
	if c.wrapPart != nil {
		pf = c.wrapPart(f)
	}
	closed := false
	discard := func() {
		if !closed {
			_ = pf.Close()
			closed = true
		}
		_ = dir.Remove(part)
	}
	keep := func(err error) (proxy.Model, error) {
		if !closed {
			stampPart(pf, off, remote, m)
			_ = pf.Close()
			closed = true
		}
		kept := fmt.Sprintf("partial download kept in %s: downloading the file again resumes it", dir.Join(part))
		var je *proxy.Error
		if errors.As(err, &je) {
			e := *je
			e.Message = strings.TrimPrefix(e.Message+"; ", "; ") + kept
			return m, &e
		}
		if ctx.Err() != nil {
			return m, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrInterrupted, Message: kept}
		}
		return m, err
	}
	if kept, err := c.fetchRetrying(ctx, remote, pf, &off, &m, progress); err != nil {
		if kept {
			return keep(err)
		}
		discard()
		return m, err
	}
	if err := pf.Sync(); err != nil {
		discard()
		return m, local("%v", err)
	}
	// The size of the file written, not of whatever the path names now.
	st, err := f.Stat()
	if err != nil {
		discard()
		return m, local("%v", err)
	}
	closed = true
	if err := pf.Close(); err != nil {
		_ = dir.Remove(part)
		return m, local("%v", err)
	}
	if m.Size >= 0 && st.Size() != m.Size {
		_ = dir.Remove(part)
		return m, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrCorrupt,
			Message: fmt.Sprintf("received %d bytes, the runtime has %d", st.Size(), m.Size)}
	}
	// Renamed within the open directory: a link that appeared at name
	// since the check above is refused, never replaced or followed; with
	// noReplace, so is a file.
	if noReplace {
		if err := dir.RenameNoReplace(part, name); errors.Is(err, fs.ErrExist) {
			_ = dir.Remove(part)
			return m, c.localExists(remote, []string{dir.Join(name)})
		} else if err != nil {
			_ = dir.Remove(part)
			return m, local("%v", err)
		}
		return m, nil
	}
	if err := dir.Rename(part, name); err != nil {
		_ = dir.Remove(part)
		if refusal(err) {
			return m, &skipped{local("%v", err)}
		}
		return m, local("%v", err)
	}
	return m, nil
}

// openPart opens (creating) the part file inside dir and returns where to resume:
// the length its stamp records when it is a kept part of this same
// remote file and version (stampedLength; the stamp is cut off), else 0
// after truncating it.
//
// A new part file is created with mode 0666 less the umask (0644 under
// the usual 022), as cp and curl -o create files: a downloaded file is
// not a secret, and the final file is the part file renamed.
//
// Anything but a regular file at the part path (a symbolic link someone
// placed there to redirect the write, a FIFO, a directory) is refused,
// never followed: the open is relative to dir with O_NOFOLLOW (and
// O_NONBLOCK, so a FIFO does not block it), and the error names what is
// there (a *safefile.Error: ErrSymlink or ErrNotRegular).
func openPart(dir *safefile.Dir, part, remote string, m proxy.Model) (*os.File, int64, error) {
	if mode, err := dir.Mode(part); err == nil && !mode.IsRegular() {
		return nil, 0, notRegularPart(dir.Join(part), mode)
	}
	f, err := dir.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		if mode, merr := dir.Mode(part); merr == nil && !mode.IsRegular() {
			return nil, 0, notRegularPart(dir.Join(part), mode)
		}
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, notRegularPart(dir.Join(part), st.Mode())
	}
	if have, ok := stampedLength(f, st.Size(), remote, m); ok && f.Truncate(have) == nil {
		return f, have, nil
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, 0, nil
}

// notRegularPart is the one-line refusal of a part path that holds
// something other than a regular file.
func notRegularPart(part string, mode fs.FileMode) error {
	what := "special file (" + mode.Type().String() + ")"
	cause := safefile.ErrNotRegular
	switch {
	case mode&fs.ModeSymlink != 0:
		what, cause = "symbolic link", safefile.ErrSymlink
	case mode.IsDir():
		what = "directory"
	case mode&fs.ModeNamedPipe != 0:
		what = "named pipe"
	}
	return &safefile.Error{Path: part, Err: cause,
		Problem: "is a " + what + ", not a partial download: refusing to write through it (remove it and run again)"}
}

// fetch GETs /files/{remote} from *off and writes what arrives at its
// offset, advancing *off. It returns nil once the file is complete.
func (c *Copier) fetch(ctx context.Context, remote string, f partFile, off *int64, size int64, progress Progress) error {
	if size >= 0 && *off >= size {
		return nil
	}
	ctx, wd := newWatchdog(ctx, c.o.IdleTimeout)
	defer wd.stop()
	hdr := http.Header{}
	if *off > 0 {
		hdr.Set("Range", fmt.Sprintf("bytes=%d-", *off))
	}
	resp, err := c.Do(ctx, &proxy.Request{Op: "download", Method: http.MethodGet, Path: "files/" + proxy.EscapePath(remote),
		Header: hdr, Retry404: true, Remote: remote})
	if err != nil {
		var je *proxy.Error
		if errors.As(err, &je) && je.Status == http.StatusRequestedRangeNotSatisfiable {
			if size >= 0 && *off == size {
				return nil
			}
			return &errRestart{why: "the server refused to resume (416)"}
		}
		return wd.explain(err, "download", c.id, remote)
	}
	defer resp.Body.Close()
	start, err := resumedAt(resp, size, *off)
	if err != nil {
		return err
	}
	if start < *off {
		if err := f.Truncate(start); err != nil {
			return &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrLocal, Message: err.Error()}
		}
	}
	*off = start
	if err := c.copyBody(ctx, wd, resp.Body, f, off, size, remote, progress); err != nil {
		return err
	}
	if size >= 0 && *off < size {
		return &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrTransport,
			Message: fmt.Sprintf("the reply ended after %d of %d bytes", *off, size)}
	}
	return nil
}

// localMessage says a local write error in a few words ("no space left
// on device" for ENOSPC).
func localMessage(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return "writing " + pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// parseContentRange reads "bytes START-END/TOTAL" (TOTAL may be "*",
// returned as -1).
func parseContentRange(s string) (start, total int64, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(s), "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, tot, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, false
	}
	a, _, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	total = -1
	if t := strings.TrimSpace(tot); t != "*" {
		if total, err = strconv.ParseInt(t, 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return start, total, true
}

// resumedAt is the offset the GET's reply starts at: its Content-Range's
// start (0 without one). A reply the download cannot continue from off
// with (unreadable, another total than size, ahead of off, a 206 without
// a range) is an *errRestart.
func resumedAt(resp *http.Response, size, off int64) (int64, error) {
	cr := resp.Header.Get("Content-Range")
	switch {
	case cr != "":
		s, total, ok := parseContentRange(cr)
		if !ok {
			return 0, &errRestart{why: "unreadable Content-Range " + strconv.Quote(cr)}
		}
		if size >= 0 && total >= 0 && total != size {
			return 0, &errRestart{why: fmt.Sprintf("the remote file changed during the download (%d bytes, now %d)", size, total)}
		}
		if s > off {
			return 0, &errRestart{why: fmt.Sprintf("the server resumed at byte %d, not %d", s, off)}
		}
		return s, nil
	case resp.StatusCode == http.StatusPartialContent:
		return 0, &errRestart{why: "206 without Content-Range"}
	}
	return 0, nil
}

// copyBody writes body to f from *off on, advancing *off and reporting
// progress, until body ends. It stops a reply of unknown size past
// Options.MaxUnknownSize and one longer than size, and says whether a
// failed read was the caller's cancellation, the idle watchdog or a
// dropped connection.
func (c *Copier) copyBody(ctx context.Context, wd *watchdog, body io.Reader, f partFile, off *int64, size int64, remote string, progress Progress) error {
	bufSize := int64(256 << 10)
	if size >= 0 {
		bufSize = min(bufSize, max(size-*off+1, 512)) // many small files move at once
	}
	buf := make([]byte, bufSize)
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			if err := c.write(wd, f, buf[:n], off, size, remote, progress); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			if ctx.Err() != nil && wd.parent.Err() != nil {
				return wd.parent.Err()
			}
			if werr := wd.explain(rerr, "download", c.id, remote); werr != rerr {
				return werr
			}
			return &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrTransport,
				Message: fmt.Sprintf("connection dropped after %d of %d bytes", *off, size)}
		}
	}
}

// write writes b, just read, at *off and advances it: a file of unknown
// size stops at the documented maximum (a reply that never ends must not
// fill the disk), and one longer than the size the runtime reported stops
// here, not when the disk is full.
func (c *Copier) write(wd *watchdog, f partFile, b []byte, off *int64, size int64, remote string, progress Progress) error {
	wd.touch()
	if size < 0 && *off+int64(len(b)) > c.o.MaxUnknownSize {
		return &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrTooLarge,
			Message: fmt.Sprintf("the runtime did not report its size and more than %d bytes arrived (Options.MaxUnknownSize)", c.o.MaxUnknownSize)}
	}
	if _, werr := f.WriteAt(b, *off); werr != nil {
		return &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrLocal, Message: localMessage(werr)}
	}
	*off += int64(len(b))
	progress(*off, size)
	if size >= 0 && *off > size {
		return &errRestart{why: fmt.Sprintf("received more than the %d bytes the runtime reported", size)}
	}
	return nil
}

// fetchRetrying fetches remote into pf from *off on until it is whole:
// a transient failure is retried (Options.MaxRetries in a row without
// progress, with a pause between), a reply that cannot be continued
// restarts from the beginning (twice at most; *m is stat-ed again). On
// failure, keep says whether the part file is worth keeping to resume
// (interrupted, or out of retries) or is to be discarded.
func (c *Copier) fetchRetrying(ctx context.Context, remote string, pf partFile, off *int64, m *proxy.Model, progress Progress) (keep bool, err error) {
	fails, restarts := 0, 0
	for {
		before := *off
		err := c.fetch(ctx, remote, pf, off, m.Size, progress)
		if err == nil {
			return false, nil
		}
		var rs *errRestart
		switch {
		case ctx.Err() != nil:
			return true, ctx.Err()
		case errors.As(err, &rs):
			if restarts++; restarts > 2 {
				return false, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrCorrupt, Message: rs.why}
			}
			c.o.Logger.Warn("download restarts from the beginning", "runtime", c.id, "path", remote, "why", rs.why)
			if nm, serr := c.Stat(ctx, remote); serr == nil {
				*m = nm
			}
			*off = 0
			if terr := pf.Truncate(0); terr != nil {
				return false, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrLocal, Message: terr.Error()}
			}
			continue
		case !transient(err):
			return false, proxy.WithOp(err, "download", remote)
		}
		if *off > before {
			fails = 0
		}
		if fails++; fails > c.o.MaxRetries {
			return true, err
		}
		if perr := c.pause(ctx, fails); perr != nil {
			return true, perr
		}
	}
}
