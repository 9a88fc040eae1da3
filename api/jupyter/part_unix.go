//go:build unix

package jupyter

import "syscall"

// partOpenFlags are added when the download's part file is opened:
// O_NOFOLLOW makes a symbolic link placed at the part path an error
// (ELOOP) instead of redirecting the write, and O_NONBLOCK keeps a FIFO
// placed there from blocking the open (the type check then refuses it).
// Neither changes anything for a regular file.
const partOpenFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
