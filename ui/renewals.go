package ui

import (
	"time"

	"github.com/colabdash/colabdash/state"
)

// renewalView is what the panes read of renewals (common.Renewals): it
// holds the call state's shared parts (the pending calls, the renewal
// schedule), never a copy of the Model.
type renewalView struct {
	snap      *state.Snapshot
	pending   map[callKey]pendingCall
	renew     *state.Renewals
	threshold time.Duration // Options.ExpiringThreshold
	auto      bool          // !Options.NoAutoRenew
}

// Threshold is how close to expireTime runtime name's token reads
// EXPIRING (state.Renewals.ExpiringThreshold).
func (v renewalView) Threshold(name string) time.Duration {
	return v.renew.ExpiringThreshold(name, v.threshold)
}

// InFlight reports whether a get_runtime renewal of name is in flight.
func (v renewalView) InFlight(name string) bool {
	_, ok := v.pending[callKey{kind: callRenew, runtime: name}]
	return ok
}

// RetryIn is the time until the next renewal attempt of runtime name (0
// when due or unknown).
func (v renewalView) RetryIn(name string, now time.Time) time.Duration {
	r := v.snap.Runtime(name)
	if r == nil {
		return 0
	}
	at, ok := v.renew.Due(r.Name, r.ExpireTime(), now)
	if !ok {
		return 0
	}
	return max(0, at.Sub(now))
}

// renewals is the renewal view of the current call state (again after a
// profile switch replaced it).
func (m *callState) renewals() renewalView {
	return renewalView{snap: m.cx.Snap, pending: m.pending, renew: m.renew, threshold: m.opts.ExpiringThreshold, auto: !m.opts.NoAutoRenew}
}

// Auto reports whether proxy tokens renew on their own.
func (v renewalView) Auto() bool { return v.auto }
