//go:build unix

package ui

import (
	"bytes"
	"context"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/creack/pty"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/paint"
)

// waitBytes waits until what the program wrote from off on holds want,
// and returns it.
func (s *ptyScreen) waitBytes(t *testing.T, off int, want []byte) []byte {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		out, _ := s.since(off)
		if bytes.Contains(out, want) {
			return out
		}
		select {
		case <-s.more:
		case <-deadline:
			t.Fatalf("the terminal never got %q; it got, last:\n%q", want, out[max(len(out)-3000, 0):])
		}
	}
}

// The real dashboard (Run's program and Painter) on a pseudo-terminal:
// a runtime Colab reclaims rings the bell with a desktop notification, as
// OSC 9 for a terminal that shows it and OSC 777 wrapped in tmux's
// passthrough inside tmux, written between frames.
func TestNotificationBytesOnAPty(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"osc9", map[string]string{"TERM_PROGRAM": "WezTerm"},
			"\x1b]9;colabdash: rt-cpudemo4qx gone: runtime rt-cpudemo4qx is no longer listed (missing from list_runtimes)\x1b\\\a"},
		{"osc777 in tmux", map[string]string{"TERM": "foot", "TMUX": "/tmp/tmux-1/default,1,0"},
			"\x1bPtmux;\x1b\x1b]777;notify;colabdash: rt-cpudemo4qx gone;runtime rt-cpudemo4qx is no longer listed (missing from list_runtimes)\x1b\x1b\\\x1b\\\a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, ep, err := colabfake.Start(context.Background(), "127.0.0.1:0", colabfake.Options{Seed: colabfake.SeedDemo})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			ptm, tty, err := pty.Open()
			if err != nil {
				t.Skip("no pseudo-terminal here:", err)
			}
			defer ptm.Close()
			defer tty.Close()
			if err := pty.Setsize(ptm, &pty.Winsize{Rows: 30, Cols: 120}); err != nil {
				t.Fatal(err)
			}
			scr := &ptyScreen{more: make(chan struct{}, 1)}
			go scr.read(ptm)
			s := newStackAt(t, srv, ep, stackOpts{realTime: true, ui: Options{
				Notify: config.Notify{Terminal: state.NotifyAuto}, Getenv: func(k string) string { return c.env[k] }}})
			painter := paint.New(tty, tty)
			p := newProgram(New(s.m.opts), painter, tea.WithInput(tty), tea.WithOutput(tty), tea.WithoutSignalHandler())
			done := make(chan tea.Model, 1)
			go func() { fm, _ := runProgram(p, painter); done <- fm }()
			defer func() { p.Quit(); (<-done).(Model).life.cancel() }()
			_, off := scr.since(0)
			// Listed, and seen listed on a tick (a runtime gone within a
			// second of its first listing is no news).
			scr.waitBytes(t, 0, []byte("updated 1s ago"))
			if !srv.Reclaim("runtimes/rt-cpudemo4qx") {
				t.Fatal("nothing to reclaim")
			}
			if _, err := ptm.WriteString("r"); err != nil {
				t.Fatal(err)
			}
			out := scr.waitBytes(t, off, []byte(c.want))
			if n := bytes.Count(out, []byte("\a")); n != 1 {
				t.Errorf("the bell rang %d times", n)
			}
			before := out[:bytes.Index(out, []byte(c.want))]
			if bytes.LastIndex(before, []byte("\x1b[?2026h")) > bytes.LastIndex(before, []byte("\x1b[?2026l")) {
				t.Error("the notification was written inside a frame")
			}
		})
	}
}
