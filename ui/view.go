package ui

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/termtext"
)

// layout is the geometry of one frame.
type layout struct {
	w, h       int
	tooSmall   bool
	tableRows  int  // visible runtime rows
	bottomRows int  // content lines of the sessions/details area
	split      bool // sessions and details side by side
}

// fixed lines: header 2, runtimes title 1, column header 1, bottom title 1,
// footer 2.
const fixedLines = 7

func (m Model) layout() layout {
	w, h := m.width, m.height
	if w == 0 && h == 0 {
		w, h = 80, 24 // before the first WindowSizeMsg
	}
	l := layout{w: w, h: h}
	if w < MinWidth || h < MinHeight {
		l.tooSmall = true
		return l
	}
	rest := h - fixedLines
	l.tableRows = max(1, rest*3/5)
	l.bottomRows = rest - l.tableRows
	l.split = w >= 100
	return l
}

// View renders the frame. Rows are sorted and filtered in Update and only
// the visible window is drawn, so rendering follows the visible rows; only
// the header's runtime counts walk the whole list. No line is wider than
// the terminal.
func (m Model) View() string {
	l := m.layout()
	if l.tooSmall {
		return m.tooSmallView(l)
	}
	now := m.now()
	lines := make([]string, 0, l.h)
	lines = m.header(lines, now, l)
	switch {
	case m.prof.picking:
		lines = padLines(append(lines, m.profilePickerLines()...), l.h-2)
	case m.showEvents:
		lines = append(lines, m.eventLines(l.w, l.h-2-len(lines))...)
		lines = padLines(lines, l.h-2)
	case m.showHelp:
		lines = append(lines, m.st.panelFocus.Render("HELP")+m.st.dim.Render("  (? or esc to close)"))
		all, rows := m.helpLines(l.w), m.helpRows(l)
		off := max(0, min(m.helpOffset, len(all)-rows))
		shown := all[off:min(off+rows, len(all))]
		if off+rows < len(all) && len(shown) > 0 {
			shown = append(shown[:len(shown)-1:len(shown)-1], m.st.dim.Render(" ↓ more (j/k, pgup/pgdn)"))
		}
		lines = padLines(append(lines, shown...), l.h-2)
	case m.ax.exec != nil && m.ax.exec.open:
		lines = append(lines, m.execView(now, l.w, l.h-4)...)
	default:
		lines = m.table(lines, now, l)
		lines = m.bottom(lines, now, l)
	}
	lines = m.footer(lines, now, l)
	if d := m.ax.dlg; d != nil {
		lines = overlay(lines, d.lines(m.st, l.w), l.w)
	}
	var b strings.Builder
	b.Grow(l.h * (l.w + 16))
	for i, ln := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ansi.Truncate(ln, l.w, "…"))
	}
	// Every cell below was made safe where it was built; the frame is
	// filtered once more so a missed path can only lose characters, never
	// drive the terminal.
	return termtext.Frame(b.String())
}

func (m Model) tooSmallView(l layout) string {
	msg := []string{
		"Terminal too small",
		strconv.Itoa(l.w) + "×" + strconv.Itoa(l.h) + ", need " + strconv.Itoa(MinWidth) + "×" + strconv.Itoa(MinHeight),
		"Enlarge the window, or q to quit.",
	}
	for i := range msg {
		msg[i] = ansi.Truncate(msg[i], l.w, "…")
	}
	if l.h < len(msg) {
		msg = msg[:max(l.h, 1)]
	}
	return strings.Join(msg, "\n")
}

// fit renders s (plain, possibly untrusted text: termtext.Line), truncates
// it to w display cells with "…" and pads it to exactly w cells. Wide and
// combining characters are measured by their display width.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = termtext.Line(s)
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// fitRight is fit with the text aligned right.
func fitRight(s string, w int) string {
	s = termtext.Line(s)
	sw := ansi.StringWidth(s)
	if sw >= w {
		return fit(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

func errLine(err error) string {
	if err == nil {
		return ""
	}
	return termtext.Line(api.OneLine(err.Error(), 300))
}

func (m Model) header(lines []string, now time.Time, l layout) []string {
	s := m.snap
	// The profile and tier come first, then the badges; a get_subscription
	// error gets what is left of the line (the rest is in L), and the
	// (possibly long) account is what truncation may cut.
	var b strings.Builder
	b.WriteString(m.st.title.Render("colabdash"))
	if m.opts.Profile != "" {
		b.WriteString(" · profile " + termtext.Line(m.opts.Profile))
	}
	if m.prof.switching != "" {
		b.WriteString(" → " + termtext.Line(m.prof.switching) + "…")
	}
	b.WriteString(" · tier ")
	var badges string
	if m.opts.Demo {
		badges += " " + m.st.badge.Render(" DEMO ")
	}
	if m.opts.ReadOnly {
		badges += " " + m.st.badge.Render(" READONLY ")
	}
	where := m.opts.Account
	if where == "" {
		where = m.opts.Endpoint
	}
	if where != "" {
		where = " · " + termtext.Line(where)
	}
	switch {
	case s.SubscriptionFresh.Loaded():
		b.WriteString(m.st.bold.Render(termtext.Line(s.Subscription.Tier.Label())))
	case s.SubscriptionFresh.Stale():
		// Retried with every refresh until it succeeds (refresh).
		b.WriteString(m.st.bold.Render("unknown"))
		const wrap = len(" (retrying: )")
		room := l.w - ansi.StringWidth(b.String()) - ansi.StringWidth(badges) - wrap
		if room >= 8 {
			reason := termtext.Line(api.OneLine(s.SubscriptionFresh.Err.Error(), 60))
			if ansi.StringWidth(reason) > room {
				reason = ansi.Truncate(reason, room, "…")
			}
			b.WriteString(" (retrying: " + reason + ")")
		} else {
			b.WriteString(" (retrying)")
		}
		if ansi.StringWidth(b.String()+where+badges) > l.w {
			where = "" // the reason and the badges before the account
		}
	default:
		b.WriteString(m.st.bold.Render("…")) // get_subscription still loading
	}
	b.WriteString(where + badges)
	lines = append(lines, b.String())

	f := s.RuntimesFresh
	var c string
	switch {
	case f.Loading():
		c = "◌ connecting…"
	case f.Stale() && !f.Loaded():
		c = m.st.errText.Render("✕ not connected")
	case f.Stale():
		c = m.st.warn.Render("▲ STALE") + " · updated " + state.FormatAgo(now.Sub(f.FetchedAt))
	default:
		c = "● connected · updated " + state.FormatAgo(now.Sub(f.FetchedAt))
	}
	if f.Stale() {
		// The retry time and hint come before the (possibly long) reason,
		// which is the part truncation may cut.
		if d := m.nextRefresh.Sub(now); d > 0 {
			c += " · retry in " + state.FormatCountdown(d) // rounds up, like every countdown
		}
		var ae *api.Error
		if errors.As(f.Err, &ae) && ae.IsAuth() {
			c += " · check your Google credentials"
		}
		c += " · refresh failing: " + errLine(f.Err)
	}
	lines = append(lines, c)
	return lines
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

func columnsFor(w int) columns {
	c := columns{spec: 16, sess: 4, token: 10 + tokenWordWidth}
	if w >= 80 {
		c.spec, c.version = 18, 10
	}
	used := rowPrefix + c.spec + 1 + c.sess + 1 + c.token + 1
	if c.version > 0 {
		used += c.version + 1
	}
	c.name = min(max(w-used, 8), 48)
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

func (m Model) panelTitle(focused bool, text string) string {
	text = termtext.Line(text)
	if focused {
		return m.st.panelFocus.Render("▶ " + text)
	}
	return m.st.panelTitle.Render("  " + text)
}

func (m Model) table(lines []string, now time.Time, l layout) []string {
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
	live, gone := m.snap.Counts()
	title := "RUNTIMES " + strconv.Itoa(shown)
	if m.filter != "" || m.filtering {
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
	if len(m.rows) > l.tableRows {
		end := min(m.offset+l.tableRows, len(m.rows))
		extra += " · " + strconv.Itoa(m.offset+1) + "–" + strconv.Itoa(end)
	}
	lines = append(lines, m.panelTitle(m.focus == panelRuntimes, title)+m.st.dim.Render(extra))

	c := columnsFor(l.w)
	var h strings.Builder
	h.WriteString(strings.Repeat(" ", rowPrefix))
	h.WriteString(fit("NAME", c.name) + " " + fit("SPEC", c.spec) + " ")
	if c.version > 0 {
		h.WriteString(fit("VERSION", c.version) + " ")
	}
	h.WriteString(fitRight("SESS", c.sess) + " " + fit("   TOKEN", c.token))
	lines = append(lines, m.st.colHeader.Render(strings.TrimRight(h.String(), " ")))

	start := len(lines)
	creating := m.createRows(now, c)
	if len(creating) > l.tableRows-1 {
		creating = creating[:max(0, l.tableRows-1)]
	}
	lines = append(lines, creating...)
	if len(m.rows) == 0 && len(creating) == 0 {
		f := m.snap.RuntimesFresh
		msg := "  no runtimes"
		if k := m.keys.NewRuntime; k.Enabled() && len(k.Keys()) > 0 {
			msg += ": press " + keyName(k.Keys()[0]) + " to create one"
		}
		switch {
		case f.Loading():
			msg = "  loading runtimes…"
		case f.Stale() && !f.Loaded():
			msg = "  could not list runtimes: " + errLine(f.Err)
		case live+gone > 0:
			msg = "  no runtime matches the filter"
		}
		lines = append(lines, m.st.dim.Render(msg))
	}
	end := min(m.offset+l.tableRows-len(creating), len(m.rows))
	if m.cursor >= end && len(creating) > 0 { // keep the selection in view
		end = min(m.cursor+1, len(m.rows))
	}
	stale := m.snap.RuntimesFresh.Stale()
	for i := max(m.offset, end-(l.tableRows-len(creating))); i < end; i++ {
		lines = append(lines, m.row(now, m.rows[i], c, i == m.cursor, stale))
	}
	for len(lines) < start+l.tableRows {
		lines = append(lines, "")
	}
	return lines
}

// tokenCell returns the countdown (right-aligned in 9 cells, plus a
// space) and the status word of r's proxy token.
func (m Model) tokenCell(now time.Time, r *state.Runtime) (cd, word string, st state.TokenStatus) {
	if r.Gone() {
		return "     GONE ", "seen " + state.FormatAgo(now.Sub(r.LastSeen)), state.TokenUnknown
	}
	st, rem := r.Token(now, m.opts.ExpiringThreshold)
	cd = "–"
	if st != state.TokenUnknown {
		cd = state.FormatCountdown(rem)
	}
	word = st.String()
	_, renewing := m.pending[callKey{kind: callRenew, runtime: r.Name}]
	switch {
	case m.busyText(r.Name, now) != "":
		word = m.busyText(r.Name, now)
	case renewing:
		word += " ↻"
	case r.RenewErr != nil:
		word = "RENEW FAILED" // the retry time is in the details
	}
	return fitRight(cd, 9) + " ", word, st
}

func (m Model) row(now time.Time, r *state.Runtime, c columns, selected, stale bool) string {
	var b strings.Builder
	b.Grow(c.name + c.spec + c.version + c.token + 16)
	marker := byte(' ')
	if r.RenewErr != nil && !r.Gone() {
		marker = '!'
	}
	rowStart(&b, selected, marker)
	b.WriteString(fit(r.ID(), c.name))
	b.WriteByte(' ')
	b.WriteString(fit(r.Spec(), c.spec))
	b.WriteByte(' ')
	if c.version > 0 {
		b.WriteString(fit(r.DisplayVersion(), c.version))
		b.WriteByte(' ')
	}
	sess := "–"
	switch {
	case r.Gone():
	case r.SessionsFresh.Stale():
		sess = "?"
	case r.SessionsFresh.Loaded():
		sess = strconv.Itoa(len(r.Sessions))
	}
	b.WriteString(fitRight(sess, c.sess))
	b.WriteByte(' ')
	cd, word, st := m.tokenCell(now, r)
	b.WriteString(cd)
	switch {
	case selected:
		b.WriteString(fit(word, c.token-10))
		return m.st.selected.Render(b.String())
	case r.Gone():
		b.WriteString(strings.TrimRight(fit(word, c.token-10), " "))
		return m.st.gone.Render(b.String())
	case stale:
		b.WriteString(strings.TrimRight(fit(word, c.token-10), " "))
		return m.st.stale.Render(b.String())
	}
	word = strings.TrimRight(fit(word, c.token-10), " ")
	// Colour only the status word; the countdown stays plain.
	b.WriteString(m.st.token[st].Render(word))
	return b.String()
}

// bottom renders the sessions and details panels in l.bottomRows+1 lines.
// Wide terminals (l.split) put them side by side; narrower ones stack them,
// sessions above details, so the sessions panel (which tab focuses and x
// acts on) is always on screen. Expanded details (enter) take the room the
// sessions panel does not need while it is not focused.
func (m Model) bottom(lines []string, now time.Time, l layout) []string {
	r := m.snap.Runtime(m.selected)
	n := l.bottomRows + 1
	expanded := m.showDetails && m.focus != panelSessions
	if !l.split {
		ns := max(2, (n+1)/2)
		if expanded {
			ns = 2
		}
		ns = min(ns, n-2) // details keep a title and one line
		lines = append(lines, m.sessions(r, l.w, ns)...)
		return append(lines, m.details(now, r, l.w, n-ns)...)
	}
	if expanded {
		return append(lines, m.details(now, r, l.w, n)...)
	}
	sw := l.w * 2 / 5
	dw := l.w - sw - 3
	left := m.sessions(r, sw, n)
	right := m.details(now, r, dw, n)
	sep := m.st.dim.Render(" │ ")
	for i := range left {
		lines = append(lines, padTo(left[i], sw)+sep+right[i])
	}
	return lines
}

// padTo pads a possibly styled line to w cells (truncating if longer).
func padTo(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-sw)
}

// sessions renders the sessions panel: exactly n lines of width ≤ w.
func (m Model) sessions(r *state.Runtime, w, n int) []string {
	out := make([]string, 0, n)
	focused := m.focus == panelSessions
	if r == nil {
		out = append(out, m.panelTitle(focused, "SESSIONS"), m.st.dim.Render("  no runtime selected"))
	} else {
		out = append(out, m.panelTitle(focused, "SESSIONS · "+r.ID()+" "+strconv.Itoa(len(r.Sessions))))
		f := r.SessionsFresh
		switch {
		case r.Gone():
			out = append(out, m.st.dim.Render("  runtime gone: sessions cleared"))
		case f.Loading():
			out = append(out, m.st.dim.Render("  loading sessions…"))
		case f.Stale():
			out = append(out, m.st.warn.Render("  ▲ stale: "+errLine(f.Err)))
		case len(r.Sessions) == 0:
			out = append(out, m.st.dim.Render("  no open sessions"))
		}
		rows := n - len(out)
		off := 0
		if m.sessCursor >= rows {
			off = m.sessCursor - rows + 1
		}
		tagW := 10
		for i := off; i < len(r.Sessions) && len(out) < n; i++ {
			s := r.Sessions[i]
			tag := "notebook"
			if m.snap.Owned(s.Name) {
				tag = "colabdash"
			}
			line := "  "
			sel := focused && i == m.sessCursor
			if sel {
				line = "› "
			}
			line += fit(s.ID(), min(max(w-2-tagW-1, 4), 40)) + " " + fit(tag, tagW)
			if sel {
				line = m.st.selected.Render(line)
			}
			out = append(out, line)
		}
	}
	for len(out) < n {
		out = append(out, "")
	}
	return out[:n]
}

// details renders the details panel: exactly n lines of width ≤ w. The
// proxy token is always masked.
func (m Model) details(now time.Time, r *state.Runtime, w, n int) []string {
	out := make([]string, 0, n)
	if r == nil {
		out = append(out, m.panelTitle(false, "DETAILS"), m.st.dim.Render("  no runtime selected"))
	} else {
		out = append(out, m.panelTitle(false, "DETAILS · "+r.ID()))
		// Each line has a priority (0 first): when the panel is short (a
		// stacked layout on a small terminal) the most useful lines stay,
		// in their usual order.
		type kvLine struct {
			prio int
			text string
		}
		var kvs []kvLine
		// Values from the server go through termtext.Line here; styled
		// parts are added after.
		kv := func(prio int, k, v string) { kvs = append(kvs, kvLine{prio, " " + fit(k, 8) + " " + v}) }
		k := r.RuntimeSpec
		acc := k.Accelerator
		if acc == "" {
			acc = api.AcceleratorNone
		}
		kv(3, "spec", termtext.Line(k.Variant.Short()+" · "+acc+" · "+k.Shape.Short()))
		url, tok := "(unknown)", ""
		if ci := r.ConnectionInfo; ci != nil {
			url, tok = termtext.Line(ci.URL), termtext.Line(ci.Token)
		}
		kv(2, "url", url)
		if m.ax.revealed == r.Name && tok != "" {
			kv(1, "token", tok+m.st.dim.Render(" (revealed; "+m.keys.RevealToken.Help().Key+" hides)"))
		} else {
			kv(5, "token", state.MaskToken(tok))
		}
		st, rem := r.Token(now, m.opts.ExpiringThreshold)
		switch {
		case r.Gone():
			kv(0, "status", "GONE ("+termtext.Line(r.GoneReason)+") · last seen "+state.FormatAgo(now.Sub(r.LastSeen)))
		case st == state.TokenUnknown:
			kv(0, "expires", "unknown (UNKNOWN)")
		case st == state.TokenExpired:
			kv(0, "expires", r.ExpireTime().In(m.opts.Location).Format("15:04:05 MST")+" · EXPIRED, "+m.renewWord(r, now))
		default:
			kv(0, "expires", r.ExpireTime().In(m.opts.Location).Format("15:04:05 MST")+" · in "+state.FormatCountdown(rem)+" · "+st.String())
		}
		kv(4, "version", termtext.Line(r.DisplayVersion()))
		if r.RenewErr != nil {
			kv(1, "renew", m.st.errText.Render("failed, state unknown, retry in "+state.FormatCountdown(m.renewRetryIn(r.Name, now))+": "+errLine(r.RenewErr)))
		}
		room := n - len(out)
		for prio := 5; len(kvs) > room && prio >= 0; prio-- {
			kvs = slices.DeleteFunc(kvs, func(x kvLine) bool { return x.prio == prio })
		}
		for _, x := range kvs {
			out = append(out, x.text)
		}
	}
	for len(out) < n {
		out = append(out, "")
	}
	for i := range out {
		out[i] = ansi.Truncate(out[i], w, "…")
	}
	return out[:n]
}

func (m Model) footer(lines []string, now time.Time, l layout) []string {
	var status string
	switch {
	case m.filtering && m.filterFresh:
		// The old filter is shown selected: typing replaces it.
		status = "/" + m.st.selected.Render(termtext.Line(m.filter)) + "█" + m.st.dim.Render("  type to replace · backspace edits · enter apply · esc clear")
	case m.filtering:
		status = "/" + termtext.Line(m.filter) + "█" + m.st.dim.Render("  enter apply · esc clear")
	case m.inFlight() > 0:
		status = spinnerFrames[m.frame%len(spinnerFrames)] + " " + m.inFlightText()
		if m.status != "" {
			status += " · " + termtext.Line(m.status)
		}
	case m.status != "":
		status = termtext.Line(m.status)
		if m.statusErr {
			status = m.st.errText.Render(status)
		}
	case m.ax.exec != nil && !m.ax.exec.open && m.ax.exec.running() != nil:
		status = spinnerFrames[m.frame%len(spinnerFrames)] + " code running " +
			state.FormatCountdown(now.Sub(m.ax.exec.running().started)) + " (" + m.keys.RunCode.Help().Key + " shows it)"
	case m.filter != "":
		status = m.st.dim.Render("filter: " + termtext.Line(m.filter) + " (esc clears)")
	}
	h := m.help
	h.Width = l.w
	if m.ax.exec != nil && m.ax.exec.open && m.ax.dlg == nil {
		// In the run-code console letters are text: show its own keys.
		return append(lines, status, h.ShortHelpView(execKeys))
	}
	return append(lines, status, h.ShortHelpView(m.keys.ShortHelp()))
}

// execKeys are the run-code console's keys (onExecKey), for its footer.
var execKeys = []key.Binding{
	key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run")),
	key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "history")),
	key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "clear line")),
	key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back (code keeps running)")),
	key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
}

func (m Model) inFlightText() string {
	n := len(m.pending)
	if n == 1 {
		for k := range m.pending {
			return "calling " + k.kind.String() + "…"
		}
	}
	return strconv.Itoa(n) + " calls in flight…"
}

// padLines pads or cuts lines to exactly n.
func padLines(lines []string, n int) []string {
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines[:n]
}

// renewRetryIn is the time until the next renewal attempt of runtime
// name (0 when due or unknown).
func (m Model) renewRetryIn(name string, now time.Time) time.Duration {
	r := m.snap.Runtime(name)
	if r == nil {
		return 0
	}
	at, ok := m.nextRenewal(r, now)
	if !ok {
		return 0
	}
	return max(0, at.Sub(now))
}

// renewWord says where the renewal of r's expired proxy token stands:
// "renewing…" only while get_runtime is in flight.
func (m Model) renewWord(r *state.Runtime, now time.Time) string {
	switch {
	case m.opts.NoAutoRenew:
		return "auto-renew off (" + m.keys.Refresh.Help().Key + " refreshes)"
	case m.renewInFlight(r.Name):
		return "renewing…"
	case r.RenewErr != nil:
		return "renew failed, retry in " + state.FormatCountdown(m.renewRetryIn(r.Name, now))
	}
	return "renews in " + state.FormatCountdown(m.renewRetryIn(r.Name, now))
}

// renewInFlight reports whether a get_runtime renewal of name is in flight.
func (m Model) renewInFlight(name string) bool {
	_, ok := m.pending[callKey{kind: callRenew, runtime: name}]
	return ok
}

// keyName is how a key string reads in a sentence: "n", "space" for " ".
func keyName(k string) string {
	if strings.TrimPrefix(k, "alt+") == " " {
		return strings.TrimSuffix(k, " ") + "space"
	}
	return k
}

// helpRows is how many lines of the full help fit: the screen less the
// header (2 lines), the HELP title and the footer (2 lines).
func (m Model) helpRows(l layout) int { return max(1, l.h-5) }

// helpLines renders the full help for width w: each key group is a column,
// and as many columns as fit sit side by side (3 cells apart); the rest
// wrap below, a blank line between rows of groups.
func (m Model) helpLines(w int) []string {
	h := m.help
	h.Width = 0 // never truncated by the help model itself
	var blocks [][]string
	for _, g := range m.keys.FullHelp() {
		if v := h.FullHelpView([][]key.Binding{g}); v != "" {
			blocks = append(blocks, strings.Split(v, "\n"))
		}
	}
	const gap = 3
	var out []string
	for len(blocks) > 0 {
		n, used := 0, 1 // one leading cell
		for n < len(blocks) {
			bw := blockWidth(blocks[n])
			if n > 0 && used+gap+bw > w {
				break
			}
			used += bw + gap
			n++
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		height := 0
		for _, b := range blocks[:n] {
			height = max(height, len(b))
		}
		for r := 0; r < height; r++ {
			var line strings.Builder
			line.WriteString(" ")
			for i, b := range blocks[:n] {
				cell := ""
				if r < len(b) {
					cell = b[r]
				}
				if i < n-1 {
					cell += strings.Repeat(" ", blockWidth(b)-ansi.StringWidth(cell)+gap)
				}
				line.WriteString(cell)
			}
			out = append(out, strings.TrimRight(line.String(), " "))
		}
		blocks = blocks[n:]
	}
	return out
}

// blockWidth is the widest line of a rendered help column.
func blockWidth(b []string) int {
	w := 0
	for _, ln := range b {
		w = max(w, ansi.StringWidth(ln))
	}
	return w
}
