package kit

import (
	"slices"
	"strings"

	xterm "github.com/charmbracelet/x/term"

	"github.com/colabdash/colabdash/ui/termtext"
)

// Table lays a verb's text table out (jobs, top): a header row and rows
// of cells, in columns two spaces apart, the last column unpadded. On a
// terminal (Lines with a width) it fits the terminal: the columns that
// say least give way first, cut, then left out, so that no line wraps.
// Cells are terminal-safe already (termtext); widths are in cells.
type Table struct {
	// MinWidths are the columns' least widths, by index (optional), so
	// that tables printed one after another line up.
	MinWidths []int
	// GiveWay are the columns cut, in this order, while a line is wider
	// than the terminal: each down to TableCutFloor cells (or its own
	// width, when narrower).
	GiveWay []int
	// Drop are the columns then left out whole, in this order, while a
	// line is still wider (the GiveWay columns getting back the room).
	Drop []int
}

// TableCutFloor is the narrowest a GiveWay column is cut to (8 cells:
// "ValueEr…" still says something).
const TableCutFloor = 8

// tableGap is the blank between two columns.
const tableGap = 2

// Lines is rows (the first the header) laid out; width > 0 is the
// terminal's width: GiveWay then Drop make lines fit, and a line still
// too wide (a terminal narrower than what is left) is cut at the edge.
// width 0 (not a terminal) keeps every column whole. rows is not changed.
func (t Table) Lines(rows [][]string, width int) []string {
	if len(rows) == 0 {
		return nil
	}
	natural := make([]int, len(rows[0]))
	copy(natural, t.MinWidths)
	for _, r := range rows {
		for i, c := range r {
			natural[i] = max(natural[i], termtext.Width(c))
		}
	}
	widths, shown := t.fit(natural, width)
	lines := make([]string, 0, len(rows))
	for _, r := range rows {
		var b strings.Builder
		for _, i := range shown {
			if i >= len(r) {
				continue
			}
			c := r[i]
			if termtext.Width(c) > widths[i] {
				c = termtext.Cut(c, widths[i])
			}
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[i]-termtext.Width(c)+tableGap))
		}
		line := strings.TrimRight(b.String(), " ") // the last column's padding goes
		if width > 0 && termtext.Width(line) > width {
			line = termtext.Cut(line, width)
		}
		lines = append(lines, line)
	}
	return lines
}

// fit returns the columns' widths and the indices of those shown, in
// order, for a terminal width cells wide (0: no limit).
func (t Table) fit(natural []int, width int) ([]int, []int) {
	shown := make([]int, len(natural))
	for i := range shown {
		shown[i] = i
	}
	widths := slices.Clone(natural)
	if width <= 0 {
		return widths, shown
	}
	drops := slices.Clone(t.Drop)
	for {
		widths = slices.Clone(natural)
		total := tableGap * (len(shown) - 1)
		for _, i := range shown {
			total += widths[i]
		}
		for _, col := range t.GiveWay {
			over := total - width
			if over <= 0 {
				break
			}
			if !slices.Contains(shown, col) {
				continue
			}
			keep := max(widths[col]-over, min(widths[col], TableCutFloor))
			total -= widths[col] - keep
			widths[col] = keep
		}
		if total <= width || len(drops) == 0 {
			return widths, shown
		}
		gone := drops[0]
		drops = drops[1:]
		shown = slices.DeleteFunc(shown, func(i int) bool { return i == gone })
	}
}

// OutWidth is stdout's width in cells when it is a terminal, else 0 (a
// pipe or a file: no limit, every column whole).
func (v *Verb) OutWidth() int {
	if f, ok := File(v.S.Out); ok && v.S.OutTTY {
		if w, _, err := xterm.GetSize(f.Fd()); err == nil && w > 0 {
			return w
		}
	}
	return 0
}
