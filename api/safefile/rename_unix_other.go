//go:build unix && !linux

package safefile

import "golang.org/x/sys/unix"

// renameNoReplace has no single call here: ENOSYS makes RenameNoReplace
// link and unlink instead.
func renameNoReplace(int, string, string) error { return unix.ENOSYS }
