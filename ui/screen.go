package ui

// screen: the overlay stack and its key router, and the overlays waiting
// for their layer (the status line and the event log: status.go).

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/files"
)

// The overlay stack and the key router.
//
// The screen is the panes (ui/pane/header, runtimes, sessions, details,
// footer) with overlays on top of them, kept on one stack, screen.stack,
// bottom first. routeKey below is the only code that decides who gets a
// key:
//
//  1. While the screen is too small to show what is on top (the dashboard
//     itself, or the top overlay), only quit and esc act: esc goes to the
//     top overlay, whose esc closes it (a dialog cancels, a picker step
//     goes back), so an overlay too tall for the screen can always be
//     left; every other key is dropped, so nothing can be answered or
//     started unseen. A dialog that becomes visible again starts its
//     grace period anew (app.resize, layout.go).
//  2. Else the top overlay gets the key, whatever it is; nothing below an
//     open overlay ever sees a key.
//  3. Else the focused pane (runtimes or sessions) gets it, if it is one of
//     the pane's keys (focusedKey).
//  4. Else the global keys (globalKey in action.go).
//
// Each of them answers with a common.Effect (ui/common/effect.go);
// app.apply (action.go), the one place that turns effects into state
// changes and commands, carries it out. View (layout.go) draws the panes,
// then every overlay in stack order, so what is drawn on top is what gets
// the keys.
//
// Adding an overlay (a new dialog, a files browser…):
//   - write a package under ui/overlay with a type that implements
//     common.Overlay (HandleKey, Draw, Fits, Keys, Name). Draw paints onto
//     the frame (ui/widget/frame: SetBody for a full-screen panel,
//     SetStatus for the footer's line, Box for a centred box); Fits says
//     whether the current layout (Context.Layout) has room for it;
//     HandleKey reads the Context and returns an effect, never changing
//     anything itself;
//   - open it with a common.Open{Overlay: …} effect (a domain type opening
//     it from a key or an answer calls screen.push, or openFromAnswer as
//     below), close it with common.Close{};
//   - if it needs a new effect, add the type to ui/common/effect.go and
//     its case to the handler of its group in action.go (applyScreen,
//     applyTable or applyOp), which hands it to the domain type that owns
//     it (domains.go).
//
// An overlay that an answer brings rather than a key (the choices after a
// failed create, the offer to stop code a kernel interrupt could not stop,
// the console on a session just opened for it) is opened through
// openFromAnswer, never push: it opens only over the layer it was asked
// from, so it never lands on another dialog, nor on a layer the user is
// typing into. Otherwise it waits, the status line says so, and it opens
// as soon as that layer is on top again (see openFromAnswer).
//
// Adding a pane: write a package under ui/pane whose View(c, …, w, h)
// returns exactly h lines (none wider than w), reserve its rows in
// newLayout (layout.go), call it from app.view, and, if it takes keys,
// give it a HandleKey returning its effects and add it to focusedKey
// below.

// overlay is one layer of the stack (common.Overlay).
type overlay = common.Overlay

// closeTop closes the overlay on top (common.Close); its text goes to
// the status line and its command, if any, is returned. A files pane
// closed while a transfer runs is remembered (filesClosed), and a status
// about its keys goes with it.
func (m *screen) closeTop(a common.Close, now time.Time) tea.Cmd {
	if o, ok := m.top().(*files.Overlay); ok {
		m.filesClosed = m.filesClosed.Note(o)
		if m.statusPane { // "select a file to download…" means nothing on the dashboard
			m.clearStatus()
			m.statusPane = false
		}
	}
	m.pop()
	if a.Text != "" {
		m.say(now, common.Say{Text: a.Text, Err: a.Err})
	}
	return a.Cmd // the closing overlay's last call (the files filter's listing), if any
}

// top returns the overlay on top, or nil.
func (m *screen) top() overlay {
	if len(m.stack) == 0 {
		return nil
	}
	return m.stack[len(m.stack)-1]
}

// push opens o on top of the stack. A status saying the last dialog was
// cancelled goes: it is not about the one that opens.
func (m *screen) push(o overlay) {
	if m.statusCancel {
		m.clearStatus()
		m.statusCancel = false
	}
	m.stack = append(m.stack, o)
}

// pop closes the overlay on top.
func (m *screen) pop() {
	if n := len(m.stack); n > 0 {
		m.stack = m.stack[: n-1 : n-1] // a copy of the Model keeps its own stack
	}
}

// remove closes o wherever it is on the stack.
func (m *screen) remove(o overlay) {
	out := make([]overlay, 0, len(m.stack))
	for _, x := range m.stack {
		if x != o {
			out = append(out, x)
		}
	}
	m.stack = out
}

// find returns the topmost overlay of type T, if open.
func find[T overlay](m *screen) (T, bool) {
	for i := len(m.stack) - 1; i >= 0; i-- {
		if o, ok := m.stack[i].(T); ok {
			return o, true
		}
	}
	var zero T
	return zero, false
}

// topIs reports whether the overlay on top is of type T.
func topIs[T overlay](m *screen) bool {
	_, ok := m.top().(T)
	return ok
}

// showable reports whether the screen can show what is on top: the
// dashboard fits and so does the top overlay.
func (m *screen) showable() bool {
	if m.cx.Layout.TooSmall {
		return false
	}
	if t := m.top(); t != nil {
		return t.Fits(m.cx)
	}
	return true
}

// maxWaiting bounds the overlays waiting for their layer (openFromAnswer):
// past it the oldest is dropped, and the status line says so.
const maxWaiting = 8

// waitingOverlay is an overlay an answer brought while the user was on
// another layer (openFromAnswer).
type waitingOverlay struct {
	origin overlay // the layer it opens over; nil: the dashboard
	what   string  // what it is about, for the status line
	// open opens it at now, if it still applies, and reports whether it
	// did. It holds what it opens on (the domain type that asked); a
	// profile switch drops every waiting overlay, so that is never another
	// account's.
	open func(now time.Time) bool
}

// openFromAnswer is how an answer (not a key) opens an overlay: open
// opens it (it is told the time, and checks the overlay still applies),
// over origin, the layer it was asked from (nil: the dashboard). When
// origin is on top it opens now; otherwise it waits, the status line says
// so, and openWaiting opens it once origin is on top again (or, origin
// having closed, once the dashboard is). So a key the user types on
// another layer, another dialog above all, is never taken by it.
func (m *screen) openFromAnswer(origin overlay, what string, open func(now time.Time) bool) {
	now := m.cx.Now()
	if m.atLayer(origin) {
		open(now)
		return
	}
	// Copy on write: an older copy of the Model keeps its own list.
	w := append([]waitingOverlay(nil), m.waiting[max(0, len(m.waiting)-maxWaiting+1):]...)
	m.waiting = append(w, waitingOverlay{origin: origin, what: what, open: open})
	where := "the dashboard"
	if origin != nil {
		where = "the " + origin.Name()
	}
	// The note first: a long status (the error that brought it) is cut
	// at its end, and the event log has that in full.
	note := what + " opens when you are back on " + where
	if m.cx.Status.Text != "" {
		note += " · " + m.cx.Status.Text
	}
	m.say(now, common.Say{Text: note, Err: m.cx.Status.Err})
}

// atLayer reports whether an overlay asked from origin may open now:
// origin is on top, or it has closed and nothing is open.
func (m *screen) atLayer(origin overlay) bool {
	if m.top() == origin {
		return true
	}
	for _, o := range m.stack {
		if o == origin {
			return false // open, under something else
		}
	}
	return len(m.stack) == 0
}

// openWaiting opens the first waiting overlay whose layer is on top again
// (called once per Update, after the message is handled).
func (m *screen) openWaiting() {
	for i := 0; i < len(m.waiting); i++ {
		w := m.waiting[i]
		if !m.atLayer(w.origin) {
			continue
		}
		m.waiting = append(m.waiting[:i:i], m.waiting[i+1:]...)
		if w.open(m.cx.Now()) {
			return
		}
		i-- // it no longer applies: the next one may
	}
}

// regraceTop restarts the grace period of the overlay on top, if it has
// one.
func (m *screen) regraceTop() {
	if g, ok := m.top().(common.Graced); ok {
		g.Regrace(m.cx.Now())
	}
}

// routeKey is the one place that decides who gets key k (see the top of
// this file) and returns the command of what it did.
func (m *app) routeKey(k tea.KeyMsg) tea.Cmd {
	if key.Matches(k, m.cx.Keys.Dashboard.Suspend) {
		// Over every overlay, as in any full-screen program: the
		// terminal is given back to the shell until fg.
		return m.life.term.Suspend()
	}
	if !m.scr.showable() {
		if key.Matches(k, m.cx.Keys.Dashboard.Quit) {
			return m.apply(common.Quit{})
		}
		if t := m.scr.top(); t != nil && k.Type == tea.KeyEsc {
			return m.apply(t.HandleKey(k, m.cx)) // every overlay's esc backs out of it
		}
		return nil
	}
	if t := m.scr.top(); t != nil {
		return m.applyKey(t.HandleKey(k, m.cx))
	}
	if a, ok := m.focusedKey(k); ok {
		return m.applyKey(a)
	}
	return m.applyKey(m.globalKey(k))
}

// applyKey applies e, what a key did. When that is an error in the status
// line (why the key did nothing), it goes whole to the event log too: the
// status line cuts a long one with "(L: in full)".
func (m *app) applyKey(e common.Effect) tea.Cmd {
	cmd := m.apply(e)
	if s, ok := e.(common.Say); ok && s.Err {
		where := "dashboard"
		if s.Pane {
			where = "files pane"
		}
		m.scr.logEvent(Event{At: m.cx.Now(), Tool: where, Target: m.cx.Selected, Refused: m.cx.Status.Text})
	}
	return cmd
}

// focusedKey offers k to the focused pane.
func (m *app) focusedKey(k tea.KeyMsg) (common.Effect, bool) {
	if m.cx.Focus == common.PanelSessions {
		return m.sess.HandleKey(k, m.cx)
	}
	return m.rt.HandleKey(k, m.cx)
}
