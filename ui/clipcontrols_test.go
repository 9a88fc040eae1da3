package ui

import (
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// `y` on the hostile seed's runtime copied its connection URL, escape
// sequences and U+202E included, to the clipboard (OSC 52 and native), so
// a later paste replayed them into a shell or terminal (red team). A text
// with controls is now not copied and the status line says why; a clean
// URL still is.
func TestCopyRefusesControlCharacters(t *testing.T) {
	var copied []string
	e, m := emuModel(t, colabfake.Options{Seed: colabfake.SeedHostile}, func(o *Options) {
		o.CopyTo = nil
		o.Clipboard = func(s string) error { copied = append(copied, s); return nil }
	})
	m = m.selectID(t, "rt-clip"+colabfake.HostileOSC52+"board")
	m = e.press(t, m, "y")
	if len(copied) != 0 {
		t.Fatalf("copied %q", copied)
	}
	if v := m.View(); !strings.Contains(v, "copy failed") || !strings.Contains(v, "control characters") {
		t.Fatalf("no reason on the status line:\n%s", v)
	}
	e2, m2 := emuModel(t, colabfake.Options{}, func(o *Options) {
		o.CopyTo = nil
		o.Clipboard = func(s string) error { copied = append(copied, s); return nil }
	})
	m2 = m2.selectID(t, "rt-t4demo7k2p")
	e2.press(t, m2, "y")
	if len(copied) != 1 || !strings.HasSuffix(copied[0], "/proxy/rt-t4demo7k2p/") { // the emulator's own runtime proxy
		t.Fatalf("a clean URL was not copied: %q", copied)
	}
}
