package ui

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/filter"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// runtimesPane is the runtimes table's state: the sorted, filtered rows
// (re-built in Update only when the data, sort or filter changed), the
// selection (by name, so it survives re-sorting), the cursor and the
// first visible row.
type runtimesPane struct {
	rows        []*state.Runtime
	rowsVersion uint64
	rowsDirty   bool
	nameWidth   int    // the widest runtime id among rows
	selected    string // selected runtime name
	cursor      int
	offset      int
	sortKey     state.SortKey
	filter      string
}

// runtimesKey handles the table's own keys (moving the cursor).
func (m *Model) runtimesKey(k tea.KeyMsg) (common.Effect, bool) {
	if n, ok := moveKey(m, k, m.cx.Layout.TableRows); ok {
		return common.Move{N: n}, true
	}
	return nil, false
}

// moveKey is how far a movement key moves in a list whose page is page
// rows; ok is false for other keys.
func moveKey(m *Model, k tea.KeyMsg, page int) (int, bool) {
	keys := m.cx.Keys
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

func (m *Model) move(delta int) {
	if len(m.rows) == 0 {
		return
	}
	m.cursor = frame.Clamp(m.cursor+delta, 0, len(m.rows)-1)
	if m.rows[m.cursor].Name != m.selected {
		m.selected = m.rows[m.cursor].Name
		m.sessCursor = 0
	}
	m.scroll()
}

// syncRows re-sorts and re-filters only when the data, sort or filter
// changed and keeps the selection on the same runtime by name (Update then
// scrolls it into view).
func (m *Model) syncRows() {
	if !m.rowsDirty && m.rowsVersion == m.cx.Snap.Version() {
		return
	}
	m.rows = m.cx.Snap.Rows(m.sortKey, m.filter)
	m.rowsVersion, m.rowsDirty = m.cx.Snap.Version(), false
	found := false
	m.nameWidth = 0
	for i, r := range m.rows {
		m.nameWidth = max(m.nameWidth, ansi.StringWidth(r.ID()))
		if r.Name == m.selected {
			m.cursor, found = i, true
		}
	}
	if !found {
		m.cursor = frame.Clamp(m.cursor, 0, len(m.rows)-1)
		m.selected = ""
		if len(m.rows) > 0 {
			m.selected = m.rows[m.cursor].Name
		}
		m.sessCursor = 0
	}
}

// runtimeRows is how many runtime rows the table shows: its height less
// the create-in-progress rows above them, which leave at least one.
func (m *Model) runtimeRows() int {
	return m.cx.Layout.TableRows - min(len(m.ax.creates), max(0, m.cx.Layout.TableRows-1))
}

// scroll keeps the cursor inside the visible window of the table's
// runtime rows.
func (m *Model) scroll() {
	h := m.runtimeRows()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+h {
		m.offset = m.cursor - h + 1
	}
	m.offset = frame.Clamp(m.offset, 0, max(0, len(m.rows)-h))
}

// columns are the cell widths of the runtimes table. Every row kind
// (runtime, gone runtime, create in progress) starts with the same
// rowPrefix cells: the cursor, a marker ("!" renewal failed, "+" being
// created) and a space, so the name column never shifts.
type columns struct{ name, spec, version, sess, token int }

// rowPrefix is the width of the cursor and marker cells before the name.
const rowPrefix = 3

// tokenWordWidth fits the longest status word of the TOKEN column:
// "RENEW FAILED", "seen 59m ago", "deleting… 9:59", "EXPIRING ↻".
const tokenWordWidth = 14

// minSpecWidth is the narrowest the SPEC column gets ("GPU/T…").
const minSpecWidth = 6

// columnsFor lays the table out in w cells for names up to nameNeed cells
// wide: the NAME column is cut last, so on a narrow screen SPEC shortens
// first (down to minSpecWidth), then NAME.
func columnsFor(w, nameNeed int) columns {
	c := columns{spec: 16, sess: 4, token: 10 + tokenWordWidth}
	if w >= 80 {
		// Room for a count's age ("12 14m") beside it.
		c.spec, c.version, c.sess = 18, 10, 6
	}
	used := rowPrefix + 1 + c.sess + 1 + c.token + 1 // all but the name and spec cells
	if c.version > 0 {
		used += c.version + 1
	}
	room := w - used // name + spec
	c.spec = frame.Clamp(room-frame.Clamp(nameNeed, 8, 48), minSpecWidth, c.spec)
	c.name = min(max(room-c.spec, 8), 48)
	return c
}

// rowStart writes the cursor and marker cells.
func rowStart(b *strings.Builder, selected bool, marker byte) {
	if selected {
		b.WriteString("›")
	} else {
		b.WriteByte(' ')
	}
	b.WriteByte(marker)
	b.WriteByte(' ')
}

// tableView is the runtimes pane: exactly l.TableRows+2 lines (title,
// column header, rows).
func (m *Model) tableView(now time.Time, l common.Layout) []string {
	lines := make([]string, 0, l.TableRows+2)
	// Gone rows (reclaimed by Colab) are not runtimes any more: they are
	// counted apart.
	shown, shownGone := 0, 0
	for _, r := range m.rows {
		if r.Gone() {
			shownGone++
		} else {
			shown++
		}
	}
	live, gone := m.cx.Snap.Counts()
	_, filtering := find[*filter.Overlay](m)
	title := "RUNTIMES " + strconv.Itoa(shown)
	if m.filter != "" || filtering {
		title += " of " + strconv.Itoa(live)
	}
	extra := ""
	if gone > 0 {
		extra = " · " + strconv.Itoa(shownGone) + " gone"
	}
	extra += " · sort: " + m.sortKey.String()
	if m.filter != "" {
		extra += " · filter: " + termtext.Line(m.filter)
	}
	if len(m.rows) > l.TableRows {
		end := min(m.offset+m.runtimeRows(), len(m.rows))
		extra += " · " + strconv.Itoa(m.offset+1) + "–" + strconv.Itoa(end)
	}
	lines = append(lines, common.PanelTitle(m.cx, m.focus == panelRuntimes, title)+m.cx.Styles.Dim.Render(extra))

	need := m.nameWidth
	for _, op := range m.ax.creates {
		need = max(need, ansi.StringWidth(op.rowName()))
	}
	c := columnsFor(l.W, need)
	var h strings.Builder
	h.WriteString(strings.Repeat(" ", rowPrefix))
	h.WriteString(frame.Fit("NAME", c.name) + " " + frame.Fit("SPEC", c.spec) + " ")
	if c.version > 0 {
		h.WriteString(frame.Fit("VERSION", c.version) + " ")
	}
	h.WriteString(frame.FitRight("SESS", c.sess) + " " + frame.Fit("   TOKEN", c.token))
	lines = append(lines, m.cx.Styles.ColHeader.Render(strings.TrimRight(h.String(), " ")))

	start := len(lines)
	creating := m.createRows(now, c)
	creating = creating[:l.TableRows-m.runtimeRows()]
	lines = append(lines, creating...)
	if len(m.rows) == 0 && len(creating) == 0 {
		lines = append(lines, m.cx.Styles.Dim.Render(m.emptyTableText(live+gone)))
	}
	stale := m.cx.Snap.RuntimesFresh.Stale()
	for i := m.offset; i < min(m.offset+m.runtimeRows(), len(m.rows)); i++ {
		lines = append(lines, m.row(now, m.rows[i], c, i == m.cursor, stale))
	}
	return frame.PadLines(lines, start+l.TableRows)
}

// emptyTableText says why the table has no row; known is how many
// runtimes the snapshot has.
func (m *Model) emptyTableText(known int) string {
	f := m.cx.Snap.RuntimesFresh
	switch {
	case f.Loading():
		return "  loading runtimes…"
	case f.Stale() && !f.Loaded():
		return "  could not list runtimes: " + errLine(f.Err)
	case known > 0:
		return "  no runtime matches the filter"
	}
	msg := "  no runtimes"
	if k := m.cx.Keys.NewRuntime; k.Enabled() && len(k.Keys()) > 0 {
		msg += ": press " + common.KeyName(k.Keys()[0]) + " to create one"
	}
	return msg
}

// tokenCell returns the countdown (right-aligned in 9 cells, plus a
// space) and the status word of r's proxy token. An expired token reads
// EXPIRED whatever else is going on with it: a failed renewal shows as the
// row's "!" marker then, never in place of the expiry.
func (m *Model) tokenCell(now time.Time, r *state.Runtime) (cd, word string, st state.TokenStatus) {
	if r.Gone() {
		return "     GONE ", "seen " + state.FormatAgo(now.Sub(r.LastSeen)), state.TokenUnknown
	}
	st, rem := r.Token(now, m.expiringThreshold(r.Name))
	cd = "–"
	if st != state.TokenUnknown {
		cd = state.FormatCountdown(rem)
	}
	word = st.String()
	switch busy := m.busyText(r.Name, now); {
	case busy != "":
		word = busy
	case m.renewInFlight(r.Name):
		word += " ↻"
	case errors.Is(r.RenewErr, state.ErrNotExtended) && st != state.TokenExpired:
		word = "NOT EXTENDED" // the renewal did not extend the token; details say more
	case r.RenewErr != nil && st != state.TokenExpired:
		word = "RENEW FAILED" // the retry time is in the details
	}
	return frame.FitRight(cd, 9) + " ", word, st
}

func (m *Model) row(now time.Time, r *state.Runtime, c columns, selected, stale bool) string {
	var b strings.Builder
	b.Grow(c.name + c.spec + c.version + c.token + 16)
	marker := byte(' ')
	if r.RenewErr != nil && !r.Gone() {
		marker = '!'
	}
	rowStart(&b, selected, marker)
	b.WriteString(frame.Fit(r.ID(), c.name))
	b.WriteByte(' ')
	b.WriteString(frame.Fit(r.Spec(), c.spec))
	b.WriteByte(' ')
	if c.version > 0 {
		b.WriteString(frame.Fit(r.DisplayVersion(), c.version))
		b.WriteByte(' ')
	}
	sess := "–"
	switch {
	case r.Gone():
	case r.SessionsFresh.Stale():
		sess = "?"
	case r.SessionsFresh.Loaded():
		sess = strconv.Itoa(len(r.Sessions))
		// A count older than one refresh (waiting for the call budget)
		// says how old it is, where the column has room for it.
		if age := now.Sub(r.SessionsFresh.FetchedAt); age > m.opts.RefreshInterval+2*time.Second {
			if aged := sess + " " + state.FormatAge(age); len(aged) <= c.sess {
				sess = aged
			}
		}
	}
	b.WriteString(frame.FitRight(sess, c.sess))
	b.WriteByte(' ')
	cd, word, st := m.tokenCell(now, r)
	b.WriteString(cd)
	switch {
	case selected:
		b.WriteString(frame.Fit(word, c.token-10))
		return m.cx.Styles.Selected.Render(b.String())
	case r.Gone():
		b.WriteString(strings.TrimRight(frame.Fit(word, c.token-10), " "))
		return m.cx.Styles.Gone.Render(b.String())
	case stale:
		b.WriteString(strings.TrimRight(frame.Fit(word, c.token-10), " "))
		return m.cx.Styles.Stale.Render(b.String())
	}
	word = strings.TrimRight(frame.Fit(word, c.token-10), " ")
	// Colour only the status word; the countdown stays plain.
	b.WriteString(m.cx.Styles.Token[st].Render(word))
	return b.String()
}
