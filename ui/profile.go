package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/overlay/events"
	"github.com/colabdash/colabdash/ui/overlay/files"
	"github.com/colabdash/colabdash/ui/overlay/help"
	"github.com/colabdash/colabdash/ui/overlay/logview"
	"github.com/colabdash/colabdash/ui/overlay/profile"
	"github.com/colabdash/colabdash/ui/pane/runtimes"
	"github.com/colabdash/colabdash/ui/termtext"
)

// ConnInfo is what the header shows about a connection made by
// Options.Connect: the endpoint URL (its host names the server), and
// whether it is the embedded emulator (DEMO badge).
type ConnInfo struct {
	Endpoint string
	Demo     bool
}

// ConnectFunc builds the Service of a profile (credentials, client; no
// network I/O is needed, connecting is lazy). The dashboard calls it in a
// tea.Cmd, never in Update, and closes the Service it replaces. ctx ends
// when that command returns: it bounds only the connecting, and what the
// Service owns (the demo profile's emulator) lives until its Close. It
// returns a one-line error when the profile cannot be used (e.g. no
// credentials).
type ConnectFunc func(ctx context.Context, profile string) (api.Service, ConnInfo, error)

// profiles is the profile switch: the picker, the connection made in a
// command, and the switch in progress, if any. What a switch resets (every
// domain type, the snapshot, the calls) the root does (app.onProfile).
type profiles struct {
	cx        *common.Context
	opts      *Options
	link      *link
	scr       *screen
	switching string // profile being connected, "" when none
	seq       uint64 // bumps per switch; older answers are closed unused
}

// profileMsg is the answer of Options.Connect for a switch.
type profileMsg struct {
	seq      uint64
	name     string
	svc      api.Service
	info     ConnInfo
	lastSpec *ops.LastSpec // read in the command, off the Update path
	err      error
}

// openPicker opens the profile picker; busy (a create, delete or session
// change is under way) refuses, as the answers belong to this account.
func (m *profiles) openPicker(busy bool) {
	if len(m.cx.Profiles) == 0 || m.opts.Connect == nil {
		m.scr.say(m.cx.Now(), common.Say{Text: "no profiles to switch to (define them in the config file)"})
		return
	}
	if busy {
		// Their answers belong to this account: let them land first.
		m.scr.say(m.cx.Now(), common.Say{Text: "a create, delete or session change is in progress: switch profile when it is done", Err: true})
		return
	}
	if o, ok := find[*files.Overlay](m.scr); ok {
		// Opened from the files pane: a switch closes it.
		what := "the files pane of " + o.Pane().Runtime()
		if op, name, busy := o.Pane().Pending(); busy {
			what += " and stops its " + op + " of " + termtext.Line(name)
		}
		m.scr.say(m.cx.Now(), common.Say{Text: "switching profile closes " + what + " (esc: back to it)"})
	}
	m.scr.push(profile.New(m.cx))
}

// chosen closes the picker, which chose profile name, and switches to it
// unless it is the one in use (the status line then says so).
func (m *profiles) chosen(name string) tea.Cmd {
	m.scr.pop()
	if name == m.cx.Profile && m.switching == "" {
		m.scr.say(m.cx.Now(), common.Say{Text: "already on profile " + termtext.Line(name) + ": nothing to switch"})
		return nil
	}
	return m.switchTo(name)
}

// switchTo starts connecting to profile name in a command.
func (m *profiles) switchTo(name string) tea.Cmd {
	m.seq++
	m.switching = name
	m.scr.say(m.cx.Now(), common.Say{Text: "switching to profile " + name + "…"})
	seq, connect, stateDir := m.seq, m.opts.Connect, m.opts.StateDir
	return guard(callSpec{what: "connect profile " + name, parent: m.link.life.ctx, redact: m.cx.Redact}, func(ctx context.Context, _ api.Service) tea.Msg {
		svc, info, err := connect(ctx, name)
		if err != nil {
			return profileMsg{seq: seq, name: name, err: err}
		}
		return profileMsg{seq: seq, name: name, svc: svc, info: info, lastSpec: loadLastSpec(info.Demo, stateDir)}
	}, func(err error) tea.Msg { return profileMsg{seq: seq, name: name, err: err} })
}

// closeCmd closes svc off the Update path.
func closeCmd(svc api.Service) tea.Cmd {
	if svc == nil {
		return nil
	}
	return func() tea.Msg { _ = svc.Close(); return nil }
}

// answered takes the answer of a switch at now: ok is true when the root
// is to switch to msg's Service (app.onProfile); otherwise cmd closes an
// answer superseded by a later switch, or the status line says why the
// profile cannot be used.
func (m *profiles) answered(msg profileMsg, now time.Time) (cmd tea.Cmd, ok bool) {
	if msg.seq != m.seq {
		return closeCmd(msg.svc), false // superseded by a later switch
	}
	m.switching = ""
	if msg.err != nil {
		m.scr.say(now, common.Say{Text: m.cx.Redact("profile " + msg.name + ": " + common.ErrLine(msg.err)), Err: true})
		m.scr.recordEvent(now, "connect", msg.name, 0, msg.err)
		return nil, false
	}
	return nil, true
}

// onProfile applies a finished switch: the old Service is closed, the
// snapshot starts empty, every call in flight is forgotten (its answer is
// dropped), the domain types start afresh and the first calls start on
// the new Service.
func (m *app) onProfile(msg profileMsg) tea.Cmd {
	now := m.cx.Now()
	if cmd, ok := m.prof.answered(msg, now); !ok {
		return cmd
	}
	old := m.link.svc
	m.link.svc = msg.svc
	m.cx.Profile, m.opts.Endpoint, m.opts.Demo = msg.name, msg.info.Endpoint, msg.info.Demo
	m.cx.Snap = state.New(state.Config{ExpiringThreshold: m.opts.ExpiringThreshold, GoneRetention: m.opts.GoneRetention})
	m.calls.reset(now)
	*m.rt = *runtimes.New() // in place: the domain types hold it
	m.sess.Reset()
	m.scr.leaveAccount()
	m.resetOps(msg.lastSpec)
	m.scr.say(now, common.Say{Text: "profile " + msg.name})
	m.scr.recordEvent(now, "connect", msg.name, 0, nil)
	return tea.Batch(
		closeCmd(old),
		m.calls.issue(callKey{kind: callSubscription}, now),
		m.calls.issue(callKey{kind: callSpecs}, now),
		m.calls.issue(callKey{kind: callRuntimes}, now),
	)
}

// leaveAccount closes what was about the old account on a profile switch:
// dialogs (open or waiting), the filter, the files pane (closed: its
// transfer stops), the log viewer (its reads end) and the run-code console; answers still on their way
// find nothing and are dropped. The help and the event log stay.
func (m *screen) leaveAccount() {
	kept := m.stack[:0:0]
	for _, o := range m.stack {
		switch o := o.(type) {
		case *help.Overlay, *events.Overlay:
			kept = append(kept, o)
		case *files.Overlay:
			o.Close() // its listing and transfer were the old account's
		case *logview.Overlay:
			o.Cancel() // its reads were the old account's: its last answer closes its source
		}
	}
	m.stack = kept
	m.waiting = nil
}
