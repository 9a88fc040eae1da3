package jobs

import (
	"bytes"
	"io"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/termtext/logline"
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
		o.d = &drawer{w: w, color: color, red: red, line: logline.Line{MaxCells: maxLine, Wrap: true}}
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

// maxLine is the most cells a drawn line holds; past it the line is
// broken, and continues on the next.
const maxLine = 16 << 10

// drawer draws a log on a terminal as a terminal would show it, without
// letting the log drive it: logline keeps the line being written as cells
// (carriage returns, backspaces, tabs, SGR colours and erasing in the line
// applied; every other control or escape of the log made inert), and the
// drawer writes that line's state with sequences of its own (carriage
// return, SGR, erase line), redacted.
type drawer struct {
	w     io.Writer
	color bool
	red   *api.Redactor
	line  logline.Line
	drawn bool // the unfinished line is on the screen
	buf   bytes.Buffer
}

func (d *drawer) write(b []byte) error {
	d.line.Write(b, d.ended)
	if cells, _ := d.line.Cells(); d.line.Changed() && len(cells) > 0 {
		d.render(cells, false)
	}
	return d.out()
}

// ended draws a line the log ended.
func (d *drawer) ended(cells []logline.Cell, _ bool) { d.render(cells, true) }

// render writes the line's state over what is on the screen of it, and
// ends it with a newline when end. A line the redactor changes is drawn
// redacted, without its colours.
func (d *drawer) render(cells []logline.Cell, end bool) {
	styled, plain := logline.Render(cells, false)
	redacted := d.red.Redact(plain)
	d.buf.WriteString("\r")
	if d.color && redacted == plain {
		d.buf.WriteString(styled)
	} else {
		d.buf.WriteString(redacted)
	}
	d.buf.WriteString("\x1b[K")
	d.drawn = !end
	if end {
		d.buf.WriteString("\n")
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
	d.line.Flush()
	if cells, _ := d.line.Cells(); len(cells) > 0 || d.drawn {
		d.render(cells, true)
	}
	return d.out()
}
