package runtimes

import (
	"cmp"
	"slices"
	"time"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/render"
)

// Sorting: the table is sorted by one column (its render.SortBy), up or
// reversed. Every column that declares a SortBy has a key (its action in
// keymap); the same key again reverses, and s cycles through them.

// SortColumn is the column the rows are sorted by.
func (p *Pane) SortColumn() *render.Column { return p.sortBy }

// Reversed reports whether the order is reversed.
func (p *Pane) Reversed() bool { return p.reverse }

// SortWord names the order for the title and the status line: "name",
// "expiry, reversed".
func (p *Pane) SortWord() string {
	w := p.sortBy.Sort.Word
	if p.reverse {
		w += ", reversed"
	}
	return w
}

// SortBy sorts by the column whose sort action is action, reversing the
// order when the rows are sorted by it already (keymap.ActionSortReverse:
// reverses whatever the column); ok is false for an action no column
// sorts by.
func (p *Pane) SortBy(action string) (ok bool) {
	if action == keymap.ActionSortReverse {
		p.reverse, p.rowsDirty = !p.reverse, true
		return true
	}
	for _, c := range render.Sortable() {
		if c.Sort.Action == action {
			if c == p.sortBy {
				p.reverse = !p.reverse
			} else {
				p.sortBy, p.reverse = c, false
			}
			p.rowsDirty = true
			return true
		}
	}
	return false
}

// NextSort sorts by the next column that sorts (wrapping around), up,
// skipping the columns the table does not show (the monitor's when
// monitoring is off or the screen too narrow, VERSION below 80 columns).
func (p *Pane) NextSort(c *common.Context) {
	shown := widths(c, c.Layout.W, p.nameWidth)
	cols := render.Sortable()
	i := slices.Index(cols, p.sortBy)
	for range cols {
		i = (i + 1) % len(cols)
		if shown.Shows(cols[i]) {
			break
		}
	}
	p.sortBy, p.reverse, p.rowsDirty = cols[i], false, true
}

// FiguresChanged tells the table the monitor's figures changed (a poll
// answered, which does not change the snapshot's version): sorted by a
// monitor column, it re-sorts at the next Sync.
func (p *Pane) FiguresChanged() {
	if p.sortBy.Sort.Figure != nil {
		p.rowsDirty = true
	}
}

// sortRows orders rows (by name already) by the sort column, reversed if
// so, ties keeping their name order, gone runtimes last; a monitor
// column reads the figures of c.Monitor at c.Now.
func (p *Pane) sortRows(rows []*state.Runtime, c *common.Context) {
	if p.sortBy.Sort.Figure != nil {
		p.sortByFigure(rows, c)
		return
	}
	cmp := p.sortBy.Sort.Cmp
	slices.SortStableFunc(rows, func(a, b *state.Runtime) int {
		if ag, bg := a.Gone(), b.Gone(); ag != bg {
			if ag {
				return 1
			}
			return -1
		}
		if p.reverse {
			return cmp(b, a)
		}
		return cmp(a, b)
	})
}

// figured is a row with its monitor sort key (ok false: no figures).
type figured struct {
	r   *state.Runtime
	key float64
	ok  bool
}

// sortByFigure is sortRows for a monitor column: each runtime's key read
// once (a map look-up each), runtimes without figures after those with
// figures, then gone ones, in either direction.
func (p *Pane) sortByFigure(rows []*state.Runtime, c *common.Context) {
	fig := p.sortBy.Sort.Figure
	var now time.Time
	if c.Monitor != nil && c.Now != nil {
		now = c.Now()
	}
	p.figs = p.figs[:0]
	for _, r := range rows {
		f := figured{r: r}
		if c.Monitor != nil && !r.Gone() {
			f.key, f.ok = fig(c.Monitor.Runtime(r.Name), now)
		}
		p.figs = append(p.figs, f)
	}
	slices.SortStableFunc(p.figs, func(a, b figured) int {
		if ag, bg := a.r.Gone(), b.r.Gone(); ag != bg {
			if ag {
				return 1
			}
			return -1
		}
		switch {
		case a.ok != b.ok && a.ok:
			return -1
		case a.ok != b.ok:
			return 1
		case !a.ok:
			return 0 // name order
		}
		if p.reverse {
			a, b = b, a
		}
		return cmp.Compare(a.key, b.key)
	})
	for i, f := range p.figs {
		rows[i] = f.r
	}
	clear(p.figs) // no runtime kept past the sort
}
