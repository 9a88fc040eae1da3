package pane

// Large directories and the pane's filter: a listing is
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

// kept is what the pane kept of the directory shown and how its filter
// narrows it.
type kept struct {
	entries []jupyter.Model // kept from the listing (at most MaxShown)
	shown   []jupyter.Model // entries passing filter, sorted: what the cursor moves over
	filter  string          // the filter typed (/)
	// listFilter is the filter the listing kept its entries by; total and
	// matched count the directory's entries and those passing listFilter.
	listFilter     string
	total, matched int
}

// refilter recomputes the entries shown from those kept and the filter;
// cursor is where sel (an entry's name) is shown now, else the row at
// (clamped to the entries shown: the entry that took sel's place, or the
// new last one; 0 when at is below 0 or none is shown).
func (k *kept) refilter(sel string, at int) (cursor int) {
	k.shown = k.shown[:0]
	for _, e := range k.entries {
		if matches(k.filter, e.Name) {
			k.shown = append(k.shown, e)
		}
	}
	for i, e := range k.shown {
		if e.Name == sel {
			return i
		}
	}
	return max(0, min(at, len(k.shown)-1))
}

// nameOf is the name of e when ok (as Selected returns them), else "".
func nameOf(e jupyter.Model, ok bool) string {
	if !ok {
		return ""
	}
	return e.Name
}

// Filter returns the pane's filter ("" when none).
func (p *Pane) Filter() string { return p.ls.filter }

// SetFilter narrows the entries shown to those whose name holds text
// (any case), among the entries kept; it does no I/O.
func (p *Pane) SetFilter(text string) {
	p.ls.filter = text
	// The cursor stays on the same entry when it is still shown.
	p.cursor, p.offset = p.ls.refilter(nameOf(p.Selected()), 0), 0
}

// ApplyFilter is the filter's enter: when the directory has entries the
// pane did not keep (more than MaxShown, or kept under another filter),
// it lists the directory again keeping those that match the filter, and
// returns that command; otherwise nil.
func (p *Pane) ApplyFilter() tea.Cmd {
	if p.ls.complete() || p.loading {
		return nil
	}
	return p.listFiltered(p.dir, p.ls.filter)
}

// complete reports whether the pane kept every entry its filter can show:
// all of the directory's, or all that match a filter it was listed with
// and that the current filter narrows.
func (k *kept) complete() bool {
	if k.total <= len(k.entries) {
		return true
	}
	return k.listFilter != "" && k.matched <= len(k.entries) &&
		strings.Contains(strings.ToLower(k.filter), strings.ToLower(k.listFilter))
}

// Counts returns the directory's entry count as last listed, and how many
// entries are shown (after the filter).
func (p *Pane) Counts() (total, shown int) { return p.ls.total, len(p.ls.shown) }

// countText is the title's note on a large or filtered directory ("" for
// a directory shown whole): "120000 entries, first 10000 shown (/ filters
// them all)", or with a filter "filter "img_01": 12 of 120000".
func (k *kept) countText() string {
	f := termtext.Line(k.filter)
	switch {
	case k.filter != "" && k.complete():
		return "filter \"" + f + "\": " + itoa(len(k.shown)) + " of " + itoa(k.total)
	case k.filter != "":
		return "filter \"" + f + "\": " + itoa(len(k.shown)) + " of the first " + itoa(len(k.entries)) + " of " + itoa(k.total) + " (enter: search them all)"
	case k.total > len(k.entries):
		return itoa(k.total) + " entries, first " + itoa(len(k.entries)) + " shown (/ filters them all)"
	}
	return ""
}
