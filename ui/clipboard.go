package ui

import (
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/atotto/clipboard"
	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
)

// clipboardMsg reports a finished copy; what names what was copied ("the
// URL of r-abc"), never the text itself; how says which way worked.
type clipboardMsg struct {
	what string
	how  ClipboardMethod
	err  error
}

// ClipboardMethod says how a copy reached the clipboard.
type ClipboardMethod int

const (
	// ClipboardNative: the native clipboard took the text (pbcopy,
	// xclip/xsel/wl-copy, Windows), so it is certainly there.
	ClipboardNative ClipboardMethod = iota
	// ClipboardOSC52: only the OSC 52 escape sequence was written. Whether
	// the terminal honours it cannot be known (tmux drops it unless
	// `set -g set-clipboard on`).
	ClipboardOSC52
)

// SystemClipboardCopy copies text with an OSC 52 escape sequence written
// to the controlling terminal (/dev/tty, else stderr), so it works over
// SSH; inside tmux ($TMUX set) or GNU screen (TERM screen*) the sequence is
// wrapped for them to pass on. It also tries the native clipboard
// (github.com/atotto/clipboard: pbcopy, xclip/xsel/wl-copy, Windows), and
// says which way worked: ClipboardNative when the native clipboard took the
// text (OSC 52 is written too), ClipboardOSC52 when only the escape
// sequence could be written. The error (non-nil only when neither could be written) joins
// both failures. The text is never logged.
func SystemClipboardCopy(text string) (ClipboardMethod, error) {
	oscErr := writeOSC52(text)
	nativeErr := clipboard.WriteAll(text)
	switch {
	case nativeErr == nil:
		return ClipboardNative, nil
	case oscErr == nil:
		return ClipboardOSC52, nil
	}
	return ClipboardOSC52, errors.Join(oscErr, nativeErr)
}

// writeOSC52 writes text as an OSC 52 sequence to the controlling
// terminal (wrapped for tmux or screen).
func writeOSC52(text string) error {
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
	_, err := seq.WriteTo(w)
	return err
}

// clipboardCommand copies the selected runtime's connection URL
// (actCopyURL), reveals or hides its proxy token in the details
// (actReveal: the layout stays as it is) or copies the token once revealed
// (actCopyToken).
func (m *runtimeOps) clipboardCommand(kind common.Op, now time.Time) tea.Cmd {
	r := m.cx.Snap.Runtime(m.rt.Selected())
	if r != nil && r.Gone() {
		m.scr.setStatus(now, m.ops.goneText(r, now), true)
		return nil
	}
	if r == nil || r.ConnectionInfo == nil {
		m.scr.setStatus(now, "no runtime with connection info selected", true)
		return nil
	}
	ci := *r.ConnectionInfo
	switch {
	case kind == common.OpReveal:
		if m.cx.Activity.Revealed == r.Name {
			m.cx.Activity.Revealed = ""
			m.scr.setStatus(now, "proxy token hidden", false)
		} else {
			m.cx.Activity.Revealed = r.Name
			m.scr.setStatus(now, "proxy token of "+r.ID()+" revealed in the details ("+m.cx.Keys.RevealToken.Help().Key+" hides it, "+m.cx.Keys.CopyToken.Help().Key+" copies it)", false)
		}
		return nil
	case kind == common.OpCopyToken:
		if m.cx.Activity.Revealed != r.Name {
			m.scr.setStatus(now, "reveal the token first with "+m.cx.Keys.RevealToken.Help().Key, true)
			return nil
		}
		return m.ops.copyCmd(ci.Token, "the proxy token of "+r.ID())
	}
	if ci.URL == "" {
		m.scr.setStatus(now, r.ID()+" has no connection URL", true)
		return nil
	}
	return m.ops.copyCmd(ci.URL, "the URL of "+r.ID())
}

// errClipboardControls refuses a copy of text that holds controls: a
// paste would type them into whatever has the focus (a carriage return
// runs a shell command, an escape sequence drives the terminal).
var errClipboardControls = errors.New("it holds control characters or bidirectional overrides, which a paste would replay")

func (m *runtimeOps) copyCmd(text, what string) tea.Cmd {
	cp, cpTo := m.opts.Clipboard, m.opts.CopyTo
	return func() tea.Msg {
		if termtext.Input(text, false) != text {
			return clipboardMsg{what: what, err: errClipboardControls}
		}
		if cpTo != nil {
			how, err := cpTo(text)
			return clipboardMsg{what: what, how: how, err: err}
		}
		return clipboardMsg{what: what, how: ClipboardNative, err: cp(text)}
	}
}

// copiedText is the status line after a copy: certain for the native
// clipboard, hedged for OSC 52 alone, which terminals (and tmux with
// set-clipboard off) may drop without telling.
func copiedText(msg clipboardMsg) string {
	if msg.how == ClipboardOSC52 {
		return "✓ copied " + msg.what + " (OSC 52; in tmux this needs `set -g set-clipboard on`)"
	}
	return "✓ copied " + msg.what + " to the clipboard"
}
