package transfer

// The local side of an upload: what is read from the file named, and
// how many bytes are sent.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// source is an opened local file to upload: read from src, size bytes.
type source struct {
	src  io.ReaderAt
	size int64
	f    *os.File
}

func (s *source) Close() error { return s.f.Close() }

// openSource opens the local file local for an upload to remote. It must
// be a regular file (checked on the open file: a FIFO or device swapped
// in never blocks nor streams forever). A file whose stat size is 0 may
// still hold bytes (/proc/self/environ and most of /proc report 0): it is
// read to its end, at most Options.ChunkSize bytes (what one request
// carries), and sent whole from memory; one holding more is refused with
// proxy.ErrLocal, never uploaded empty.
//
// open, when set, opens the file instead (a recursive upload opens each
// file below its source without following a link: srcOpener); its error
// is returned as it is when it is a *proxy.Error.
func (c *Copier) openSource(local, remote string, open func() (*os.File, error)) (*source, error) {
	if open == nil {
		open = func() (*os.File, error) { return os.OpenFile(local, os.O_RDONLY|sourceOpenFlags, 0) }
	}
	f, err := open()
	if err != nil {
		var je *proxy.Error
		if errors.As(err, &je) {
			return nil, err
		}
		return nil, c.localError("upload", remote, local, err)
	}
	fail := func(msg string) (*source, error) {
		f.Close()
		return nil, &proxy.Error{Op: "upload", Runtime: c.id, Path: remote, Kind: proxy.ErrLocal, Message: msg}
	}
	st, err := f.Stat()
	if err != nil {
		return fail(localStatMessage(local, err))
	}
	if !st.Mode().IsRegular() {
		return fail(local + " is not a regular file (" + st.Mode().Type().String() + ")")
	}
	if st.Size() > 0 {
		return &source{src: f, size: st.Size(), f: f}, nil
	}
	// Size 0: empty, or a file whose size the system does not know.
	max := c.o.ChunkSize
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return fail("reading " + local + ": " + err.Error())
	}
	if int64(len(b)) > max {
		return fail(fmt.Sprintf("%s reports a size of 0 but holds more than %d bytes (a file of /proc or /sys?): not uploaded; copy it to a regular file first", local, max))
	}
	return &source{src: bytes.NewReader(b), size: int64(len(b)), f: f}, nil
}

// UploadFile copies the local file local to the remote file p (see
// Upload) and returns the remote model and the number of bytes sent.
// local must be a regular file; one whose stat size is 0 but which holds
// bytes (/proc/self/environ) is read to its end and sent whole, up to
// Options.ChunkSize bytes, and refused beyond (proxy.ErrLocal). Errors: those
// of Upload, proxy.ErrLocalNotFound, proxy.ErrLocal.
func (c *Copier) UploadFile(ctx context.Context, local, p string, progress Progress) (proxy.Model, int64, error) {
	m, n, _, err := c.uploadLocal(ctx, local, p, progress, nil, nil)
	return m, n, err
}

// uploadLocal is UploadFile, also reporting whether an existing remote
// file was deleted to make way for the new one (upload: a chunked
// replace, whose old copy the server may keep in its trash). known is
// uploadKnown's; open is openSource's.
func (c *Copier) uploadLocal(ctx context.Context, local, p string, progress Progress, known *remoteState, open func() (*os.File, error)) (proxy.Model, int64, bool, error) {
	remote := proxy.CleanRemote(p)
	s, err := c.openSource(local, remote, open)
	if err != nil {
		return proxy.Model{}, 0, false, err
	}
	defer s.Close()
	m, deleted, err := c.uploadKnown(ctx, remote, s.src, s.size, progress, known)
	return m, s.size, deleted, err
}
