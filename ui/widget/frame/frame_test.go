package frame

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Wrapped text breaks at spaces only: an id (colabdash-22211b87), a URL
// (https://8080-m-s-rt-….prod.colab.dev) or a flag (--request-id) stays
// on one line; only a word longer than the width is broken.
func TestWrapTextKeepsHyphenatedWordsWhole(t *testing.T) {
	for _, tc := range []struct {
		s     string
		w     int
		whole []string
	}{
		{"Colab cannot interrupt code: stopping it closes session colabdash-22211b87 (delete_session).", 72,
			[]string{"colabdash-22211b87"}},
		{"could not reach https://8080-m-s-rt-t4demo7k2p.prod.colab.dev: connection refused", 54,
			[]string{"https://8080-m-s-rt-t4demo7k2p.prod.colab.dev:"}},
		{"re-run with --request-id 3f1c: Colab then returns the same runtime", 30, []string{"--request-id"}},
	} {
		got := Wrap(tc.s, tc.w)
		for _, ln := range strings.Split(got, "\n") {
			if ansi.StringWidth(ln) > tc.w {
				t.Errorf("line %q wider than %d", ln, tc.w)
			}
		}
		for _, word := range tc.whole {
			if !strings.Contains(got, word) {
				t.Errorf("%q broken across lines:\n%s", word, got)
			}
		}
		if strings.Join(strings.Fields(got), " ") != tc.s {
			t.Errorf("text changed:\n%s", got)
		}
	}
	// Longer than the width: broken, never lost.
	long := strings.Repeat("ab-", 30)
	if got := Wrap(long, 20); strings.ReplaceAll(got, "\n", "") != long {
		t.Errorf("a long word lost text: %q", got)
	}
}

// What an overlay paints is cut to the frame's width as the dashboard cuts
// every line: the body and the status line end in "…", never wider.
func TestSetBodyAndStatusCutToWidth(t *testing.T) {
	f := New(20, 6)
	f.Lines = PadLines(nil, 6)
	f.SetBody([]string{strings.Repeat("x", 30), "short"})
	f.SetStatus(strings.Repeat("y", 25))
	if got := f.Lines[2]; got != strings.Repeat("x", 19)+"…" {
		t.Errorf("body line: %q", got)
	}
	if got := f.Lines[3]; got != "short" {
		t.Errorf("a line that fits changed: %q", got)
	}
	if got := f.Lines[4]; got != strings.Repeat("y", 19)+"…" {
		t.Errorf("status line: %q", got)
	}
	if len(f.Lines) != 6 {
		t.Errorf("%d lines", len(f.Lines))
	}
}
