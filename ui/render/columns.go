package render

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// Column is one column of the runtimes table: its title in the dashboard
// (Title) and in the `status` report (Long), whether it is right-aligned,
// and its cell for a runtime. Widths are the table's to choose (Widths).
type Column struct {
	Title, Long string
	Right       bool
	// Cell is r's text in this column at now; refresh is how often
	// session counts are listed (a count older than one refresh says its
	// age where it fits in w cells).
	Cell func(r *state.Runtime, now time.Time, refresh time.Duration, w int) string
	// Sort, when set, makes the column one the table sorts by, with its
	// own key (nil: it does not sort). A new column that sorts plugs in
	// with a Sort here, its place in Columns and its action's row in
	// keymap.
	Sort *SortBy
}

// SortBy is how a column orders the runtimes table: Word names the order
// in the table's title and the status line ("name", "expiry"); Action is
// the keymap action whose key sorts by the column (keymap.ActionSortName…);
// Cmp orders a before b when negative (slices.SortFunc). The table breaks
// ties by name and keeps gone runtimes last in either direction.
//
// A monitor column (MonColumn.Sort) has Figure instead of Cmp: r's key
// from what the monitor knows of it (nil: nothing yet) at now, smaller
// first; ok false (no figures) sorts after every runtime with figures in
// either direction.
type SortBy struct {
	Word, Action string
	Cmp          func(a, b *state.Runtime) int
	Figure       func(m *monitor.Runtime, now time.Time) (key float64, ok bool)
}

// The runtimes table's columns, in order. TOKEN's cell is TokenCell (it
// needs what the dashboard is doing, which a column does not know).
var (
	ColName = Column{Title: "NAME", Long: "RUNTIME", Cell: func(r *state.Runtime, _ time.Time, _ time.Duration, _ int) string { return r.ID() },
		Sort: &SortBy{Word: "name", Action: keymap.ActionSortName, Cmp: func(a, b *state.Runtime) int { return strings.Compare(a.Name, b.Name) }}}
	ColSpec = Column{Title: "SPEC", Long: "SPEC", Cell: func(r *state.Runtime, _ time.Time, _ time.Duration, w int) string { return SpecFit(r.Spec(), w) },
		Sort: &SortBy{Word: "spec", Action: keymap.ActionSortSpec, Cmp: func(a, b *state.Runtime) int { return strings.Compare(a.Spec(), b.Spec()) }}}
	ColVersion = Column{Title: "VERSION", Long: "VERSION", Cell: func(r *state.Runtime, _ time.Time, _ time.Duration, _ int) string { return r.DisplayVersion() },
		Sort: &SortBy{Word: "version", Action: keymap.ActionSortVersion, Cmp: func(a, b *state.Runtime) int { return strings.Compare(a.DisplayVersion(), b.DisplayVersion()) }}}
	ColSess = Column{Title: "SESS", Long: "SESSIONS", Right: true, Cell: sessCell,
		Sort: &SortBy{Word: "sessions", Action: keymap.ActionSortSessions, Cmp: cmpSessions}}
	ColToken = Column{Title: "   TOKEN", Long: "TOKEN",
		Sort: &SortBy{Word: "expiry", Action: keymap.ActionSortExpiry, Cmp: cmpExpiry}}
)

// Columns are the runtimes table's columns in order; Sortable picks those
// the table sorts by.
var Columns = []*Column{&ColName, &ColSpec, &ColVersion, &ColSess, &ColToken}

// Sortable returns the columns the table sorts by in table order: those
// of Columns that have a Sort, with the monitor columns' (MonColumn.Sort)
// after NAME.
func Sortable() []*Column {
	var out []*Column
	for _, c := range Columns {
		if c.Sort != nil {
			out = append(out, c)
		}
		if c == &ColName {
			for _, m := range MonColumns {
				out = append(out, m.Sort)
			}
		}
	}
	return out
}

// cmpSessions orders by session count, fewest first; a count not listed
// (unknown, failed, gone) sorts after every count.
func cmpSessions(a, b *state.Runtime) int {
	n := func(r *state.Runtime) int {
		if r.Gone() || !r.SessionsFresh.Loaded() || r.SessionsFresh.Stale() {
			return 1 << 30
		}
		return len(r.Sessions)
	}
	return n(a) - n(b)
}

// cmpExpiry orders by the proxy token's expireTime, soonest first, an
// unknown one last.
func cmpExpiry(a, b *state.Runtime) int {
	ae, be := a.ExpireTime(), b.ExpireTime()
	switch {
	case ae.IsZero() && be.IsZero():
		return 0
	case ae.IsZero():
		return 1
	case be.IsZero():
		return -1
	}
	return ae.Compare(be)
}

// sessCell is the session count: "–" unknown or gone, "?" when listing
// failed, and a count older than one refresh (waiting for the call
// budget) with its age where w has room ("12 14m").
func sessCell(r *state.Runtime, now time.Time, refresh time.Duration, w int) string {
	switch {
	case r.Gone():
	case r.SessionsFresh.Stale():
		return "?"
	case r.SessionsFresh.Loaded():
		sess := strconv.Itoa(len(r.Sessions))
		if age := now.Sub(r.SessionsFresh.FetchedAt); refresh > 0 && age > refresh+2*time.Second {
			if aged := sess + " " + state.FormatDuration(age); len(aged) <= w {
				return aged
			}
		}
		return sess
	}
	return "–"
}

// Widths are the cell widths of the runtimes table. Every row kind
// (runtime, gone runtime, create in progress) starts with the same
// RowPrefix cells: the cursor, a marker ("!" renewal failed, "+" being
// created) and a mark cell ("*" marked with space, else blank), so the
// name column never shifts.
type Widths struct {
	Name, Spec, Version, Sess, Token int
	// Monitor is set when the monitor columns (MonColumns) follow NAME
	// (WidthsWithMonitor).
	Monitor bool
}

// Shows reports whether the table laid out in c shows col (VERSION only
// from 80 cells up, a monitor column's sort only with the monitor
// columns).
func (c Widths) Shows(col *Column) bool {
	if col.Sort != nil && col.Sort.Figure != nil {
		return c.Monitor
	}
	return col != &ColVersion || c.Version > 0
}

// RowPrefix is the width of the cursor and marker cells before the name.
const RowPrefix = 3

// tokenWordWidth fits the longest status word of the TOKEN column:
// "RENEW FAILED", "seen 59m59s ago", "deleting… 9m59s", "EXPIRING ↻";
// tokenWordMin the words a healthy or expiring token shows ("OK",
// "EXPIRING ↻"), all the column keeps on a narrow screen.
const (
	tokenWordWidth = 15
	tokenWordMin   = 10
)

// minSpecWidth is the narrowest the SPEC column gets ("GPU/T…").
const minSpecWidth = 6

// shapeWords are the shape words SpecFit shortens, longest saving first.
var shapeWords = strings.NewReplacer("/STANDARD", "/STD", "/HIGHMEM", "/HIMEM")

// SpecFit is spec ("GPU/T4/HIGHMEM") in w cells: whole when it fits,
// else with its shape word shortened ("GPU/T4/HIMEM", "CPU/STD"), and
// only then cut ("GPU/A100/H…"); the accelerator is what tells two
// runtimes apart, so it goes last.
func SpecFit(spec string, w int) string {
	if w <= 0 || ansi.StringWidth(spec) <= w {
		return spec
	}
	return shapeWords.Replace(spec)
}

// WidthsFor lays the table out in w cells for names up to nameNeed cells
// wide (fitWidths). Below 80 cells there is no VERSION column (Version 0).
func WidthsFor(w, nameNeed int) Widths {
	c := Widths{Spec: 16, Sess: 4, Token: 10 + tokenWordWidth}
	if w >= 80 {
		// Room for a count's age ("12 14m3s") beside it.
		c.Spec, c.Version, c.Sess = 18, 10, 8
	}
	c, _ = fitWidths(c, w, nameNeed)
	return c
}

// fitWidths fits the table of natural widths c (SPEC, VERSION, SESS,
// TOKEN as set; NAME nameNeed, within 8–48) into w cells. On a narrow
// screen it cuts what says least first: the TOKEN column's room for its
// longer words (down to tokenWordMin), SESS's room for a count's age,
// then SPEC (whose shape word SpecFit shortens; down to minSpecWidth),
// and NAME last (down to 8 cells; ok is false when NAME could not have
// nameNeed). On a wide screen the extra cells are spread over NAME,
// SPEC and VERSION, at most maxSpread each (the rest after TOKEN), so the
// figures sit near the name instead of far off behind one long blank
// name or wide gaps.
func fitWidths(c Widths, w, nameNeed int) (_ Widths, ok bool) {
	need := frame.Clamp(nameNeed, 8, 48)
	fixed := func() int {
		n := RowPrefix + 1 + c.Sess + 1 + c.Token + 1 // all but the name and spec cells
		if c.Version > 0 {
			n += c.Version + 1
		}
		if c.Monitor {
			n += MonWidth()
		}
		return n
	}
	short := c.Spec - (w - fixed() - need)
	if cut := min(max(short, 0), c.Token-10-tokenWordMin); cut > 0 {
		c.Token, short = c.Token-cut, short-cut
	}
	if cut := min(max(short, 0), c.Sess-4); cut > 0 {
		c.Sess, short = c.Sess-cut, short-cut
	}
	room := w - fixed() // name + spec
	c.Spec = frame.Clamp(room-need, minSpecWidth, c.Spec)
	c.Name = max(room-c.Spec, 8)
	if extra := c.Name - need; extra > 0 {
		cols := 2
		if c.Version > 0 {
			cols = 3
		}
		share := min(extra/cols, maxSpread)
		c.Name -= extra - share - extra%cols
		c.Spec += share
		if c.Version > 0 {
			c.Version += share
		}
		// Past maxSpread a column the rest goes after the last column, so
		// the figures stay near the name on a very wide screen.
		if rest := extra - extra%cols - share*cols; rest > 0 {
			c.Token += rest
		}
	}
	return c, c.Name >= need
}

// maxSpread is the most extra cells a wide screen gives each of NAME,
// SPEC and VERSION; what is left over pads the row's end.
const maxSpread = 6

// Header is the table's column header line (unstyled) for widths c, the
// column the rows are sorted by (by; nil: none) carrying an arrow, "↑"
// ascending or "↓" reversed, so the order reads without colour.
func Header(c Widths, by *Column, reverse bool) string {
	t := func(col *Column, w int) string { return headerTitle(col, w, by, reverse) }
	var h strings.Builder
	h.WriteString(strings.Repeat(" ", RowPrefix))
	h.WriteString(frame.Fit(t(&ColName, c.Name), c.Name) + " ")
	if c.Monitor {
		monHeader(&h, by, reverse)
	}
	h.WriteString(frame.Fit(t(&ColSpec, c.Spec), c.Spec) + " ")
	if c.Version > 0 {
		h.WriteString(frame.Fit(t(&ColVersion, c.Version), c.Version) + " ")
	}
	h.WriteString(frame.FitRight(t(&ColSess, c.Sess), c.Sess) + " " + frame.Fit(t(&ColToken, c.Token), c.Token))
	return strings.TrimRight(h.String(), " ")
}

// headerTitle is col's title in w cells, with the arrow when the rows
// are sorted by it (by).
func headerTitle(col *Column, w int, by *Column, reverse bool) string {
	if col != by {
		return col.Title
	}
	arrow := "↑"
	if reverse {
		arrow = "↓"
	}
	// A title too wide for its arrow loses its last letters, not the
	// arrow ("SES↑").
	return ansi.Truncate(col.Title, max(w-1, 0), "") + arrow
}

// RowStart writes the cursor, marker and mark cells of a row (marked:
// "*", chosen with space for a bulk delete or close).
func RowStart(b *strings.Builder, selected bool, marker byte, marked bool) {
	if selected {
		b.WriteString("›")
	} else {
		b.WriteByte(' ')
	}
	b.WriteByte(marker)
	if marked {
		b.WriteByte('*')
	} else {
		b.WriteByte(' ')
	}
}
