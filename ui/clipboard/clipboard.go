// Package clipboard copies text for the dashboard's y and Y: inside tmux
// into a tmux paste buffer, elsewhere as an OSC 52 escape sequence to the
// controlling terminal, and to the native clipboard where there is one;
// it says which way worked, since a terminal never tells whether it took
// an OSC 52.
package clipboard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/atotto/clipboard"
	"github.com/aymanbagabas/go-osc52/v2"
	"github.com/charmbracelet/x/term"
)

// Method says how a copy reached the clipboard.
type Method int

const (
	// Native: the native clipboard took the text (pbcopy,
	// xclip/xsel/wl-copy, Windows), so it is certainly there.
	Native Method = iota
	// OSC52: only the OSC 52 escape sequence was written. Whether
	// the terminal honours it cannot be known (tmux drops it unless
	// `set -g set-clipboard on`).
	OSC52
	// Tmux: inside tmux, `tmux load-buffer -w` took the text: it
	// is in a tmux paste buffer (prefix ] pastes it), and tmux sends it on
	// to the terminal's clipboard (OSC 52) where set-clipboard and the
	// terminal allow, which cannot be known.
	Tmux
)

// Copy copies text and says which way worked. Inside tmux
// ($TMUX set) it hands the text to tmux (`tmux load-buffer -w -`, on
// stdin, never on a command line): a paste buffer appears, which tmux
// also sends to the terminal's clipboard where set-clipboard allows; an
// OSC 52 sequence wrapped for passthrough would be dropped by tmux ≥ 3.3
// unless allow-passthrough is on. Elsewhere, and inside tmux when the tmux
// command fails, it writes an OSC 52 sequence to the controlling terminal
// (/dev/tty, else stderr when it is a terminal), so it works over SSH (unwrapped in tmux, which
// takes it with set-clipboard on; wrapped for GNU screen, TERM screen*).
// It also tries the native clipboard (github.com/atotto/clipboard: pbcopy,
// xclip/xsel/wl-copy, Windows). The answer: Native when the
// native clipboard took the text, else Tmux when tmux did, else
// OSC52 when only the escape sequence could be written. The
// error (non-nil only when nothing worked) joins the failures. The text
// is never logged.
func Copy(text string) (Method, error) {
	via, tmuxErr, oscErr := OSC52, error(nil), error(nil)
	if os.Getenv("TMUX") != "" {
		if tmuxErr = tmuxCopy(text); tmuxErr == nil {
			via = Tmux
		}
	}
	if via == OSC52 {
		oscErr = writeOSC52(text)
	}
	nativeErr := clipboard.WriteAll(text)
	switch {
	case nativeErr == nil:
		return Native, nil
	case via == Tmux || oscErr == nil:
		return via, nil
	}
	return OSC52, errors.Join(tmuxErr, oscErr, nativeErr)
}

// tmuxCopy puts text in a paste buffer of the tmux server this process
// runs in ($TMUX names it): `load-buffer -w -` (tmux ≥ 3.2) also sends it
// to the terminal's clipboard; an older tmux, which has no -w, gets the
// plain load-buffer. Bounded to 5 s in all.
func tmuxCopy(text string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	load := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "tmux", append([]string{"load-buffer"}, args...)...)
		cmd.Stdin = strings.NewReader(text)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("tmux load-buffer: %w %s", err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	if err := load("-w", "-"); err == nil || ctx.Err() != nil {
		return err
	}
	return load("-")
}

// writeOSC52 writes text as an OSC 52 sequence to the controlling
// terminal (wrapped for GNU screen; plain in tmux, which takes it when
// set-clipboard is on).
func writeOSC52(text string) error {
	seq := osc52.New(text)
	if os.Getenv("TMUX") == "" && strings.HasPrefix(os.Getenv("TERM"), "screen") {
		seq = seq.Screen()
	}
	var w io.Writer = os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		w = tty
	} else if !term.IsTerminal(os.Stderr.Fd()) {
		// The text may be a proxy token: never into a file stderr was
		// sent to.
		return errors.New("no terminal for OSC 52: " + err.Error())
	}
	_, err := seq.WriteTo(w)
	return err
}
