// Package safefile reads small input files that a user names (credentials,
// access tokens, the config file) without trusting what the path leads
// to: only regular files are read (a device, FIFO, socket or directory is
// an error naming the file, also behind a symlink), at most a given number
// of bytes, and within a bounded time. A symlink to /dev/zero, a 100 MB
// "credentials" file or a FIFO nobody writes to each give a one-line error
// at once instead of eating memory or hanging.
//
// It also writes below a destination directory the user named without
// following a symbolic link already there (Dir: every download of cp, cp
// -r and the files pane, and its part file).
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Size caps, in bytes, for each kind of file the product reads.
const (
	// MaxTokenFile caps an access token file (--access-token-file).
	MaxTokenFile = 64 << 10
	// MaxCredentialsFile caps a Google credentials JSON file
	// (--credentials, GOOGLE_APPLICATION_CREDENTIALS, gcloud's ADC file).
	MaxCredentialsFile = 1 << 20
	// MaxConfigFile caps the YAML config file.
	MaxConfigFile = 1 << 20
	// MaxStateFile caps a file colabdash wrote itself and reads back (the
	// last-spec.json of the state directory), which a user or another
	// program may have replaced.
	MaxStateFile = 64 << 10
)

// DefaultTimeout bounds one Read (open, stat and read) when the caller
// passes no timeout: a local file of at most a few MiB reads in
// milliseconds, so anything slower is a hung mount or a special file.
const DefaultTimeout = 5 * time.Second

// Sentinel causes, matched with errors.Is on the *Error Read returns.
var (
	// ErrNotRegular: the path (or its symlink target) is a directory,
	// device, FIFO or socket.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file is bigger than the cap.
	ErrTooLarge = errors.New("file too large")
	// ErrTimeout: opening or reading took longer than the timeout.
	ErrTimeout = errors.New("read timed out")
)

// Error is every failure of Read. Path is the path as given; Target is
// where a symlink at Path leads ("" when Path is not a symlink); Problem
// is a short lower-case phrase ("is a character device, not a regular
// file", "is 104857600 bytes, more than the 1 MiB allowed", "permission
// denied"); Err is the cause: ErrNotRegular, ErrTooLarge, ErrTimeout or
// an *fs.PathError (errors.Is(err, fs.ErrNotExist) works).
type Error struct {
	Path    string
	Target  string
	Problem string
	Err     error
}

// Error renders "PATH: PROBLEM", or "PATH (a link to TARGET): PROBLEM".
func (e *Error) Error() string {
	p := e.Path
	if e.Target != "" {
		p += " (a link to " + e.Target + ")"
	}
	return p + ": " + e.Problem
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Read returns the contents of the regular file at path, following
// symlinks. It fails with an *Error when the file (or the symlink's
// target) is not a regular file, when it holds more than max bytes
// (max <= 0 means MaxConfigFile), or when opening and reading take longer
// than timeout (<= 0 means DefaultTimeout). Opening never blocks on a
// FIFO. A read that timed out is left to finish in the background; its
// result is dropped.
func Read(path string, max int64, timeout time.Duration) ([]byte, error) {
	if max <= 0 {
		max = MaxConfigFile
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	op := open
	go func() {
		b, err := read(op, path, max)
		done <- result{b, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-done:
		return r.b, r.err
	case <-t.C:
		return nil, newError(path, fmt.Sprintf("could not be read within %s", timeout), ErrTimeout)
	}
}

// open is a test seam.
var open = openNoBlock

func read(open func(string) (*os.File, error), path string, max int64) ([]byte, error) {
	f, err := open(path)
	if err != nil {
		var pe *fs.PathError
		problem := err.Error()
		if errors.As(err, &pe) {
			problem = pe.Err.Error()
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problem = "does not exist"
		case errors.Is(err, fs.ErrPermission):
			problem = "permission denied"
		}
		return nil, newError(path, problem, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, newError(path, "cannot stat: "+err.Error(), err)
	}
	if !st.Mode().IsRegular() {
		return nil, newError(path, "is "+kind(st.Mode())+", not a regular file", ErrNotRegular)
	}
	if st.Size() > max {
		return nil, newError(path, tooLarge(st.Size(), max), ErrTooLarge)
	}
	// The size can grow between Stat and Read (or lie, as in /proc):
	// read one byte more than allowed to tell.
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, newError(path, "read failed: "+err.Error(), err)
	}
	if int64(len(b)) > max {
		return nil, newError(path, tooLarge(-1, max), ErrTooLarge)
	}
	return b, nil
}

// newError builds an *Error, naming where a symlink at path leads.
func newError(path, problem string, err error) *Error {
	e := &Error{Path: path, Problem: problem, Err: err}
	if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
		if t, eerr := filepath.EvalSymlinks(path); eerr == nil {
			e.Target = t
		} else if t, rerr := os.Readlink(path); rerr == nil {
			e.Target = t
		}
	}
	return e
}

// kind names what m is, for an error: "a directory", "a FIFO (named
// pipe)". (If chains here and below, not switches: Go's coverage counts
// an if's condition, which mutation testing needs to see reached.)
func kind(m fs.FileMode) string {
	if m.IsRegular() {
		return "a regular file"
	}
	if m.IsDir() {
		return "a directory"
	}
	if m&fs.ModeSymlink != 0 {
		return "a symbolic link"
	}
	if m&fs.ModeNamedPipe != 0 {
		return "a FIFO (named pipe)"
	}
	if m&fs.ModeSocket != 0 {
		return "a socket"
	}
	if m&fs.ModeCharDevice != 0 {
		return "a character device"
	}
	if m&fs.ModeDevice != 0 {
		return "a block device"
	}
	return "not a plain file (" + m.Type().String() + ")"
}

func tooLarge(size, max int64) string {
	if size < 0 {
		return "is more than the " + human(max) + " allowed"
	}
	return fmt.Sprintf("is %d bytes, more than the %s allowed", size, human(max))
}

// human renders a cap: "64 KiB", "1 MiB", "100 bytes".
func human(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
