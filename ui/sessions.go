package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/overlay/console"
)

// Opening (o, or for run code) and closing (x, or stopping code) sessions.

// startOpenSession sends create_session on runtime with id (a colabdash-…
// id when empty); forConsole opens the run-code console on the new session
// once it is there.
func (m *runtimeOps) startOpenSession(runtime, id string, forConsole bool, now time.Time) tea.Cmd {
	if id == "" {
		id = state.NewSessionID()
	}
	m.ops.opening[runtime] = now
	m.scr.setProgress(now, api.ToolCreateSession, runtime, "opening session "+id+" on "+api.LastSegment(runtime)+"…")
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
	m.scr.setStatus(now, "✓ opened session "+msg.session.ID(), false)
	if msg.forConsole {
		runtime, session := msg.runtime, msg.session.Name
		show := func(m *app, _ time.Time) bool {
			if m.ex.closed[session] {
				return false
			}
			m.ex.showConsole(runtime, session) // its title names the session
			return true
		}
		if _, open := find[*console.Overlay](m.scr); open {
			show(m.app, now) // asked from the console: it moves to the new session
		} else {
			m.scr.openFromAnswer(nil, "the console on session "+msg.session.ID(), show)
		}
	}
	return m.calls.issue(callKey{kind: callSessions, runtime: msg.runtime}, now)
}

func (m *runtimeOps) startCloseSession(name string, now time.Time) tea.Cmd {
	m.ops.closing[name] = now
	m.scr.setProgress(now, api.ToolDeleteSession, name, "closing session "+api.LastSegment(name)+"…")
	return guard(m.apiCall(api.ToolDeleteSession), func(ctx context.Context, svc api.Service) tea.Msg {
		return sessionClosedMsg{name: name, err: svc.DeleteSession(ctx, name)}
	}, func(err error) tea.Msg { return sessionClosedMsg{name: name, err: err} })
}

func (m *runtimeOps) onSessionClosed(msg sessionClosedMsg, now time.Time) tea.Cmd {
	if !m.ops.finishAction(now, api.ToolDeleteSession, msg.name, m.ops.closing, msg.name, msg.err, "close session") {
		return nil
	}
	m.scr.setStatus(now, "✓ closed session "+api.LastSegment(msg.name), false)
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
