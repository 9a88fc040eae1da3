package pane

// Large directories and the pane's filter (field case 70): a listing is
// decoded as a stream and the pane keeps at most MaxShown of its entries
// (those matching the filter it was made with) and counts them all, so a
// directory of 120,000 entries opens in the memory of 10,000. The filter
// (/) narrows what is shown as it is typed; applied (enter) on a directory
// with more entries than were kept, it lists the directory again keeping
// the entries that match, so it finds them among all of them.

import (
	"context"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/termtext"
)

func itoa(n int) string { return strconv.Itoa(n) }

// MaxShown is how many entries of one directory the pane keeps.
const MaxShown = 10_000

// matches reports whether name passes filter: a case-insensitive
// substring ("" passes everything).
func matches(filter, name string) bool {
	return filter == "" || strings.Contains(strings.ToLower(name), strings.ToLower(filter))
}

// collect lists dir with c, keeping the first MaxShown entries that pass
// filter. total counts every entry, matched those passing filter.
func collect(ctx context.Context, c *jupyter.Client, dir, filter string) (kept []jupyter.Model, total, matched int, err error) {
	_, _, err = c.ListEach(ctx, dir, func(e jupyter.Model) error {
		total++
		if matches(filter, e.Name) {
			matched++
			if len(kept) < MaxShown {
				kept = append(kept, e)
			}
		}
		return nil
	})
	return kept, total, matched, err
}

// refilter recomputes the entries shown from those kept and the filter,
// keeping the cursor on the same entry when it is still shown.
func (p *Pane) refilter() {
	sel := ""
	if e, ok := p.Selected(); ok {
		sel = e.Name
	}
	p.shown = p.shown[:0]
	for _, e := range p.entries {
		if matches(p.filter, e.Name) {
			p.shown = append(p.shown, e)
		}
	}
	p.cursor, p.offset = 0, 0
	for i, e := range p.shown {
		if e.Name == sel {
			p.cursor = i
		}
	}
}

// Filter returns the pane's filter ("" when none).
func (p *Pane) Filter() string { return p.filter }

// SetFilter narrows the entries shown to those whose name holds text
// (any case), among the entries kept; it does no I/O.
func (p *Pane) SetFilter(text string) {
	p.filter = text
	p.refilter()
}

// ApplyFilter is the filter's enter: when the directory has entries the
// pane did not keep (more than MaxShown, or kept under another filter),
// it lists the directory again keeping those that match the filter, and
// returns that command; otherwise nil.
func (p *Pane) ApplyFilter() tea.Cmd {
	if p.complete() || p.loading {
		return nil
	}
	return p.listFiltered(p.dir, p.filter)
}

// complete reports whether the pane kept every entry its filter can show:
// all of the directory's, or all that match a filter it was listed with
// and that the current filter narrows.
func (p *Pane) complete() bool {
	if p.total <= len(p.entries) {
		return true
	}
	return p.listFilter != "" && p.matched <= len(p.entries) &&
		strings.Contains(strings.ToLower(p.filter), strings.ToLower(p.listFilter))
}

// Counts returns the directory's entry count as last listed, and how many
// entries are shown (after the filter).
func (p *Pane) Counts() (total, shown int) { return p.total, len(p.shown) }

// countText is the title's note on a large or filtered directory ("" for
// a directory shown whole): "120000 entries, first 10000 shown (/ filters
// them all)", or with a filter "filter "img_01": 12 of 120000".
func (p *Pane) countText() string {
	f := termtext.Line(p.filter)
	switch {
	case p.filter != "" && p.complete():
		return "filter \"" + f + "\": " + itoa(len(p.shown)) + " of " + itoa(p.total)
	case p.filter != "":
		return "filter \"" + f + "\": " + itoa(len(p.shown)) + " of the first " + itoa(len(p.entries)) + " of " + itoa(p.total) + " (enter: search them all)"
	case p.total > len(p.entries):
		return itoa(p.total) + " entries, first " + itoa(len(p.entries)) + " shown (/ filters them all)"
	}
	return ""
}
