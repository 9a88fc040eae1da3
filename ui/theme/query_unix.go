//go:build unix

package theme

import (
	"os"
	"time"

	"github.com/charmbracelet/x/term"
	"golang.org/x/sys/unix"
)

// queryBackground asks the terminal on stdin and stdout for its
// background colour and waits until timeout for the answer: (dark,
// answered).
func queryBackground(timeout time.Duration) (dark, ok bool) {
	return queryTerminal(os.Stdin, os.Stdout, timeout)
}

// queryTerminal writes backgroundQuery to out and reads the reply from in
// until timeout. It asks nothing unless in and out are both terminals and,
// when in is this process's controlling terminal, the process is in its
// foreground (a background process may not change the terminal's mode);
// in is in raw mode only while it waits.
func queryTerminal(in, out *os.File, timeout time.Duration) (dark, ok bool) {
	ifd := in.Fd()
	if !term.IsTerminal(ifd) || !term.IsTerminal(out.Fd()) {
		return false, false
	}
	// ENOTTY: not the controlling terminal, so no job control applies.
	if pg, err := unix.IoctlGetInt(int(ifd), unix.TIOCGPGRP); err == nil && pg != unix.Getpgrp() {
		return false, false
	}
	st, err := term.MakeRaw(ifd)
	if err != nil {
		return false, false
	}
	defer func() { _ = term.Restore(ifd, st) }()
	if _, err := out.WriteString(backgroundQuery); err != nil {
		return false, false
	}
	return parseBackground(readReply(int(ifd), time.Now().Add(timeout)))
}

// readReply reads from fd until the terminal's reply is complete
// (answered) or deadline passes, whichever comes first.
func readReply(fd int, deadline time.Time) []byte {
	var reply []byte
	buf := make([]byte, 256)
	for !answered(reply) {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			break
		}
		k, err := unix.Read(fd, buf)
		if err != nil || k <= 0 {
			break
		}
		reply = append(reply, buf[:k]...)
	}
	return reply
}
