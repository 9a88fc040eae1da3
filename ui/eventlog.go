package ui

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// EventLogSize is how many events the in-app event log keeps (the oldest
// are dropped first).
const EventLogSize = 200

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
}

// Outcome is "ok", the canonical error code (FAILED_PRECONDITION…),
// "stale" for a Note, or for a runtime file's failure (the files pane,
// a kernel interrupt) the class of its jupyter error ("not found",
// "local error", "network error"…).
func (e Event) Outcome() string {
	if e.Err == nil && e.Note != "" {
		return "stale"
	}
	var je *jupyter.Error
	if errors.As(e.Err, &je) {
		return je.Class()
	}
	return api.Outcome(e.Err)
}

// eventLog is a ring buffer of the last EventLogSize events.
type eventLog struct {
	buf  []Event
	next int
}

func (l *eventLog) add(e Event) {
	if len(l.buf) < EventLogSize {
		l.buf = append(l.buf, e)
		return
	}
	l.buf[l.next] = e
	l.next = (l.next + 1) % EventLogSize
}

// newestFirst returns the events, newest first.
func (l *eventLog) newestFirst() []Event {
	out := make([]Event, 0, len(l.buf))
	for i := len(l.buf) - 1; i >= 0; i-- {
		out = append(out, l.buf[(l.next+i)%len(l.buf)])
	}
	return out
}

// Events returns the event log, newest first.
func (m Model) Events() []Event { return m.events.newestFirst() }

// recordEvent logs a finished call: its tool, target, latency and error.
func (m *Model) recordEvent(now time.Time, tool, target string, latency time.Duration, err error) {
	m.logEvent(Event{At: now, Tool: tool, Target: target, Latency: max(latency, 0), Err: err})
}

// noteEvent records why something shown is stale (see Event.Note).
func (m *Model) noteEvent(now time.Time, tool, target, note string) {
	m.logEvent(Event{At: now, Tool: tool, Target: target, Note: note})
}

// logEvent appends e to the log every copy of the Model shares.
func (m *Model) logEvent(e Event) { m.events.add(e) }

// formatLatency renders a latency as "850ms" or "2.4s".
func formatLatency(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}

// eventsOverlay is the event log (L): every API call and profile
// connection, newest first, each failure's full error below it. Only its
// own keys act while it is open: ↑/↓ and pgup/pgdn scroll, L and esc
// close it, q quits.
type eventsOverlay struct {
	log    *eventLog
	offset int // scroll position, 0 = newest
}

func (e *eventsOverlay) HandleKey(k tea.KeyMsg, c *common.Context) common.Effect {
	keys := c.Keys
	page := max(c.Layout.H-6, 1)
	switch {
	case key.Matches(k, keys.Up):
		e.offset = max(e.offset-1, 0)
	case key.Matches(k, keys.Down):
		e.offset++
	case key.Matches(k, keys.PageUp):
		e.offset = max(e.offset-page, 0)
	case key.Matches(k, keys.PageDown):
		e.offset += page
	case key.Matches(k, keys.Back), key.Matches(k, keys.Events):
		return common.Close{}
	case key.Matches(k, keys.Quit):
		return common.Quit{}
	}
	_, maxOff := e.eventLines(c, c.Layout.W, c.Layout.H-4, 0)
	e.offset = min(e.offset, maxOff) // scrolling past the end stops there
	return nil
}

func (e *eventsOverlay) Draw(c *common.Context, f *frame.Frame) {
	lines, _ := e.eventLines(c, f.W, f.BodyRows(), e.offset)
	f.SetBody(lines)
}

func (e *eventsOverlay) Fits(*common.Context) bool { return true }

func (e *eventsOverlay) Keys(c *common.Context) []key.Binding {
	k := c.Keys
	return []key.Binding{common.HelpKey(common.KeysOf(k.Up, k.Down), "scroll"), common.HelpKey(common.KeysOf(k.PageUp, k.PageDown), "page"),
		common.HelpKey(common.KeysOf(k.Events, k.Back), "close"), common.HelpKey(k.Quit.Help().Key, "quit")}
}

func (e *eventsOverlay) Name() string { return "event log" }

// eventLines renders the event log for n lines of width w, scrolled off
// lines down: newest first, one line per call, and below a failed call its
// full error text wrapped at word boundaries (a URL or path is never split
// unless it is wider than the screen). maxOff is the largest useful
// offset.
func (e *eventsOverlay) eventLines(c *common.Context, w, n, off int) (lines []string, maxOff int) {
	evs := e.log.newestFirst()
	title := c.Styles.PanelFocus.Render("EVENTS "+strconv.Itoa(len(evs))) + c.Styles.Dim.Render("  (newest first · ↑/↓ scroll · esc close)")
	out := []string{title}
	if len(evs) == 0 {
		return append(out, c.Styles.Dim.Render("  no API calls yet")), 0
	}
	var body []string
	for _, ev := range evs {
		target := termtext.Line(shortTarget(ev.Target))
		if target == "" {
			target = "–"
		}
		line := "  " + ev.At.In(c.Location).Format("15:04:05") + "  " + frame.Fit(ev.Tool, 18) + " " + frame.FitRight(formatLatency(ev.Latency), 7) + "  "
		outcome := ev.Outcome()
		if ev.Err != nil {
			outcome = c.Styles.ErrText.Render(outcome)
		} else if ev.Note != "" {
			outcome = c.Styles.Warn.Render(outcome)
		}
		line += outcome + "  "
		if ansi.StringWidth(line+target) > w && ansi.StringWidth(target) > 1 {
			// Too narrow: the target gets a line of its own, so it is
			// never cut to a prefix every call on that runtime shares.
			body = append(body, line, "      "+target)
		} else {
			body = append(body, line+target)
		}
		if ev.Err != nil || ev.Note != "" {
			text := ev.Note
			if ev.Err != nil {
				text = fullError(ev.Err)
			}
			text = termtext.Line(c.Redact(text))
			for _, wl := range strings.Split(frame.Wrap(text, max(w-6, 10)), "\n") {
				body = append(body, c.Styles.Dim.Render("      "+wl))
			}
		}
	}
	maxOff = max(len(body)-(n-1), 0)
	body = body[frame.Clamp(off, 0, maxOff):]
	if len(body) > n-1 {
		body = body[:n-1]
	}
	return append(out, body...), maxOff
}

// shortTarget is a call's target as the commands take it: rt-abc for
// runtimes/rt-abc, rt-abc/s1 for runtimes/rt-abc/sessions/s1; anything
// else (a file, a profile) as it is.
func shortTarget(name string) string {
	rest, ok := strings.CutPrefix(name, "runtimes/")
	if !ok {
		return name
	}
	if rt, sess, ok := strings.Cut(rest, "/sessions/"); ok {
		return rt + "/" + sess
	}
	return rest
}

// fullError is err's whole text: an *api.Error with its message uncut.
func fullError(err error) string {
	if ae, ok := err.(*api.Error); ok {
		return ae.Full()
	}
	return common.ErrText(err)
}
