// Package logline reads a log's bytes (a job's output, a kernel's) as a
// terminal would show them, one line at a time, without ever letting the
// log drive the terminal. It is the one line model of colabdash's two log
// renderers: `colabdash logs` on a terminal and the dashboard's log
// viewer.
//
// What a log's bytes do:
//   - "\n" ends the line; "\r" returns to its start, so what follows
//     overwrites it cell by cell (a progress bar redraws its line in
//     place); "\b" moves back a cell; a tab moves to the next multiple of
//     8 columns.
//   - ESC [ params m (params: digits, ';' and ':') sets the colours of what
//     follows (SGR); ESC [ K, 0K, 1K and 2K erase in the line.
//   - Everything else, other escape sequences included, is text made safe
//     by termtext: ESC is shown as "␛" and what follows it as the
//     characters they are, so no sequence of the log is ever acted on.
//
// Every piece is bounded: a line's cells (MaxCells), the colours in
// effect, and an escape sequence or a character held back across writes.
package logline

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/ui/termtext"
)

// DefaultMaxCells is Line's MaxCells when it is not set: 4,096 cells.
const DefaultMaxCells = 4096

const (
	// maxPen bounds the colours in effect (the SGR sequences since the
	// last reset, in bytes) a log can pile up: past it the older ones are
	// dropped, so a log of colour codes alone cannot make every cell
	// carry a longer pen.
	maxPen = 128
	// maxHeld bounds an escape sequence split across two writes that is
	// held back until its end comes (a longer one is shown inert), and an
	// SGR sequence (a longer one is no colour a program writes).
	maxHeld = 64
	// tabStop is the distance between tab stops, in cells.
	tabStop = 8
)

// Cell is one terminal cell of a line: Text, one character and its
// combining marks made safe by termtext ("" for the right half of a wide
// character), and Pen, the SGR sequences in effect when it was written
// ("" for none).
type Cell struct{ Text, Pen string }

// Line is the line of a log being written and the state of its writing:
// the cursor, the colours in effect and any bytes held back until the
// next write. The zero value is ready to use.
type Line struct {
	// MaxCells is the most cells a line holds (≤ 0: DefaultMaxCells).
	// What would go past it is dropped and the line marked cut, or, with
	// Wrap, ends the line, and the rest continues on the next.
	MaxCells int
	Wrap     bool

	cells   []Cell
	col     int
	cut     bool
	pen     string
	hold    []byte
	changed bool
}

// Write takes p, the log's next bytes. Each line they end ("\n", or
// MaxCells with Wrap) is passed to done with whether it was cut; its
// cells are valid only during the call.
func (l *Line) Write(p []byte, done func(cells []Cell, cut bool)) {
	data := p
	if len(l.hold) > 0 {
		data = append(l.hold, p...)
		l.hold = nil
	}
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '\n':
			l.end(done)
			i++
		case c == '\r':
			l.col = 0
			i++
		case c == '\b':
			l.col = max(l.col-1, 0)
			i++
		case c == '\t':
			l.tab()
			i++
		case c == 0x1b:
			n, complete := l.escape(data[i:])
			if !complete {
				l.hold = append([]byte(nil), data[i:]...)
				return
			}
			i += n
		case c >= 0x20 && c < 0x7f: // printable ASCII: one cell, nothing to make safe
			l.put(printable[c-0x20:c-0x1f], 1, done)
			i++
		default:
			if !utf8.FullRune(data[i:]) {
				l.hold = append([]byte(nil), data[i:]...)
				return
			}
			r, n := utf8.DecodeRune(data[i:])
			s := "\uFFFD"
			if r != utf8.RuneError || n > 1 {
				s = termtext.Line(string(data[i : i+n])) // a control made visible, a bidi control removed
			}
			l.put(s, ansi.StringWidth(s), done)
			i += n
		}
	}
}

// Flush shows what is held back at the log's end (an escape sequence or a
// character whose end never came) as inert text.
func (l *Line) Flush() {
	for len(l.hold) > 0 {
		held := l.hold
		l.hold = nil
		if held[0] != 0x1b { // a character whose end never came
			l.put("\uFFFD", 1, nil)
			return
		}
		l.put(termtext.Line("\x1b"), 1, nil)
		l.Write(held[1:], nil) // the rest as text (it holds no line end)
	}
}

// Cells returns the unfinished line (not ended yet) and whether it was
// cut; the cells are valid until the next Write.
func (l *Line) Cells() ([]Cell, bool) { return l.cells, l.cut }

// Changed reports whether the unfinished line changed since the last
// call (or its start), and clears the mark.
func (l *Line) Changed() bool {
	c := l.changed
	l.changed = false
	return c
}

func (l *Line) maxCells() int {
	if l.MaxCells > 0 {
		return l.MaxCells
	}
	return DefaultMaxCells
}

// end ends the line: done gets it, and the next starts empty.
func (l *Line) end(done func([]Cell, bool)) {
	if done != nil {
		done(l.cells, l.cut)
	}
	l.cells, l.col, l.cut, l.changed = l.cells[:0], 0, false, false
}

// tab moves the cursor to the next tab stop (within the line's bound),
// the cells it passes over blank when they held nothing.
func (l *Line) tab() {
	l.col = min((l.col/tabStop+1)*tabStop, l.maxCells())
	for len(l.cells) < l.col {
		l.cells = append(l.cells, Cell{Text: " "})
	}
	l.changed = true
}

// escape takes the escape sequence at the start of s (s[0] is ESC): an SGR
// changes the pen, an erase in the line erases; any other shows ESC as
// text (what follows it is then read as text). complete is false when s
// ends before the sequence could (held back for the next write).
func (l *Line) escape(s []byte) (n int, complete bool) {
	if len(s) < 2 {
		return 0, false
	}
	if s[1] == '[' {
		for j := 2; j < len(s); j++ {
			c := s[j]
			if c >= '0' && c <= '9' || c == ';' || c == ':' {
				continue
			}
			if l.control(c, string(s[2:j])) {
				l.setPen(c, string(s[:j+1]))
				return j + 1, true
			}
			break
		}
		if len(s) < maxHeld && strings.Trim(string(s[2:]), "0123456789;:") == "" {
			return 0, false // maybe a sequence whose end comes next
		}
	}
	l.put(termtext.Line("\x1b"), 1, nil) // not one the log may use: shown, never acted on
	return 1, true
}

// control applies the sequence ending in final with params when it is an
// erase in the line, and reports whether it is one the log may use (an SGR
// is applied by setPen).
func (l *Line) control(final byte, params string) bool {
	switch {
	case final == 'm':
		return true
	case final != 'K':
		return false
	case params == "" || params == "0": // to the end of the line
		if l.col < len(l.cells) {
			l.cells = l.cells[:l.col]
		}
	case params == "1": // from the start to the cursor, the cursor's cell included
		for i := 0; i <= l.col && i < len(l.cells); i++ {
			l.cells[i] = Cell{Text: " "}
		}
	case params == "2": // the whole line (the cursor stays)
		l.cells = l.cells[:0]
	default:
		return false
	}
	l.changed = true
	return true
}

// setPen applies the SGR sequence seq (final 'm'): a reset ("ESC[m",
// "ESC[0m") clears the pen, anything else adds to it, within maxPen; one
// longer than maxHeld is left out.
func (l *Line) setPen(final byte, seq string) {
	if final != 'm' || len(seq) > maxHeld { // too long for a colour a program writes: left out
		return
	}
	if strings.Trim(seq[2:len(seq)-1], "0") == "" {
		l.pen = ""
		return
	}
	if len(l.pen)+len(seq) > maxPen {
		l.pen = ""
	}
	l.pen += seq
}

// printable holds the printable ASCII characters in order: a cell of one
// of them is a slice of it, so the common case allocates nothing, not even
// at start-up.
const printable = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"

// put writes s (made safe: termtext), w cells wide, at the cursor,
// overwriting what is there; a character of width 0 joins the cell before
// it. Past MaxCells the line is cut, or with Wrap ended (done) first.
func (l *Line) put(s string, w int, done func([]Cell, bool)) {
	if w == 0 {
		if l.col > 0 && l.col <= len(l.cells) {
			l.cells[l.col-1].Text += s
			l.changed = true
		}
		return
	}
	if l.col+w > l.maxCells() {
		if !l.Wrap || done == nil {
			l.cut = true
			return
		}
		l.end(done)
	}
	for len(l.cells) < l.col+w {
		l.cells = append(l.cells, Cell{Text: " "})
	}
	if l.col > 0 && l.cells[l.col].Text == "" { // overwriting a wide character's right half
		l.cells[l.col-1] = Cell{Text: " ", Pen: l.cells[l.col-1].Pen}
	}
	l.cells[l.col] = Cell{Text: s, Pen: l.pen}
	for k := 1; k < w; k++ {
		l.cells[l.col+k] = Cell{Pen: l.pen}
	}
	if end := l.col + w; end < len(l.cells) && l.cells[end].Text == "" { // its right half is orphaned
		l.cells[end] = Cell{Text: " ", Pen: l.cells[end].Pen}
	}
	l.col += w
	l.changed = true
}

// Render draws cells: styled with their colours (at each change of pen a
// reset, ESC[0m, then the new pen; a reset at the end) and plain without
// them; cut ends both with termtext.Ellipsis.
func Render(cells []Cell, cut bool) (styled, plain string) {
	var s, p strings.Builder
	pen := ""
	for _, c := range cells {
		if c.Text == "" {
			continue
		}
		if c.Pen != pen {
			if pen != "" {
				s.WriteString("\x1b[0m")
			}
			s.WriteString(c.Pen)
			pen = c.Pen
		}
		s.WriteString(c.Text)
		p.WriteString(c.Text)
	}
	if pen != "" {
		s.WriteString("\x1b[0m")
	}
	if cut {
		s.WriteString(termtext.Ellipsis)
		p.WriteString(termtext.Ellipsis)
	}
	return s.String(), p.String()
}
