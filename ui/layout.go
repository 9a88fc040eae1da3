package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/filter"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// layout is the geometry of the screen, computed when the size changes
// (WindowSizeMsg) or the details panel expands, never while drawing.
type layout struct {
	w, h       int
	tooSmall   bool
	tableRows  int  // visible runtime rows
	bottomRows int  // content lines of the sessions/details area
	split      bool // sessions and details side by side
	// sessLines is the stacked sessions panel's height (title included);
	// sessWidth the split sessions panel's width.
	sessLines, sessWidth int
}

// fixed lines: header 2, runtimes title 1, column header 1, bottom title 1,
// footer 2.
const fixedLines = 7

// detailsFull is the height the expanded details panel asks for: its
// title and every line it may show (spec, url, token, expires, version,
// renew); with monitoring on, detailsMonitor more (kernels, RAM, GPU,
// disk).
const (
	detailsFull    = 7
	detailsMonitor = 4
)

// sessionsKeepWidth is the split sessions panel's width that shows a
// UUID session id and its tag whole.
const sessionsKeepWidth = 50

// newLayout lays a w×h screen out for a table of rows rows (runtimes and
// creates under way). Below MinWidth×MinHeight nothing fits.
//
// The table takes the rows it has and grows to fill the screen; the
// sessions and details panels take what they need (the details every
// line they may show, the sessions at least a title and two lines), so
// no blank rows sit under a short table: what the table leaves goes to
// the sessions panel, which lists sessions and kernels. A long table is
// never cut below its old share (three fifths of what the header and
// footer leave). Expanding the details (expanded) takes the rows they
// need from the runtimes table in a stacked layout, and width from the
// sessions panel in a split one (then from the sessions panel's height
// when the table has no rows to give).
func newLayout(w, h, rows int, expanded, monitoring bool) common.Layout {
	if w == 0 && h == 0 {
		w, h = 80, 24 // before the first WindowSizeMsg
	}
	l := common.Layout{W: w, H: h}
	if w < MinWidth || h < MinHeight {
		l.TooSmall = true
		return l
	}
	rest := h - fixedLines
	l.Split = w >= 100
	need := detailsHeight(monitoring) - 1 // content lines below the bottom title
	if !l.Split {
		need += sessionsNeed
	}
	l.TableRows = frame.Clamp(rows, 1, max(1, rest*3/5, rest-need))
	l.BottomRows = rest - l.TableRows
	n := l.BottomRows + 1
	l.SessLines = min(max(2, (n+1)/2), n-2) // details keep a title and one line
	if room := n - detailsHeight(monitoring); !l.Split && room >= sessionsNeed {
		l.SessLines = room // the details whole, the sessions the rest
	}
	l.SessWidth = w * 2 / 5
	if expanded {
		if l.Split {
			// Narrower, but a 36-character session id stays whole; a
			// panel no wider than that anyway (100–125 columns) gives
			// a quarter of its width, so enter shows the details wider
			// at every width.
			if l.SessWidth > sessionsKeepWidth {
				l.SessWidth = max(w/4, sessionsKeepWidth)
			} else {
				l.SessWidth = l.SessWidth * 3 / 4
			}
		} else if short := detailsHeight(monitoring) - (n - l.SessLines); short > 0 {
			// From the table first (it keeps two rows), then from the
			// sessions panel (it keeps its title and a line).
			if take := min(short, l.TableRows-2); take > 0 {
				l.TableRows -= take
				l.BottomRows += take
				short -= take
			}
			if take := min(short, l.SessLines-2); take > 0 {
				l.SessLines -= take
			}
		}
	}
	return l
}

// sessionsNeed is the stacked sessions panel's least height: its title
// and two lines (a session and its kernels).
const sessionsNeed = 3

// detailsHeight is the height the expanded details panel asks for.
func detailsHeight(monitoring bool) int {
	if monitoring {
		return detailsFull + detailsMonitor
	}
	return detailsFull
}

// relayout recomputes the layout and keeps the selection in view.
func (m *app) relayout() {
	m.cx.Layout = newLayout(m.scr.width, m.scr.height, m.tableRows(), m.scr.showDetails, m.mon != nil)
	m.scroll()
}

// tableRows is how many rows the table would show whole: its runtimes
// and the creates under way above them.
func (m *app) tableRows() int {
	n := len(m.rt.Rows())
	if m.cr != nil {
		n += len(m.cr.creates)
	}
	return n
}

// resize applies a new terminal size. When the overlay on top could not be
// shown before and can be now, its grace period starts again: keys typed
// at a screen that showed nothing must not answer it.
func (m *app) resize(w, h int) {
	before := m.scr.showable()
	m.scr.width, m.scr.height = w, h
	m.relayout()
	if !before && m.scr.showable() {
		m.scr.regraceTop()
	}
}

// View renders the frame: the panes, then every overlay in stack order
// (the order keys reach them, reversed). Rows are sorted and filtered in
// Update and only the visible window is drawn, so rendering follows the
// visible rows. No line is wider than the terminal.
func (m Model) View() string {
	return (&m).view()
}

// view is View on the model in place (one copy of it per frame, not one
// per pane).
func (m *app) view() string {
	l := m.cx.Layout
	if !m.scr.showable() {
		return m.tooSmallView(l)
	}
	now := m.cx.Now()
	f := frame.New(l.W, l.H)
	f.Lines = append(f.Lines, m.headerView(now, l.W)...)
	_, filtering := find[*filter.Overlay](m.scr)
	f.Lines = append(f.Lines, m.rt.View(m.cx, now, filtering)...)
	f.Lines = append(f.Lines, m.bottomView(now, l)...)
	f.Lines = append(f.Lines, m.footerView(now, l.W)...)
	for _, o := range m.scr.stack {
		o.Draw(m.cx, f)
	}
	var b strings.Builder
	b.Grow(l.H * (l.W + 16))
	for i, ln := range f.Lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ansi.Truncate(ln, l.W, "…"))
	}
	// Every cell was made safe where it was built; the frame is filtered
	// once more so a missed path can only lose characters, never drive the
	// terminal.
	return termtext.Frame(b.String())
}

func (m *app) tooSmallView(l common.Layout) string {
	size := strconv.Itoa(l.W) + "×" + strconv.Itoa(l.H)
	msg := []string{"Terminal too small", size + ", need " + strconv.Itoa(MinWidth) + "×" + strconv.Itoa(MinHeight)}
	if !l.TooSmall { // the dashboard fits, the overlay on top does not
		msg = []string{"Terminal too small to show the " + m.scr.top().Name(), size}
	}
	msg = append(msg, "Enlarge the window, or q to quit.")
	if l.TooSmall && len(m.scr.stack) > 0 {
		msg = append(msg, "The "+m.scr.top().Name()+" waits: esc closes it; no other key but q acts until it shows.")
	}
	// Wrapped, not cut: each sentence is what to do next. Only a screen
	// too short for all of them loses the last lines.
	var out []string
	for _, s := range msg {
		out = append(out, strings.Split(frame.Wrap(s, max(l.W, 1)), "\n")...)
	}
	if l.H < len(out) {
		out = out[:max(l.H, 1)]
	}
	return strings.Join(out, "\n")
}
