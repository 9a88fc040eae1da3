// Package report is the `colabdash status` table and JSON, and the JSON
// shapes other verbs share with it (a runtime, the subscription, a
// connection). For now it names what package ui's status.go defines
// (aliases and thin functions), so the commands under ui/cli depend on
// this package rather than on the dashboard's; the rendering moves here
// when package ui is split up.
package report

import (
	"io"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui"
)

// Report is what `colabdash status --json` prints: the tier and every
// runtime with its sessions and token time left (ui.StatusReport).
type Report = ui.StatusReport

// Subscription is the tier as get_subscription returned it (an enum
// string such as SUBSCRIPTION_TIER_PRO; unknown values are passed
// through).
type Subscription = ui.StatusSubscription

// Runtime is one runtime in Report: its spec, version, connection and
// sessions, and the seconds its proxy token has left (null when unknown
// or more than a year away).
type Runtime = ui.StatusRuntime

// Connection is a runtime's connectionInfo in Report. ExpireTime is RFC
// 3339 in UTC, or null when unknown. Token, the proxy token, is present
// only when the user asked for it (--show-tokens).
type Connection = ui.StatusConnection

// New builds the report for ov at instant now. The proxy tokens are
// copied only when showTokens is true.
func New(ov api.Overview, now time.Time, showTokens bool) Report {
	return ui.NewStatusReport(ov, now, showTokens)
}

// NewRuntime is one runtime's entry at instant now, with its sessions (or
// the one-line error listing them gave); the proxy token only when
// showTokens is true.
func NewRuntime(rt api.Runtime, sessions []api.Session, sessionsErr error, now time.Time, showTokens bool) Runtime {
	return ui.NewStatusRuntime(rt, sessions, sessionsErr, now, showTokens)
}

// WriteJSON writes rep as indented JSON followed by a newline; C1 and
// bidirectional controls in server strings are written as \uXXXX escapes
// (termtext.JSON), so the values stay byte-exact and cannot drive the
// terminal.
func WriteJSON(w io.Writer, rep Report) error { return ui.WriteStatusJSON(w, rep) }

// WriteTable writes the human listing of `colabdash status`: the tier,
// then one row per runtime followed by its sessions; tokens only when
// showTokens is true; every server string through termtext and cut to its
// column. dashboard is the command line (ready to paste) that opens the
// dashboard on the same server, named where there are no runtimes.
func WriteTable(w io.Writer, ov api.Overview, now time.Time, showTokens bool, dashboard string) error {
	return ui.WriteStatusTableFor(w, ov, now, showTokens, dashboard)
}
