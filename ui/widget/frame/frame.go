// Package frame is the screen being drawn and the cell-exact text helpers
// every pane and overlay lays its lines out with. Widths are display cells
// (wide and combining characters measured as a terminal shows them).
package frame

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/ui/termtext"
)

// Frame is one screen being drawn: exactly H lines, none wider than W
// once the dashboard has cut them. Rows 0–1 are the header, the body
// follows, the last two are the footer (status line, key help). Overlays
// paint onto the frame the panes drew.
type Frame struct {
	W, H  int
	Lines []string
}

// New returns an empty frame of w×h cells with room for h lines.
func New(w, h int) *Frame { return &Frame{W: w, H: h, Lines: make([]string, 0, h)} }

// BodyRows is the number of lines between the header and the footer.
func (f *Frame) BodyRows() int { return f.H - 4 }

// SetBody replaces the body with lines (padded or cut to fit: a line
// wider than W is cut to W cells ending in "…", as the dashboard cuts
// every line it shows).
func (f *Frame) SetBody(lines []string) {
	body := f.Lines[2 : f.H-2]
	copy(body, PadLines(lines, f.BodyRows()))
	for i, l := range body {
		body[i] = ansi.Truncate(l, f.W, "…")
	}
}

// SetStatus replaces the status line (the footer's first line), cut to W
// cells like a body line.
func (f *Frame) SetStatus(s string) { f.Lines[f.H-2] = ansi.Truncate(s, f.W, "…") }

// Box draws box centred over the frame.
func (f *Frame) Box(box []string) {
	if len(box) == 0 {
		return
	}
	left := max(0, (f.W-BlockWidth(box))/2)
	top := max(0, (len(f.Lines)-len(box))/2)
	for i, b := range box {
		if top+i >= len(f.Lines) {
			break
		}
		f.Lines[top+i] = strings.Repeat(" ", left) + b
	}
}

// Fit renders s (plain, possibly untrusted text: termtext.Line), truncates
// it to w display cells with "…" and pads it to exactly w cells.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = termtext.Line(s)
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// FitRight is Fit with the text aligned right.
func FitRight(s string, w int) string {
	s = termtext.Line(s)
	sw := ansi.StringWidth(s)
	if sw >= w {
		return Fit(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// PadTo pads a possibly styled line to w cells (truncating if longer).
func PadTo(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-sw)
}

// PadLines pads or cuts lines to exactly n.
func PadLines(lines []string, n int) []string {
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines[:n]
}

// BlockWidth is the widest line of lines, in cells.
func BlockWidth(lines []string) int {
	w := 0
	for _, ln := range lines {
		w = max(w, ansi.StringWidth(ln))
	}
	return w
}

// Clamp returns v bounded to [lo, hi]; lo when hi < lo.
func Clamp(v, lo, hi int) int {
	if hi < lo {
		return lo
	}
	return max(lo, min(v, hi))
}

// nbHyphen stands in for "-" while wrapping: ansi's wrappers always break
// after a hyphen, which splits ids, URLs and flags.
const nbHyphen = "\u2011"

// Wrap wraps s (which may hold ANSI styles) into lines of at most w
// cells, at spaces only; a word longer than w is broken. Unlike ansi.Wrap
// it never breaks at a hyphen, so colabdash-22211b87,
// https://8080-m-s-rt-abc.prod.colab.dev or --request-id stay whole.
func Wrap(s string, w int) string {
	if strings.Contains(s, nbHyphen) { // cannot stand in: wrap as ansi does
		return ansi.Wrap(s, w, "")
	}
	return strings.ReplaceAll(ansi.Wrap(strings.ReplaceAll(s, "-", nbHyphen), w, ""), nbHyphen, "-")
}
