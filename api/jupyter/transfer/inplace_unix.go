//go:build unix

package transfer

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openInPlace opens target, a file inPlace accepts, for writing in place
// (appending). The open never waits: it is made with O_NONBLOCK, so a
// FIFO no process has open for reading fails at once (ENXIO, returned as
// errNoReader) instead of blocking until a reader comes, which may be
// never. An opened FIFO stays non-blocking: Go's poller then waits for
// room in the pipe, and a write deadline (downloadInPlace sets one when
// its context ends) stops that wait. Anything else (a device, a regular
// file behind a descriptor's name) is made blocking again, so it is
// written as it always was.
func openInPlace(target string) (*os.File, error) {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) {
		if st, serr := os.Stat(target); serr == nil && st.Mode()&fs.ModeNamedPipe != 0 {
			return nil, errNoReader
		}
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.Mode()&fs.ModeNamedPipe != 0 {
		return f, nil
	}
	rc, err := f.SyscallConn()
	if err == nil {
		cerr := rc.Control(func(fd uintptr) { err = syscall.SetNonblock(int(fd), false) })
		err = errors.Join(cerr, err)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
