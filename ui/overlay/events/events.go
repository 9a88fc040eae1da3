// Package events is the in-app event log: the Event record of every API
// call and profile connection, the ring buffer (Log) the dashboard keeps
// them in, and the overlay (L) that lists them newest first, each
// failure's full error below it.
package events

import (
	"errors"
	"strconv"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
)

// Size is how many events the in-app event log keeps (the oldest are
// dropped first).
const Size = 200

// Event is one entry of the in-app event log: an API call or a profile
// connection, when it finished, its latency and its outcome.
type Event struct {
	// At is when the answer arrived (dashboard clock).
	At time.Time
	// Tool is the MCP tool name ("list_runtimes", "create_runtime",
	// "execute_code"…), "connect" for a profile switch, or "state file"
	// for remembering the last spec.
	Tool string
	// Target is what the call was about: the runtime name
	// ("runtimes/…"), the session name for session tools and
	// execute_code, the runtimeSpec for create_runtime, the profile name
	// for "connect", or "" for account-wide tools.
	Target string
	// Latency is the time from issuing the call to its answer (0 when
	// unknown).
	Latency time.Duration
	// Err is the failure, nil on success. Its full text is shown.
	Err error
	// Note, on an entry that is no call, says why data shown is stale: a
	// session count waiting for the call budget, a token renewal backed
	// off or one that did not extend the token. Its full text is shown.
	Note string
	// Refused, on an entry that is no call, is why a key did nothing, as
	// the status line said it (Tool names where: "dashboard", "files
	// pane"), kept whole for a status line too narrow for it.
	Refused string
	// Output, on a plugin's entry (Tool "plugin NAME"), is one line of
	// what a background plugin printed; shown through the sanitizer.
	Output string
	// Told, on a notification's entry (Tool "notify"), is the event's
	// title and how it was told ("bell", "command ran", "muted", "told by
	// another colabdash"); shown redacted, through the sanitizer.
	Told string
	// Why, on a call the dashboard made on its own, says why ("its job
	// train-4kq9zt ended and asked for delete-when-done"); shown below the
	// call, through the sanitizer. It changes no Outcome.
	Why string
}

// Outcome is "ok", the canonical error code (FAILED_PRECONDITION…),
// "stale" for a Note, "output" for a plugin's Output, "refused" for a key refused (Refused), "notified" for a notification (Told), or for a runtime file's failure (the files pane,
// a kernel interrupt) the class of its jupyter error ("not found",
// "local error", "network error"…).
func (e Event) Outcome() string {
	if e.Err == nil && e.Refused != "" {
		return "refused"
	}
	if e.Err == nil && e.Note != "" {
		return "stale"
	}
	if e.Err == nil && e.Output != "" {
		return "output"
	}
	if e.Err == nil && e.Told != "" {
		return "notified"
	}
	var je *jupyter.Error
	if errors.As(e.Err, &je) {
		return je.Class()
	}
	return api.Outcome(e.Err)
}

// Log is a ring buffer of the last Size events. The zero Log is empty and
// ready; it is not safe for concurrent use (the dashboard adds from
// Update only).
type Log struct {
	buf  []Event
	next int
}

// Add appends e, dropping the oldest event once Size are kept.
func (l *Log) Add(e Event) {
	if len(l.buf) < Size {
		l.buf = append(l.buf, e)
		return
	}
	l.buf[l.next] = e
	l.next = (l.next + 1) % Size
}

// NewestFirst returns the events, newest first, in a new slice.
func (l *Log) NewestFirst() []Event {
	out := make([]Event, 0, len(l.buf))
	for i := len(l.buf) - 1; i >= 0; i-- {
		out = append(out, l.buf[(l.next+i)%len(l.buf)])
	}
	return out
}

// formatLatency renders a latency as "850ms" or "2.4s".
func formatLatency(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}
