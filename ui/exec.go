package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/termtext"
)

// MaxExecReattach bounds the dashboard's re-sends of one execute_code with
// the same executionId after DEADLINE_EXCEEDED or UNAVAILABLE.
const MaxExecReattach = 5

// execRun is one piece of code sent to execute_code.
type execRun struct {
	id          int
	code        string
	executionID string
	session     string
	started     time.Time
	attempt     int
	done        bool
	res         api.ExecuteCodeResult
	err         error
}

// execPanel is the run-code panel: an input line with history and the
// output of each run. It stays alive while hidden, so a long run can go on
// while the user is back on the dashboard.
type execPanel struct {
	open    bool
	runtime string // target runtime
	session string // target session ("" until one is opened)
	input   string
	history []string
	hist    int // index into history while browsing (len = new line)
	runs    []*execRun
	nextRun int
	scroll  int // output lines scrolled back from the newest (pgup/pgdn)
}

type execDoneMsg struct {
	run     int
	attempt int
	session string
	res     api.ExecuteCodeResult
	err     error
}

// running returns the run in flight, or nil.
func (p *execPanel) running() *execRun {
	if p == nil {
		return nil
	}
	for _, r := range p.runs {
		if !r.done {
			return r
		}
	}
	return nil
}

// openExec opens (or re-opens) the run-code panel. A run in flight is
// shown as it is. Otherwise the panel targets the selected runtime's
// session chosen by execTarget, or a new colabdash session of it.
func (m *Model) openExec(now time.Time) tea.Cmd {
	sel := m.snap.Runtime(m.selected)
	p := m.ax.exec
	if p != nil && (p.running() != nil || sel == nil) {
		p.open = true
		return nil
	}
	if sel == nil {
		m.setStatus(now, "no runtime selected", true)
		return nil
	}
	if sel.Gone() {
		m.setStatus(now, m.goneText(sel, now), true)
		return nil
	}
	target := m.execTarget(sel, now)
	if p == nil || p.runtime != sel.Name {
		np := &execPanel{runtime: sel.Name}
		if p != nil { // the input history is the user's, not the runtime's
			np.history, np.hist = p.history, len(p.history)
		}
		p, m.ax.exec = np, np
	}
	p.open, p.session = true, target
	return nil
}

// execTarget is the session e runs on for runtime r: the one under the
// cursor when the sessions panel is focused, else the one most recently
// selected, opened or used for r; "" (a new colabdash session) when none
// is left. A session the user closed is never returned.
func (m *Model) execTarget(r *state.Runtime, now time.Time) string {
	if s := m.selectedSession(); s != "" && !m.ax.closed[s] {
		m.pickSession(r.Name, s, now)
		return s
	}
	if pk, ok := m.ax.lastSession[r.Name]; ok && !m.ax.closed[pk.name] {
		return pk.name
	}
	return ""
}

// pickSession remembers session as the one run code uses on runtime.
func (m *Model) pickSession(runtime, session string, now time.Time) {
	m.ax.lastSession[runtime] = sessionPick{name: session, at: now}
}

// forgetVanishedSession drops runtime's remembered session when a
// list_sessions sent after it was chosen no longer lists it.
func (m *Model) forgetVanishedSession(runtime string, sent time.Time, listed []api.Session) {
	pk, ok := m.ax.lastSession[runtime]
	if !ok || sent.Before(pk.at) {
		return
	}
	for _, s := range listed {
		if s.Name == pk.name {
			return
		}
	}
	delete(m.ax.lastSession, runtime)
}

// onExecKey handles keys while the panel is open.
func (m *Model) onExecKey(k tea.KeyMsg, now time.Time) tea.Cmd {
	p := m.ax.exec
	switch k.Type {
	case tea.KeyCtrlC:
		m.cancel()
		return tea.Quit
	case tea.KeyEsc:
		p.open = false // a running execution goes on
		return nil
	case tea.KeyUp:
		if p.hist > 0 {
			p.hist--
			p.input = p.history[p.hist]
		}
	case tea.KeyDown:
		if p.hist < len(p.history)-1 {
			p.hist++
			p.input = p.history[p.hist]
		} else {
			p.hist, p.input = len(p.history), ""
		}
	case tea.KeyBackspace:
		if r := []rune(p.input); len(r) > 0 {
			p.input = string(r[:len(r)-1])
		}
	case tea.KeyCtrlU:
		p.input = ""
	case tea.KeyPgUp:
		p.scroll += m.execPage()
	case tea.KeyPgDown:
		p.scroll = max(0, p.scroll-m.execPage())
	case tea.KeyRunes, tea.KeySpace:
		p.input += string(k.Runes)
	case tea.KeyEnter:
		return m.execSubmit(now)
	}
	return nil
}

func (m *Model) execSubmit(now time.Time) tea.Cmd {
	p := m.ax.exec
	code := strings.TrimSpace(p.input)
	if code == "" {
		return nil
	}
	if p.running() != nil {
		m.setStatus(now, "code is still running; wait for it to finish", true)
		return nil
	}
	if m.ax.closed[p.session] {
		p.session = "" // closed since the panel opened: never resurrect it
	}
	if len(p.history) == 0 || p.history[len(p.history)-1] != code {
		p.history = append(p.history, code)
	}
	p.hist, p.input, p.scroll = len(p.history), "", 0
	p.nextRun++
	r := &execRun{id: p.nextRun, code: code, executionID: uuid.NewString(), session: p.session, started: now}
	p.runs = append(p.runs, r)
	if len(p.runs) > 50 {
		p.runs = p.runs[len(p.runs)-50:]
	}
	return m.sendExec(r, p.runtime)
}

// sendExec (re-)sends r with its executionId. Without a session it first
// opens a colabdash session on runtime, so the call can be reattached.
func (m *Model) sendExec(r *execRun, runtime string) tea.Cmd {
	r.attempt++
	run, attempt, sess, code, execID := r.id, r.attempt, r.session, r.code, r.executionID
	svc, parent := m.svc, m.ctx
	return func() (msg tea.Msg) {
		defer func() {
			if rec := recover(); rec != nil {
				msg = execDoneMsg{run: run, attempt: attempt, err: errors.New("internal error in execute_code")}
			}
		}()
		if svc == nil {
			return execDoneMsg{run: run, attempt: attempt, err: errors.New("no Colab service configured")}
		}
		ctx, cancel := context.WithCancel(parent)
		defer cancel()
		if sess == "" {
			s, err := svc.CreateSession(ctx, runtime, state.NewSessionID())
			if err != nil {
				return execDoneMsg{run: run, attempt: attempt, err: err}
			}
			sess = s.Name
		}
		res, err := svc.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: sess, Code: code, ExecutionID: execID})
		return execDoneMsg{run: run, attempt: attempt, session: sess, res: res, err: err}
	}
}

func (m *Model) onExecDone(msg execDoneMsg, now time.Time) tea.Cmd {
	p := m.ax.exec
	if p == nil {
		return nil
	}
	var r *execRun
	for _, x := range p.runs {
		if x.id == msg.run {
			r = x
		}
	}
	if r == nil || r.done || r.attempt != msg.attempt {
		return nil
	}
	var cmd tea.Cmd
	if msg.session != "" && r.session == "" {
		r.session = msg.session
		if p.session == "" {
			p.session = msg.session
			m.snap.MarkOwned(msg.session)
			m.pickSession(p.runtime, msg.session, now)
			cmd = m.issue(callKey{kind: callSessions, runtime: p.runtime}, now)
		}
	}
	var ae *api.Error
	if msg.err != nil && errors.As(msg.err, &ae) && ae.Reattachable() &&
		r.session != "" && r.attempt < MaxExecReattach {
		return tea.Batch(cmd, m.sendExec(r, p.runtime)) // reattach: same executionId
	}
	r.done, r.res, r.err = true, msg.res, msg.err
	if !p.open {
		word := "finished"
		if msg.err != nil || msg.res.ExecutionError != nil {
			word = "failed"
		}
		m.setStatus(now, "code run "+word+" after "+state.FormatCountdown(now.Sub(r.started))+" ("+m.keys.RunCode.Help().Key+" shows the output)", msg.err != nil)
	}
	return cmd
}

// execView renders the panel in n lines of width w.
func (m Model) execView(now time.Time, w, n int) []string {
	p := m.ax.exec
	target := "a new colabdash session"
	if p.session != "" {
		target = "session " + api.LastSegment(p.session)
	}
	out := []string{m.panelTitle(true, "RUN CODE · "+api.LastSegment(p.runtime)+" · "+target) + m.st.dim.Render(" · esc back (runs keep going)")}
	var body []string
	// Everything below from the server (and the code, typed or pasted)
	// goes through termtext: output keeps its lines, never its controls.
	for _, r := range p.runs {
		for i, ln := range splitLines(termtext.Block(r.code)) {
			if i == 0 {
				body = append(body, m.st.bold.Render("In: ")+ln)
			} else {
				body = append(body, "    "+ln)
			}
		}
		if !r.done {
			line := "  running… " + state.FormatCountdown(now.Sub(r.started))
			if r.attempt > 1 {
				line += " · reattached to the running code " + itoaPlural(r.attempt-1, "time") + " (same executionId)"
			}
			body = append(body, m.st.warn.Render(line))
			continue
		}
		if r.err != nil {
			body = append(body, m.st.errText.Render("  ✕ "+errLine(r.err)))
			continue
		}
		res := r.res
		for _, ln := range splitLines(termtext.Output(res.Stdout)) {
			body = append(body, "  "+ln)
		}
		for _, ln := range splitLines(termtext.Output(res.Stderr)) {
			body = append(body, m.st.warn.Render("  stderr: "+ln))
		}
		for i, ln := range splitLines(termtext.Output(res.Result)) {
			if i == 0 {
				ln = "Out: " + ln
			}
			body = append(body, "  "+ln)
		}
		if e := res.ExecutionError; e != nil {
			body = append(body, m.st.errText.Render("  "+termtext.Line(e.Name)+": "+termtext.Line(e.Value)))
			for _, tb := range e.Traceback {
				for _, ln := range splitLines(termtext.Output(tb)) {
					body = append(body, m.st.dim.Render("    "+ln))
				}
			}
		}
		if res.OutputTruncated {
			body = append(body, m.st.dim.Render("  (output truncated by the server)"))
		}
		if e := res.ExecutionError; e != nil {
			// The code raised: the run failed, whatever it printed before.
			body = append(body, m.st.errText.Render("  ✕ "+orWord(termtext.Line(e.Name), "error")))
		} else {
			body = append(body, m.st.dim.Render("  ✓ done"))
		}
	}
	// Output and tracebacks wrap at the width instead of being cut; the
	// newest line is at the bottom unless pgup scrolled back.
	var wrapped []string
	for _, ln := range body {
		wrapped = append(wrapped, strings.Split(ansi.Hardwrap(ln, w, true), "\n")...)
	}
	in := inputLines(p.input, w, max(1, (n-4)/2))
	room := n - 1 - len(in) // the title above
	end := len(wrapped) - max(0, min(p.scroll, len(wrapped)-room))
	shown := wrapped[max(0, end-room):end]
	if end < len(wrapped) && len(shown) > 0 {
		shown[len(shown)-1] = m.st.dim.Render(fmt.Sprintf("  ↓ %s below (pgdn)", itoaPlural(len(wrapped)-end, "newer line")))
	}
	out = append(out, shown...)
	for len(out) < n-len(in) {
		out = append(out, "")
	}
	out = append(out, in...)
	for i := range out {
		out[i] = ansi.Truncate(out[i], w, "…")
	}
	return out[:n]
}

// execPage is how far pgup/pgdn scroll the run-code output: its height
// less one line of overlap.
func (m Model) execPage() int {
	return max(1, m.layout().h-4-3-1)
}

// inputLines renders the run-code input (which may hold several lines, a
// paste keeps its newlines) in at most maxLines lines of width w: ">>> "
// before the first line, "... " before the others, the cursor after the
// last; when the input has more lines the last maxLines are shown. It
// starts with an empty line that separates it from the output.
func inputLines(input string, w, maxLines int) []string {
	lines := strings.Split(termtext.Block(input), "\n")
	first := max(0, len(lines)-maxLines)
	out := []string{""}
	for i := first; i < len(lines); i++ {
		prompt := "... "
		if i == 0 {
			prompt = ">>> "
		}
		if i == len(lines)-1 {
			out = append(out, inputLine(prompt, lines[i], w))
		} else {
			out = append(out, prompt+termtext.Cut(lines[i], w-len(prompt)))
		}
	}
	return out
}

// inputLine renders the prompt, the input and the cursor (█, always at the
// end) in w cells, scrolled horizontally so the cursor stays visible: a
// long input shows "…" and its end.
func inputLine(prompt, input string, w int) string {
	line := prompt + input + "█"
	if ansi.StringWidth(line) <= w {
		return line
	}
	room := w - ansi.StringWidth(prompt) - 2 // "…" and the cursor
	r := []rune(input)
	start, used := len(r), 0
	for start > 0 {
		cw := ansi.StringWidth(string(r[start-1]))
		if used+cw > room {
			break
		}
		start, used = start-1, used+cw
	}
	return prompt + "…" + string(r[start:]) + "█"
}

func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// orWord returns s, or def when s is empty.
func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
