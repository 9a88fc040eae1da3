package ui

// The status line and the event log: every status the dashboard shows is
// a common.Say handed to screen.say, and setLine is the one writer of the
// Context's Status.

import (
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/events"
)

// statusShown is how long a status stays in the status line.
const statusShown = 5 * time.Second

// setLine is the one writer of the status line (Context.Status).
func (m *screen) setLine(st common.Status) { m.cx.Status = st }

// say shows s in the status line for statusShown; its text is redacted
// first (Options.Redact). s.About and s.For say when it goes before its
// time (dropStaleStatus, endProgress); s.Pane when the files pane closes.
// A live line (sayLive) it replaces comes back once it has gone.
func (m *screen) say(now time.Time, s common.Say) {
	m.setLine(common.Status{Text: m.cx.Redact(s.Text), Err: s.Err, Until: now.Add(statusShown)})
	m.statusFor, m.statusPane, m.statusAbout, m.statusCancel = s.For, s.Pane, s.About, false
	m.liveShown = false
}

// sayLive shows s as say does, and words it anew with live at each tick
// (liveStatus) until until or until live says it is over; another status
// shown meanwhile (say) takes the line for its own time, and the live one
// comes back after it.
func (m *screen) sayLive(now time.Time, s common.Say, until time.Time, live func(now time.Time) (string, bool)) {
	m.say(now, s)
	st := m.cx.Status
	st.Until = until
	m.setLine(st)
	m.statusLive, m.liveErr, m.liveUntil, m.liveShown = live, s.Err, until, true
}

// liveStatus words the live status anew at now (sayLive), once a tick:
// the tick redraws anyway, so a countdown costs no redraw of its own. It
// shows it again once a status that replaced it has gone; one whose time
// is over, or whose live function says it is, is dropped (and cleared
// when shown).
func (m *screen) liveStatus(now time.Time) {
	if m.statusLive == nil {
		return
	}
	text, ok := "", now.Before(m.liveUntil)
	if ok {
		text, ok = m.statusLive(now)
	}
	switch {
	case !ok:
		if m.liveShown {
			m.clearStatus()
		}
		m.statusLive, m.liveShown = nil, false
	case m.liveShown:
		st := m.cx.Status
		st.Text = m.cx.Redact(text)
		m.setLine(st)
	case m.cx.Status.Text == "":
		m.setLine(common.Status{Text: m.cx.Redact(text), Err: m.liveErr, Until: m.liveUntil})
		m.liveShown = true
	}
}

// clearStatus empties the status line (a live status comes back at the
// next tick: liveStatus).
func (m *screen) clearStatus() {
	st := m.cx.Status
	st.Text = ""
	m.setLine(st)
	m.liveShown = false
}

// expireStatus empties the status line once its time is over.
func (m *screen) expireStatus(now time.Time) {
	if m.cx.Status.Text != "" && !now.Before(m.cx.Status.Until) {
		m.clearStatus()
	}
}

// dropStaleStatus clears a status that outlived what it describes, once
// per Update: one about a runtime no longer selected (Say.About), and
// "deleting X…" once X is gone from the list before delete_runtime
// answered.
func (m *screen) dropStaleStatus() {
	if m.statusAbout != "" && m.statusAbout != m.cx.Selected {
		m.clearStatus()
		m.statusAbout = ""
	}
	if name, ok := strings.CutPrefix(m.statusFor, api.ToolDeleteRuntime+" "); ok {
		if r := m.cx.Snap.Runtime(name); r == nil || r.Gone() {
			m.clearStatus()
			m.statusFor = ""
		}
	}
}

// endProgress clears the status line when it still shows the under-way
// status of tool on target (a Say whose For is "tool target"), so no
// screen keeps saying "opening …" after the call answered, whatever the
// answer's own status is.
func (m *screen) endProgress(tool, target string) {
	if m.statusFor != "" && m.statusFor == tool+" "+target {
		m.clearStatus()
		m.statusFor = ""
	}
}

// eventLogSize is how many events the in-app event log keeps (the oldest
// are dropped first).
const eventLogSize = events.Size

// Event is one entry of the in-app event log: an API call or a profile
// connection, when it finished, its latency and its outcome (see
// events.Event).
type Event = events.Event

// eventLog is the ring buffer of the last eventLogSize events.
type eventLog = events.Log

// Events returns the event log, newest first.
func (m Model) Events() []Event { return m.scr.events.NewestFirst() }

// recordEvent logs a finished call: its tool, target, latency and error.
func (m *screen) recordEvent(now time.Time, tool, target string, latency time.Duration, err error) {
	m.logEvent(Event{At: now, Tool: tool, Target: target, Latency: max(latency, 0), Err: err})
}

// noteEvent records why something shown is stale (see Event.Note).
func (m *screen) noteEvent(now time.Time, tool, target, note string) {
	m.logEvent(Event{At: now, Tool: tool, Target: target, Note: note})
}

// logEvent appends e to the log every copy of the Model shares.
func (m *screen) logEvent(e Event) { m.events.Add(e) }
