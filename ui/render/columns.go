package render

import (
	"strconv"
	"strings"
	"time"

	"github.com/colabdash/colabdash/state"
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
}

// The runtimes table's columns, in order. TOKEN's cell is TokenCell (it
// needs what the dashboard is doing, which a column does not know).
var (
	ColName    = Column{Title: "NAME", Long: "RUNTIME", Cell: func(r *state.Runtime, _ time.Time, _ time.Duration, _ int) string { return r.ID() }}
	ColSpec    = Column{Title: "SPEC", Long: "SPEC", Cell: func(r *state.Runtime, _ time.Time, _ time.Duration, _ int) string { return r.Spec() }}
	ColVersion = Column{Title: "VERSION", Long: "VERSION", Cell: func(r *state.Runtime, _ time.Time, _ time.Duration, _ int) string { return r.DisplayVersion() }}
	ColSess    = Column{Title: "SESS", Long: "SESSIONS", Right: true, Cell: sessCell}
	ColToken   = Column{Title: "   TOKEN", Long: "TOKEN"}
)

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
			if aged := sess + " " + state.FormatAge(age); len(aged) <= w {
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
// created) and a space, so the name column never shifts.
type Widths struct {
	Name, Spec, Version, Sess, Token int
	// Monitor is set when the monitor columns (MonColumns) follow NAME
	// (WidthsWithMonitor).
	Monitor bool
}

// RowPrefix is the width of the cursor and marker cells before the name.
const RowPrefix = 3

// tokenWordWidth fits the longest status word of the TOKEN column:
// "RENEW FAILED", "seen 59m ago", "deleting… 9:59", "EXPIRING ↻".
const tokenWordWidth = 14

// minSpecWidth is the narrowest the SPEC column gets ("GPU/T…").
const minSpecWidth = 6

// WidthsFor lays the table out in w cells for names up to nameNeed cells
// wide: the NAME column is cut last, so on a narrow screen SPEC shortens
// first (down to minSpecWidth), then NAME. Below 80 cells there is no
// VERSION column (Version 0).
func WidthsFor(w, nameNeed int) Widths {
	c := Widths{Spec: 16, Sess: 4, Token: 10 + tokenWordWidth}
	if w >= 80 {
		// Room for a count's age ("12 14m") beside it.
		c.Spec, c.Version, c.Sess = 18, 10, 6
	}
	used := RowPrefix + 1 + c.Sess + 1 + c.Token + 1 // all but the name and spec cells
	if c.Version > 0 {
		used += c.Version + 1
	}
	room := w - used // name + spec
	c.Spec = frame.Clamp(room-frame.Clamp(nameNeed, 8, 48), minSpecWidth, c.Spec)
	c.Name = min(max(room-c.Spec, 8), 48)
	return c
}

// Header is the table's column header line (unstyled) for widths c.
func Header(c Widths) string {
	var h strings.Builder
	h.WriteString(strings.Repeat(" ", RowPrefix))
	h.WriteString(frame.Fit(ColName.Title, c.Name) + " ")
	if c.Monitor {
		monHeader(&h)
	}
	h.WriteString(frame.Fit(ColSpec.Title, c.Spec) + " ")
	if c.Version > 0 {
		h.WriteString(frame.Fit(ColVersion.Title, c.Version) + " ")
	}
	h.WriteString(frame.FitRight(ColSess.Title, c.Sess) + " " + frame.Fit(ColToken.Title, c.Token))
	return strings.TrimRight(h.String(), " ")
}

// RowStart writes the cursor and marker cells of a row.
func RowStart(b *strings.Builder, selected bool, marker byte) {
	if selected {
		b.WriteString("›")
	} else {
		b.WriteByte(' ')
	}
	b.WriteByte(marker)
	b.WriteByte(' ')
}
