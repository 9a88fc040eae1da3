//go:build unix

package run

import (
	"errors"
	"os"
	"syscall"
)

// lockRecord takes the exclusive lock on a run record's open file: it
// waits for it when wait, else reports false at once when another process
// holds it (a run still in progress). The kernel drops the lock when its
// holder exits, however it exits (kill -9 included), which is what tells
// an unfinished run from a live one.
func lockRecord(f *os.File, wait bool) (bool, error) {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		}
		return false, err
	}
}

// openRecordFlags are added to every open of a run record: a symlink
// planted in its place is never followed.
const openRecordFlags = syscall.O_NOFOLLOW
