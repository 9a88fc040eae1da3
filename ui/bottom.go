package ui

import (
	"errors"
	"slices"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/pane/runtimes"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// sessionsKey handles the sessions pane's own keys (moving its cursor).
func (m *Model) sessionsKey(k tea.KeyMsg) (common.Effect, bool) {
	if n, ok := runtimes.MoveKey(m.cx, k, max(1, m.cx.Layout.SessLines-1)); ok {
		return common.MoveSession{N: n}, true
	}
	return nil, false
}

// moveSession moves the sessions cursor; the session under it becomes the
// one run code uses on its runtime.
func (m *Model) moveSession(delta int) {
	n := 0
	if r := m.cx.Snap.Runtime(m.rt.Selected()); r != nil {
		n = len(r.Sessions)
	}
	m.sessCursor = frame.Clamp(m.sessCursor+delta, 0, n-1)
	if s := m.selectedSession(); s != "" {
		m.pickSession(m.rt.Selected(), s, m.cx.Now())
	}
}

// selectedSession is the session under the sessions-panel cursor, when
// that panel has the focus.
func (m *Model) selectedSession() string {
	r := m.cx.Snap.Runtime(m.rt.Selected())
	if m.cx.Focus != common.PanelSessions || r == nil || r.Gone() || m.sessCursor >= len(r.Sessions) {
		return ""
	}
	return r.Sessions[m.sessCursor].Name
}

// bottomView renders the sessions and details panes in l.BottomRows+1
// lines. Wide terminals (l.Split) put them side by side; narrower ones
// stack them, sessions above details. The sessions pane (which tab focuses
// and x acts on) keeps its share at every size; expanded details (enter)
// took their room from the table (stacked) or the sessions pane's width
// (split) when the layout was computed.
func (m *Model) bottomView(now time.Time, l common.Layout) []string {
	r := m.cx.Snap.Runtime(m.rt.Selected())
	n := l.BottomRows + 1
	if !l.Split {
		lines := m.sessionsView(r, l.W, l.SessLines)
		return append(lines, m.detailsView(now, r, l.W, n-l.SessLines)...)
	}
	sw := l.SessWidth
	dw := l.W - sw - 3
	left := m.sessionsView(r, sw, n)
	right := m.detailsView(now, r, dw, n)
	sep := m.cx.Styles.Dim.Render(" │ ")
	lines := make([]string, 0, n)
	for i := range left {
		lines = append(lines, frame.PadTo(left[i], sw)+sep+right[i])
	}
	return lines
}

// sessions renders the sessions panel: exactly n lines of width ≤ w.
func (m *Model) sessionsView(r *state.Runtime, w, n int) []string {
	out := make([]string, 0, n)
	focused := m.cx.Focus == common.PanelSessions
	if r == nil {
		out = append(out, common.PanelTitle(m.cx, focused, "SESSIONS"), m.cx.Styles.Dim.Render("  no runtime selected"))
	} else {
		out = append(out, common.PanelTitle(m.cx, focused, "SESSIONS · "+r.ID()+" "+strconv.Itoa(len(r.Sessions))))
		f := r.SessionsFresh
		switch {
		case r.Gone():
			out = append(out, m.cx.Styles.Dim.Render("  runtime gone: sessions cleared"))
		case f.Loading():
			out = append(out, m.cx.Styles.Dim.Render("  loading sessions…"))
		case f.Stale():
			out = append(out, m.cx.Styles.Warn.Render("  ▲ stale: "+common.ErrLine(f.Err)))
		case len(r.Sessions) == 0:
			out = append(out, m.cx.Styles.Dim.Render("  no open sessions"))
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
			if m.cx.Snap.Owned(s.Name) {
				tag = "colabdash"
			}
			line := "  "
			sel := focused && i == m.sessCursor
			if sel {
				line = "› "
			}
			line += frame.Fit(s.ID(), min(max(w-2-tagW-1, 4), 40)) + " " + frame.Fit(tag, tagW)
			if sel {
				line = m.cx.Styles.Selected.Render(line)
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
func (m *Model) detailsView(now time.Time, r *state.Runtime, w, n int) []string {
	out := make([]string, 0, n)
	if r == nil {
		out = append(out, common.PanelTitle(m.cx, false, "DETAILS"), m.cx.Styles.Dim.Render("  no runtime selected"))
	} else {
		out = append(out, common.PanelTitle(m.cx, false, "DETAILS · "+r.ID()))
		// Each line has a priority (lowest first): when the panel is short (a
		// stacked layout on a small terminal) the most useful lines stay,
		// in their usual order.
		type kvLine struct {
			prio int
			text string
		}
		var kvs []kvLine
		// Values from the server go through termtext.Line here; styled
		// parts are added after.
		kv := func(prio int, k, v string) { kvs = append(kvs, kvLine{prio, " " + frame.Fit(k, 8) + " " + v}) }
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
			// Revealing (v) never changes the layout: the token takes the
			// place of a less useful line when the panel is short.
			kv(-1, "token", tok+m.cx.Styles.Dim.Render(" (revealed; "+m.cx.Keys.RevealToken.Help().Key+" hides)"))
		} else {
			kv(5, "token", state.MaskToken(tok))
		}
		st, rem := r.Token(now, m.cx.Activity.Renewals.Threshold(r.Name))
		switch {
		case r.Gone():
			kv(0, "status", "GONE ("+termtext.Line(r.GoneReason)+") · last seen "+state.FormatAgo(now.Sub(r.LastSeen)))
		case st == state.TokenUnknown:
			kv(0, "expires", "unknown (UNKNOWN)")
		case st == state.TokenExpired:
			kv(0, "expires", r.ExpireTime().In(m.cx.Location).Format("15:04:05 MST")+" · EXPIRED, "+m.renewWord(r, now))
		default:
			kv(0, "expires", r.ExpireTime().In(m.cx.Location).Format("15:04:05 MST")+" · in "+state.FormatCountdown(rem)+" · "+st.String())
		}
		kv(4, "version", termtext.Line(r.DisplayVersion()))
		switch {
		case errors.Is(r.RenewErr, state.ErrNotExtended):
			kv(1, "renew", m.cx.Styles.ErrText.Render("renewal did not extend the token, retry in "+state.FormatCountdown(m.cx.Activity.Renewals.RetryIn(r.Name, now))))
		case r.RenewErr != nil:
			kv(1, "renew", m.cx.Styles.ErrText.Render("failed, state unknown, retry in "+state.FormatCountdown(m.cx.Activity.Renewals.RetryIn(r.Name, now))+": "+common.ErrLine(r.RenewErr)))
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

// renewWord says where the renewal of r's expired proxy token stands:
// "renewing…" only while get_runtime is in flight.
func (m *Model) renewWord(r *state.Runtime, now time.Time) string {
	switch {
	case m.opts.NoAutoRenew:
		return "auto-renew off (" + m.cx.Keys.Refresh.Help().Key + " refreshes)"
	case m.cx.Activity.Renewals.InFlight(r.Name):
		return "renewing…"
	case errors.Is(r.RenewErr, state.ErrNotExtended):
		return "renewal did not extend the token, retry in " + state.FormatCountdown(m.cx.Activity.Renewals.RetryIn(r.Name, now))
	case r.RenewErr != nil:
		return "renew failed, retry in " + state.FormatCountdown(m.cx.Activity.Renewals.RetryIn(r.Name, now))
	}
	return "renews in " + state.FormatCountdown(m.cx.Activity.Renewals.RetryIn(r.Name, now))
}
