//go:build unix

package transfer

import "syscall"

// sourceOpenFlags are added when a local file is opened for an upload:
// O_NONBLOCK keeps a FIFO swapped in after the caller's check from
// blocking the open (the type check on the open file then refuses it).
// It changes nothing for a regular file. (The download's part file is
// opened through safefile.Dir, which adds O_NOFOLLOW and O_NONBLOCK.)
const sourceOpenFlags = syscall.O_NONBLOCK
