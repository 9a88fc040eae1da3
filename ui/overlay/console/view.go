package console

import (
	"github.com/colabdash/colabdash/api/plural"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// consoleView renders the console in n lines of width w: the title, the
// newest transcript rows that fit (or older ones, scrolled back), a blank
// line and the input.
func (p *Overlay) consoleView(c *common.Context, now time.Time, w, n int) []string {
	target := "session " + api.LastSegment(p.session)
	if p.session == "" || p.runs.Closed(p.session) {
		target = "no session (" + c.Keys.Console.Run.Help().Key + " asks to open one)"
	}
	out := []string{common.PanelTitle(c, true, "RUN CODE · "+api.LastSegment(p.runtime)+" · "+target) +
		c.Styles.Dim.Render(" · "+c.Keys.Console.Back.Help().Key+" back (runs keep going)")}
	input := p.in.View(">>> ", "... ", w, max(consoleInputLines, (n-4)/2))
	room := max(1, n-2-len(input))
	out = append(out, p.transcriptRows(c, now, w, room)...)
	out = frame.PadLines(out, n-1-len(input))
	out = append(out, "")
	out = append(out, input...)
	for i := range out {
		out[i] = ansi.Truncate(out[i], w, "…")
	}
	return frame.PadLines(out, n)
}

// transcriptLines returns the console's logical lines: the drop marker,
// the session's transcript, and the run in flight (not in it yet); at(i)
// is the i-th of n.
func (p *Overlay) transcriptLines(c *common.Context, now time.Time) (n int, at func(int) tline) {
	t := p.runs.Transcript(p.session)
	var lines []tline
	dropped := 0
	if t != nil {
		lines, dropped = t.lines, t.dropped
	}
	var tail []tline
	if r, ok := p.runs.Running(p.session); ok {
		line := "  running… " + state.FormatCountdown(now.Sub(r.Started))
		switch {
		case r.Stopping:
			line = "  stopping… (closing session " + api.LastSegment(r.Session) + ")"
		case r.Attempt > 1:
			line += " · reattached to the running code " + plural.Count(r.Attempt-1, "time") + " (same executionId)"
		}
		tail = append(tail, tline{lineWarn, line})
	}
	n = len(lines) + len(tail)
	if dropped > 0 {
		n++
	}
	return n, func(i int) tline {
		if dropped > 0 {
			if i == 0 {
				word := " earlier lines"
				if dropped == 1 {
					word = " earlier line"
				}
				return tline{lineDim, "  … " + itoaThousands(dropped) + word + " dropped (the console keeps the last " +
					itoaThousands(MaxTranscriptLines) + ")"}
			}
			i--
		}
		if i < len(lines) {
			return lines[i]
		}
		return tail[i-len(lines)]
	}
}

// wrapFromEnd wraps the logical lines from the newest back until want
// rows are made (or the lines run out); rows are newest first. all
// reports whether every line was wrapped.
func (p *Overlay) wrapFromEnd(c *common.Context, n int, at func(int) tline, w, want int) (rows []string, all bool) {
	i := n - 1
	for ; i >= 0 && len(rows) < want; i-- {
		wrapped := strings.Split(ansi.Hardwrap(p.styleLine(c, at(i)), w, true), "\n")
		for j := len(wrapped) - 1; j >= 0; j-- {
			rows = append(rows, wrapped[j])
		}
	}
	return rows, i < 0
}

// transcriptRowCount is how many rows the transcript makes at width w,
// counted up to limit.
func (p *Overlay) transcriptRowCount(c *common.Context, w, limit int) int {
	n, at := p.transcriptLines(c, c.Now())
	rows, _ := p.wrapFromEnd(c, n, at, w, limit)
	return len(rows)
}

// transcriptRows returns the rows of the console's transcript shown in
// room rows of width w: the newest, or older ones when scrolled back.
// Only the lines that are shown are wrapped, so a long transcript costs
// what fits on the screen.
func (p *Overlay) transcriptRows(c *common.Context, now time.Time, w, room int) []string {
	n, at := p.transcriptLines(c, now)
	rows, all := p.wrapFromEnd(c, n, at, w, room+p.scroll)
	scroll := p.scroll
	if all { // the whole transcript is wrapped: scrolling stops at its top
		scroll = min(scroll, max(0, len(rows)-room))
	}
	shown := rows[min(scroll, len(rows)):min(scroll+room, len(rows))]
	out := make([]string, len(shown))
	for k := range shown {
		out[len(shown)-1-k] = shown[k]
	}
	if scroll > 0 && len(out) > 0 {
		out[len(out)-1] = c.Styles.Dim.Render("  ↓ " + plural.Count(scroll, "newer line") + " below (" + c.Keys.Console.ScrollDown.Help().Key + ")")
	}
	return out
}

func (p *Overlay) styleLine(c *common.Context, l tline) string {
	switch l.kind {
	case lineIn:
		if i := strings.Index(l.text, ": "); i > 0 && strings.HasPrefix(l.text, "In [") {
			return c.Styles.Bold.Render(l.text[:i+2]) + l.text[i+2:]
		}
		return l.text
	case lineWarn:
		return c.Styles.Warn.Render(l.text)
	case lineErr:
		return c.Styles.ErrText.Render(l.text)
	case lineDim:
		return c.Styles.Dim.Render(l.text)
	}
	return l.text
}
