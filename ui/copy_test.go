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

// TestCopy: what y and Y copy and what the status line says of it. The
// cases share one demo dashboard, each from nothing open with
// rt-t4demo7k2p selected and the token hidden; the hostile seed's runtime
// is on a dashboard of its own, built here too.
func TestCopy(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	var copied []string
	he, hm := emuModel(t, colabfake.Options{Seed: colabfake.SeedHostile}, func(o *Options) {
		o.CopyTo = nil
		o.Clipboard = func(s string) error { copied = append(copied, s); return nil }
	})
	for _, c := range []struct {
		name string
		run  func(*testing.T, *emu, Model) Model
	}{
		{"URL and token", copyURLAndToken},
		{"the message says how", copyMessageSaysHow},
		{"control characters refused", func(t *testing.T, e *emu, m Model) Model {
			copyRefusesControlCharacters(t, he, hm, e, m, &copied)
			return m
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m = e.closeAll(t, m, "rt-t4demo7k2p")
			if r := m.cx.Snap.Runtime("runtimes/rt-t4demo7k2p"); strings.Contains(m.View(), r.ConnectionInfo.Token) {
				t.Fatal("the token is revealed before the case")
			}
			m = c.run(t, e, m)
		})
	}
}

// y copies the URL; Y copies the token only once v has revealed it.
func copyURLAndToken(t *testing.T, e *emu, m Model) Model {
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
	return m
}

// `y` on the hostile seed's runtime copied its connection URL, escape
// sequences and U+202E included, to the clipboard (OSC 52 and native), so
// a later paste replayed them into a shell or terminal (red team). A text
// with controls is now not copied and the status line says why; a clean
// URL still is.
func copyRefusesControlCharacters(t *testing.T, he *emu, hm Model, e *emu, m Model, copied *[]string) {
	hm = hm.selectID(t, "rt-clip"+colabfake.HostileOSC52+"board")
	hm = he.press(t, hm, "y")
	if len(*copied) != 0 {
		t.Fatalf("copied %q", *copied)
	}
	if v := hm.View(); !strings.Contains(v, "copy failed") || !strings.Contains(v, "control characters") {
		t.Fatalf("no reason on the status line:\n%s", v)
	}
	m.opts.CopyTo = nil
	m.opts.Clipboard = func(s string) error { *copied = append(*copied, s); return nil }
	defer func() { m.opts.Clipboard = e.clip.write }()
	e.press(t, m, "y")
	if len(*copied) != 1 || !strings.HasSuffix((*copied)[0], "/proxy/rt-t4demo7k2p/") { // the emulator's own runtime proxy
		t.Fatalf("a clean URL was not copied: %q", *copied)
	}
}

// The copy message says how the text was copied: certainly (native
// clipboard), to a tmux buffer, hedged (OSC 52 alone, which tmux may
// drop), or failed.
func copyMessageSaysHow(t *testing.T, e *emu, m Model) Model {
	m, _ = update(m, tea.WindowSizeMsg{Width: 160, Height: 30})
	defer func() { m.opts.CopyTo = nil }()
	for _, tc := range []struct {
		how  clipboard.Method
		err  error
		want string
	}{
		{clipboard.Native, nil, "✓ copied the URL of rt-t4demo7k2p to the clipboard"},
		{clipboard.OSC52, nil, "✓ copied the URL of rt-t4demo7k2p (OSC 52; in tmux this needs `set -g set-clipboard on`)"},
		{clipboard.OSC52, errors.New("no tty; no xclip"), "copy failed: no tty; no xclip"},
		{clipboard.Tmux, nil, "✓ copied the URL of rt-t4demo7k2p to a tmux buffer (prefix ] pastes it)"},
	} {
		m.opts.CopyTo = func(string) (clipboard.Method, error) { return tc.how, tc.err }
		m, cmd := update(m, keyMsg("y"))
		m, _ = update(m, cmd())
		v := m.View()
		mustContain(t, v, tc.want)
		if tc.how != clipboard.Native && strings.Contains(v, "to the clipboard") {
			t.Fatalf("OSC 52 alone claimed the clipboard:\n%s", v)
		}
	}
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	return m
}
