package monitor

import "time"

// RenewEvery is the shortest time between two renewals of one runtime's
// proxy token asked for by the monitor after a proxy 404 (the dashboard's
// polls and `top` alike). A refusal that comes back within RenewEvery of
// a renewal is a failure, not renewed again before then (never a renewal
// every poll), and never "not offered": a missing route is only one the
// server answers as absent with a token it takes.
const RenewEvery = NotOfferedRecheck

// Renewals is the monitor's one renewal rule: it remembers when each
// runtime's proxy token was last renewed for the monitor. The zero value
// is not usable: build it with NewRenewals. Not safe for concurrent use.
type Renewals struct {
	last map[string]time.Time
}

// NewRenewals returns Renewals that remember none.
func NewRenewals() *Renewals { return &Renewals{last: map[string]time.Time{}} }

// Due reports whether runtime name's token may be renewed at now after a
// proxy 404: never renewed for the monitor, or last RenewEvery ago or
// more.
func (r *Renewals) Due(name string, now time.Time) bool {
	last, ok := r.last[name]
	return !ok || now.Sub(last) >= RenewEvery
}

// Renewed records a renewal of runtime name's token at now (asked for
// after Due said yes).
func (r *Renewals) Renewed(name string, now time.Time) { r.last[name] = now }

// Retain forgets every runtime for which keep is false.
func (r *Renewals) Retain(keep func(name string) bool) {
	for name := range r.last {
		if !keep(name) {
			delete(r.last, name)
		}
	}
}

// ResourcesDue reports whether a runtime's resources are asked at now when
// they were last found not offered at notOffered (the zero time: never):
// not within NotOfferedRecheck of it.
func ResourcesDue(notOffered, now time.Time) bool {
	return notOffered.IsZero() || now.Sub(notOffered) >= NotOfferedRecheck
}
