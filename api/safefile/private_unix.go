//go:build unix

package safefile

import (
	"io/fs"
	"os"
	"syscall"
)

// foreignOwner is the owner of st when it is not the user running
// colabdash (ok true).
func foreignOwner(st fs.FileInfo) (uid int, ok bool) {
	sys, isStat := st.Sys().(*syscall.Stat_t)
	if !isStat {
		return 0, false
	}
	if int(sys.Uid) != os.Getuid() {
		return int(sys.Uid), true
	}
	return 0, false
}

// othersMayWrite reports whether st has the group or world write bit.
func othersMayWrite(st fs.FileInfo) bool { return st.Mode().Perm()&0o022 != 0 }
