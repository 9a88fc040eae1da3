package ui

import (
	"errors"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
)

// headerView is the header pane: exactly two lines of at most w cells
// (View cuts them): who and where (profile, tier, account or endpoint,
// badges), then the connection and its freshness.
func (m *Model) headerView(now time.Time, w int) []string {
	lines := make([]string, 0, 2)
	s := m.cx.Snap
	// The profile and tier come first, then the badges; a get_subscription
	// error gets what is left of the line (the rest is in L), and the
	// (possibly long) account is what truncation may cut.
	var b strings.Builder
	b.WriteString(m.cx.Styles.Title.Render("colabdash"))
	if m.cx.Profile != "" {
		b.WriteString(" · profile " + termtext.Line(m.cx.Profile))
	}
	if m.prof.switching != "" {
		b.WriteString(" → " + termtext.Line(m.prof.switching) + "…")
	}
	b.WriteString(" · tier ")
	var badges string
	if m.opts.Demo {
		badges += " " + m.cx.Styles.Badge.Render(" DEMO ")
	}
	if m.cx.ReadOnly {
		badges += " " + m.cx.Styles.Badge.Render(" READONLY ")
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
		b.WriteString(m.cx.Styles.Bold.Render(termtext.Line(s.Subscription.Tier.Label())))
	case s.SubscriptionFresh.Stale():
		// Retried with every refresh until it succeeds (refresh).
		b.WriteString(m.cx.Styles.Bold.Render("unknown"))
		const wrap = len(" (retrying: )")
		room := w - ansi.StringWidth(b.String()) - ansi.StringWidth(badges) - wrap
		if room >= 8 {
			reason := termtext.Line(api.OneLine(s.SubscriptionFresh.Err.Error(), 60))
			if ansi.StringWidth(reason) > room {
				reason = ansi.Truncate(reason, room, "…")
			}
			b.WriteString(" (retrying: " + reason + ")")
		} else {
			b.WriteString(" (retrying)")
		}
		if ansi.StringWidth(b.String()+where+badges) > w {
			where = "" // the reason and the badges before the account
		}
	default:
		b.WriteString(m.cx.Styles.Bold.Render("…")) // get_subscription still loading
	}
	// The badges say what keys do (DEMO, READONLY): the account or
	// endpoint is cut for them, never they.
	if room := w - ansi.StringWidth(b.String()) - ansi.StringWidth(badges); ansi.StringWidth(where) > room {
		if room >= len(" · ")+4 {
			where = ansi.Truncate(where, room, "…")
		} else {
			where = ""
		}
	}
	b.WriteString(where + badges)
	lines = append(lines, b.String())

	f := s.RuntimesFresh
	var c string
	switch {
	case f.Loading():
		c = "◌ connecting…"
	case f.Stale() && !f.Loaded():
		c = m.cx.Styles.ErrText.Render("✕ not connected")
	case f.Stale():
		c = m.cx.Styles.Warn.Render("▲ STALE") + " · updated " + state.FormatAgo(now.Sub(f.FetchedAt))
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
		c += " · refresh failing: " + common.ErrLine(f.Err)
	}
	lines = append(lines, c)
	return lines
}
