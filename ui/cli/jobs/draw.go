package jobs

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/termtext"
)

// logOut writes a job's log to stdout: the raw bytes into a pipe or a
// file (cut at line ends, so each write is redacted whole), and to a
// terminal drawn (drawer): a line rewritten after a carriage return is
// shown as the terminal would leave it, the log's colours are drawn
// when colour is on, and nothing else of it reaches the terminal as a
// control sequence.
type logOut struct {
	w    io.Writer // stdout (which passes the redactor)
	tty  bool
	pend []byte  // pipe: the bytes after the last line end
	d    *drawer // terminal
}

// maxPending is the most a pipe's unfinished line is held back (64 KiB);
// past it the bytes go out as they are.
const maxPending = 64 << 10

func newLogOut(w io.Writer, tty, color bool, red *api.Redactor) *logOut {
	o := &logOut{w: w, tty: tty}
	if tty {
		o.d = &drawer{w: w, color: color, red: red}
	}
	return o
}

// Write writes a chunk of the log.
func (o *logOut) Write(b []byte) error {
	if o.tty {
		return o.d.write(b)
	}
	o.pend = append(o.pend, b...)
	cut := bytes.LastIndexAny(o.pend, "\n\r") + 1
	if len(o.pend) > maxPending {
		cut = len(o.pend)
	}
	if cut == 0 {
		return nil
	}
	_, err := o.w.Write(o.pend[:cut])
	o.pend = append(o.pend[:0], o.pend[cut:]...)
	return err
}

// Flush writes what is held back: a pipe's unfinished line, a
// terminal's last line (ended with a newline).
func (o *logOut) Flush() error {
	if o.tty {
		return o.d.flush()
	}
	if len(o.pend) == 0 {
		return nil
	}
	_, err := o.w.Write(o.pend)
	o.pend = o.pend[:0]
	return err
}

// cell is one character of a line being drawn and its colour (the SGR
// parameters in effect, "" for none).
type cell struct {
	r   string
	sgr string
}

// maxLine is the most cells a drawn line holds; a longer one is broken.
const maxLine = 16 << 10

// maxEscape bounds an escape sequence read from the log.
const maxEscape = 64

// drawer draws a log on a terminal as a terminal would show it, without
// letting the log drive it: it keeps the line being written as cells,
// applies carriage returns, backspaces, tabs, SGR colours and erasing in
// the line (ESC [ K, 1K, 2K) itself, and writes the line's state with
// sequences of its own (carriage return, SGR, erase line). Every other
// control or escape of the log is shown inert (termtext).
type drawer struct {
	w     io.Writer
	color bool
	red   *api.Redactor
	line  []cell
	col   int
	sgr   string // the log's colour in effect
	esc   []byte // an escape sequence being read
	rest  []byte // an incomplete UTF-8 sequence at a chunk's end
	drawn bool   // the unfinished line is on the screen
	buf   bytes.Buffer
	dirty bool
}

func (d *drawer) write(b []byte) error {
	if len(d.rest) > 0 {
		b = append(d.rest, b...)
		d.rest = nil
	}
	for len(b) > 0 {
		if len(d.esc) > 0 {
			c := b[0]
			b = b[1:]
			d.escape(c)
			continue
		}
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 && !utf8.FullRune(b) {
			d.rest = append([]byte(nil), b...)
			break
		}
		d.rune(r, string(b[:n]))
		b = b[n:]
	}
	if d.dirty && len(d.line) > 0 {
		d.render(false)
	}
	return d.out()
}

// rune takes one character of the log (raw its bytes).
func (d *drawer) rune(r rune, raw string) {
	switch {
	case r == '\n':
		d.render(true)
	case r == '\r':
		d.col = 0
	case r == '\b':
		d.col = max(d.col-1, 0)
	case r == '\t':
		for {
			d.put(" ")
			if d.col%8 == 0 {
				break
			}
		}
	case r == 0x1b:
		d.esc = append(d.esc[:0], 0x1b)
	case r == utf8.RuneError && len(raw) == 1:
		d.put("\uFFFD")
	default:
		d.put(termtext.Line(raw)) // a control made visible, a bidi control removed
	}
}

// put writes s (one character as shown, possibly empty) at the cursor.
func (d *drawer) put(s string) {
	if s == "" {
		return
	}
	if d.col >= maxLine {
		d.render(true)
	}
	c := cell{r: s, sgr: d.sgr}
	if d.col < len(d.line) {
		d.line[d.col] = c
	} else {
		for len(d.line) < d.col {
			d.line = append(d.line, cell{r: " "})
		}
		d.line = append(d.line, c)
	}
	d.col++
	d.dirty = true
}

// escape reads one more byte of an escape sequence: an SGR colour is
// kept, "erase to the end of the line" applied, anything else shown
// inert.
func (d *drawer) escape(c byte) {
	d.esc = append(d.esc, c)
	if len(d.esc) == 2 && c != '[' {
		d.inert()
		return
	}
	if len(d.esc) > 2 && c >= 0x40 && c <= 0x7e {
		params := string(d.esc[2 : len(d.esc)-1])
		switch {
		case c == 'm' && sgrParams(params):
			d.sgr = nextSGR(d.sgr, params)
		case c == 'K' && (params == "" || params == "0"):
			if d.col < len(d.line) {
				d.line = d.line[:d.col]
				d.dirty = true
			}
		case c == 'K' && params == "2": // the whole line (the cursor stays)
			d.line, d.dirty = d.line[:0], true
		case c == 'K' && params == "1": // up to the cursor
			for i := 0; i < d.col && i < len(d.line); i++ {
				d.line[i] = cell{r: " "}
			}
			d.dirty = true
		default:
			d.inert()
			return
		}
		d.esc = d.esc[:0]
		return
	}
	if len(d.esc) > maxEscape || len(d.esc) > 2 && (c < 0x20 || c > 0x7e) {
		d.inert()
	}
}

// inert shows the escape sequence read so far as text: ESC as its
// Control Picture, the rest as it is (made safe by termtext).
func (d *drawer) inert() {
	s := string(d.esc)
	d.esc = d.esc[:0]
	for _, r := range termtext.Line(s) {
		d.put(string(r))
	}
}

// sgrParams reports whether p is an SGR's parameters: digits, ';' and ':'.
func sgrParams(p string) bool {
	return strings.Trim(p, "0123456789;:") == ""
}

// maxSGR bounds the colour in effect (the SGR parameters since the last
// reset) a log can pile up: past it, the older ones are dropped, so a
// log of colour codes alone cannot make every cell carry a longer one.
const maxSGR = 128

// nextSGR is the colour in effect after an SGR with params: a reset
// clears it, anything else adds to it (within maxSGR bytes).
func nextSGR(cur, params string) string {
	if params == "" || params == "0" {
		return ""
	}
	if cur == "" || len(cur)+1+len(params) > maxSGR {
		if len(params) > maxSGR {
			return "" // no colour a program writes
		}
		return params
	}
	return cur + ";" + params
}

// render writes the line's state over what is on the screen of it, and
// ends it with a newline when end.
func (d *drawer) render(end bool) {
	plain := make([]byte, 0, len(d.line))
	for _, c := range d.line {
		plain = append(plain, c.r...)
	}
	text := string(plain)
	redacted := d.red.Redact(text)
	d.buf.WriteString("\r")
	if d.color && redacted == text {
		cur := ""
		for _, c := range d.line {
			if c.sgr != cur {
				d.buf.WriteString("\x1b[0")
				if c.sgr != "" {
					d.buf.WriteString(";" + c.sgr)
				}
				d.buf.WriteString("m")
				cur = c.sgr
			}
			d.buf.WriteString(c.r)
		}
		if cur != "" {
			d.buf.WriteString("\x1b[0m")
		}
	} else {
		d.buf.WriteString(redacted)
	}
	d.buf.WriteString("\x1b[K")
	d.dirty, d.drawn = false, !end
	if end {
		d.buf.WriteString("\n")
		d.line, d.col = d.line[:0], 0
	}
}

// out writes what was drawn.
func (d *drawer) out() error {
	if d.buf.Len() == 0 {
		return nil
	}
	_, err := d.w.Write(d.buf.Bytes())
	d.buf.Reset()
	return err
}

// flush ends an unfinished line.
func (d *drawer) flush() error {
	if len(d.esc) > 0 {
		d.inert()
	}
	if len(d.rest) > 0 {
		d.put("\uFFFD")
		d.rest = nil
	}
	if len(d.line) > 0 || d.drawn {
		d.render(true)
	}
	return d.out()
}
