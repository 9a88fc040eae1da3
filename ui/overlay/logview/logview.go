// Package logview is the log viewer (l): a job's log, or a kernel's
// output, followed live over the dashboard.
//
// The viewer owns its source (ops.LogSource): each Next runs in a
// tea.Cmd whose answer, a ChunkMsg, names the viewer that asked; the app
// hands it back to Update, which folds it into a bounded Buffer and asks
// for the next one. Nothing here blocks or does I/O in Update: saving
// runs in a command too (save.go). Keys answer with common effects, as
// every overlay's do.
//
// Log bytes are untrusted. The Buffer draws a log's own "\r" (a progress
// bar redraws its line) and SGR colours; everything else goes through
// termtext, so no other escape sequence reaches the terminal; every line
// is drawn, searched and saved through the Context's redactor.
package logview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// RetryAfter is how long the viewer waits after a failed Next before it
// asks again (the source itself rides out token renewals and reconnects;
// this is for what it gave up on).
const RetryAfter = 5 * time.Second

// Target is what a viewer shows: Kind "job" (ID a job id) or "kernel"
// (ID a session id), on runtime Runtime (its id); State is the job's
// state when the viewer opened ("running"; "" when unknown). Each is
// drawn through termtext.
type Target struct {
	Kind, ID, Runtime, State string
}

// Overlay is the log viewer. Build it with New and start it with Init.
// It implements common.Overlay.
type Overlay struct {
	target Target
	src    ops.LogSource
	ctx    context.Context
	cancel context.CancelFunc
	closed *sync.Once // the source is closed once

	buf Buffer
	v   view // the window onto buf

	match int // the absolute line of the current search match; -1: none

	ended   bool   // the source ended
	end     string // how ("exited 1", "killed by SIGKILL (signal 9)", "lost …", …)
	note    string // the source's last word for the user (ops.LogChunk.Note)
	fail    string // the last failed Next, while retrying ("": none)
	fails   int
	retryAt time.Time // when to read again after a failure (zero: not waiting)
}

// New returns a viewer of t reading src, whose reads run under parent
// (the dashboard's life: quitting ends them). It follows, unwrapped.
func New(parent context.Context, t Target, src ops.LogSource) *Overlay {
	ctx, cancel := context.WithCancel(parent)
	o := &Overlay{target: t, src: src, ctx: ctx, cancel: cancel, closed: &sync.Once{}, match: -1}
	o.v = view{buf: &o.buf, follow: true}
	return o
}

// Msg is a message of a viewer's own commands: the app hands it to
// Owner's Update when that viewer is still open, and drops it otherwise.
type Msg interface{ Owner() *Overlay }

// ChunkMsg is the answer of one Next of Owner's source.
type ChunkMsg struct {
	o     *Overlay
	Chunk ops.LogChunk
	Err   error
}

// Owner is the viewer whose source answered.
func (m ChunkMsg) Owner() *Overlay { return m.o }

// Init is the viewer's first read.
func (o *Overlay) Init() tea.Cmd { return o.next() }

// next is one Next of the source, in a command.
func (o *Overlay) next() tea.Cmd {
	ctx, src := o.ctx, o.src
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = ChunkMsg{o: o, Err: fmt.Errorf("internal error: %v", r)}
			}
		}()
		c, err := src.Next(ctx)
		return ChunkMsg{o: o, Chunk: c, Err: err}
	}
}

// Close ends the viewer's reads: its context is cancelled and its source
// closed (once, however often Close runs), in a command (closing may wait
// for a read in flight).
func (o *Overlay) Close() tea.Cmd {
	cancel, src, once := o.cancel, o.src, o.closed
	return func() tea.Msg {
		cancel()
		once.Do(func() { _ = src.Close() })
		return nil
	}
}

// Cancel ends the read in flight at once (no I/O: its answer then comes
// back, and the app closes the source with Close).
func (o *Overlay) Cancel() { o.cancel() }

// Update folds one of the viewer's own messages at now and returns its
// next read (nil once the source ended or the viewer was closed, or
// while it waits to retry a failed read: Tick starts that).
func (o *Overlay) Update(msg Msg, now time.Time) tea.Cmd {
	if m, ok := msg.(ChunkMsg); ok {
		return o.take(m, now)
	}
	return nil
}

// Tick is the dashboard's one-second tick: after a failed read it
// starts the next one RetryAfter later (nil otherwise).
func (o *Overlay) Tick(now time.Time) tea.Cmd {
	if o.retryAt.IsZero() || now.Before(o.retryAt) || o.ctx.Err() != nil || o.ended {
		return nil
	}
	o.retryAt = time.Time{}
	return o.next()
}

// take folds a chunk (or a failure) and asks for the next one.
func (o *Overlay) take(m ChunkMsg, now time.Time) tea.Cmd {
	if o.ctx.Err() != nil || o.ended {
		return nil
	}
	if m.Err != nil {
		if errors.Is(m.Err, io.EOF) {
			o.ended, o.end, o.fail = true, "the output ended", ""
			return o.Close()
		}
		if errors.Is(m.Err, context.Canceled) {
			return nil
		}
		o.fails++
		o.fail = common.ErrLine(m.Err)
		o.retryAt = now.Add(RetryAfter) // the tick starts the next read (Tick)
		return nil
	}
	o.fail, o.fails = "", 0
	if len(m.Chunk.Data) > 0 {
		_, _ = o.buf.Write(m.Chunk.Data)
	}
	if m.Chunk.Note != "" {
		o.note = m.Chunk.Note
	}
	if m.Chunk.Ended != nil {
		o.ended, o.end = true, EndText(*m.Chunk.Ended)
		return o.Close()
	}
	return o.next()
}

// EndText says how a job ended, as its final status gives it, in the
// words of `colabdash jobs` (state.JobView.Word): "exited 0", "killed by
// SIGKILL" (signal 9), "failed: why" (the supervisor could not start it)
// or "lost (no end recorded)".
func EndText(st jobs.Status) string {
	switch {
	case st.Error != "":
		return "failed: " + st.Error
	case st.Ended.IsZero():
		return "lost (no end recorded)"
	}
	v := state.JudgeJob(jobs.Record{Status: &st}, st.Ended, 0)
	if v.State == state.JobKilled {
		return v.Word() + " (signal " + strconv.Itoa(st.Signal) + ")"
	}
	return v.Word()
}

// Following reports whether the view stays at the bottom as lines come.
func (o *Overlay) Following() bool { return o.v.follow }

// Ended reports whether the source ended, and how.
func (o *Overlay) Ended() (bool, string) { return o.ended, o.end }

// Target is what the viewer shows.
func (o *Overlay) Target() Target { return o.target }

// HandleKey takes every key while the viewer is on top (keymap's
// ScopeLogView): the scroll keys, f (follow), / n N (search), w (wrap),
// s (save), esc and q close it; ctrl+c quits.
func (o *Overlay) HandleKey(k tea.KeyMsg, c *common.Context) common.Effect {
	keys := &c.Keys.LogView
	w, room := c.Layout.W, room(c.Layout.H-4)
	switch {
	case k.Type == tea.KeyCtrlC:
		return common.Quit{}
	case key.Matches(k, keys.Back), key.Matches(k, keys.Close):
		return common.Close{Cmd: o.Close()}
	case key.Matches(k, keys.Up):
		o.v.scroll(c, w, room, -1)
	case key.Matches(k, keys.Down):
		o.v.scroll(c, w, room, 1)
	case key.Matches(k, keys.PageUp):
		o.v.scroll(c, w, room, -max(room-1, 1))
	case key.Matches(k, keys.PageDown):
		o.v.scroll(c, w, room, max(room-1, 1))
	case key.Matches(k, keys.Top):
		o.v.toTop()
	case key.Matches(k, keys.Bottom):
		o.v.follow = true // the last line, and following from there
	case key.Matches(k, keys.Follow):
		if o.v.follow {
			o.v.pin(c, w, room)
			return common.Say{Text: "log: following off (" + keys.Follow.Help().Key + " follows again)"}
		}
		o.v.follow = true
		return common.Say{Text: "log: following"}
	case key.Matches(k, keys.Wrap):
		o.v.toggleWrap()
		if o.v.wrap {
			return common.Say{Text: "log: long lines wrap"}
		}
		return common.Say{Text: "log: long lines cut (" + keys.Wrap.Help().Key + " wraps)"}
	case key.Matches(k, keys.Search):
		return common.Open{Overlay: newSearchLine(o)}
	case key.Matches(k, keys.Next):
		return o.findNext(c, 1)
	case key.Matches(k, keys.Prev):
		return o.findNext(c, -1)
	case key.Matches(k, keys.Save):
		return common.Open{Overlay: o.saveDialog(c)}
	}
	return nil
}

// Draw paints the viewer over the frame's whole body.
func (o *Overlay) Draw(c *common.Context, f *frame.Frame) { f.SetBody(o.lines(c, f.W, f.BodyRows())) }

// Fits is always true: the viewer scrolls on any screen the dashboard
// lays out.
func (o *Overlay) Fits(*common.Context) bool { return true }

// Name is "log viewer".
func (o *Overlay) Name() string { return "log viewer" }

// Keys are the footer's words while the viewer is on top: the ways out
// first (a narrow footer cuts from the end), then follow, search, wrap,
// save and scroll.
func (o *Overlay) Keys(c *common.Context) []key.Binding {
	k := &c.Keys.LogView
	follow := "stop following"
	if !o.v.follow {
		follow = "follow"
	}
	wrap := "wrap"
	if o.v.wrap {
		wrap = "cut lines"
	}
	ks := []key.Binding{
		common.HelpKey(common.KeysOf(k.Back, k.Close), "close"),
		common.HelpKey(k.Follow.Help().Key, follow),
		common.HelpKey(k.Search.Help().Key, "search"),
	}
	if o.v.query != "" {
		ks = append(ks, common.HelpKey(common.KeysOf(k.Next, k.Prev), "next/prev"))
	}
	return append(ks, common.HelpKey(k.Wrap.Help().Key, wrap), common.HelpKey(k.Save.Help().Key, "save"),
		common.HelpKey(common.KeysOf(k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom), "scroll"))
}
