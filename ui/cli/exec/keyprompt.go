package exec

import (
	"os"
	"sync"

	xterm "github.com/charmbracelet/x/term"
)

// keyPrompt reads single keys from the terminal without waiting for
// Enter, as k9s and lazygit answer their questions: the terminal is put
// in raw mode for the question only, and close restores it (on every
// path: an answer, the call finishing, a signal, a timeout). It reads
// /dev/tty through Go's poller, so close also ends a read in flight and
// no stale read is left to swallow the next key typed at the shell.
type keyPrompt struct {
	f    *os.File
	old  *xterm.State
	once sync.Once
}

// openKeyPrompt returns a keyPrompt on the terminal, not yet in raw mode
// (so the question printed next still gets its line ends), or nil when
// stdin is not a terminal (a pipe, or the tests' stand-in streams); the
// caller then asks for a line.
func (v *verb) openKeyPrompt() *keyPrompt {
	in, ok := v.S.In.(*os.File)
	if !ok || !v.CanPrompt() || !xterm.IsTerminal(in.Fd()) {
		return nil
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	return &keyPrompt{f: tty}
}

// raw puts the terminal in raw mode; on failure the prompt is closed and
// the caller reads a line instead.
func (k *keyPrompt) raw() error {
	// SyscallConn, not Fd: Fd would put the file in blocking mode, and
	// close could no longer end a read in flight.
	rc, err := k.f.SyscallConn()
	if err == nil {
		var old *xterm.State
		if cerr := rc.Control(func(fd uintptr) { old, err = xterm.MakeRaw(fd) }); cerr != nil {
			err = cerr
		}
		k.old = old
	}
	if err != nil {
		k.close()
	}
	return err
}

// read waits for one key and returns its first byte (an escape sequence
// such as an arrow key is read whole and counts as its ESC). In raw mode
// ctrl+c is the byte 0x03, not a signal. err is set when close ended the
// read.
func (k *keyPrompt) read() (byte, error) {
	var buf [16]byte
	n, err := k.f.Read(buf[:])
	if n > 0 {
		return buf[0], nil
	}
	return 0, err
}

// close restores the terminal's mode and ends a read in flight. It
// reports whether this call did it (the first of any number of calls, from
// any goroutine; later ones wait for it to finish and return false).
func (k *keyPrompt) close() bool {
	did := false
	k.once.Do(func() {
		did = true
		if rc, err := k.f.SyscallConn(); err == nil && k.old != nil {
			rc.Control(func(fd uintptr) { xterm.Restore(fd, k.old) })
		}
		k.f.Close()
	})
	return did
}
