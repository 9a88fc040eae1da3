package ui

import (
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/atotto/clipboard"
	"github.com/aymanbagabas/go-osc52/v2"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// clipboardMsg reports a finished copy; what names what was copied ("the
// URL of r-abc"), never the text itself.
type clipboardMsg struct {
	what string
	err  error
}

// SystemClipboard copies text with an OSC 52 escape sequence written to the
// controlling terminal (/dev/tty, else stderr), so it works over SSH; inside
// tmux ($TMUX set) or GNU screen (TERM screen*) the sequence is wrapped for
// them to pass on. It also tries the native clipboard
// (github.com/atotto/clipboard: pbcopy, xclip/xsel/wl-copy, Windows).
// It fails only when both ways failed. The text is never logged.
func SystemClipboard(text string) error {
	seq := osc52.New(text)
	switch {
	case os.Getenv("TMUX") != "":
		seq = seq.Tmux()
	case strings.HasPrefix(os.Getenv("TERM"), "screen"):
		seq = seq.Screen()
	}
	var w io.Writer = os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		w = tty
	}
	_, oscErr := seq.WriteTo(w)
	nativeErr := clipboard.WriteAll(text)
	if oscErr != nil && nativeErr != nil {
		return errors.Join(oscErr, nativeErr)
	}
	return nil
}

// onClipboardKey copies the selected runtime's connection URL, reveals its
// proxy token, or copies the token once revealed.
func (m *Model) onClipboardKey(k tea.KeyMsg, now time.Time) tea.Cmd {
	r := m.snap.Runtime(m.selected)
	if r != nil && r.Gone() {
		m.setStatus(now, m.goneText(r, now), true)
		return nil
	}
	if r == nil || r.ConnectionInfo == nil {
		m.setStatus(now, "no runtime with connection info selected", true)
		return nil
	}
	ci := *r.ConnectionInfo
	switch {
	case key.Matches(k, m.keys.RevealToken):
		if m.ax.revealed == r.Name {
			m.ax.revealed = ""
			m.setStatus(now, "proxy token hidden", false)
		} else {
			m.ax.revealed, m.showDetails = r.Name, true
			m.setStatus(now, "proxy token of "+r.ID()+" revealed in the details ("+m.keys.RevealToken.Help().Key+" hides it, "+m.keys.CopyToken.Help().Key+" copies it)", false)
		}
		return nil
	case key.Matches(k, m.keys.CopyToken):
		if m.ax.revealed != r.Name {
			m.setStatus(now, "reveal the token first with "+m.keys.RevealToken.Help().Key, true)
			return nil
		}
		return m.copyCmd(ci.Token, "the proxy token of "+r.ID())
	}
	if ci.URL == "" {
		m.setStatus(now, r.ID()+" has no connection URL", true)
		return nil
	}
	return m.copyCmd(ci.URL, "the URL of "+r.ID())
}

func (m *Model) copyCmd(text, what string) tea.Cmd {
	cp := m.opts.Clipboard
	return func() tea.Msg { return clipboardMsg{what: what, err: cp(text)} }
}
