//go:build !unix

package run

import "os"

// lockRecord cannot tell a live run from an unfinished one here (no
// flock): every record counts as unfinished, so a run in progress in
// another process may be reported too.
func lockRecord(*os.File, bool) (bool, error) { return true, nil }

// openRecordFlags: no O_NOFOLLOW on this system.
const openRecordFlags = 0
