package ui

import (
	"time"

	"github.com/colabdash/colabdash/ui/overlay/events"
)

// EventLogSize is how many events the in-app event log keeps (the oldest
// are dropped first).
const EventLogSize = events.Size

// Event is one entry of the in-app event log: an API call or a profile
// connection, when it finished, its latency and its outcome (see
// events.Event).
type Event = events.Event

// eventLog is the ring buffer of the last EventLogSize events.
type eventLog = events.Log

// Events returns the event log, newest first.
func (m Model) Events() []Event { return m.scr.events.NewestFirst() }

// recordEvent logs a finished call: its tool, target, latency and error.
func (m *screen) recordEvent(now time.Time, tool, target string, latency time.Duration, err error) {
	m.scr.logEvent(Event{At: now, Tool: tool, Target: target, Latency: max(latency, 0), Err: err})
}

// noteEvent records why something shown is stale (see Event.Note).
func (m *screen) noteEvent(now time.Time, tool, target, note string) {
	m.scr.logEvent(Event{At: now, Tool: tool, Target: target, Note: note})
}

// logEvent appends e to the log every copy of the Model shares.
func (m *screen) logEvent(e Event) { m.scr.events.Add(e) }
