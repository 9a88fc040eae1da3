package logview

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api/plural"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
)

// view is the viewer's window onto its Buffer: where it starts, whether
// it follows and wraps, the search's hits it highlights, and how a line is
// drawn in rows. It is made of virtual lines: a note saying how many lines
// were dropped (only once some were), then the buffer's lines. A position
// is a virtual line and a row of it (a wrapped line has several).
type view struct {
	buf    *Buffer
	follow bool // stay at the bottom as lines arrive
	wrap   bool // long lines wrap (else they are cut with "…")
	// top, topRow are where the view starts when not following: an
	// absolute line number (counting the dropped lines) and a row of that
	// line (wrapped).
	top, topRow int
	query       string // the search's text, highlighted ("": none)
}

// room is how many log rows a body of n lines shows: the title and the
// viewer's own footer line take two.
func room(n int) int { return max(n-2, 1) }

// noteOff is 1 while the dropped-lines note leads the view.
func (vw *view) noteOff() int {
	if vw.buf.Dropped() > 0 {
		return 1
	}
	return 0
}

// count is the number of virtual lines.
func (vw *view) count() int { return vw.buf.Len() + vw.noteOff() }

// virt is the virtual line of absolute line a (the note for a line
// dropped), and abs its inverse.
func (vw *view) virt(a int) int {
	return max(a-vw.buf.Dropped()+vw.noteOff(), 0)
}

func (vw *view) abs(v int) int { return v - vw.noteOff() + vw.buf.Dropped() }

// text is virtual line v as drawn at width w (before wrapping): the
// note, or the log's line redacted, with the search's hits highlighted.
func (vw *view) text(c *common.Context, v int) string {
	if v < vw.noteOff() {
		return c.Styles.Dim.Render("… " + thousands(vw.buf.Dropped()) + " earlier lines dropped (the viewer keeps the last " +
			thousands(MaxLines) + " lines, " + strconv.Itoa(MaxBytes>>20) + " MiB)")
	}
	l := vw.buf.line(v - vw.noteOff())
	s, red := l.styled, c.Redact(l.plain)
	if red != l.plain || !colour(c) {
		s = red // a secret: drawn without its colours, as plain text; no colour at all with NO_COLOR
	}
	if vw.query != "" && strings.Contains(strings.ToLower(red), strings.ToLower(vw.query)) {
		s = highlight(red, vw.query, c.Styles.Selected)
	}
	return s
}

// colour reports whether the dashboard draws colours and styles (not
// with NO_COLOR, CLICOLOR=0 or --color never): the log's own are drawn
// only then.
func colour(c *common.Context) bool { return c.Styles.Bold.Render("x") != "x" }

// plain is virtual line v's text as searched: the log's line redacted
// ("" for the note).
func (vw *view) plain(c *common.Context, v int) string {
	if v < vw.noteOff() {
		return ""
	}
	return c.Redact(vw.buf.line(v - vw.noteOff()).plain)
}

// highlight draws every hit of q in s (plain text), ignoring case, in st.
func highlight(s, q string, st lipgloss.Style) string {
	var b strings.Builder
	ls, lq := strings.ToLower(s), strings.ToLower(q)
	for {
		i := strings.Index(ls, lq)
		if i < 0 || len(ls) != len(s) { // case folding changed lengths: mark the line, not the hits
			if i >= 0 {
				return st.Render(s)
			}
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(st.Render(s[i : i+len(q)]))
		s, ls = s[i+len(q):], ls[i+len(q):]
	}
}

// rows is virtual line v drawn in rows of width w: wrapped, or cut with
// "…".
func (vw *view) rows(c *common.Context, v, w int) []string {
	s := vw.text(c, v)
	var rs []string
	switch {
	case !vw.wrap:
		rs = []string{ansi.Truncate(s, w, termtext.Ellipsis)}
	case s == "":
		return []string{""}
	default:
		rs = strings.Split(ansi.Hardwrap(s, w, true), "\n")
	}
	if strings.IndexByte(s, 0x1b) >= 0 {
		for i := range rs {
			rs[i] += "\x1b[0m" // a row never lends its colours to the next one drawn
		}
	}
	return rs
}

// bottom is the position whose page of room rows ends with the last row.
func (vw *view) bottom(c *common.Context, w, room int) (v, row int) {
	need := room
	for v = vw.count() - 1; v >= 0; v-- {
		n := len(vw.rows(c, v, w))
		if n >= need {
			return v, n - need
		}
		need -= n
	}
	return 0, 0
}

// start is where the view begins now: the bottom page while following,
// else the position kept (never past the bottom page).
func (vw *view) start(c *common.Context, w, room int) (v, row int) {
	bv, brow := vw.bottom(c, w, room)
	if vw.follow {
		return bv, brow
	}
	v, row = vw.virt(vw.top), vw.topRow
	if v > bv || v == bv && row > brow {
		return bv, brow
	}
	if v < vw.count() {
		row = min(row, len(vw.rows(c, v, w))-1)
	}
	return v, max(row, 0)
}

// pin keeps the view where it is now and stops following.
func (vw *view) pin(c *common.Context, w, room int) {
	v, row := vw.start(c, w, room)
	vw.follow, vw.top, vw.topRow = false, vw.abs(v), row
}

// scroll moves the view by delta rows (negative: up). Moving up stops
// following; moving down stops at the bottom page.
func (vw *view) scroll(c *common.Context, w, room, delta int) {
	v, row := vw.start(c, w, room)
	bv, brow := vw.bottom(c, w, room)
	for ; delta < 0; delta++ {
		switch {
		case row > 0:
			row--
		case v > 0:
			v--
			row = len(vw.rows(c, v, w)) - 1
		}
	}
	for ; delta > 0 && (v < bv || v == bv && row < brow); delta-- {
		if row+1 < len(vw.rows(c, v, w)) {
			row++
		} else {
			v, row = v+1, 0
		}
	}
	if vw.follow && (v != bv || row != brow) {
		vw.follow = false
	}
	vw.top, vw.topRow = vw.abs(v), row
}

// reveal scrolls virtual line v into view, with two lines of context
// above it, unless it is on the page already; following stops.
func (vw *view) reveal(c *common.Context, w, room, v int) {
	sv, _ := vw.start(c, w, room)
	vw.pin(c, w, room)
	if v >= sv && v < sv+room && (!vw.wrap || vw.onScreen(c, w, room, v)) {
		return
	}
	vw.top, vw.topRow = vw.abs(max(v-2, 0)), 0
}

// onScreen reports whether virtual line v's first row is on the page
// the view shows now.
func (vw *view) onScreen(c *common.Context, w, room, v int) bool {
	sv, srow := vw.start(c, w, room)
	rows := 0
	for x := sv; x < vw.count() && rows < room; x++ {
		if x == v {
			return true
		}
		n := len(vw.rows(c, x, w))
		if x == sv {
			n -= srow
		}
		rows += n
	}
	return false
}

// toTop shows the first line kept (the dropped-lines note above it), and
// stops following; toggleWrap wraps long lines or cuts them.
func (vw *view) toTop() { vw.follow, vw.top, vw.topRow = false, vw.buf.Dropped()-1, 0 }

func (vw *view) toggleWrap() { vw.wrap, vw.topRow = !vw.wrap, 0 }

// lines renders the viewer in n lines of width w: its title, the log's
// rows from the view's start, and its own footer line.
func (o *Overlay) lines(c *common.Context, w, n int) []string {
	room := room(n)
	out := []string{ansi.Truncate(o.title(c), w, termtext.Ellipsis)}
	v, row := o.v.start(c, w, room)
	first := v
	var body []string
	if o.v.count() == 0 {
		body = append(body, c.Styles.Dim.Render(o.emptyText()))
	}
	for ; v < o.v.count() && len(body) < room; v, row = v+1, 0 {
		rs := o.v.rows(c, v, w)
		body = append(body, rs[min(row, len(rs)-1):]...)
	}
	last := v - 1
	if len(body) > room {
		body = body[:room]
	}
	for len(body) < room {
		body = append(body, "")
	}
	out = append(out, body...)
	out = append(out, ansi.Truncate(o.footer(c, first, last), w, termtext.Ellipsis))
	return out[:min(len(out), n)]
}

// emptyText is what an empty log shows.
func (o *Overlay) emptyText() string {
	if o.ended {
		return "  (the log is empty)"
	}
	return "  waiting for output…"
}

// title names the log, its runtime and its state.
func (o *Overlay) title(c *common.Context) string {
	t := o.target
	what := "LOG · " + t.Kind + " " + t.ID
	if t.Runtime != "" {
		what += " on " + t.Runtime
	}
	state := t.State
	switch {
	case o.ended:
		state = o.end
	case state == "" && t.Kind == "job":
		state = "running"
	}
	if state != "" {
		what += " · " + state
	}
	return common.PanelTitle(c, true, what)
}

// footer is the viewer's own last line: how the source ended (or a
// failed read being retried, or its note), then whether it follows and
// wraps, the lines shown (virtual lines first to last) and the search.
func (o *Overlay) footer(c *common.Context, first, last int) string {
	var parts []string
	switch {
	case o.ended:
		what := "■ ended: " + o.end
		if o.target.Kind == "job" {
			what = "■ the job ended: " + o.end
		}
		parts = append(parts, c.Styles.Warn.Render(termtext.Line(what)))
	case o.fail != "":
		parts = append(parts, c.Styles.ErrText.Render(termtext.Line("▲ read failed ("+plural.Count(o.fails, "time")+"), retrying every "+
			RetryAfter.String()+": "+c.Redact(o.fail))))
	case o.note != "":
		parts = append(parts, c.Styles.Dim.Render(termtext.Line(c.Redact(o.note))))
	}
	if o.v.follow {
		parts = append(parts, "● following")
	} else {
		parts = append(parts, c.Styles.Warn.Render("‖ paused ("+c.Keys.LogView.Follow.Help().Key+" follows)"))
	}
	if o.v.wrap {
		parts = append(parts, "wrap")
	}
	if n := o.buf.Len(); n > 0 {
		from, to := max(first-o.v.noteOff(), 0)+o.buf.Dropped()+1, max(last-o.v.noteOff(), 0)+o.buf.Dropped()+1
		parts = append(parts, "lines "+thousands(from)+"–"+thousands(to)+" of "+thousands(n+o.buf.Dropped()))
	}
	if o.v.query != "" {
		parts = append(parts, "/"+termtext.Line(o.v.query))
	}
	return c.Styles.Dim.Render("  ") + strings.Join(parts, c.Styles.Dim.Render(" · "))
}

// thousands writes n with thousands separators ("10,000").
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
