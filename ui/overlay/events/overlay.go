package events

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// Overlay is the event log (L): every API call and profile connection,
// newest first, each failure's full error below it. Only its own keys act
// while it is open: ↑/↓ and pgup/pgdn scroll, / opens its filter line
// (FilterLine), esc clears a filter and else closes it, as L does, q
// quits. It implements common.Overlay.
type Overlay struct {
	log    *Log
	offset int    // scroll position, 0 = newest
	filter string // the events shown hold this text ("": all)
}

// New returns the event log overlay over log (the dashboard's, which
// keeps growing while it is open), scrolled to the newest event.
func New(log *Log) *Overlay { return &Overlay{log: log} }

// HandleKey scrolls (↑/↓ a line, pgup/pgdn a page of the screen's height
// less 6 lines, g/G the top or the end, never past the end), opens the filter line (/:
// common.Open), clears the filter (esc while one is set), closes (esc or
// L: common.Close) or quits (common.Quit); every other key does nothing
// (nil).
func (e *Overlay) HandleKey(k tea.KeyMsg, c *common.Context) common.Effect {
	keys := &c.Keys.EventLog
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
	case key.Matches(k, keys.Top):
		e.offset = 0
	case key.Matches(k, keys.Bottom):
		e.offset = 1 << 30 // stopped at the end below
	case key.Matches(k, keys.Filter):
		return common.Open{Overlay: &FilterLine{log: e, in: lineEditor(e.filter)}}
	case key.Matches(k, keys.Back) && e.filter != "":
		e.SetFilter("")
		return common.Say{Text: "event log filter cleared"}
	case key.Matches(k, keys.Back), key.Matches(k, keys.Close):
		return common.Close{}
	case key.Matches(k, keys.Quit):
		return common.Quit{}
	}
	_, maxOff := e.lines(c, c.Layout.W, c.Layout.H-4, 0)
	e.offset = min(e.offset, maxOff) // scrolling past the end stops there
	return nil
}

// Draw replaces the frame's body with the log's title and the events
// from the scroll position.
func (e *Overlay) Draw(c *common.Context, f *frame.Frame) {
	lines, _ := e.lines(c, f.W, f.BodyRows(), e.offset)
	f.SetBody(lines)
}

// Fits is always true: the log scrolls on any screen the dashboard fits.
func (e *Overlay) Fits(*common.Context) bool { return true }

// Keys are the footer's words while the log is open: scroll, page,
// close, quit, with the keys in effect.
func (e *Overlay) Keys(c *common.Context) []key.Binding {
	k := &c.Keys.EventLog
	back := common.HelpKey(common.KeysOf(k.Close, k.Back), "close")
	if e.filter != "" {
		back = common.HelpKey(k.Back.Help().Key, "clear filter")
	}
	return []key.Binding{common.HelpKey(common.KeysOf(k.Up, k.Down), "scroll"), common.HelpKey(common.KeysOf(k.PageUp, k.PageDown), "page"),
		common.HelpKey(k.Filter.Help().Key, "filter"), back, common.HelpKey(k.Quit.Help().Key, "quit")}
}

// Name is "event log".
func (e *Overlay) Name() string { return "event log" }

// Filter is the text the events shown hold ("": every event).
func (e *Overlay) Filter() string { return e.filter }

// SetFilter shows only the events whose line or error text holds f
// (ignoring case; "" shows all), scrolled back to the newest.
func (e *Overlay) SetFilter(f string) {
	e.filter = f
	e.offset = 0
}

// lines renders the event log for n lines of width w, scrolled off
// lines down: newest first, one line per call, and below a failed call its
// full error text wrapped at spaces (a URL or path is never split unless
// it is wider than the screen); the events not holding the filter are
// left out, and when lines are left below the last one shown, that line
// says "↓ more". maxOff is the largest useful offset.
func (e *Overlay) lines(c *common.Context, w, n, off int) (lines []string, maxOff int) {
	all := e.log.NewestFirst()
	evs := all
	count := strconv.Itoa(len(all))
	if e.filter != "" {
		evs = nil
		for _, ev := range all {
			if e.holds(c, ev) {
				evs = append(evs, ev)
			}
		}
		count = strconv.Itoa(len(evs)) + " of " + count + " · filter " + strconv.Quote(termtext.Line(e.filter))
	}
	title := c.Styles.PanelFocus.Render("EVENTS "+count) + c.Styles.Dim.Render("  (newest first · / filter · esc close)")
	out := []string{ansi.Truncate(title, w, "…")}
	switch {
	case len(all) == 0:
		return append(out, c.Styles.Dim.Render("  no API calls yet")), 0
	case len(evs) == 0:
		return append(out, c.Styles.Dim.Render("  no event holds the filter ("+c.Keys.EventLog.Back.Help().Key+" clears it)")), 0
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
		} else if ev.Note != "" || ev.Refused != "" {
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
		if ev.Err != nil || ev.Note != "" || ev.Refused != "" || ev.Output != "" || ev.Told != "" || ev.Why != "" {
			text := ev.Note + ev.Refused + ev.Output + ev.Told
			if ev.Err != nil {
				text = fullError(ev.Err)
			}
			if ev.Why != "" && text != "" {
				text = ev.Why + " · " + text
			} else if ev.Why != "" {
				text = ev.Why
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
		// The last line says there is more below, rather than a line cut
		// off at the screen's edge looking like the end of the log.
		body = append(body[:max(n-2, 0)], c.Styles.Dim.Render("  ↓ more"))
	}
	return append(out, body...), maxOff
}

// holds reports whether ev's line (time, tool, target, outcome) or its
// error or note, as shown, holds the filter, ignoring case.
func (e *Overlay) holds(c *common.Context, ev Event) bool {
	text := ev.At.In(c.Location).Format("15:04:05") + " " + ev.Tool + " " + shortTarget(ev.Target) + " " + ev.Target + " " + ev.Outcome() + " " + ev.Note + " " + ev.Refused + " " + ev.Output + " " + ev.Told + " " + ev.Why
	if ev.Err != nil {
		text += " " + fullError(ev.Err)
	}
	return strings.Contains(strings.ToLower(termtext.Line(c.Redact(text))), strings.ToLower(e.filter))
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
