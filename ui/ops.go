package ui

// runtimeOps: the commands on the selected runtime or session (delete,
// open and close a session, copy its URL or token), their answers, and
// the texts they share.

import (
	"context"
	"errors"
	"github.com/colabdash/colabdash/api/plural"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/clipboard"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/ops"
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
		why  string // why the dashboard deleted it on its own ("" when asked to)
		err  error
	}
	sessionOpenedMsg struct {
		runtime    string
		session    api.Session
		forConsole bool // opened for the run-code console: open it there
		// fresh: the runtime's sessions did not list its id when it was
		// asked for (create_session returns an open session of that id
		// as it is: then colabdash did not open it).
		fresh bool
		// recordErr is why the state directory could not record that
		// colabdash opened it (ops.RecordOpenedSession).
		recordErr error
		err       error
	}
	sessionClosedMsg struct {
		name string
		err  error
	}
)

func (m *runtimeOps) askDelete(sel *state.Runtime, now time.Time) {
	removes := "This cannot be undone: it removes the runtime's files."
	if n := len(sel.Sessions); n > 0 {
		removes = "This cannot be undone: it removes the runtime's files and its " + plural.Count(n, "session") + "."
	}
	body := []string{"Runtime " + sel.Name + " (" + specWords(sel) + ").", removes}
	if s := deleteStakes(m.cx, sel.Name, now).Sentence(); s != "" {
		body = append(body, s)
	}
	d := dialog.New(dialog.Confirm, now, "Delete runtime "+sel.ID()+"?", body...)
	name := sel.Name
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "delete cancelled: " + api.LastSegment(name) + " is kept"}
		}
		return common.DeleteRuntime{Name: name}
	}
	m.scr.push(d)
}

// deleteStakes is what the dashboard knows, at now, of what deleting
// runtime name would stop: its running jobs as last listed and its busy
// kernels as the monitor last saw them. With monitoring off nothing is
// known and nothing is said; jobs not listed (yet) are said unchecked.
func deleteStakes(cx *common.Context, name string, now time.Time) state.DeleteStakes {
	busy := -1
	if cx.Monitor != nil {
		if mr := cx.Monitor.Runtime(name); mr != nil && mr.Kernels != nil && mr.KernelsErr == nil {
			busy = 0
			for _, k := range mr.Kernels {
				if k.ExecutionState == "busy" {
					busy++
				}
			}
		}
	}
	if cx.Jobs == nil {
		return state.DeleteStakes{BusyKernels: busy}
	}
	js, ok := cx.Jobs.Jobs(name)
	if !ok {
		return state.UncheckedStakes("not listed yet", busy)
	}
	recs := make([]jobs.Record, len(js))
	for i, j := range js {
		recs[i] = j.Record
	}
	return state.NewDeleteStakes(recs, now, busy)
}

// askDeleteNamed selects runtime name and asks whether to delete it (a
// step offered after a failed create); nothing when it is gone.
func (m *runtimeOps) askDeleteNamed(name string, now time.Time) {
	if r := m.cx.Snap.Runtime(name); r != nil && !r.Gone() {
		m.rt.Select(r.Name)
		m.askDelete(r, now)
	}
}

// busy reports whether a delete or a session change is under way: their
// answers belong to the account in use.
func (m *runtimeOps) busy() bool {
	return len(m.deleting) > 0 || len(m.closing) > 0 || len(m.opening) > 0
}

// specWords is how a delete question names r's spec: "GPU, accelerator
// T4", or "CPU" alone (a CPU spec's accelerator NONE says nothing).
func specWords(r *state.Runtime) string {
	if acc := r.RuntimeSpec.AcceleratorName(); acc != api.AcceleratorNone {
		return r.RuntimeSpec.Variant.Short() + ", accelerator " + acc
	}
	return r.RuntimeSpec.Variant.Short()
}

func (m *runtimeOps) askCloseSession(now time.Time) {
	s := selectedSession(m.cx, m.rt, m.sess)
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
	return m.startDeleteFor(name, "", now)
}

// startDeleteFor deletes runtime name as startDelete does, on the
// dashboard's own initiative: why ("its job … ended and asked for
// delete-when-done") follows the runtime in the status line while it is
// deleted and once it is, and in the event log's delete_runtime entry.
func (m *runtimeOps) startDeleteFor(name, why string, now time.Time) tea.Cmd {
	if _, busy := m.deleting[name]; busy {
		return nil
	}
	if len(m.deleting) == 0 {
		m.deleted = m.deleted[:0]
	}
	m.deleting[name] = now
	text := "deleting " + api.LastSegment(name) + "…"
	if why != "" {
		text = "deleting " + api.LastSegment(name) + ": " + why + "…"
	}
	m.scr.say(now, common.Say{Text: text, For: api.ToolDeleteRuntime + " " + name})
	return guard(m.link.apiCall(api.ToolDeleteRuntime), func(ctx context.Context, svc api.Service) tea.Msg {
		return deleteDoneMsg{name: name, why: why, err: svc.DeleteRuntime(ctx, name)}
	}, func(err error) tea.Msg { return deleteDoneMsg{name: name, why: why, err: err} })
}

// onDeleteDone takes the answer of a delete_runtime: the runtime is gone
// (its calls under way are dropped) and the runtimes are listed again.
func (m *runtimeOps) onDeleteDone(msg deleteDoneMsg, now time.Time) want {
	id := api.LastSegment(msg.name)
	if !m.finishAction(now, api.ToolDeleteRuntime, msg.name, m.deleting, msg.name, msg.err, "delete "+id, msg.why) {
		return want{}
	}
	m.cx.Snap.MarkRuntimeGone(now, msg.name, state.ReasonDeleted)
	if m.cx.Activity.Revealed == msg.name {
		m.cx.Activity.Revealed = ""
	}
	m.deleted = append(m.deleted, id)
	done := "✓ deleted " + id
	if n := len(m.deleted); n > 1 {
		done = "✓ deleted " + countWord(n, "runtime") + ": " + strings.Join(m.deleted, ", ")
		if msg.why != "" {
			done += " (" + id + ": " + msg.why + ")"
		}
	} else if msg.why != "" {
		done += ": " + msg.why
	}
	if n := len(m.deleting); n > 0 {
		done += " · " + strconv.Itoa(n) + " still deleting…"
	}
	m.scr.say(now, common.Say{Text: done})
	return want{forget: msg.name, refresh: true}
}

// finishAction records the answer of an action call (tool on target,
// sent when inflight[key] says) in the event log, with why the dashboard
// made it on its own ("" when the user asked), forgets it from inflight,
// and says in the status line that what failed; ok is false on failure.
func (m *runtimeOps) finishAction(now time.Time, tool, target string, inflight map[string]time.Time, key string, err error, what, why string) (ok bool) {
	m.scr.logEvent(Event{At: now, Tool: tool, Target: target, Latency: max(now.Sub(inflight[key]), 0), Err: err, Why: why})
	delete(inflight, key)
	m.scr.endProgress(tool, target)
	if err != nil {
		if why != "" {
			what += " (" + why + ")"
		}
		m.scr.say(now, common.Say{Text: what + " failed: " + common.ErrLine(err), Err: true})
		return false
	}
	return true
}

// goneText says why an action cannot act on the gone runtime r, with the
// age its row shows (since GoneAt): "rt-x was deleted 10s ago" when this
// dashboard deleted it, else "rt-x is gone (deleted elsewhere or
// reclaimed, 10s ago)": colabdash cannot tell which.
func goneText(r *state.Runtime, now time.Time) string {
	ago := state.FormatAgo(now.Sub(r.GoneAt))
	if r.Deleted() {
		return r.ID() + " was deleted " + ago
	}
	return r.ID() + " is gone (deleted elsewhere or reclaimed, " + ago + ")"
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
	fresh := true
	if r := m.cx.Snap.Runtime(runtime); r != nil {
		for _, s := range r.Sessions {
			fresh = fresh && s.ID() != id
		}
	}
	dir := m.stateDir()
	m.opening[runtime] = now
	m.scr.say(now, common.Say{Text: "opening session " + id + " on " + api.LastSegment(runtime) + "…", For: api.ToolCreateSession + " " + runtime})
	return guard(m.link.apiCall(api.ToolCreateSession), func(ctx context.Context, svc api.Service) tea.Msg {
		s, err := svc.CreateSession(ctx, runtime, id)
		msg := sessionOpenedMsg{runtime: runtime, session: s, forConsole: forConsole, fresh: fresh, err: err}
		if err == nil && fresh && dir != "" {
			msg.recordErr = ops.RecordOpenedSession(dir, s.Name, now)
		}
		return msg
	}, func(err error) tea.Msg { return sessionOpenedMsg{runtime: runtime, forConsole: forConsole, err: err} })
}

// stateDir is where the sessions colabdash opened are recorded
// (openedStateDir).
func (m *runtimeOps) stateDir() string { return openedStateDir(m.opts) }

// openedStateDir is where the sessions colabdash opened under a typed id
// are recorded and read (ops.RecordOpenedSession): o's state directory,
// "" in demo mode, which keeps nothing there.
func openedStateDir(o *Options) string {
	if o.Demo {
		return ""
	}
	return o.StateDir
}

// listSessionsOwned lists runtime's sessions (list_sessions) and, of
// them, those state directory dir records as opened by colabdash
// (ops.OpenedAmong: one Lstat each; none for dir "").
func listSessionsOwned(ctx context.Context, svc api.Service, runtime, dir string) ([]api.Session, []string, error) {
	ss, err := svc.ListSessions(ctx, runtime)
	return ss, ops.OpenedAmong(dir, ss), err
}

// onSessionOpened takes the answer of a create_session; ok is false when
// it failed (the status line says why). The root hands the session to
// run code (execOps.sessionOpened) and lists the sessions again.
func (m *runtimeOps) onSessionOpened(msg sessionOpenedMsg, now time.Time) (ok bool) {
	if !m.finishAction(now, api.ToolCreateSession, msg.runtime, m.opening, msg.runtime, msg.err, "open session", "") {
		return false
	}
	if !msg.fresh && !state.IsOwnSession(msg.session.Name) {
		m.scr.say(now, common.Say{Text: "session " + msg.session.ID() + " was already open: using it as it is (colabdash did not open it)"})
		return true
	}
	m.cx.Snap.MarkOwned(msg.session.Name)
	text := "✓ opened session " + msg.session.ID()
	if msg.recordErr != nil {
		text += " (not recorded in the state directory: after a restart it shows as a notebook's: " + common.ErrLine(msg.recordErr) + ")"
	}
	m.scr.say(now, common.Say{Text: text})
	return true
}

func (m *runtimeOps) startCloseSession(name string, now time.Time) tea.Cmd {
	m.closing[name] = now
	m.scr.say(now, common.Say{Text: "closing session " + api.LastSegment(name) + "…", For: api.ToolDeleteSession + " " + name})
	dir := m.stateDir()
	return guard(m.link.apiCall(api.ToolDeleteSession), func(ctx context.Context, svc api.Service) tea.Msg {
		err := svc.DeleteSession(ctx, name)
		if err == nil && dir != "" {
			ops.ForgetOpenedSession(dir, name)
		}
		return sessionClosedMsg{name: name, err: err}
	}, func(err error) tea.Msg { return sessionClosedMsg{name: name, err: err} })
}

// onSessionClosed takes the answer of a delete_session; ok is false when
// it failed (the status line says why). The session leaves its runtime's
// list at once; the root ends its runs (execOps.sessionClosed) and lists
// the sessions again.
func (m *runtimeOps) onSessionClosed(msg sessionClosedMsg, now time.Time) (ok bool) {
	if !m.finishAction(now, api.ToolDeleteSession, msg.name, m.closing, msg.name, msg.err, "close session", "") {
		return false
	}
	m.scr.say(now, common.Say{Text: "✓ closed session " + api.LastSegment(msg.name)})
	parent := api.Session{Name: msg.name}.Parent()
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
	return true
}

// clipboardMsg reports a finished copy; what names what was copied ("the
// URL of r-abc"), never the text itself; how says which way worked.
type clipboardMsg struct {
	what string
	how  clipboard.Method
	err  error
}

// clipboardCommand copies the selected runtime's connection URL
// (common.OpCopyURL), reveals or hides its proxy token in the details
// (OpReveal: the layout stays as it is) or copies the token once revealed
// (OpCopyToken).
func (m *runtimeOps) clipboardCommand(kind common.Op, now time.Time) tea.Cmd {
	r := m.cx.Snap.Runtime(m.rt.Selected())
	if r != nil && r.Gone() {
		m.scr.say(now, common.Say{Text: goneText(r, now), Err: true, About: r.Name})
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
		return m.copyCmd(ci.Token, "the proxy token of "+r.ID())
	}
	if ci.URL == "" {
		m.scr.say(now, common.Say{Text: r.ID() + " has no connection URL", Err: true, About: r.Name})
		return nil
	}
	return m.copyCmd(ci.URL, "the URL of "+r.ID())
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
