package runtimes

import (
	"slices"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
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

// NextSort sorts by the next column that sorts (wrapping around), up.
func (p *Pane) NextSort() {
	cols := render.Sortable()
	i := slices.Index(cols, p.sortBy)
	p.sortBy, p.reverse, p.rowsDirty = cols[(i+1)%len(cols)], false, true
}

// sortRows orders rows (by name already) by the sort column, reversed if
// so, ties keeping their name order, gone runtimes last.
func (p *Pane) sortRows(rows []*state.Runtime) {
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
