// Package runtimes is the dashboard's runtimes table: the sorted, filtered
// rows (re-built only when the data, sort or filter changed), the
// selection and the marks (by runtime name, so they survive re-sorting),
// the cursor and the first visible row, and how the table draws.
package runtimes

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/render"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// Pane is the runtimes table's state. The zero value is not ready: use
// New.
type Pane struct {
	rows        []*state.Runtime
	rowsVersion uint64
	rowsDirty   bool
	nameWidth   int    // the widest runtime id among rows
	selected    string // selected runtime name
	cursor      int
	offset      int
	sortBy      *render.Column // a column with a Sort
	reverse     bool
	filter      string
	marks       map[string]bool // marked runtime names
	figs        []figured       // scratch: rows with their monitor sort keys
}

// New returns an empty table, sorted by name, that builds its rows on the
// first Sync.
func New() *Pane {
	return &Pane{rowsDirty: true, sortBy: &render.ColName, marks: map[string]bool{}}
}

// Selected is the selected runtime's name ("" when none).
func (p *Pane) Selected() string { return p.selected }

// Select selects runtime name (it takes effect at the next Sync, when the
// rows are known).
func (p *Pane) Select(name string) { p.selected, p.rowsDirty = name, true }

// Rows are the rows in table order (sorted and filtered).
func (p *Pane) Rows() []*state.Runtime { return p.rows }

// Cursor is the selected row's index in Rows.
func (p *Pane) Cursor() int { return p.cursor }

// Filter is the filter typed ("" when none).
func (p *Pane) Filter() string { return p.filter }

// SetFilter sets the filter; the rows follow at the next Sync.
func (p *Pane) SetFilter(f string) { p.filter, p.rowsDirty = f, true }

// Invalidate makes the next Sync rebuild the rows.
func (p *Pane) Invalidate() { p.rowsDirty = true }

// HandleKey takes the table's own keys: the cursor (a Move), space
// (Mark), the clear-marks key (ClearMarks), a column's sort key and the
// reverse key (SortBy); ok is false for any other key.
func (p *Pane) HandleKey(k tea.KeyMsg, c *common.Context) (common.Effect, bool) {
	if n, ok := moveKey(c, k, c.Layout.TableRows); ok {
		return common.Move{N: n}, true
	}
	keys := &c.Keys.RuntimesTable
	switch {
	case key.Matches(k, keys.Mark):
		return common.Mark{}, true
	case key.Matches(k, keys.ClearMarks):
		return common.ClearMarks{}, true
	case key.Matches(k, keys.SortReverse):
		return common.SortBy{Action: keymap.ActionSortReverse}, true
	}
	for _, col := range render.Sortable() {
		if b, ok := keys.ForAction(col.Sort.Action); ok && key.Matches(k, b) {
			// A key acts only on what is on screen.
			if !widths(c, c.Layout.W, p.nameWidth).Shows(col) {
				why := "at this width"
				if col.Sort.Figure != nil && c.Monitor == nil {
					why = "with monitoring off"
				}
				return common.Say{Text: strings.TrimSpace(col.Title) + " is not shown " + why + ": nothing to sort by", Err: true}, true
			}
			return common.SortBy{Action: col.Sort.Action}, true
		}
	}
	return nil, false
}

// moveKey is how far a cursor key of the table (keymap.ScopeRuntimes)
// moves in a list whose page is page rows; ok is false for other keys.
func moveKey(c *common.Context, k tea.KeyMsg, page int) (int, bool) {
	keys := &c.Keys.RuntimesTable
	switch {
	case key.Matches(k, keys.Up):
		return -1, true
	case key.Matches(k, keys.Down):
		return 1, true
	case key.Matches(k, keys.PageUp):
		return -page, true
	case key.Matches(k, keys.PageDown):
		return page, true
	case key.Matches(k, keys.Top):
		return -1 << 30, true
	case key.Matches(k, keys.Bottom):
		return 1 << 30, true
	}
	return 0, false
}

// Move moves the cursor by delta rows and keeps it in view of visible
// rows; it reports whether another runtime is selected.
func (p *Pane) Move(delta, visible int) (changed bool) {
	if len(p.rows) == 0 {
		return false
	}
	p.cursor = frame.Clamp(p.cursor+delta, 0, len(p.rows)-1)
	if p.rows[p.cursor].Name != p.selected {
		p.selected, changed = p.rows[p.cursor].Name, true
	}
	p.Scroll(visible)
	return changed
}

// Sync re-sorts and re-filters c.Snap only when the data, sort or filter
// changed (or, sorted by a monitor column, the figures: FiguresChanged)
// and keeps the selection on the same runtime by name; it reports whether
// the selection was lost (another runtime, or none, is selected).
func (p *Pane) Sync(c *common.Context) (lost bool) {
	snap := c.Snap
	if !p.rowsDirty && p.rowsVersion == snap.Version() {
		return false
	}
	p.rows = snap.Rows(state.SortByName, p.filter)
	p.sortRows(p.rows, c)
	p.rowsVersion, p.rowsDirty = snap.Version(), false
	p.dropVanishedMarks(snap)
	found := false
	p.nameWidth = 0
	for i, r := range p.rows {
		p.nameWidth = max(p.nameWidth, ansi.StringWidth(r.ID()))
		if r.Name == p.selected {
			p.cursor, found = i, true
		}
	}
	if !found {
		p.cursor = frame.Clamp(p.cursor, 0, len(p.rows)-1)
		p.selected = ""
		if len(p.rows) > 0 {
			p.selected = p.rows[p.cursor].Name
		}
	}
	return !found
}

// OnScreen appends to dst (reused) the names of the runtime rows a table
// showing visible rows draws, gone ones left out: the runtimes the
// monitor polls besides the selected one.
func (p *Pane) OnScreen(visible int, dst []string) []string {
	dst = dst[:0]
	for i := p.offset; i < min(p.offset+visible, len(p.rows)); i++ {
		if r := p.rows[i]; !r.Gone() {
			dst = append(dst, r.Name)
		}
	}
	return dst
}

// widths lays the table out in w cells: with the monitor columns when
// the monitor is on (c.Monitor) and the width allows.
func widths(c *common.Context, w, nameNeed int) render.Widths {
	if c.Monitor != nil {
		return render.WidthsWithMonitor(w, nameNeed)
	}
	return render.WidthsFor(w, nameNeed)
}

// Scroll keeps the cursor inside a window of visible rows.
func (p *Pane) Scroll(visible int) {
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+visible {
		p.offset = p.cursor - visible + 1
	}
	p.offset = frame.Clamp(p.offset, 0, max(0, len(p.rows)-visible))
}

// Visible is how many runtime rows the table shows when creates take
// rows above them: its height less those rows, leaving at least one.
func Visible(tableRows, creates int) int {
	return tableRows - min(creates, max(0, tableRows-1))
}

// View draws the table at now: exactly c.Layout.TableRows+2 lines (title,
// column header, rows), none wider than c.Layout.W. filtering is set
// while the filter line is open.
func (p *Pane) View(c *common.Context, now time.Time, filtering bool) []string {
	l := c.Layout
	var creating []common.Creation
	if c.Activity.Creating != nil {
		creating = c.Activity.Creating(now)
	}
	visible := Visible(l.TableRows, len(creating))
	lines := make([]string, 0, l.TableRows+2)
	lines = append(lines, p.title(c, filtering, visible))

	// The runtime rows alone size the columns: a create's row fits the
	// columns they have (cutting its own text), so the table does not
	// reflow, nor lose its monitor columns, while a create runs.
	w := widths(c, l.W, p.nameWidth)
	lines = append(lines, c.Styles.ColHeader.Render(render.Header(w, p.sortBy, p.reverse)))

	start := len(lines)
	for _, cr := range creating[:l.TableRows-visible] {
		lines = append(lines, creationRow(c, cr, w))
	}
	live, gone := c.Snap.Counts()
	if len(p.rows) == 0 && len(creating) == 0 {
		lines = append(lines, c.Styles.Dim.Render(emptyText(c, live+gone)))
	}
	stale := c.Snap.RuntimesFresh.Stale()
	for i := p.offset; i < min(p.offset+visible, len(p.rows)); i++ {
		lines = append(lines, p.row(c, now, p.rows[i], w, i == p.cursor, stale))
	}
	return frame.PadLines(lines, start+l.TableRows)
}

// title is the table's title line: how many runtimes (of how many when
// filtered), how many gone, the sort, the filter and the rows shown.
func (p *Pane) title(c *common.Context, filtering bool, visible int) string {
	// Gone rows (reclaimed by Colab) are not runtimes any more: they are
	// counted apart.
	shown, shownGone, marked := 0, 0, 0
	for _, r := range p.rows {
		if r.Gone() {
			shownGone++
		} else {
			shown++
		}
		if p.marks[r.Name] {
			marked++
		}
	}
	live, gone := c.Snap.Counts()
	title := "RUNTIMES " + strconv.Itoa(shown)
	if p.filter != "" || filtering {
		title += " of " + strconv.Itoa(live)
	}
	extra := ""
	if gone > 0 {
		extra = " · " + strconv.Itoa(shownGone) + " gone"
	}
	if marked > 0 {
		extra += " · " + strconv.Itoa(marked) + " marked"
	}
	if n := len(p.marks) - marked; n > 0 {
		extra += " · " + strconv.Itoa(n) + " marked hidden by the filter"
	}
	extra += " · sort: " + p.SortWord()
	if p.filter != "" {
		extra += " · filter: " + termtext.Line(p.filter)
	}
	if len(p.rows) > c.Layout.TableRows {
		end := min(p.offset+visible, len(p.rows))
		extra += " · " + strconv.Itoa(p.offset+1) + "–" + strconv.Itoa(end)
	}
	return common.PanelTitle(c, c.Focus == common.PanelRuntimes, title) + c.Styles.Dim.Render(extra)
}

// emptyText says why the table has no row; known is how many runtimes
// the snapshot has.
func emptyText(c *common.Context, known int) string {
	f := c.Snap.RuntimesFresh
	switch {
	case f.Loading():
		return "  loading runtimes…"
	case f.Stale() && !f.Loaded():
		return "  could not list runtimes: " + common.ErrLine(f.Err)
	case known > 0:
		return "  no runtime matches the filter"
	}
	msg := "  no runtimes"
	if k := c.Keys.FirstKey(keymap.ActionNewRuntime); k != "" {
		msg += ": press " + common.KeyName(k) + " to create one"
	}
	return msg
}

// creationRow is a create under way, in the columns of a runtime row:
// marker "+", the runtime id asked for (or what is being created), the
// spec, then where it stands (after the spec, so it is not cut at 100
// columns). It fits the columns w as they are, never widening one: a name
// longer than NAME is cut there; the blank of a shorter one gives back
// what a long status needs; the row is cut at the screen's edge.
func creationRow(c *common.Context, cr common.Creation, w render.Widths) string {
	var b strings.Builder
	render.RowStart(&b, false, '+', false)
	nw := c.Layout.W - render.RowPrefix - w.Spec - 2 - ansi.StringWidth(cr.Status)
	if w.Monitor {
		nw -= render.MonWidth()
	}
	nw = frame.Clamp(nw, min(ansi.StringWidth(cr.Name), w.Name), w.Name)
	b.WriteString(frame.Fit(cr.Name, nw) + " ")
	if w.Monitor {
		render.MonBlank(&b)
	}
	b.WriteString(frame.Fit(render.SpecFit(cr.Spec, w.Spec), w.Spec) + " ")
	b.WriteString(cr.Status)
	return c.Styles.Warn.Render(termtext.Cut(b.String(), c.Layout.W))
}

// TokenInfo is what the TOKEN cell of runtime name shows of the
// dashboard's activity at now.
func TokenInfo(c *common.Context, name string, now time.Time) render.TokenInfo {
	return render.TokenInfo{
		Threshold: c.Activity.Renewals.Threshold(name),
		Busy:      render.Busy(name, now, c.Activity.Deleting, c.Activity.Opening),
		Renewing:  c.Activity.Renewals.InFlight(name),
	}
}

func (p *Pane) row(c *common.Context, now time.Time, r *state.Runtime, w render.Widths, selected, stale bool) string {
	var b strings.Builder
	b.Grow(w.Name + w.Spec + w.Version + w.Token + 16)
	marker := byte(' ')
	switch {
	case r.RenewErr != nil && !r.Gone():
		marker = '!'
	case c.Jobs != nil && c.Jobs.ByRun(r.Name):
		marker = '&' // a run in progress created it: deleted when its job ends
	}
	render.RowStart(&b, selected, marker, p.marks[r.Name])
	b.WriteString(frame.Fit(render.ColName.Cell(r, now, 0, w.Name), w.Name))
	b.WriteByte(' ')
	if w.Monitor {
		render.MonCells(&b, c.Monitor.Runtime(r.Name), now)
	}
	b.WriteString(frame.Fit(render.ColSpec.Cell(r, now, 0, w.Spec), w.Spec))
	b.WriteByte(' ')
	if w.Version > 0 {
		b.WriteString(frame.Fit(render.ColVersion.Cell(r, now, 0, w.Version), w.Version))
		b.WriteByte(' ')
	}
	b.WriteString(frame.FitRight(sessCell(c, r, now, w.Sess), w.Sess))
	b.WriteByte(' ')
	t := render.TokenCell(r, now, TokenInfo(c, r.Name, now))
	b.WriteString(t.Padded())
	word := frame.Fit(t.Word, w.Token-10)
	switch {
	case selected:
		b.WriteString(word)
		return c.Styles.Selected.Render(b.String())
	case r.Gone():
		b.WriteString(strings.TrimRight(word, " "))
		return c.Styles.Gone.Render(b.String())
	case stale:
		b.WriteString(strings.TrimRight(word, " "))
		return c.Styles.Stale.Render(b.String())
	}
	// Colour only the status word; the countdown stays plain.
	b.WriteString(c.Styles.Token[t.Status].Render(strings.TrimRight(word, " ")))
	return b.String()
}

// sessCell is the SESS cell in w cells and, where the runtime has jobs
// and there is room, their count after it ("2 3j": two sessions, three
// jobs); a count's age gives way to the jobs.
func sessCell(c *common.Context, r *state.Runtime, now time.Time, w int) string {
	jobs := ""
	if c.Jobs != nil && !r.Gone() {
		if js, ok := c.Jobs.Jobs(r.Name); ok && len(js) > 0 {
			jobs = " " + strconv.Itoa(len(js)) + "j"
		}
	}
	sess := render.ColSess.Cell(r, now, c.RefreshInterval, w-len(jobs))
	if ansi.StringWidth(sess)+len(jobs) > w {
		if sess = render.ColSess.Cell(r, now, c.RefreshInterval, 0); ansi.StringWidth(sess)+len(jobs) > w {
			return sess
		}
	}
	return sess + jobs
}
