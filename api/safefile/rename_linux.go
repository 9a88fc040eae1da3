package safefile

import "golang.org/x/sys/unix"

// renameNoReplace is renameat2 with RENAME_NOREPLACE, inside the
// directory dirfd: EEXIST when to exists.
func renameNoReplace(dirfd int, from, to string) error {
	return unix.Renameat2(dirfd, from, dirfd, to, unix.RENAME_NOREPLACE)
}
