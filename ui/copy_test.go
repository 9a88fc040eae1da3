package ui

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/ui/clipboard"
)

func TestCopyURLAndToken(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	r := m.cx.Snap.Runtime("runtimes/rt-t4demo7k2p")
	m = e.press(t, m, "y")
	if e.clip.last() != r.ConnectionInfo.URL {
		t.Fatalf("copied %q", e.clip.last())
	}
	mustContain(t, m.View(), "copied the URL of rt-t4demo7k2p")
	m = e.press(t, m, "Y")
	if e.clip.last() == r.ConnectionInfo.Token {
		t.Fatal("token copied without a reveal")
	}
	secrettest.Check(t, "the view before a reveal", m.View(), r.ConnectionInfo.Token)
	mustContain(t, m.View(), "reveal the token first")
	m = e.press(t, m, "v")
	mustContain(t, m.View(), r.ConnectionInfo.Token)
	m = e.press(t, m, "Y")
	if e.clip.last() != r.ConnectionInfo.Token {
		t.Fatal("token not copied after reveal")
	}
	m = e.press(t, m, "v")
	secrettest.Check(t, "the view after hiding the token", m.View(), r.ConnectionInfo.Token)
}

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

// The copy message says how the text was copied: certainly (native
// clipboard), to a tmux buffer, hedged (OSC 52 alone, which tmux may
// drop), or failed.
func TestCopyMessageSaysHow(t *testing.T) {
	for _, tc := range []struct {
		how  clipboard.Method
		err  error
		want string
	}{
		{clipboard.Native, nil, "✓ copied the URL of r-alpha to the clipboard"},
		{clipboard.OSC52, nil, "✓ copied the URL of r-alpha (OSC 52; in tmux this needs `set -g set-clipboard on`)"},
		{clipboard.OSC52, errors.New("no tty; no xclip"), "copy failed: no tty; no xclip"},
		{clipboard.Tmux, nil, "✓ copied the URL of r-alpha to a tmux buffer (prefix ] pastes it)"},
	} {
		_, _, m := fixture(t)
		m, _ = update(m, tea.WindowSizeMsg{Width: 160, Height: 30})
		m.opts.CopyTo = func(string) (clipboard.Method, error) { return tc.how, tc.err }
		m, cmd := update(m, keyMsg("y"))
		m, _ = update(m, cmd())
		v := m.View()
		mustContain(t, v, tc.want)
		if tc.how != clipboard.Native && strings.Contains(v, "to the clipboard") {
			t.Fatalf("OSC 52 alone claimed the clipboard:\n%s", v)
		}
	}
}
