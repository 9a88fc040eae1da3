//go:build linux || darwin

package runtimeproxy

import "golang.org/x/sys/unix"

// rootDisk is the root file system's size and used bytes (statfs "/":
// Blocks×Bsize and (Blocks−Bfree)×Bsize); ok is false when statfs fails.
func rootDisk() (total, used int64, ok bool) {
	var st unix.Statfs_t
	if unix.Statfs("/", &st) != nil {
		return 0, 0, false
	}
	bs := int64(st.Bsize)
	return int64(st.Blocks) * bs, int64(st.Blocks-st.Bfree) * bs, true
}
