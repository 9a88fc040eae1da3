//go:build !(linux || darwin)

package runtimeproxy

// rootDisk is not read on this system: the host's resources then list no
// disk.
func rootDisk() (total, used int64, ok bool) { return 0, 0, false }
