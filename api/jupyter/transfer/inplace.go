package transfer

// A download to a local target that is not a regular file: a device
// (/dev/null, a tape), a FIFO, or a descriptor's name (/dev/stdout,
// /dev/fd/N). Such a target is written in place, as cp writes one: a part
// file renamed over /dev/stdout would replace the file the shell opened
// for `>> log` and lose its lines. A regular file keeps the part file and
// the atomic rename.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// maxLinkHops bounds the symbolic links inPlace follows to find a
// descriptor's name (Linux's own limit is 40).
const maxLinkHops = 40

// inPlace reports whether the local target the user named is written in
// place: a name of an open descriptor (/dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N), itself or through the
// links that lead to it, whatever it is open on; or an existing file that
// is neither regular nor a directory (a device, a FIFO, a socket).
func inPlace(target string) bool {
	p := target
	for range maxLinkHops {
		if descriptorName(p) {
			return true
		}
		st, err := os.Lstat(p)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			break
		}
		t, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = filepath.Clean(t)
	}
	st, err := os.Stat(target)
	return err == nil && !st.Mode().IsRegular() && !st.IsDir()
}

// descriptorName reports whether p names an open descriptor rather than a
// file: /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N, or an fd
// directory's entry below /proc.
func descriptorName(p string) bool {
	abs, err := filepath.Abs(p)
	if err != nil {
		return false
	}
	switch {
	case abs == "/dev/stdin" || abs == "/dev/stdout" || abs == "/dev/stderr":
		return true
	case strings.HasPrefix(abs, "/dev/fd/"):
		return true
	case strings.HasPrefix(abs, "/proc/") && strings.Contains(abs, "/fd/"):
		return true
	}
	return false
}

// errNoReader: the target is a FIFO no process has open for reading
// (openInPlace).
var errNoReader = errors.New("a FIFO with no reader")

// errRewind: a target written in place cannot go back to rewrite what it
// already received.
var errRewind = errors.New("a destination written in place (a device, a pipe, a descriptor) cannot be rewound")

// streamTarget is a partFile over a target written in place: bytes are
// appended in order, never rewritten.
type streamTarget struct {
	f *os.File
	n int64 // bytes written
}

func (s *streamTarget) WriteAt(b []byte, off int64) (int, error) {
	if off != s.n {
		return 0, errRewind
	}
	n, err := s.f.Write(b)
	s.n += int64(n)
	return n, err
}

func (s *streamTarget) Truncate(size int64) error {
	if size != s.n {
		return errRewind
	}
	return nil
}

func (s *streamTarget) Sync() error  { return nil }
func (s *streamTarget) Close() error { return s.f.Close() }

// downloadInPlace is Download of the remote file whose model is m to a
// target inPlace accepts: opened for writing as it is (appending, so a
// regular file behind a descriptor's name keeps what it held), written in
// order, resumed with Range after a dropped connection, and never renamed
// or removed. A reply that would have to rewrite bytes already written
// fails with ErrCorrupt.
func (c *Copier) downloadInPlace(ctx context.Context, remote, target string, m proxy.Model, progress Progress) (proxy.Model, error) {
	if progress == nil {
		progress = func(int64, int64) {}
	}
	if m.IsDir() {
		return m, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrIsDir}
	}
	f, err := openInPlace(target)
	if errors.Is(err, errNoReader) {
		return m, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrLocal,
			Message: target + " is a FIFO and no process is reading it: nothing written (start its reader first)"}
	}
	if err != nil {
		return m, c.localError("download", remote, target, err)
	}
	st := &streamTarget{f: f}
	defer st.Close()
	// A write waiting for room in a pipe whose reader stopped reading
	// ends with the context (a FIFO is written through Go's poller; for
	// a file that is not, the deadline is refused and changes nothing).
	stop := context.AfterFunc(ctx, func() { _ = f.SetWriteDeadline(time.Now()) })
	defer stop()
	var off int64
	for fails, restarts := 0, 0; ; {
		before := off
		err := c.fetch(ctx, remote, st, &off, m.Size, progress)
		if err == nil {
			break
		}
		var rs *errRestart
		switch {
		case ctx.Err() != nil:
			return m, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrInterrupted,
				Message: fmt.Sprintf("%d bytes were written to %s", off, target)}
		case errors.As(err, &rs) && off == 0 && restarts < 2:
			restarts++
			continue
		case errors.As(err, &rs), errors.Is(err, errRewind):
			return m, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrCorrupt,
				Message: fmt.Sprintf("%v after %d bytes were written to %s, which cannot be rewound", err, off, target)}
		case !transient(err):
			return m, proxy.WithOp(err, "download", remote)
		}
		if off > before {
			fails = 0
		}
		if fails++; fails > c.o.MaxRetries {
			return m, err
		}
		if perr := c.pause(ctx, fails); perr != nil {
			return m, perr
		}
	}
	if m.Size >= 0 && off != m.Size {
		return m, &proxy.Error{Op: "download", Runtime: c.id, Path: remote, Kind: proxy.ErrCorrupt,
			Message: fmt.Sprintf("received %d bytes, the runtime has %d", off, m.Size)}
	}
	return m, nil
}

// downloadNamedInPlace is downloadInPlace reported as a copied file.
func (c *Copier) downloadNamedInPlace(ctx context.Context, remote, target string, m proxy.Model, o CopyOptions) error {
	start := time.Now()
	m, err := c.downloadInPlace(ctx, remote, target, m, o.progress(c.id+":"+remote))
	if err != nil {
		return err
	}
	o.done(FileResult{Src: c.id + ":" + remote, Dst: target, Bytes: m.Size, Duration: time.Since(start)})
	return nil
}
