//go:build !unix

package safefile

import "io/fs"

// foreignOwner: outside Unix there is no owner to compare (never foreign).
func foreignOwner(fs.FileInfo) (int, bool) { return 0, false }

// othersMayWrite: outside Unix the mode bits say nothing about other
// users (never writable by others here).
func othersMayWrite(fs.FileInfo) bool { return false }
