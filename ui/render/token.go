// Package render holds the pure cell renderers and the column declarations
// of the runtimes table, shared by the dashboard's runtimes pane and the
// `colabdash status` report: one way to show a runtime's proxy token, one
// declaration per column.
package render

import (
	"errors"
	"time"

	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// Token is the TOKEN cell of a runtime at an instant: its countdown
// ("48:00", "–" when unknown, "GONE" for a reclaimed runtime), the word
// beside it and the status that colours it.
type Token struct {
	Countdown, Word string
	Status          state.TokenStatus
}

// TokenInfo is what the TOKEN cell knows beyond the runtime: the EXPIRING
// threshold, what is under way on the runtime ("deleting… 0:03"; "" when
// nothing) and whether a renewal is in flight.
type TokenInfo struct {
	Threshold time.Duration
	Busy      string
	Renewing  bool
}

// TokenCell is r's TOKEN cell at now. An expired token reads EXPIRED
// whatever else is going on with it: a failed renewal shows as the row's
// "!" marker then, never in place of the expiry.
func TokenCell(r *state.Runtime, now time.Time, x TokenInfo) Token {
	if r.Gone() {
		// One age for a gone runtime, everywhere: since it went (GoneAt).
		return Token{Countdown: "GONE", Word: state.FormatAgo(now.Sub(r.GoneAt)), Status: state.TokenUnknown}
	}
	st, rem := r.Token(now, x.Threshold)
	t := Token{Countdown: "–", Word: st.String(), Status: st}
	if st != state.TokenUnknown {
		t.Countdown = state.FormatCountdown(rem)
	}
	switch {
	case x.Busy != "":
		t.Word = x.Busy
	case x.Renewing:
		t.Word += " ↻"
	case errors.Is(r.RenewErr, state.ErrNotExtended) && st != state.TokenExpired:
		t.Word = "NOT EXTENDED" // the renewal did not extend the token; details say more
	case r.RenewErr != nil && st != state.TokenExpired:
		t.Word = "RENEW FAILED" // the retry time is in the details
	}
	return t
}

// Short is the cell as a report prints it: "51:59 OK", "2:10 EXPIRING",
// or the word alone when there is no countdown ("EXPIRED", "UNKNOWN").
func (t Token) Short() string {
	switch t.Status {
	case state.TokenOK, state.TokenExpiring:
		return t.Countdown + " " + t.Word
	}
	return t.Word
}

// Padded is the countdown right-aligned in 9 cells and a space, as the
// table's TOKEN column starts.
func (t Token) Padded() string { return frame.FitRight(t.Countdown, 9) + " " }

// Busy is what is under way on runtime name at now for its TOKEN cell:
// "deleting… 0:03" since delete_runtime was sent, "opening session…"
// while create_session is, else "".
func Busy(name string, now time.Time, deleting, opening map[string]time.Time) string {
	if t, ok := deleting[name]; ok {
		return "deleting… " + state.FormatCountdown(now.Sub(t))
	}
	if _, ok := opening[name]; ok {
		return "opening session…"
	}
	return ""
}
