package logview

import (
	"strings"

	"github.com/colabdash/colabdash/ui/termtext/logline"
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
	MaxLineCells = logline.DefaultMaxCells
	MaxRawBytes  = 8 << 20
)

// line is one finished line of the log: as drawn (SGR colours, every
// other control made visible by termtext) and as plain text (search,
// redaction).
type line struct{ styled, plain string }

// Buffer is a log as a terminal would show it (logline: "\r" redraws a
// line in place, SGR colours are kept, every other control is made
// visible, never acted on), bounded as the constants above say. The zero
// value is an empty buffer.
type Buffer struct {
	lines   []line
	bytes   int // len(styled)+len(plain) of lines
	dropped int // lines dropped from the start

	cur logline.Line // the line being written (not ended by "\n" yet)

	raw        []byte // the newest bytes received, for save
	rawDropped int64  // bytes received before raw's first
	received   int64  // every byte received
}

// Write adds p, the log's next bytes. It never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.keepRaw(p)
	b.received += int64(len(p))
	b.cur.Write(p, b.endLine)
	return len(p), nil
}

// render draws cells as text with their colours, and as plain text.
func render(cells []logline.Cell, cut bool) line {
	styled, plain := logline.Render(cells, cut)
	return line{styled: styled, plain: plain}
}

// endLine ends the line being written ("\n") and drops the oldest lines
// beyond the bounds.
func (b *Buffer) endLine(cells []logline.Cell, cut bool) {
	l := render(cells, cut)
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
	if cells, cut := b.cur.Cells(); len(cells) > 0 || cut {
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
	return render(b.cur.Cells())
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
