package transfer

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// Upload copies size bytes of src to the remote file p and returns its
// model. It checks that the remote parent directory exists, then:
//
//   - a file that fits one request (ChunkSize) is PUT straight onto p,
//     which Jupyter saves atomically, so replacing an existing file needs
//     no DELETE, and the old copy does not go to the server's trash
//     (field cases 62, 69); the model read back must have size bytes;
//   - a larger one is written to p + PartSuffix in chunks 1, 2, …, -1,
//     strictly one after another, each base64-encoded from its own raw
//     slice and streamed without holding the file in memory; the part's
//     size is checked, then p is replaced (delete p, rename the part:
//     Jupyter refuses to rename onto an existing name).
//
// A request refused with 413 by a proxy on the way is
// sent again in pieces of half the size, down to MinChunkSize, and the
// size that worked is kept for the client's later uploads; a file that
// fitted one request then goes the chunked way.
//
// A failed chunk is not blindly re-sent: after renewing the token if
// needed, the part file's size says whether the chunk was applied; the
// upload resumes only at an exact chunk boundary and otherwise restarts
// from chunk 1. On failure the part file is removed (best effort) and p
// is untouched, except that a one-request upload whose model reads back
// with another size (proxy.ErrCorrupt) has already replaced p. Once the part
// is verified, the replacement (delete p, rename the part) goes on even
// if ctx ends. Errors (*proxy.Error): proxy.ErrNoParent, proxy.ErrNotDir, proxy.ErrIsDir,
// proxy.ErrCorrupt, proxy.ErrRuntimeGone, proxy.ErrRefused, proxy.ErrTransport, proxy.ErrServer, or the
// context's error; proxy.ErrTopLevel for a file directly in the root (proxy.Creatable).
func (c *Copier) Upload(ctx context.Context, p string, src io.ReaderAt, size int64, progress Progress) (proxy.Model, error) {
	m, _, err := c.upload(ctx, p, src, size, progress)
	return m, err
}

// upload is Upload, also reporting whether an existing p was deleted to
// make way for the new file (a chunked replace): the runtime's Jupyter
// server may then keep the old copy in its trash.
func (c *Copier) upload(ctx context.Context, p string, src io.ReaderAt, size int64, progress Progress) (proxy.Model, bool, error) {
	return c.uploadKnown(ctx, p, src, size, progress, nil)
}

// remoteState is what a recursive upload already knows of a file's
// remote path from its directory's one listing: that the parent is a
// directory, and whether the name exists there (as a file: a directory
// in the way was refused before).
type remoteState struct{ exists bool }

// uploadKnown is upload; with known (from the parent's listing) it
// spends no request on stat-ing the parent or the file first, so a file
// that fits one request costs one PUT (and a stat only when the PUT's
// reply has no size).
func (c *Copier) uploadKnown(ctx context.Context, p string, src io.ReaderAt, size int64, progress Progress, known *remoteState) (proxy.Model, bool, error) {
	remote := proxy.CleanRemote(p)
	if remote == "" {
		return proxy.Model{}, false, &proxy.Error{Op: "upload", Runtime: c.id, Kind: proxy.ErrIsDir, Message: "no remote file name"}
	}
	if err := proxy.Creatable(c.id, remote); err != nil { // every caller: cp, the files pane
		return proxy.Model{}, false, err
	}
	if progress == nil {
		progress = func(int64, int64) {}
	}
	if known != nil {
		return c.sendFile(ctx, remote, src, size, progress, known.exists)
	}
	if parent := path.Dir(remote); parent != "." {
		m, err := c.Stat(ctx, parent)
		switch {
		case errors.Is(err, proxy.ErrNotFound):
			return proxy.Model{}, false, &proxy.Error{Op: "upload", Runtime: c.id, Path: parent, Kind: proxy.ErrNoParent}
		case err != nil:
			return proxy.Model{}, false, proxy.WithOp(err, "upload", remote)
		case !m.IsDir():
			return proxy.Model{}, false, &proxy.Error{Op: "upload", Runtime: c.id, Path: parent, Kind: proxy.ErrNotDir}
		}
	}
	existing, err := c.Stat(ctx, remote)
	switch {
	case err == nil && existing.IsDir():
		return proxy.Model{}, false, &proxy.Error{Op: "upload", Runtime: c.id, Path: remote, Kind: proxy.ErrIsDir, Message: "a directory is in the way"}
	case err != nil && !errors.Is(err, proxy.ErrNotFound) && !errors.Is(err, proxy.ErrHidden):
		return proxy.Model{}, false, proxy.WithOp(err, "upload", remote)
	}
	return c.sendFile(ctx, remote, src, size, progress, err == nil)
}

// sendFile is the upload proper, once the parent is known to be a
// directory and whether remote exists (as a file).
func (c *Copier) sendFile(ctx context.Context, remote string, src io.ReaderAt, size int64, progress Progress, exists bool) (proxy.Model, bool, error) {
	if size <= c.chunkSize() {
		m, err := c.putWhole(ctx, remote, src, size, progress)
		if !tooLarge(err) {
			return m, false, err
		}
		// A proxy refused even one request of this size: in pieces,
		// through the part file.
		if c.shrinkChunks(err, size) >= size {
			return proxy.Model{}, false, atFloor(err)
		}
	}
	part := remote + PartSuffix
	fail := func(err error) (proxy.Model, bool, error) {
		// Best effort, also after ctx ended: a part file is never left.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if !errors.Is(err, proxy.ErrRuntimeGone) {
			_ = c.Delete(cctx, part)
		}
		return proxy.Model{}, false, proxy.WithOp(err, "upload", remote)
	}
	if err := c.sendChunks(ctx, part, src, size, progress); err != nil {
		return fail(err)
	}
	m, err := c.Stat(ctx, part)
	if err != nil {
		return fail(err)
	}
	if m.Size != size {
		return fail(&proxy.Error{Op: "upload", Runtime: c.id, Path: remote, Kind: proxy.ErrCorrupt,
			Message: fmt.Sprintf("the runtime has %d bytes, %d were sent", m.Size, size)})
	}
	// The part is complete and verified: the replacement is finished
	// even if ctx ends now (each call bounded by CallTimeout), so a
	// cancel between deleting the old file and the rename never leaves
	// neither.
	fctx := context.WithoutCancel(ctx)
	if exists {
		if err := c.Delete(fctx, remote); err != nil && !errors.Is(err, proxy.ErrNotFound) {
			return fail(err)
		}
	}
	if m, err = c.Rename(fctx, part, remote); err != nil {
		if exists {
			// The old file is gone: the new data is only in the part.
			var je *proxy.Error
			if errors.As(err, &je) {
				e := *je
				e.Op, e.Path = "upload", remote
				e.Message = strings.TrimPrefix(e.Message+"; ", "; ") + "the new file is kept on the runtime as " + proxy.DisplayName("/"+part)
				return proxy.Model{}, true, &e
			}
		}
		return fail(err)
	}
	return m, exists, nil
}

// putWhole PUTs all of src onto remote in one request (no "chunk"),
// trying again after a transient failure (the request replaces the file
// whole, so repeating it is safe), and checks the size of the model the
// reply carries (jupyter-server answers a save with the saved file's
// model; a reply without a size costs a stat).
func (c *Copier) putWhole(ctx context.Context, remote string, src io.ReaderAt, size int64, progress Progress) (proxy.Model, error) {
	var m proxy.Model
	for fails := 0; ; {
		var err error
		m, err = c.putChunk(ctx, remote, src, 0, size, 0, size, progress)
		if err == nil {
			break
		}
		if ctx.Err() != nil || !transient(err) {
			return proxy.Model{}, proxy.WithOp(err, "upload", remote)
		}
		if fails++; fails > c.o.MaxRetries {
			return proxy.Model{}, proxy.WithOp(err, "upload", remote)
		}
		if err := c.pause(ctx, fails); err != nil {
			return proxy.Model{}, err
		}
	}
	if m.Size < 0 {
		// The reply did not say (jupyter-server's does): ask.
		var err error
		if m, err = c.Stat(ctx, remote); err != nil {
			return proxy.Model{}, proxy.WithOp(err, "upload", remote)
		}
	}
	if m.Size != size {
		return m, &proxy.Error{Op: "upload", Runtime: c.id, Path: remote, Kind: proxy.ErrCorrupt,
			Message: fmt.Sprintf("the runtime has %d bytes, %d were sent", m.Size, size)}
	}
	return m, nil
}

// transient reports whether a failed step may be tried again.
func transient(err error) bool {
	var je *proxy.Error
	if !errors.As(err, &je) {
		return false
	}
	switch je.Kind {
	case proxy.ErrTransport, proxy.ErrRefused:
		return true
	case proxy.ErrServer:
		return je.Status >= 500 || je.Status == 0
	}
	return false
}

// sendChunks writes src to part: one request without "chunk" when it
// fits, else chunks 1, 2, …, -1.
func (c *Copier) sendChunks(ctx context.Context, part string, src io.ReaderAt, size int64, progress Progress) error {
	cs := c.chunkSize()
	fails, restarts := 0, 0
	var off int64
	k := 1
	for {
		end := min(off+cs, size)
		num := k
		switch {
		case size <= cs:
			num = 0 // a file that fits one request is sent without "chunk"
		case end == size:
			num = -1
		}
		_, err := c.putChunk(ctx, part, src, off, end-off, num, size, progress)
		if err == nil {
			off, k, fails = end, k+1, 0
			if off >= size {
				return nil
			}
			continue
		}
		if tooLarge(err) {
			if cs <= MinChunkSize {
				return atFloor(err)
			}
			// Refused before Jupyter saw it: not applied,
			// so the same bytes go again from off, in smaller pieces.
			cs = c.shrinkChunks(err, end-off)
			continue
		}
		if ctx.Err() != nil || !transient(err) {
			return err
		}
		if fails++; fails > c.o.MaxRetries {
			return err
		}
		if err := c.pause(ctx, fails); err != nil {
			return err
		}
		if num == 0 || num == 1 {
			continue // chunk 1 (or the only request) truncates: just send it again
		}
		// Where is the server? Resume only at an exact boundary.
		m, serr := c.Stat(ctx, part)
		switch {
		case serr != nil && (ctx.Err() != nil || !transient(serr)):
			return serr
		case serr == nil && m.Size == off:
			// not applied: send the same chunk again
		case serr == nil && m.Size == end:
			off, k = end, k+1 // applied, only the reply was lost
			if off >= size {
				return nil
			}
		default:
			if restarts++; restarts > 2 {
				return err
			}
			off, k = 0, 1
		}
	}
}

// pause waits before attempt n+1 (retryDelay).
func (c *Copier) pause(ctx context.Context, n int) error {
	t := time.NewTimer(retryDelay(c.o.RetryDelay, n))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryDelay is the pause before attempt n+1 after n ≥ 1 failures in a
// row: base, doubling with each failure, at most 5 s.
func retryDelay(base time.Duration, n int) time.Duration {
	return min(base<<min(n-1, 5), 5*time.Second)
}

// putChunk PUTs src[off:off+n] as one contents model; num is the chunk
// number (0: no "chunk" field). For a whole file (num 0) it returns the
// model of the reply (Size -1 when the reply has none).
func (c *Copier) putChunk(ctx context.Context, part string, src io.ReaderAt, off, n int64, num int, total int64, progress Progress) (proxy.Model, error) {
	ctx, wd := newWatchdog(ctx, c.o.IdleTimeout)
	defer wd.stop()
	head := `{"type":"file","format":"base64",`
	if num != 0 {
		head += `"chunk":` + strconv.Itoa(num) + `,`
	}
	head += `"content":"`
	const tail = `"}`
	var enc *b64Reader
	bodyLen := int64(len(head)) + int64(base64.StdEncoding.EncodedLen(int(n))) + int64(len(tail))
	body := func() (io.Reader, int64) {
		enc = &b64Reader{src: io.NewSectionReader(src, off, n), size: n, onRead: func(done int64) {
			wd.touch()
			progress(off+done, total)
		}}
		return io.MultiReader(strings.NewReader(head), enc, strings.NewReader(tail)), bodyLen
	}
	resp, err := c.Do(ctx, &proxy.Request{Op: "upload", Method: http.MethodPut, Path: "api/contents/" + proxy.EscapePath(part),
		Body: body, Remote: proxy.CleanRemote(part)})
	if err != nil {
		if enc != nil && enc.err != nil {
			return proxy.Model{}, &proxy.Error{Op: "upload", Runtime: c.id, Path: proxy.CleanRemote(part), Kind: proxy.ErrLocal, Message: enc.err.Error()}
		}
		var je *proxy.Error
		if errors.As(err, &je) && je.Status == http.StatusRequestEntityTooLarge && strings.HasPrefix(je.Message, "a proxy") {
			return proxy.Model{}, explainTooLarge(err, bodyLen) // Jupyter's own 413 says why itself
		}
		return proxy.Model{}, wd.explain(err, "upload", c.id, part)
	}
	defer resp.Body.Close()
	if num != 0 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return proxy.Model{}, nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	m, err := proxy.ParseModel(b)
	if err != nil {
		m.Size = -1
	}
	return m, nil
}

// b64Reader streams the standard base64 of src, reading 48 KiB of raw
// bytes at a time; onRead gets the raw bytes consumed so far.
type b64Reader struct {
	src    io.Reader
	size   int64 // the bytes src holds: a small file gets a small buffer
	onRead func(done int64)
	raw    []byte
	out    []byte // encoded, not yet returned
	done   int64
	eof    bool
	err    error // a local read error, kept so it is not mistaken for a network one
}

func (b *b64Reader) Read(p []byte) (int, error) {
	for len(b.out) == 0 {
		if b.eof {
			return 0, io.EOF
		}
		if b.raw == nil {
			b.raw = make([]byte, min(48<<10, max(b.size, 3)))
		}
		n, err := io.ReadFull(b.src, b.raw)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			b.eof, err = true, nil
		}
		if err != nil {
			b.err = fmt.Errorf("reading the local file: %w", err)
			return 0, b.err
		}
		if n > 0 {
			b.out = base64.StdEncoding.AppendEncode(b.out[:0], b.raw[:n])
			b.done += int64(n)
			b.onRead(b.done)
		}
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}
