package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/widget/frame"
	"github.com/colabdash/colabdash/ui/widget/lineedit"
)

// consoleOverlay is the run-code console (e): the transcript of its
// session and a multi-line input with history. Its keys are keymap's
// ScopeConsole (by default):
//
//	enter               run the input when it is a complete statement,
//	                    else start a new line (as Python's prompt does)
//	alt+enter, ctrl+j   a new line (shift+enter reaches a terminal program
//	                    as plain enter in most terminals)
//	pgup/pgdn           scroll the transcript
//	ctrl+c              never quits: while code runs it offers to stop it,
//	                    else it clears the input
//	esc                 back to the dashboard; running code keeps running
//
// and every other key edits the input (lineEditor: ↑/↓ move between input
// lines, else through the history).
//
// The console outlives its place on the stack: hidden with esc it keeps
// its input, history and session.
type consoleOverlay struct {
	runtime, session string
	in               lineedit.Editor
	ax               *actionState // the runs, transcripts and closed sessions it shows
	scroll           int          // transcript rows scrolled back from the newest
}

// consoleInputLines is the fewest input lines the console shows at once
// (when the input has that many); up to half its height when it has room.
const consoleInputLines = 3

func (p *consoleOverlay) HandleKey(k tea.KeyMsg, c *common.Context) common.Effect {
	keys := c.Keys
	switch {
	case key.Matches(k, keys.ConsoleStop):
		if p.ax.exec.running(p.session) != nil {
			return common.StopCode{}
		}
		p.in.Set("")
		return common.Say{Text: keys.ConsoleStop.Help().Key + " does not quit from the console: " +
			keys.ConsoleBack.Help().Key + " goes back to the dashboard"}
	case key.Matches(k, keys.ConsoleBack):
		return common.Close{} // a running execution goes on
	case key.Matches(k, keys.ConsoleScrollUp):
		p.scroll = p.clampScroll(c, p.scroll+p.consolePage(c))
	case key.Matches(k, keys.ConsoleScrollDown):
		p.scroll = max(0, p.scroll-p.consolePage(c))
	case key.Matches(k, keys.ConsoleNewLine):
		p.in.Handle(tea.KeyMsg{Type: tea.KeyCtrlJ}) // the editor's own new line
	case key.Matches(k, keys.ConsoleRun):
		code := strings.TrimRight(p.in.Value(), " \n")
		if strings.TrimSpace(code) == "" {
			return nil
		}
		if !completeStatement(p.in.Value()) {
			p.in.Insert([]rune{'\n'})
			return nil
		}
		return common.RunCode{Code: code}
	default:
		p.in.Handle(k)
	}
	return nil
}

// clampScroll bounds a scroll position to the transcript's top: it wraps
// only as many lines as the position needs.
func (p *consoleOverlay) clampScroll(c *common.Context, scroll int) int {
	room := max(1, c.Layout.H-4-3)
	rows := p.transcriptRowCount(c, c.Layout.W, scroll+room)
	if rows < scroll+room {
		return max(0, rows-room)
	}
	return scroll
}

// consolePage is how far pgup/pgdn scroll: the transcript's height less
// one line of overlap.
func (p *consoleOverlay) consolePage(c *common.Context) int { return max(1, c.Layout.H-4-3-1) }

func (p *consoleOverlay) Draw(c *common.Context, f *frame.Frame) {
	f.SetBody(p.consoleView(c, c.Now(), f.W, f.BodyRows()))
}

func (p *consoleOverlay) Fits(*common.Context) bool { return true }

func (p *consoleOverlay) Name() string { return "run-code console" }

// keys are the console's own keys: in it, letters are text. The stop
// and scroll keys say what they do now.
func (p *consoleOverlay) Keys(c *common.Context) []key.Binding {
	k := c.Keys
	scroll := "scroll"
	if p.scroll > 0 {
		scroll = "scroll (↓ newer below)"
	}
	stop := "clear"
	if p.ax.exec.running(p.session) != nil {
		stop = "stop the code"
	}
	// The ways out first: a narrow footer cuts from the end (that code
	// keeps running after esc, the title says); while scrolled up, "newer
	// below" comes right after them.
	ks := []key.Binding{
		common.HelpKey(k.ConsoleRun.Help().Key, "run"),
		common.HelpKey(k.ConsoleBack.Help().Key, "back"),
		common.HelpKey(k.ConsoleStop.Help().Key, stop),
		k.ConsoleNewLine,
		common.HelpKey("↑/↓", "history"), // the input's own keys (lineEditor)
	}
	pg := common.HelpKey(common.KeysOf(k.ConsoleScrollUp, k.ConsoleScrollDown), scroll)
	if p.scroll > 0 {
		return append(ks[:3:3], append([]key.Binding{pg}, ks[3:]...)...)
	}
	return append(ks, pg)
}

// openConsole is e: the console on the session run code uses for the
// selected runtime. A run in flight is shown as it is. Without a session
// chosen it asks before opening a new one.
func (m *Model) openConsole(now time.Time) {
	x := &m.ax.exec
	if r := x.running(""); r != nil {
		m.showConsole(r.runtime, r.session)
		return
	}
	sel := m.cx.Snap.Runtime(m.selected)
	switch {
	case sel == nil && x.console != nil:
		m.showConsole(x.console.runtime, x.console.session)
		return
	case sel == nil:
		m.setStatus(now, "no runtime selected", true)
		return
	case sel.Gone():
		m.setStatus(now, m.goneText(sel, now), true)
		return
	}
	target := m.execTarget(sel, now)
	if target == "" {
		m.askConsoleSession(sel.Name, "No session is chosen on "+sel.ID()+" (tab to the sessions panel to pick one).", now)
		return
	}
	m.showConsole(sel.Name, target)
}

// askConsoleSession asks before opening a new colabdash session on
// runtime for run code; why says why one is needed.
func (m *Model) askConsoleSession(runtime, why string, now time.Time) {
	d := dialog.New(dialog.Confirm, now, "Open a new session on "+api.LastSegment(runtime)+"?", why,
		"Run code needs a session: y opens a new colabdash session (create_session), with an empty kernel.")
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return nil
		}
		return common.OpenSession{Runtime: runtime, ForConsole: true}
	}
	m.push(d)
}

// showConsole opens the console on session of runtime (made on first use;
// its input and history are kept).
func (m *Model) showConsole(runtime, session string) {
	x := &m.ax.exec
	p := x.console
	if p == nil {
		p = &consoleOverlay{in: lineedit.Editor{Multiline: true}, ax: m.ax}
		x.console = p
	}
	if p.session != session {
		p.scroll = 0
	}
	p.runtime, p.session = runtime, session
	if _, open := find[*consoleOverlay](m); !open {
		m.push(p)
	}
}

// consoleView renders the console in n lines of width w: the title, the
// newest transcript rows that fit (or older ones, scrolled back), a blank
// line and the input.
func (p *consoleOverlay) consoleView(c *common.Context, now time.Time, w, n int) []string {
	target := "session " + api.LastSegment(p.session)
	if p.session == "" || p.ax.closed[p.session] {
		target = "no session (" + c.Keys.ConsoleRun.Help().Key + " asks to open one)"
	}
	out := []string{common.PanelTitle(c, true, "RUN CODE · "+api.LastSegment(p.runtime)+" · "+target) +
		c.Styles.Dim.Render(" · "+c.Keys.ConsoleBack.Help().Key+" back (runs keep going)")}
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
func (p *consoleOverlay) transcriptLines(c *common.Context, now time.Time) (n int, at func(int) tline) {
	t := p.ax.exec.transcripts[p.session]
	var lines []tline
	dropped := 0
	if t != nil {
		lines, dropped = t.lines, t.dropped
	}
	var tail []tline
	if r := p.ax.exec.running(p.session); r != nil {
		line := "  running… " + state.FormatCountdown(now.Sub(r.started))
		switch {
		case r.stopping:
			line = "  stopping… (closing session " + api.LastSegment(r.session) + ")"
		case r.attempt > 1:
			line += " · reattached to the running code " + itoaPlural(r.attempt-1, "time") + " (same executionId)"
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
func (p *consoleOverlay) wrapFromEnd(c *common.Context, n int, at func(int) tline, w, want int) (rows []string, all bool) {
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
func (p *consoleOverlay) transcriptRowCount(c *common.Context, w, limit int) int {
	n, at := p.transcriptLines(c, c.Now())
	rows, _ := p.wrapFromEnd(c, n, at, w, limit)
	return len(rows)
}

// transcriptRows returns the rows of the console's transcript shown in
// room rows of width w: the newest, or older ones when scrolled back.
// Only the lines that are shown are wrapped, so a long transcript costs
// what fits on the screen.
func (p *consoleOverlay) transcriptRows(c *common.Context, now time.Time, w, room int) []string {
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
		out[len(out)-1] = c.Styles.Dim.Render("  ↓ " + itoaPlural(scroll, "newer line") + " below (" + c.Keys.ConsoleScrollDown.Help().Key + ")")
	}
	return out
}

// itoaThousands writes n with thousands separators ("10,000").
func itoaThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func (p *consoleOverlay) styleLine(c *common.Context, l tline) string {
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

// completeStatement reports whether Python code is ready to run on enter:
// brackets and triple-quoted strings are closed, the last line does not
// end in ":" or "\", and a compound statement (a line ending in ":") has
// been closed with an empty line, as in Python's interactive prompt.
func completeStatement(code string) bool {
	depth, inStr := 0, ""
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case inStr != "":
			if c == '\\' {
				i++
			} else if strings.HasPrefix(code[i:], inStr) {
				i += len(inStr) - 1
				inStr = ""
			} else if c == '\n' && len(inStr) == 1 {
				inStr = "" // an unclosed one-line string: Python will say so
			}
		case c == '#':
			for i < len(code) && code[i] != '\n' {
				i++
			}
		case strings.HasPrefix(code[i:], `"""`), strings.HasPrefix(code[i:], `'''`):
			inStr = code[i : i+3]
			i += 2
		case c == '"' || c == '\'':
			inStr = string(c)
		case strings.IndexByte("([{", c) >= 0:
			depth++
		case strings.IndexByte(")]}", c) >= 0:
			depth--
		}
	}
	if depth > 0 || len(inStr) == 3 {
		return false
	}
	lines := strings.Split(code, "\n")
	last := strings.TrimRight(lines[len(lines)-1], " \t")
	if strings.HasSuffix(last, ":") || strings.HasSuffix(last, "\\") {
		return false
	}
	if strings.TrimSpace(last) == "" {
		return true
	}
	for _, ln := range lines[:len(lines)-1] {
		if strings.HasSuffix(strings.TrimRight(ln, " \t"), ":") {
			return false // inside a block: an empty line ends it
		}
	}
	return true
}
