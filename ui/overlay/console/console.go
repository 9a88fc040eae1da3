// Package console is the run-code console (e): the transcript of one
// session and a multi-line input with history, drawn over the dashboard.
//
// The console never runs code itself: enter on a complete statement
// answers common.RunCode, ctrl+c while code runs common.StopCode, and the
// app (package ui) sends execute_code, keeps the runs and writes each
// session's Transcript. What the console reads of that state it reads
// through Runs, which the app implements.
package console

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/widget/frame"
	"github.com/colabdash/colabdash/ui/widget/lineedit"
)

// Runs is what the console reads of the app's run-code state. Sessions
// are named "runtimes/{id}/sessions/{sid}".
type Runs interface {
	// Transcript returns session's transcript, or nil when nothing ran
	// there yet.
	Transcript(session string) *Transcript
	// Running returns the run in flight on session ("": on any session);
	// ok is false when none is.
	Running(session string) (r Run, ok bool)
	// Closed reports whether the user closed session: run code never uses
	// it again.
	Closed(session string) bool
}

// Run is a run in flight as the console shows it.
type Run struct {
	// Session is the session the code runs on.
	Session string
	// Started is when the user ran it.
	Started time.Time
	// Stopping is set once the user asked to stop it (delete_session was
	// sent).
	Stopping bool
	// Attempt counts the execute_code calls sent for it with its one
	// executionId: 1, then one more per reattach.
	Attempt int
}

// Overlay is the run-code console (e): the transcript of its
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
// and every other key edits the input (lineedit: ↑/↓ move between input
// lines, else through the history).
//
// The console outlives its place on the stack: hidden with esc it keeps
// its input, history and session.
type Overlay struct {
	runtime, session string
	in               lineedit.Editor
	runs             Runs // the runs, transcripts and closed sessions it shows
	scroll           int  // transcript rows scrolled back from the newest
}

// New returns a console that shows what runs holds, on no session yet
// (Show gives it one).
func New(runs Runs) *Overlay {
	return &Overlay{in: lineedit.Editor{Multiline: true}, runs: runs}
}

// Show points the console at session (a session name) of runtime (a
// runtime name). Moving to another session shows its newest lines; the
// input and its history are kept.
func (p *Overlay) Show(runtime, session string) {
	if p.session != session {
		p.scroll = 0
	}
	p.runtime, p.session = runtime, session
}

// Runtime is the name of the runtime the console's session is on.
func (p *Overlay) Runtime() string { return p.runtime }

// Session is the name of the session the console runs code on.
func (p *Overlay) Session() string { return p.session }

// Input is the text typed so far (lines joined by "\n").
func (p *Overlay) Input() string { return p.in.Value() }

// SetInput replaces the text typed so far.
func (p *Overlay) SetInput(s string) { p.in.Set(s) }

// Ran records that code was sent to run: it joins the input's history,
// the input is cleared and the transcript shows its newest lines.
func (p *Overlay) Ran(code string) {
	p.in.Remember(code)
	p.in.Set("")
	p.scroll = 0
}

// running reports whether code runs on the console's session.
func (p *Overlay) running() bool {
	_, ok := p.runs.Running(p.session)
	return ok
}

// consoleInputLines is the fewest input lines the console shows at once
// (when the input has that many); up to half its height when it has room.
const consoleInputLines = 3

// HandleKey takes every key while the console is on top: the bindings of
// keymap.ScopeConsole, and every other key edits the input.
func (p *Overlay) HandleKey(k tea.KeyMsg, c *common.Context) common.Effect {
	keys := &c.Keys.Console
	switch {
	case key.Matches(k, keys.Stop):
		if p.running() {
			return common.StopCode{}
		}
		p.in.Set("")
		return common.Say{Text: keys.Stop.Help().Key + " does not quit from the console: " +
			keys.Back.Help().Key + " goes back to the dashboard"}
	case key.Matches(k, keys.Back):
		return common.Close{} // a running execution goes on
	case key.Matches(k, keys.ScrollUp):
		p.scroll = p.clampScroll(c, p.scroll+p.consolePage(c))
	case key.Matches(k, keys.ScrollDown):
		p.scroll = max(0, p.scroll-p.consolePage(c))
	case key.Matches(k, keys.NewLine):
		p.in.Handle(tea.KeyMsg{Type: tea.KeyCtrlJ}) // the editor's own new line
	case key.Matches(k, keys.Run):
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
func (p *Overlay) clampScroll(c *common.Context, scroll int) int {
	room := max(1, c.Layout.H-4-3)
	rows := p.transcriptRowCount(c, c.Layout.W, scroll+room)
	if rows < scroll+room {
		return max(0, rows-room)
	}
	return scroll
}

// consolePage is how far pgup/pgdn scroll: the transcript's height less
// one line of overlap.
func (p *Overlay) consolePage(c *common.Context) int { return max(1, c.Layout.H-4-3-1) }

// Draw paints the console over the frame's whole body.
func (p *Overlay) Draw(c *common.Context, f *frame.Frame) {
	f.SetBody(p.consoleView(c, c.Now(), f.W, f.BodyRows()))
}

// Fits reports true: the console fits any screen the dashboard draws.
func (p *Overlay) Fits(*common.Context) bool { return true }

// Name says what the overlay is.
func (p *Overlay) Name() string { return "run-code console" }

// Keys are the console's own keys: in it, letters are text. The stop
// and scroll keys say what they do now.
func (p *Overlay) Keys(c *common.Context) []key.Binding {
	k := &c.Keys.Console
	scroll := "scroll"
	if p.scroll > 0 {
		scroll = "scroll (↓ newer below)"
	}
	stop := "clear"
	if p.running() {
		stop = "stop the code"
	}
	// The ways out first: a narrow footer cuts from the end (that code
	// keeps running after esc, the title says); while scrolled up, "newer
	// below" comes right after them.
	ks := []key.Binding{
		common.HelpKey(k.Run.Help().Key, "run"),
		common.HelpKey(k.Back.Help().Key, "back"),
		common.HelpKey(k.Stop.Help().Key, stop),
		k.NewLine,
		common.HelpKey("↑/↓", "history"), // the input's own keys (lineedit)
	}
	pg := common.HelpKey(common.KeysOf(k.ScrollUp, k.ScrollDown), scroll)
	if p.scroll > 0 {
		return append(ks[:3:3], append([]key.Binding{pg}, ks[3:]...)...)
	}
	return append(ks, pg)
}
