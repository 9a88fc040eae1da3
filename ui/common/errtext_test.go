package common

import (
	"fmt"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/jupyter"
)

// A runtime file's error names its path as the files pane shows it (not
// Go-quoted), wrapped or not; ErrLine is one safe line, "" for nil.
func TestErrTextAndLine(t *testing.T) {
	je := &jupyter.Error{Op: "download", Runtime: "rt-a", Path: "content/my \"file\".csv", Kind: jupyter.ErrNotFound}
	for _, err := range []error{je, fmt.Errorf("files: %w", je)} {
		if got := ErrText(err); !strings.Contains(got, `rt-a:/content/my "file".csv`) {
			t.Errorf("ErrText(%v) = %q", err, got)
		}
	}
	if ErrLine(nil) != "" {
		t.Error("ErrLine(nil) is not empty")
	}
	long := fmt.Errorf("line one\nline two \x1b[2J%s", strings.Repeat("x", 400))
	got := ErrLine(long)
	if strings.ContainsAny(got, "\n\x1b") || !strings.HasPrefix(got, "line one line two") || !strings.HasSuffix(got, "…") {
		t.Errorf("ErrLine: %q", got)
	}
}
