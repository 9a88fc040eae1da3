// Package report renders `colabdash status`: the table a person reads and
// the stable JSON document scripts read, from the same runtime columns and
// token cell as the dashboard's runtimes table (ui/render).
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/colabdash/colabdash/api/plural"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/render"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Report is the stable JSON shape of `colabdash status --json`
// (documented in README.md):
//
//	{"subscription":{"tier":"SUBSCRIPTION_TIER_PRO"},
//	 "runtimes":[{"name":"runtimes/r1",
//	   "runtimeSpec":{"variant":"VARIANT_GPU","accelerator":"T4","shape":"SHAPE_STANDARD"},
//	   "version":"",
//	   "connectionInfo":{"url":"https://…","expireTime":"2026-11-29T19:40:00Z"},
//	   "tokenExpiresInSeconds":3120,
//	   "sessions":[{"name":"runtimes/r1/sessions/s1"}]}]}
type Report struct {
	Subscription Subscription `json:"subscription"`
	Runtimes     []Runtime    `json:"runtimes"`
}

// Subscription is the tier as get_subscription returned it (an enum
// string such as SUBSCRIPTION_TIER_PRO; unknown values are passed through).
type Subscription struct {
	Tier api.SubscriptionTier `json:"tier"`
}

// Runtime is one runtime of Report.
//
// TokenExpiresInSeconds is expireTime − now in whole seconds (negative once
// expired), or null when expireTime is unknown or more than TokenHorizon
// (a year) away. Sessions is always an
// array; when list_sessions failed for this runtime it is empty and
// SessionsError holds the one-line error.
type Runtime struct {
	Name                  string             `json:"name"`
	RuntimeSpec           api.RuntimeSpecKey `json:"runtimeSpec"`
	Version               string             `json:"version"`
	ConnectionInfo        Connection         `json:"connectionInfo"`
	TokenExpiresInSeconds *int64             `json:"tokenExpiresInSeconds"`
	Sessions              []api.Session      `json:"sessions"`
	SessionsError         string             `json:"sessionsError,omitempty"`
}

// Connection is a runtime's connectionInfo in Report.
// ExpireTime is RFC 3339 in UTC, or null when unknown. Token, the proxy
// token, is present only when the user asked for it (--show-tokens).
type Connection struct {
	URL        string  `json:"url"`
	ExpireTime *string `json:"expireTime"`
	Token      string  `json:"token,omitempty"`
}

// New builds the report for ov at instant now. The proxy tokens
// are copied only when showTokens is true.
func New(ov api.Overview, now time.Time, showTokens bool) Report {
	rep := Report{
		Subscription: Subscription{Tier: ov.Subscription.Tier},
		Runtimes:     make([]Runtime, 0, len(ov.Runtimes)),
	}
	for _, rt := range ov.Runtimes {
		rep.Runtimes = append(rep.Runtimes, NewRuntime(rt, ov.Sessions[rt.Name], ov.SessionErrors[rt.Name], now, showTokens))
	}
	return rep
}

// NewRuntime is one runtime as Report shows it at instant now,
// with its sessions (nil: none) and the error listing them failed with
// (nil: none). The proxy token is copied only when showTokens is true. The
// scriptable verbs print runtimes in this shape too.
func NewRuntime(rt api.Runtime, sessions []api.Session, sessionsErr error, now time.Time, showTokens bool) Runtime {
	sr := Runtime{
		Name:        rt.Name,
		RuntimeSpec: rt.RuntimeSpec,
		Version:     rt.Version,
		Sessions:    sessions,
	}
	if sr.Sessions == nil {
		sr.Sessions = []api.Session{}
	}
	if sessionsErr != nil {
		sr.SessionsError = sessionsErr.Error()
	}
	if ci := rt.ConnectionInfo; ci != nil {
		sr.ConnectionInfo.URL = ci.URL
		if showTokens {
			sr.ConnectionInfo.Token = ci.Token
		}
	}
	if exp := rt.ExpireTime(); !exp.IsZero() {
		s := exp.UTC().Format(time.RFC3339)
		sr.ConnectionInfo.ExpireTime = &s
		sr.TokenExpiresInSeconds = tokenExpiresIn(exp, now)
	}
	return sr
}

// TokenHorizon is how far from now an expireTime may be for
// tokenExpiresInSeconds to count down to it: a year. A proxy token lives
// about an hour, so an expireTime further away, in the future or the past
// ("9999-12-31T23:59:59Z", a server's placeholder, a clock gone wrong), is
// no token lifetime: tokenExpiresInSeconds is null (unknown) for it, while
// connectionInfo.expireTime still shows what the server sent. (Without the
// bound, time.Duration's 292-year limit made the count 9223372036.)
const TokenHorizon = 366 * 24 * time.Hour

// tokenExpiresIn is expire − now in whole seconds, or nil when expire is
// beyond TokenHorizon either way.
func tokenExpiresIn(expire, now time.Time) *int64 {
	d := expire.Round(0).Sub(now.Round(0)) // saturates at ±292 years
	if d > TokenHorizon || d < -TokenHorizon {
		return nil
	}
	secs := int64(d / time.Second)
	return &secs
}

// WriteJSON writes rep as indented JSON followed by a newline. C1
// controls and bidirectional overrides in server strings are written as
// \uXXXX escapes (termtext.JSON): the decoded values stay byte-exact and
// the raw bytes cannot drive the terminal.
func WriteJSON(w io.Writer, rep Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(termtext.JSON(b), '\n'))
	return err
}

// Column widths of the `colabdash status` table, in display cells: a
// longer server string is cut to its column with "…".
const (
	statusIDWidth      = 40
	statusSpecWidth    = 40
	statusVersionWidth = 20
	statusSessionWidth = 60
	statusErrorWidth   = 80
)

// WriteTable writes the human listing of `colabdash status`: the
// tier, then one row per runtime (id, spec, version, session count, token
// countdown with its word) followed by its sessions, indented. Tokens are
// printed (on their own line per runtime) only when showTokens is true.
// Every server string goes through termtext (no control reaches the
// terminal) and is cut to its column (the status* widths).
// dashboard is the command line that opens the dashboard on the same
// server (ready to paste: the caller quotes it), shown where there are no
// runtimes.
func WriteTable(w io.Writer, ov api.Overview, now time.Time, showTokens bool, dashboard string) error {
	fmt.Fprintf(w, "Colab %s · %s\n\n", termtext.Cut(ov.Subscription.Tier.Label(), statusIDWidth), plural.Count(len(ov.Runtimes), "runtime"))
	if len(ov.Runtimes) == 0 {
		_, err := fmt.Fprintln(w, "No runtimes. Create one with the dashboard: "+termtext.Line(dashboard))
		return err
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join([]string{render.ColName.Long, render.ColSpec.Long, render.ColVersion.Long, render.ColSess.Long, render.ColToken.Long}, "\t"))
	for _, rt := range ov.Runtimes {
		version := rt.Version
		if version == "" {
			version = "latest"
		}
		sessions := fmt.Sprint(len(ov.Sessions[rt.Name]))
		if ov.SessionErrors[rt.Name] != nil {
			sessions = "?"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termtext.Cut(rt.ID(), statusIDWidth), termtext.Cut(rt.RuntimeSpec.String(), statusSpecWidth),
			termtext.Cut(version, statusVersionWidth), sessions, tokenCell(rt, now))
		for _, s := range ov.Sessions[rt.Name] {
			fmt.Fprintf(tw, "  └ %s\t\t\t\t\n", termtext.Cut(s.ID(), statusSessionWidth))
		}
		if err := ov.SessionErrors[rt.Name]; err != nil {
			fmt.Fprintf(tw, "  └ sessions unavailable: %s\t\t\t\t\n", termtext.Cut(api.OneLine(err.Error(), 0), statusErrorWidth))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if showTokens {
		// Outside the table: a URL and a token would widen every column.
		buf.WriteString("\nConnection URLs and proxy tokens (secrets):\n")
		for _, rt := range ov.Runtimes {
			if ci := rt.ConnectionInfo; ci != nil {
				// Not cut: a URL and a token must stay whole to be used.
				fmt.Fprintf(&buf, "  %s  %s  %s\n", termtext.Cut(rt.ID(), statusIDWidth), termtext.Line(ci.URL), termtext.Line(ci.Token))
			}
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if _, err := io.WriteString(w, strings.TrimRight(line, " ")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// tokenCell renders "51:59 OK", "2:10 EXPIRING", "EXPIRED" or "UNKNOWN":
// the dashboard's TOKEN cell (render.TokenCell) as a report prints it.
func tokenCell(rt api.Runtime, now time.Time) string {
	return render.TokenCell(&state.Runtime{Runtime: rt}, now, render.TokenInfo{}).Short()
}
