// Package details is the dashboard's details pane: the selected runtime's
// spec, URL, proxy token (masked unless revealed), expiry, version and
// renewal, the most useful lines kept when the pane is short.
package details

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// line is one key/value line and its priority: when the pane is short
// (a stacked layout on a small terminal) the lowest priorities stay, in
// their usual order (the expiry first, then when a healthy token renews,
// the kernels' activity, a failed renewal, RAM and GPU, the URL, the
// spec, the disk…).
type line struct {
	prio int
	text string
}

// View draws the details of runtime r (nil: none selected) at now: exactly
// n lines none wider than w. The proxy token is masked unless it is the
// revealed one (c.Activity.Revealed).
func View(c *common.Context, r *state.Runtime, now time.Time, w, n int) []string {
	out := make([]string, 0, n)
	if r == nil {
		out = append(out, common.PanelTitle(c, false, "DETAILS"), c.Styles.Dim.Render("  no runtime selected"))
	} else {
		out = append(out, common.PanelTitle(c, false, "DETAILS · "+r.ID()))
		kvs := append(append(lines(c, r, now), monitorLines(c, r, now, w)...), jobLines(c, r, now, w)...)
		room := n - len(out)
		for len(kvs) > room {
			// The lowest priority left goes (never the revealed token's).
			low := -1
			for _, x := range kvs {
				low = max(low, x.prio)
			}
			if low < 0 {
				break
			}
			kvs = slices.DeleteFunc(kvs, func(x line) bool { return x.prio == low })
		}
		for _, x := range kvs {
			out = append(out, x.text)
		}
	}
	out = frame.PadLines(out, n)
	for i := range out {
		out[i] = ansi.Truncate(out[i], w, "…")
	}
	return out
}

// lines are r's key/value lines. Values from the server go through
// termtext.Line here; styled parts are added after.
func lines(c *common.Context, r *state.Runtime, now time.Time) []line {
	var kvs []line
	// Priorities step by 10, so the monitor's lines fit between them.
	kv := func(prio int, k, v string) { kvs = append(kvs, line{prio * 10, " " + frame.Fit(k, 8) + " " + v}) }
	k := r.RuntimeSpec
	// The words of the table's SPEC (RuntimeSpecKey.String): no NONE
	// for a runtime without an accelerator.
	kv(3, "spec", termtext.Line(strings.ReplaceAll(k.String(), "/", " · ")))
	url, tok := "(unknown)", ""
	if ci := r.ConnectionInfo; ci != nil {
		url, tok = termtext.Line(ci.URL), termtext.Line(ci.Token)
	}
	kv(2, "url", url)
	if c.Activity.Revealed == r.Name && tok != "" {
		// Revealing (v) never changes the layout: the token takes the
		// place of a less useful line when the pane is short.
		kv(-1, "token", tok+c.Styles.Dim.Render(" (revealed; "+c.Keys.Word(keymap.ActionRevealToken)+" hides)"))
	} else {
		kv(5, "token", state.MaskToken(tok))
	}
	rn := c.Activity.Renewals
	st, rem := r.Token(now, rn.Threshold(r.Name))
	switch {
	case r.Gone():
		kv(0, "status", "GONE "+state.FormatAgo(now.Sub(r.GoneAt))+" ("+termtext.Line(r.GoneReason)+")") // the row's age
	case st == state.TokenUnknown:
		kv(0, "expires", "unknown (UNKNOWN)")
	case st == state.TokenExpired:
		kv(0, "expires", r.ExpireTime().In(c.Location).Format("15:04:05 MST")+" · EXPIRED, "+RenewWord(c, r, now))
	default:
		kv(0, "expires", r.ExpireTime().In(c.Location).Format("15:04:05 MST")+" · in "+state.FormatCountdown(rem)+" · "+st.String())
	}
	kv(4, "version", termtext.Line(r.DisplayVersion()))
	retry := state.FormatCountdown(rn.RetryIn(r.Name, now))
	switch {
	case errors.Is(r.RenewErr, state.ErrNotExtended):
		kv(1, "renew", c.Styles.ErrText.Render("renewal did not extend the token, retry in "+retry))
	case r.RenewErr != nil:
		kv(1, "renew", c.Styles.ErrText.Render("failed, state unknown, retry in "+retry+": "+common.ErrLine(r.RenewErr)))
	case !r.Gone() && (st == state.TokenOK || st == state.TokenExpiring):
		// A healthy token: when it is renewed, as planned ("renews in
		// 54:59"), or that it is under way or off. On a short pane it
		// comes right after the expiry, before the monitor's kernels and
		// RAM: it stays whether or not their figures have arrived.
		kvs = append(kvs, line{prioRenewPlan, " " + frame.Fit("renew", 8) + " " + RenewWord(c, r, now)})
	}
	return kvs
}

// RenewWord says where the renewal of r's expired proxy token stands at
// now: "renewing…" only while get_runtime is in flight.
func RenewWord(c *common.Context, r *state.Runtime, now time.Time) string {
	rn := c.Activity.Renewals
	switch {
	case !rn.Auto():
		return "auto-renew off (" + c.Keys.Word(keymap.ActionRefresh) + " refreshes)"
	case rn.InFlight(r.Name):
		return "renewing…"
	case errors.Is(r.RenewErr, state.ErrNotExtended):
		return "renewal did not extend the token, retry in " + state.FormatCountdown(rn.RetryIn(r.Name, now))
	case r.RenewErr != nil:
		return "renew failed, retry in " + state.FormatCountdown(rn.RetryIn(r.Name, now))
	}
	return "renews in " + state.FormatCountdown(rn.RetryIn(r.Name, now))
}
