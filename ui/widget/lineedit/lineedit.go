package lineedit

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// Editor is the dashboard's one text input: the filter, every dialog
// input and the run-code console use it, so the same keys edit text
// everywhere:
//
//	runes, space, paste   insert at the cursor (a paste is one edit)
//	backspace, delete     delete before / at the cursor
//	ctrl+u                delete from the start of the line to the cursor
//	ctrl+k                delete from the cursor to the end of the line
//	ctrl+w, alt+backspace delete the word before the cursor
//	←/→, home/ctrl+a, end/ctrl+e   move the cursor
//	↑/↓                   the previous / next line of a multi-line text,
//	                      else the input history (where there is one)
//	ctrl+j, alt+enter     a new line, where the field is multi-line
//
// Enter is never the editor's: the field that owns it decides (submit,
// apply, run). A single-line field drops the line breaks of a paste; a
// multi-line one keeps them. Escape sequences and controls are dropped
// (termtext.Input).
type Editor struct {
	buf       []rune
	pos       int  // the cursor: an index into buf
	Multiline bool // ctrl+j / alt+enter add a line; a paste keeps its lines
	Limit     int  // most runes kept (0: no limit)
	// selected: the text was there when the field opened and is shown
	// selected; typing replaces it, any other key keeps it.
	Selected bool
	history  []string
	hist     int    // index into history while browsing; len(history): the draft
	draft    string // what was typed before browsing the history
}

// Value returns the text.
func (e *Editor) Value() string { return string(e.buf) }

// Set replaces the text and puts the cursor at its end.
func (e *Editor) Set(s string) {
	e.buf = []rune(s)
	e.pos = len(e.buf)
	e.Selected = false
}

// Remember adds s to the history (unless it repeats the last entry) and
// leaves history browsing.
func (e *Editor) Remember(s string) {
	if s != "" && (len(e.history) == 0 || e.history[len(e.history)-1] != s) {
		e.history = append(e.history, s)
	}
	e.hist, e.draft = len(e.history), ""
}

// Handle applies an editing key and reports whether k was one. Keys it
// does not use (enter, esc, tab, ctrl+c, pgup…) are left to the caller.
func (e *Editor) Handle(k tea.KeyMsg) bool {
	sel := e.Selected
	e.Selected = false
	switch k.Type {
	case tea.KeyRunes, tea.KeySpace:
		if sel {
			e.buf, e.pos = nil, 0 // typing replaces the selected text
		}
		e.Insert(k.Runes)
	case tea.KeyBackspace, tea.KeyCtrlH:
		if k.Alt {
			e.deleteWord()
		} else if e.pos > 0 {
			e.cut(e.pos-1, e.pos)
		}
	case tea.KeyDelete, tea.KeyCtrlD:
		if e.pos < len(e.buf) {
			e.cut(e.pos, e.pos+1)
		}
	case tea.KeyCtrlU:
		e.cut(e.lineStart(), e.pos)
	case tea.KeyCtrlK:
		e.cut(e.pos, e.lineEnd())
	case tea.KeyCtrlW:
		e.deleteWord()
	case tea.KeyLeft:
		e.pos = max(0, e.pos-1)
	case tea.KeyRight:
		e.pos = min(len(e.buf), e.pos+1)
	case tea.KeyHome, tea.KeyCtrlA:
		e.pos = e.lineStart()
	case tea.KeyEnd, tea.KeyCtrlE:
		e.pos = e.lineEnd()
	case tea.KeyUp:
		if !e.lineUp() {
			e.browse(-1)
		}
	case tea.KeyDown:
		if !e.lineDown() {
			e.browse(1)
		}
	case tea.KeyCtrlJ:
		return e.newline()
	case tea.KeyEnter:
		if k.Alt {
			return e.newline()
		}
		e.Selected = sel
		return false
	default:
		e.Selected = sel
		return false
	}
	return true
}

func (e *Editor) newline() bool {
	if !e.Multiline {
		return false
	}
	e.Insert([]rune{'\n'})
	return true
}

// Insert puts rs at the cursor, cleaned by termtext.Input (escape
// sequences and controls dropped; line breaks kept as "\n" in a multi-line
// field, dropped in others), tabs as four spaces; the limit cuts what does
// not fit.
func (e *Editor) Insert(rs []rune) {
	s := strings.ReplaceAll(termtext.Input(string(rs), e.Multiline), "\t", "    ")
	out := []rune(s)
	if e.Limit > 0 {
		out = out[:max(0, min(len(out), e.Limit-len(e.buf)))]
	}
	e.buf = append(e.buf[:e.pos:e.pos], append(out, e.buf[e.pos:]...)...)
	e.pos += len(out)
}

// cut removes buf[from:to] and leaves the cursor at from.
func (e *Editor) cut(from, to int) {
	if from >= to {
		return
	}
	e.buf = append(e.buf[:from:from], e.buf[to:]...)
	e.pos = from
}

func (e *Editor) deleteWord() {
	i := e.pos
	for i > 0 && e.buf[i-1] == ' ' {
		i--
	}
	for i > 0 && e.buf[i-1] != ' ' && e.buf[i-1] != '\n' {
		i--
	}
	e.cut(i, e.pos)
}

func (e *Editor) lineStart() int {
	i := e.pos
	for i > 0 && e.buf[i-1] != '\n' {
		i--
	}
	return i
}

func (e *Editor) lineEnd() int {
	i := e.pos
	for i < len(e.buf) && e.buf[i] != '\n' {
		i++
	}
	return i
}

// lineUp moves to the same column of the line above; false on the first
// line.
func (e *Editor) lineUp() bool {
	start := e.lineStart()
	if start == 0 {
		return false
	}
	col := e.pos - start
	e.pos = start - 1
	e.pos = min(e.lineStart()+col, start-1)
	return true
}

// lineDown moves to the same column of the line below; false on the last
// line.
func (e *Editor) lineDown() bool {
	end := e.lineEnd()
	if end == len(e.buf) {
		return false
	}
	col := e.pos - e.lineStart()
	e.pos = end + 1
	e.pos = min(e.pos+col, e.lineEnd())
	return true
}

// browse steps through the history: -1 older, +1 newer; past the newest
// entry is the text typed before browsing.
func (e *Editor) browse(dir int) {
	if len(e.history) == 0 {
		return
	}
	if e.hist >= len(e.history) && dir < 0 {
		e.draft = e.Value()
	}
	n := frame.Clamp(e.hist+dir, 0, len(e.history))
	if n == e.hist {
		return
	}
	e.hist = n
	if n == len(e.history) {
		e.Set(e.draft)
		return
	}
	e.Set(e.history[n])
}

// Lines returns the text's lines (one for an empty text) and the line
// and column (in runes) of the cursor.
func (e *Editor) Lines() (lines []string, row, col int) {
	lines = strings.Split(string(e.buf), "\n")
	before := strings.Split(string(e.buf[:e.pos]), "\n")
	row = len(before) - 1
	return lines, row, len([]rune(before[row]))
}

// Cursor is the glyph drawn at the cursor.
const Cursor = "█"

// render draws one line of the text, prompt first, in w cells with the
// cursor (█) where it is: a line longer than w scrolls so the cursor stays
// visible, showing "…" where text is hidden.
func renderLine(prompt string, line []rune, col, w int, withCursor bool) string {
	pw := ansi.StringWidth(prompt)
	room := max(1, w-pw)
	if !withCursor {
		s := termtext.Line(string(line))
		if ansi.StringWidth(s) > room {
			s = ansi.Truncate(s, room, "…")
		}
		return prompt + s
	}
	// The text was cleaned as it was typed (Model.cleanKey); rendering it
	// through termtext again costs nothing for plain text.
	head, tail := termtext.Line(string(line[:col])), termtext.Line(string(line[col:]))
	if ansi.StringWidth(head)+1+ansi.StringWidth(tail) <= room {
		return prompt + head + Cursor + tail
	}
	// Keep the cursor and what precedes it (up to the room), cut the rest.
	r := []rune(head)
	start, used := len(r), 1 // the cursor
	for start > 0 {
		cw := ansi.StringWidth(string(r[start-1]))
		if used+cw > room-1 { // one cell for the leading "…"
			break
		}
		start, used = start-1, used+cw
	}
	out := string(r[start:])
	if start > 0 {
		out = "…" + out
	}
	out += Cursor
	if rest := room - ansi.StringWidth(out); rest > 0 && tail != "" {
		out += ansi.Truncate(tail, rest, "…")
	}
	return prompt + out
}

// View renders the editor in w cells: its lines with prompt on the first
// and more on the others, at most maxLines of them (those around the
// cursor; ≤ 0 means all).
func (e *Editor) View(prompt, more string, w, maxLines int) []string {
	lines, row, col := e.Lines()
	first, last := 0, len(lines)
	if maxLines > 0 && len(lines) > maxLines {
		first = frame.Clamp(row-maxLines+1, 0, len(lines)-maxLines)
		last = first + maxLines
	}
	out := make([]string, 0, last-first)
	for i := first; i < last; i++ {
		p := more
		if i == 0 {
			p = prompt
		}
		c := 0
		if i == row {
			c = col
		}
		out = append(out, renderLine(p, []rune(lines[i]), c, w, i == row))
	}
	return out
}
