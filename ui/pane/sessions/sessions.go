// Package sessions is the dashboard's sessions pane: the Jupyter sessions
// of the selected runtime, with a cursor that picks the session run code
// uses.
package sessions

import (
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// Pane is the sessions pane's state: its cursor, an index into the
// selected runtime's sessions.
type Pane struct{ cursor int }

// Cursor is the index of the session under the cursor.
func (p *Pane) Cursor() int { return p.cursor }

// SetCursor puts the cursor on the i-th session.
func (p *Pane) SetCursor(i int) { p.cursor = i }

// Reset puts the cursor on the first session (another runtime selected).
func (p *Pane) Reset() { p.cursor = 0 }

// Clamp keeps the cursor among n sessions.
func (p *Pane) Clamp(n int) { p.cursor = frame.Clamp(p.cursor, 0, n-1) }

// HandleKey takes the pane's own keys (keymap.ScopeSessions: moving its
// cursor) and answers
// with a MoveSession; ok is false for any other key.
func (p *Pane) HandleKey(k tea.KeyMsg, c *common.Context) (common.Effect, bool) {
	keys, page := &c.Keys.SessionsPane, max(1, c.Layout.SessLines-1)
	n := 0
	switch {
	case key.Matches(k, keys.Up):
		n = -1
	case key.Matches(k, keys.Down):
		n = 1
	case key.Matches(k, keys.PageUp):
		n = -page
	case key.Matches(k, keys.PageDown):
		n = page
	case key.Matches(k, keys.Top):
		n = -1 << 30
	case key.Matches(k, keys.Bottom):
		n = 1 << 30
	default:
		return nil, false
	}
	return common.MoveSession{N: n}, true
}

// Move moves the cursor by delta among r's sessions and returns the
// session now under it ("" when none, or r is nil).
func (p *Pane) Move(delta int, r *state.Runtime) string {
	n := 0
	if r != nil {
		n = len(r.Sessions)
	}
	p.cursor = frame.Clamp(p.cursor+delta, 0, n-1)
	return p.Selected(r, true)
}

// Selected is the session under the cursor of r's sessions when the pane
// has the focus ("" otherwise, or when r is nil or gone).
func (p *Pane) Selected(r *state.Runtime, focused bool) string {
	if !focused || r == nil || r.Gone() || p.cursor >= len(r.Sessions) {
		return ""
	}
	return r.Sessions[p.cursor].Name
}

// tagWidth fits the widest tag, "colabdash".
const tagWidth = 10

// View draws the pane for runtime r (nil: none selected): exactly n lines
// none wider than w.
func (p *Pane) View(c *common.Context, r *state.Runtime, w, n int) []string {
	out := make([]string, 0, n)
	focused := c.Focus == common.PanelSessions
	if r == nil {
		out = append(out, common.PanelTitle(c, focused, "SESSIONS"), c.Styles.Dim.Render("  no runtime selected"))
		return frame.PadLines(out, n)
	}
	out = append(out, common.PanelTitle(c, focused, "SESSIONS · "+r.ID()+" "+strconv.Itoa(len(r.Sessions))))
	f := r.SessionsFresh
	switch {
	case r.Gone():
		out = append(out, c.Styles.Dim.Render("  runtime gone: sessions cleared"))
	case f.Loading():
		out = append(out, c.Styles.Dim.Render("  loading sessions…"))
	case f.Stale():
		out = append(out, c.Styles.Warn.Render("  ▲ stale: "+common.ErrLine(f.Err)))
	case len(r.Sessions) == 0:
		out = append(out, c.Styles.Dim.Render("  no open sessions"))
	}
	// The kernels take the lines the sessions leave, below them.
	kernels := kernelLines(c, r, w, n-len(out)-len(r.Sessions))
	rows := n - len(out) - len(kernels)
	// A poll may have shortened the list under the cursor (it is clamped
	// at the next move): scroll for the last session then, not past it.
	off := 0
	if cur := min(p.cursor, len(r.Sessions)-1); cur >= rows {
		off = cur - rows + 1
	}
	for i := off; i < len(r.Sessions) && len(out) < n-len(kernels); i++ {
		s := r.Sessions[i]
		tag := "notebook"
		if c.Snap.Owned(s.Name) {
			tag = "colabdash"
		}
		line := "  "
		sel := focused && i == p.cursor
		if sel {
			line = "› "
		}
		line += frame.Fit(s.ID(), min(max(w-2-tagWidth-1, 4), 40)) + " " + frame.Fit(tag, tagWidth)
		if sel {
			line = c.Styles.Selected.Render(line)
		}
		out = append(out, line)
	}
	out = append(out, kernels...)
	return frame.PadLines(out, n)
}
