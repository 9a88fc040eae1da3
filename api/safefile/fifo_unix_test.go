//go:build unix

package safefile

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO nobody writes to: opening does not block, the type is refused.
func TestReadFIFODoesNotBlock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Read(p, MaxTokenFile, time.Minute)
	if !errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrNotRegular", err)
	}
	if !strings.Contains(err.Error(), "FIFO") || !strings.Contains(err.Error(), p) {
		t.Errorf("error %q should name the file and say FIFO", err)
	}
}
