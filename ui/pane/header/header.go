// Package header is the dashboard's header pane: who and where (profile,
// tier, the server, the DEMO and READONLY badges), then the connection and
// its freshness.
package header

import (
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
)

// State is what the header shows of the dashboard beyond the Context.
type State struct {
	// Switching is the profile being connected to ("" when none).
	Switching string
	// Endpoint is the MCP endpoint URL: the header names its host (the
	// server). Demo marks the embedded emulator, named as such instead
	// (DEMO badge).
	Endpoint string
	Demo     bool
	// NextRefresh is when list_runtimes is tried again (the countdown
	// shown while the list is stale).
	NextRefresh time.Time
}

// View is the header: exactly two lines, none wider than w cells. The
// first says who and where: the profile (and the one being switched to),
// the tier (or why it is unknown, cut to what is left), the server (the
// endpoint's host, cut first; never the credentials or their file), and the
// badges, which are never cut. The second
// says how fresh the runtimes list is: connecting, connected and when
// updated, stale or not connected with the retry countdown, a hint for a
// credentials error, and the reason (cut last).
func View(c *common.Context, w int, s State) []string {
	return []string{ansi.Truncate(who(c, w, s), w, "…"), ansi.Truncate(connection(c, s), w, "…")}
}

// who is the first line, at most about w cells (View cuts it).
func who(c *common.Context, w int, st State) string {
	s := c.Snap
	// The profile and tier come first, then the badges; a get_subscription
	// error gets what is left of the line (the rest is in L), and the
	// (possibly long) account is what truncation may cut.
	var b strings.Builder
	b.WriteString(c.Styles.Title.Render("colabdash"))
	if c.Profile != "" {
		b.WriteString(" · profile " + termtext.Line(c.Profile))
	}
	if st.Switching != "" {
		b.WriteString(" → " + termtext.Line(st.Switching) + "…")
	}
	b.WriteString(" · tier ")
	var badges string
	if st.Demo {
		badges += " " + c.Styles.Badge.Render(" DEMO ")
	}
	if c.ReadOnly {
		badges += " " + c.Styles.Badge.Render(" READONLY ")
	}
	where := Server(st.Endpoint, st.Demo)
	if where != "" {
		where = " · " + termtext.Line(where)
	}
	switch {
	case s.SubscriptionFresh.Loaded():
		b.WriteString(c.Styles.Bold.Render(termtext.Line(s.Subscription.Tier.Label())))
	case s.SubscriptionFresh.Stale():
		// Retried with every refresh until it succeeds (refresh).
		b.WriteString(c.Styles.Bold.Render("unknown"))
		const wrap = len(" (retrying: )")
		room := w - ansi.StringWidth(b.String()) - ansi.StringWidth(badges) - wrap
		if room >= 8 {
			reason := termtext.Line(api.OneLine(s.SubscriptionFresh.Err.Error(), 60))
			if ansi.StringWidth(reason) > room {
				reason = ansi.Truncate(reason, room, "…")
			}
			b.WriteString(" (retrying: " + reason + ")")
		} else if room+wrap >= len(" (retrying)") {
			b.WriteString(" (retrying)") // only if it leaves the badges whole
		}
		if ansi.StringWidth(b.String()+where+badges) > w {
			where = "" // the reason and the badges before the account
		}
	default:
		b.WriteString(c.Styles.Bold.Render("…")) // get_subscription still loading
	}
	// The badges say what keys do (DEMO, READONLY): the server is cut
	// for them, never they.
	if room := w - ansi.StringWidth(b.String()) - ansi.StringWidth(badges); ansi.StringWidth(where) > room {
		if room >= len(" · ")+4 {
			where = ansi.Truncate(where, room, "…")
		} else {
			where = ""
		}
	}
	b.WriteString(where + badges)
	return b.String()
}

// Server names the server of endpoint, the MCP endpoint URL, as the
// header shows it: "embedded emulator" for the demo, else the URL's host
// (with its port, if any; the URL itself when it has no host); "" for no
// endpoint.
func Server(endpoint string, demo bool) string {
	if demo {
		return "embedded emulator"
	}
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return u.Host
	}
	return endpoint
}

// connection is the second line, uncut (View cuts it): the runtimes
// list's freshness, and while it is stale the retry countdown, a
// credentials hint and the reason.
func connection(c *common.Context, st State) string {
	now := c.Now()
	f := c.Snap.RuntimesFresh
	var line string
	switch {
	case f.Loading():
		line = "◌ connecting…"
	case f.Stale() && !f.Loaded():
		line = c.Styles.ErrText.Render("✕ not connected")
	case f.Stale():
		line = c.Styles.Warn.Render("▲ STALE") + " · updated " + state.FormatAgo(now.Sub(f.FetchedAt))
	default:
		line = "● connected · updated " + state.FormatAgo(now.Sub(f.FetchedAt))
	}
	if f.Stale() {
		// The retry time and hint come before the (possibly long) reason,
		// which is the part truncation may cut.
		if d := st.NextRefresh.Sub(now); d > 0 {
			line += " · retry in " + state.FormatCountdown(d) // rounds up, like every countdown
		}
		var ae *api.Error
		if errors.As(f.Err, &ae) && ae.IsAuth() {
			line += " · check your Google credentials"
		}
		line += " · refresh failing: " + common.ErrLine(f.Err)
	}
	return line
}
