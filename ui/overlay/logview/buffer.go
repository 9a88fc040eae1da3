package logview

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/ui/termtext"
)

// Bounds of what the viewer keeps of a log: the newest MaxLines lines
// holding at most MaxBytes (their text as drawn, styles included) are
// shown, the oldest dropped and counted above them; a line keeps its
// first MaxLineCells cells (the rest is cut, marked "…"). For s (save)
// the raw bytes received are kept too, the newest MaxRawBytes of them,
// dropped from the front at a line's end. So a log of a gigabyte followed
// for hours costs about 12 MiB, whatever it printed.
const (
	MaxLines     = 10000
	MaxBytes     = 4 << 20
	MaxLineCells = 4096
	MaxRawBytes  = 8 << 20
	// maxPen bounds the colours in effect (SGR sequences since the last
	// reset) a log can pile up.
	maxPen = 128
	// maxPending bounds an escape sequence split across two chunks that
	// is held back until its end comes.
	maxPending = 64
)

// line is one finished line of the log: as drawn (SGR colours, every
// other control made visible by termtext) and as plain text (search,
// redaction).
type line struct{ styled, plain string }

// cell is one terminal cell of the line being written: its text (one
// character and its combining marks; "" for the right half of a wide
// character) and the colours in effect when it was written.
type cell struct{ text, pen string }

// Buffer is a log as a terminal would show it, bounded: bytes written
// to it are split into lines at "\n"; a "\r" returns to the line's start
// so what follows overwrites it cell by cell (a progress bar redraws its
// line in place); an SGR sequence (ESC [ digits ; : m) sets the colours of
// what follows; a tab moves to the next multiple of 8 columns. Everything
// else, other escape sequences included, goes through termtext (made
// visible, never acted on). The zero value is an empty buffer.
type Buffer struct {
	lines   []line
	bytes   int // len(styled)+len(plain) of lines
	dropped int // lines dropped from the start

	cur  []cell // the line being written (not ended by "\n" yet)
	col  int    // the cursor's column in cur
	cut  bool   // cur lost cells past MaxLineCells
	pen  string // the SGR sequences in effect since the last reset
	hold []byte // an escape sequence or a character split across writes

	raw        []byte // the newest bytes received, for save
	rawDropped int64  // bytes received before raw's first
	received   int64  // every byte received
}

// Write adds p, the log's next bytes. It never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.keepRaw(p)
	b.received += int64(len(p))
	data := p
	if len(b.hold) > 0 {
		data = append(b.hold, p...)
		b.hold = nil
	}
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '\n':
			b.endLine()
			i++
		case c == '\r':
			b.col = 0
			i++
		case c == '\t':
			b.col = min((b.col/8+1)*8, MaxLineCells)
			for len(b.cur) < b.col {
				b.cur = append(b.cur, cell{text: " "})
			}
			i++
		case c == 0x1b:
			n, done := b.escape(data[i:])
			if !done {
				b.hold = append([]byte(nil), data[i:]...)
				return len(p), nil
			}
			i += n
		case c >= 0x20 && c < 0x7f: // printable ASCII: one cell, nothing to sanitize
			b.putWidth(asciiCells[c-0x20], 1)
			i++
		default:
			if !utf8.FullRune(data[i:]) && len(data)-i < utf8.UTFMax {
				b.hold = append([]byte(nil), data[i:]...)
				return len(p), nil
			}
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 {
				b.put("\uFFFD")
			} else {
				b.put(termtext.Line(string(data[i : i+n])))
			}
			i += n
		}
	}
	return len(p), nil
}

// escape takes the escape sequence at the start of s (s[0] is ESC): an
// SGR sequence changes the pen; any other is written out as text, which
// termtext makes visible (ESC as "␛"). done is false when s ends before
// the sequence does (held back for the next write, unless it is already
// too long to be one).
func (b *Buffer) escape(s []byte) (n int, done bool) {
	if len(s) < 2 {
		return 0, false
	}
	if s[1] != '[' {
		b.put(termtext.Line("\x1b")) // the rest is printable text, written as it comes
		return 1, true
	}
	for j := 2; j < len(s); j++ {
		c := s[j]
		if c >= '0' && c <= '9' || c == ';' || c == ':' {
			continue
		}
		if c == 'm' {
			b.setPen(string(s[:j+1]))
			return j + 1, true
		}
		b.put(termtext.Line("\x1b")) // not SGR: shown, never acted on
		return 1, true
	}
	if len(s) < maxPending {
		return 0, false // maybe an SGR sequence whose end comes next
	}
	b.put(termtext.Line("\x1b"))
	return 1, true
}

// setPen applies the SGR sequence seq: a reset ("ESC[m", "ESC[0m")
// clears the pen, anything else adds to it; one longer than maxPending
// is no colour a program writes, and is left out.
func (b *Buffer) setPen(seq string) {
	if len(seq) > maxPending {
		return
	}
	params := seq[2 : len(seq)-1]
	if strings.Trim(params, "0") == "" {
		b.pen = ""
		return
	}
	if len(b.pen)+len(seq) > maxPen {
		b.pen = ""
	}
	b.pen += seq
}

// asciiCells are the printable ASCII characters as strings, so the
// common case allocates nothing.
var asciiCells = func() (out [0x5f]string) {
	for c := 0x20; c < 0x7f; c++ {
		out[c-0x20] = string(rune(c))
	}
	return out
}()

// put writes s (already made safe: termtext) at the cursor, overwriting
// what is there; a character of width 0 joins the cell before it.
func (b *Buffer) put(s string) { b.putWidth(s, ansi.StringWidth(s)) }

// putWidth is put of s, w cells wide.
func (b *Buffer) putWidth(s string, w int) {
	if w == 0 {
		if b.col > 0 && b.col <= len(b.cur) {
			b.cur[b.col-1].text += s
		}
		return
	}
	if b.col+w > MaxLineCells {
		b.cut = true
		return
	}
	for len(b.cur) < b.col+w {
		b.cur = append(b.cur, cell{text: " "})
	}
	if b.col > 0 && b.cur[b.col].text == "" { // overwriting a wide character's right half
		b.cur[b.col-1] = cell{text: " ", pen: b.cur[b.col-1].pen}
	}
	b.cur[b.col] = cell{text: s, pen: b.pen}
	for k := 1; k < w; k++ {
		b.cur[b.col+k] = cell{pen: b.pen}
	}
	if end := b.col + w; end < len(b.cur) && b.cur[end].text == "" { // its right half is orphaned
		b.cur[end] = cell{text: " ", pen: b.cur[end].pen}
	}
	b.col += w
}

// render draws cells as text with their colours, and as plain text.
func render(cells []cell, cut bool) line {
	var s, p strings.Builder
	pen := ""
	for _, c := range cells {
		if c.text == "" {
			continue
		}
		if c.pen != pen {
			if pen != "" {
				s.WriteString("\x1b[0m")
			}
			s.WriteString(c.pen)
			pen = c.pen
		}
		s.WriteString(c.text)
		p.WriteString(c.text)
	}
	if pen != "" {
		s.WriteString("\x1b[0m")
	}
	if cut {
		s.WriteString(termtext.Ellipsis)
		p.WriteString(termtext.Ellipsis)
	}
	return line{styled: s.String(), plain: p.String()}
}

// endLine ends the line being written ("\n") and drops the oldest lines
// beyond the bounds.
func (b *Buffer) endLine() {
	l := render(b.cur, b.cut)
	b.cur, b.col, b.cut = b.cur[:0], 0, false
	b.lines = append(b.lines, l)
	b.bytes += len(l.styled) + len(l.plain)
	drop := 0
	for len(b.lines)-drop > MaxLines || b.bytes > MaxBytes && drop < len(b.lines)-1 {
		b.bytes -= len(b.lines[drop].styled) + len(b.lines[drop].plain)
		drop++
	}
	if drop > 0 {
		b.dropped += drop
		b.lines = b.lines[drop:]
		if cap(b.lines) > 2*MaxLines { // let the dropped head be freed
			b.lines = append([]line(nil), b.lines...)
		}
	}
}

// keepRaw keeps p for save, dropping the oldest bytes beyond
// MaxRawBytes from the front up to a line's end.
func (b *Buffer) keepRaw(p []byte) {
	b.raw = append(b.raw, p...)
	if len(b.raw) <= MaxRawBytes {
		return
	}
	cut := len(b.raw) - MaxRawBytes*3/4
	if i := strings.IndexByte(string(b.raw[cut:]), '\n'); i >= 0 && cut+i+1 < len(b.raw) {
		cut += i + 1
	}
	b.rawDropped += int64(cut)
	b.raw = append([]byte(nil), b.raw[cut:]...)
}

// Len is the number of lines shown: the finished ones and the line being
// written, when it holds anything.
func (b *Buffer) Len() int {
	if len(b.cur) > 0 || b.cut {
		return len(b.lines) + 1
	}
	return len(b.lines)
}

// Dropped is the number of lines dropped from the start.
func (b *Buffer) Dropped() int { return b.dropped }

// line returns the i-th line shown (0 ≤ i < Len).
func (b *Buffer) line(i int) line {
	if i < len(b.lines) {
		return b.lines[i]
	}
	return render(b.cur, b.cut)
}

// Plain is the i-th line shown (0 ≤ i < Len) as plain text: what a
// terminal shows of it, without its colours.
func (b *Buffer) Plain(i int) string { return b.line(i).plain }

// Raw returns a copy of the newest raw bytes received (at most
// MaxRawBytes) and how many came before them.
func (b *Buffer) Raw() (data []byte, dropped int64) {
	return append([]byte(nil), b.raw...), b.rawDropped
}

// Received is the number of bytes written in all.
func (b *Buffer) Received() int64 { return b.received }
