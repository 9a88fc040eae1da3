//go:build unix

package theme

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"
)

// openPTY returns a pseudo-terminal: the program's side (tty) and the
// terminal's (ptm), both closed when the test ends.
func openPTY(t *testing.T) (ptm, tty *os.File) {
	t.Helper()
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal here:", err)
	}
	t.Cleanup(func() { ptm.Close(); tty.Close() })
	return ptm, tty
}

// readQuery reads from the terminal's side until the whole query arrived.
func readQuery(t *testing.T, ptm io.Reader) {
	var got []byte
	buf := make([]byte, 64)
	for !bytes.Contains(got, []byte(backgroundQuery)) {
		n, err := ptm.Read(buf)
		if err != nil {
			t.Errorf("reading the query: %v (got %q)", err, got)
			return
		}
		got = append(got, buf[:n]...)
	}
}

func TestQueryTerminalReadsTheAnswer(t *testing.T) {
	ptm, tty := openPTY(t)
	go func() {
		readQuery(t, ptm)
		_, _ = ptm.WriteString("\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[1;1R")
	}()
	dark, ok := queryTerminal(tty, tty, time.Minute)
	if dark || !ok {
		t.Fatalf("a white background answered: got dark=%v ok=%v, want light", dark, ok)
	}
}

func TestQueryTerminalGivesUpOnSilence(t *testing.T) {
	ptm, tty := openPTY(t)
	go func() { _, _ = io.Copy(io.Discard, ptm) }() // a terminal that never answers
	start := time.Now()
	_, ok := queryTerminal(tty, tty, 50*time.Millisecond)
	if ok {
		t.Fatal("no answer was read as one")
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("waited %v for a silent terminal, want about 50ms", el)
	}
}

func TestQueryTerminalAsksNoPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.Close()
	if _, ok := queryTerminal(r, os.Stderr, time.Minute); ok {
		t.Fatal("a pipe answered")
	}
}
