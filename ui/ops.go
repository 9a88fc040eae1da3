package ui

// runtimeOps: the commands on the selected runtime or session (delete,
// open and close a session, copy its URL or token), their answers, and
// the texts they share.

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/clipboard"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/picker"
	"github.com/colabdash/colabdash/ui/termtext"
)

// sessionPick is a session chosen for run code and when it was chosen.
type sessionPick struct {
	name string
	at   time.Time
}

// Messages of actions. Each names its target so a late answer lands on the
// right row.
type (
	deleteDoneMsg struct {
		name string
		err  error
	}
	sessionOpenedMsg struct {
		runtime    string
		session    api.Session
		forConsole bool // opened for the run-code console: open it there
		err        error
	}
	sessionClosedMsg struct {
		name string
		err  error
	}
)

func (m *runtimeOps) askDelete(sel *state.Runtime, now time.Time) {
	d := dialog.New(dialog.Confirm, now, "Delete runtime "+sel.ID()+"?",
		"Runtime "+sel.Name+" ("+specWords(sel)+").",
		"This cannot be undone: it removes the runtime's files and its "+strconv.Itoa(len(sel.Sessions))+" session(s).")
	name := sel.Name
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "delete cancelled: " + api.LastSegment(name) + " is kept"}
		}
		return common.DeleteRuntime{Name: name}
	}
	m.scr.push(d)
}

// specWords is how a delete question names r's spec: "GPU, accelerator T4".
func specWords(r *state.Runtime) string {
	return r.RuntimeSpec.Variant.Short() + ", accelerator " + r.RuntimeSpec.AcceleratorName()
}

func (m *runtimeOps) askCloseSession(now time.Time) {
	s := m.selectedSession()
	if s == "" {
		m.scr.say(now, common.Say{Text: "no session selected (tab to the sessions panel)", Err: true})
		return
	}
	id := api.LastSegment(s)
	var d *dialog.Dialog
	if m.cx.Snap.Owned(s) {
		d = dialog.New(dialog.Confirm, now, "Close session "+id+"?", "Session "+s+" (opened by colabdash).")
	} else {
		d = dialog.New(dialog.Typed, now, "Close NOTEBOOK session "+id+"?",
			"colabdash did not open this session: it is probably one of your notebooks.",
			"Closing it shuts its kernel down: the notebook's kernel state (variables, imports, running code) will be lost.")
		d.Want = "close"
	}
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "close cancelled: session " + id + " stays open"}
		}
		return common.CloseSession{Name: s}
	}
	m.scr.push(d)
}

func orLatest(v string) string {
	if v == "" {
		return "latest"
	}
	return v
}

// --- delete ---

func (m *runtimeOps) startDelete(name string, now time.Time) tea.Cmd {
	if _, busy := m.ops.deleting[name]; busy {
		return nil
	}
	if len(m.ops.deleting) == 0 {
		m.ops.deleted = m.ops.deleted[:0]
	}
	m.ops.deleting[name] = now
	m.scr.say(now, common.Say{Text: "deleting " + api.LastSegment(name) + "…", For: api.ToolDeleteRuntime + " " + name})
	return guard(m.apiCall(api.ToolDeleteRuntime), func(ctx context.Context, svc api.Service) tea.Msg {
		return deleteDoneMsg{name: name, err: svc.DeleteRuntime(ctx, name)}
	}, func(err error) tea.Msg { return deleteDoneMsg{name: name, err: err} })
}

func (m *runtimeOps) onDeleteDone(msg deleteDoneMsg, now time.Time) tea.Cmd {
	id := api.LastSegment(msg.name)
	if !m.ops.finishAction(now, api.ToolDeleteRuntime, msg.name, m.ops.deleting, msg.name, msg.err, "delete "+id) {
		return nil
	}
	m.cx.Snap.MarkRuntimeGone(now, msg.name, state.ReasonDeleted)
	delete(m.calls.pending, callKey{kind: callRenew, runtime: msg.name})
	delete(m.calls.pending, callKey{kind: callSessions, runtime: msg.name})
	if m.cx.Activity.Revealed == msg.name {
		m.cx.Activity.Revealed = ""
	}
	m.ops.deleted = append(m.ops.deleted, id)
	done := "✓ deleted " + id
	if n := len(m.ops.deleted); n > 1 {
		done = "✓ deleted " + countWord(n, "runtime") + ": " + strings.Join(m.ops.deleted, ", ")
	}
	if n := len(m.ops.deleting); n > 0 {
		done += " · " + strconv.Itoa(n) + " still deleting…"
	}
	m.scr.say(now, common.Say{Text: done})
	return tea.Batch(m.calls.refresh(now, false)...)
}

// finishAction records the answer of an action call (tool on target,
// sent when inflight[key] says) in the event log, forgets it from
// inflight, and says in the status line that what failed; ok is false on
// failure.
func (m *runtimeOps) finishAction(now time.Time, tool, target string, inflight map[string]time.Time, key string, err error, what string) (ok bool) {
	m.scr.recordEvent(now, tool, target, now.Sub(inflight[key]), err)
	delete(inflight, key)
	m.scr.endProgress(tool, target)
	if err != nil {
		m.scr.say(now, common.Say{Text: what + " failed: " + common.ErrLine(err), Err: true})
		return false
	}
	return true
}

// actionsTick re-sends creates whose retry wait is over.
func (m *createOps) actionsTick(now time.Time) []tea.Cmd {
	var cmds []tea.Cmd
	for _, op := range m.cr.creates {
		if op.state == createWaiting && !now.Before(op.retryAt) {
			cmds = append(cmds, m.cr.sendCreate(op, now))
		}
	}
	return cmds
}

// goneText says why an action cannot act on the gone runtime r: "rt-x is
// gone (reclaimed 10s ago)".
func (m *runtimeOps) goneText(r *state.Runtime, now time.Time) string {
	word := "reclaimed"
	if r.Deleted() {
		word = "deleted"
	}
	return r.ID() + " is gone (" + word + " " + state.FormatAgo(now.Sub(r.GoneAt)) + ")"
}

// rfc1034Rules are the id rules api.ValidateID enforces, for dialog hints.
const rfc1034Rules = picker.IDRules

// Opening (o, or for run code) and closing (x, or stopping code) sessions.

// startOpenSession sends create_session on runtime with id (a colabdash-…
// id when empty); forConsole opens the run-code console on the new session
// once it is there.
func (m *runtimeOps) startOpenSession(runtime, id string, forConsole bool, now time.Time) tea.Cmd {
	if id == "" {
		id = state.NewSessionID()
	}
	m.ops.opening[runtime] = now
	m.scr.say(now, common.Say{Text: "opening session " + id + " on " + api.LastSegment(runtime) + "…", For: api.ToolCreateSession + " " + runtime})
	return guard(m.apiCall(api.ToolCreateSession), func(ctx context.Context, svc api.Service) tea.Msg {
		s, err := svc.CreateSession(ctx, runtime, id)
		return sessionOpenedMsg{runtime: runtime, session: s, forConsole: forConsole, err: err}
	}, func(err error) tea.Msg { return sessionOpenedMsg{runtime: runtime, forConsole: forConsole, err: err} })
}

func (m *runtimeOps) onSessionOpened(msg sessionOpenedMsg, now time.Time) tea.Cmd {
	if !m.ops.finishAction(now, api.ToolCreateSession, msg.runtime, m.ops.opening, msg.runtime, msg.err, "open session") {
		return nil
	}
	m.cx.Snap.MarkOwned(msg.session.Name)
	m.ex.pickSession(msg.runtime, msg.session.Name, now)
	m.scr.say(now, common.Say{Text: "✓ opened session " + msg.session.ID()})
	if msg.forConsole {
		runtime, session := msg.runtime, msg.session.Name
		show := func(time.Time) bool {
			if m.ex.closed[session] {
				return false
			}
			m.ex.showConsole(runtime, session) // its title names the session
			return true
		}
		if _, open := find[*console.Overlay](m.scr); open {
			show(now) // asked from the console: it moves to the new session
		} else {
			m.scr.openFromAnswer(nil, "the console on session "+msg.session.ID(), show)
		}
	}
	return m.calls.issue(callKey{kind: callSessions, runtime: msg.runtime}, now)
}

func (m *runtimeOps) startCloseSession(name string, now time.Time) tea.Cmd {
	m.ops.closing[name] = now
	m.scr.say(now, common.Say{Text: "closing session " + api.LastSegment(name) + "…", For: api.ToolDeleteSession + " " + name})
	return guard(m.apiCall(api.ToolDeleteSession), func(ctx context.Context, svc api.Service) tea.Msg {
		return sessionClosedMsg{name: name, err: svc.DeleteSession(ctx, name)}
	}, func(err error) tea.Msg { return sessionClosedMsg{name: name, err: err} })
}

func (m *runtimeOps) onSessionClosed(msg sessionClosedMsg, now time.Time) tea.Cmd {
	if !m.ops.finishAction(now, api.ToolDeleteSession, msg.name, m.ops.closing, msg.name, msg.err, "close session") {
		return nil
	}
	m.scr.say(now, common.Say{Text: "✓ closed session " + api.LastSegment(msg.name)})
	parent := api.Session{Name: msg.name}.Parent()
	m.ex.closed[msg.name] = true
	m.ex.onStopped(msg.name, now)
	if m.ex.lastSession[parent].name == msg.name {
		delete(m.ex.lastSession, parent)
	}
	if r := m.cx.Snap.Runtime(parent); r != nil {
		kept := r.Sessions[:0:0]
		for _, s := range r.Sessions {
			if s.Name != msg.name {
				kept = append(kept, s)
			}
		}
		m.cx.Snap.ApplySessions(now, parent, kept)
		m.sess.Clamp(len(kept))
	}
	delete(m.calls.pending, callKey{kind: callSessions, runtime: parent})
	return m.calls.issue(callKey{kind: callSessions, runtime: parent}, now)
}

// clipboardMsg reports a finished copy; what names what was copied ("the
// URL of r-abc"), never the text itself; how says which way worked.
type clipboardMsg struct {
	what string
	how  clipboard.Method
	err  error
}

// clipboardCommand copies the selected runtime's connection URL
// (actCopyURL), reveals or hides its proxy token in the details
// (actReveal: the layout stays as it is) or copies the token once revealed
// (actCopyToken).
func (m *runtimeOps) clipboardCommand(kind common.Op, now time.Time) tea.Cmd {
	r := m.cx.Snap.Runtime(m.rt.Selected())
	if r != nil && r.Gone() {
		m.scr.say(now, common.Say{Text: m.ops.goneText(r, now), Err: true, About: r.Name})
		return nil
	}
	if r == nil || r.ConnectionInfo == nil {
		m.scr.say(now, common.Say{Text: "no runtime with connection info selected", Err: true})
		return nil
	}
	ci := *r.ConnectionInfo
	switch {
	case kind == common.OpReveal:
		if m.cx.Activity.Revealed == r.Name {
			m.cx.Activity.Revealed = ""
			m.scr.say(now, common.Say{Text: "proxy token hidden", About: r.Name})
		} else {
			m.cx.Activity.Revealed = r.Name
			m.scr.say(now, common.Say{Text: "proxy token of " + r.ID() + " revealed in the details (" + m.cx.Keys.Dashboard.RevealToken.Help().Key + " hides it, " + m.cx.Keys.Dashboard.CopyToken.Help().Key + " copies it)", About: r.Name})
		}
		return nil
	case kind == common.OpCopyToken:
		if m.cx.Activity.Revealed != r.Name {
			m.scr.say(now, common.Say{Text: "reveal the token first with " + m.cx.Keys.Dashboard.RevealToken.Help().Key, Err: true, About: r.Name})
			return nil
		}
		return m.ops.copyCmd(ci.Token, "the proxy token of "+r.ID())
	}
	if ci.URL == "" {
		m.scr.say(now, common.Say{Text: r.ID() + " has no connection URL", Err: true, About: r.Name})
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
		return clipboardMsg{what: what, how: clipboard.Native, err: cp(text)}
	}
}

// copiedText is the status line after a copy: certain for the native
// clipboard, for tmux's buffer certain and hedged for the terminal's
// clipboard, hedged for OSC 52 alone, which terminals (and tmux with
// set-clipboard off) may drop without telling.
func copiedText(msg clipboardMsg) string {
	switch msg.how {
	case clipboard.OSC52:
		return "✓ copied " + msg.what + " (OSC 52; in tmux this needs `set -g set-clipboard on`)"
	case clipboard.Tmux:
		return "✓ copied " + msg.what + " to a tmux buffer (prefix ] pastes it)"
	}
	return "✓ copied " + msg.what + " to the clipboard"
}

// --- marks: one question for every marked row (issue 23) ---

// askDeleteMarked asks once, y only, whether to delete every runtime in
// rs (the marked rows the table shows), listing them; the answer deletes
// exactly those, whatever is marked or selected by then.
func (m *runtimeOps) askDeleteMarked(rs []*state.Runtime, now time.Time) {
	names := make([]string, 0, len(rs))
	list := make([]string, 0, len(rs))
	for _, r := range rs {
		names = append(names, r.Name)
		list = append(list, "  "+r.ID()+" ("+specWords(r)+", "+strconv.Itoa(len(r.Sessions))+" session(s))")
	}
	d := dialog.New(dialog.Confirm, now, "Delete "+countWord(len(rs), "marked runtime")+"?",
		m.listFitting(list),
		"This cannot be undone: it removes each runtime's files and sessions.")
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "delete cancelled (the marks stay)"}
		}
		return common.DeleteRuntimes{Names: names}
	}
	m.scr.push(d)
}

// askCloseMarked asks once, y only, whether to close the sessions
// colabdash opened on the runtimes in rs (the marked rows the table
// shows), listing them. Notebook sessions are left alone: each needs its
// own typed confirmation (x in the sessions panel).
func (m *runtimeOps) askCloseMarked(rs []*state.Runtime, now time.Time) {
	var names, list, runtimes []string
	notebooks := 0
	for _, r := range rs {
		runtimes = append(runtimes, r.Name)
		for _, s := range r.Sessions {
			if !m.cx.Snap.Owned(s.Name) {
				notebooks++
				continue
			}
			names = append(names, s.Name)
			list = append(list, "  "+r.ID()+" · "+s.ID())
		}
	}
	left := ""
	if notebooks > 0 {
		left = countWord(notebooks, "notebook session") + " (not opened by colabdash) left alone: close each in the sessions panel."
	}
	if len(names) == 0 {
		msg := "no session colabdash opened on the " + countWord(len(rs), "marked runtime")
		if left != "" {
			msg += "; " + left
		}
		m.scr.say(now, common.Say{Text: msg, Err: true})
		return
	}
	body := []string{m.listFitting(list)}
	if left != "" {
		body = append(body, left)
	}
	d := dialog.New(dialog.Confirm, now, "Close "+countWord(len(names), "session")+" on "+
		countWord(len(rs), "marked runtime")+"?", body...)
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "close cancelled (the marks stay)"}
		}
		return common.CloseSessions{Names: names, Runtimes: runtimes}
	}
	m.scr.push(d)
}

// listFitting joins list into one paragraph, one line each, cut with
// "… and N more" where the screen could not show the whole dialog.
func (m *runtimeOps) listFitting(list []string) string {
	room := max(3, m.cx.Layout.H-12) // borders, title, other lines, answer
	if len(list) > room {
		more := len(list) - (room - 1)
		list = append(list[:room-1:room-1], "  … and "+strconv.Itoa(more)+" more")
	}
	return strings.Join(list, "\n")
}

// countWord is "1 session", "3 sessions".
func countWord(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
