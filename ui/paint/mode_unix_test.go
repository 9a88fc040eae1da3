//go:build linux

package paint

import (
	"io"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// The terminal's own mode comes back at the end, even when a program that
// had the terminal in between (a plugin running stty -echo -icanon) left
// it changed: what Release puts back is what the terminal had before
// Start. Between Start and Release the input is raw.
func TestTheTerminalsModeBeforeStartComesBack(t *testing.T) {
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal here:", err)
	}
	defer ptm.Close()
	defer tty.Close()
	go func() { _, _ = io.Copy(io.Discard, ptm) }()
	mode := func() uint32 {
		t.Helper()
		tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		return tio.Lflag & (unix.ECHO | unix.ICANON)
	}
	before := mode()
	if before != unix.ECHO|unix.ICANON {
		t.Fatalf("a new pty's mode: %b", before)
	}
	p := New(tty, tty)
	if err := p.Start(func(tea.Msg) {}); err != nil {
		t.Fatal(err)
	}
	if m := mode(); m != 0 {
		t.Errorf("while drawing, echo/icanon = %b, want raw", m)
	}
	p.Release()
	// The plugin's stty.
	tio, _ := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	tio.Lflag &^= unix.ECHO | unix.ICANON
	if err := unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	if m := mode(); m != before {
		t.Errorf("after Stop echo/icanon = %b, want %b as before Start", m, before)
	}
}
