//go:build unix

package safefile

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/safefile/safefiletest"
)

// A FIFO nobody writes to: opening does not block, the type is refused.
func TestReadFIFODoesNotBlock(t *testing.T) {
	p := safefiletest.FIFO(t, t.TempDir(), "fifo")
	_, err := Read(p, MaxTokenFile, time.Minute)
	if !errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrNotRegular", err)
	}
	if !strings.Contains(err.Error(), "FIFO") || !strings.Contains(err.Error(), p) {
		t.Errorf("error %q should name the file and say FIFO", err)
	}
}
