package state

import "time"

// GuardGrace is the time between the idle guard's last warning and its
// delete: the user's window to cancel it from the dashboard (5 min).
const GuardGrace = 5 * time.Minute

// GuardStep is what the idle guard does for one runtime at one moment.
type GuardStep int

// The idle guard's steps.
const (
	// GuardNone: nothing (off, not idle long enough, not every signal
	// known, read-only, cancelled, or already told).
	GuardNone GuardStep = iota
	// GuardWarnNow: tell the user the runtime has been idle past the
	// threshold (action warn), once per stretch of idleness.
	GuardWarnNow
	// GuardLastWarning: tell the user the runtime will be deleted after
	// GuardGrace unless cancelled (action delete).
	GuardLastWarning
	// GuardDeleteNow: delete the runtime (its last warning was given
	// GuardGrace ago and it stayed idle by every signal).
	GuardDeleteNow
)

// GuardPolicy is the idle guard in effect for a runtime: After of
// idleness (0: off), and whether it deletes (else it only warns).
// ReadOnly (--readonly) never deletes.
type GuardPolicy struct {
	After    time.Duration
	Delete   bool
	ReadOnly bool
}

// GuardMemo is what the guard remembers of one runtime's current stretch
// of idleness, keyed by when it began (IdleSince): a new stretch (work
// happened) starts afresh. Warned is when the warning (or last warning)
// was given; Cancelled is set by the user's key.
type GuardMemo struct {
	IdleSince time.Time
	Warned    time.Time
	Cancelled bool
}

// GuardDecide returns the guard's step for a runtime whose activity is,
// by every signal, idle since idleSince (zero: not idle, or not every
// signal known: the caller passes zero then), and its memo updated for
// that step. A delete comes only after a last warning GuardGrace earlier
// within the same stretch, never when cancelled or read-only.
func GuardDecide(p GuardPolicy, m GuardMemo, idleSince, now time.Time) (GuardStep, GuardMemo) {
	if p.After <= 0 || idleSince.IsZero() {
		return GuardNone, GuardMemo{}
	}
	if !m.IdleSince.Equal(idleSince) {
		m = GuardMemo{IdleSince: idleSince}
	}
	if m.Cancelled || now.Sub(idleSince) < p.After {
		return GuardNone, m
	}
	switch {
	case m.Warned.IsZero() && (!p.Delete || p.ReadOnly):
		m.Warned = now
		return GuardWarnNow, m
	case m.Warned.IsZero():
		m.Warned = now
		return GuardLastWarning, m
	case p.Delete && !p.ReadOnly && now.Sub(m.Warned) >= GuardGrace:
		m.Cancelled = true // one delete per stretch, whatever its outcome
		return GuardDeleteNow, m
	}
	return GuardNone, m
}

// DeleteAt is when the guard deletes the runtime of memo m under policy p
// (GuardGrace after its last warning; the first check of the guard at or
// after that time does it), and ok false when no delete is coming: not
// warned, cancelled, a policy that only warns, or read-only.
func (m GuardMemo) DeleteAt(p GuardPolicy) (at time.Time, ok bool) {
	if !p.Delete || p.ReadOnly || p.After <= 0 || m.Warned.IsZero() || m.Cancelled {
		return time.Time{}, false
	}
	return m.Warned.Add(GuardGrace), true
}
