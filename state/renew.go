package state

import (
	"errors"
	"time"
)

// Proxy-token renewal timing (get_runtime); see Renewals.
const (
	// MinRenewLead is the smallest lead a renewal is given once a token's
	// lifetime is known (5 s): time for the get_runtime to come back.
	MinRenewLead = 5 * time.Second
	// RenewBackoff is the first pause after a failed renewal (30 s, as
	// Google's own client waits); it doubles with every failure in a row.
	RenewBackoff = 30 * time.Second
	// MinRenewRetry is the shortest pause between two renewals of one
	// runtime, whatever the token's lifetime (5 s).
	MinRenewRetry = 5 * time.Second
	// assumedTokenLife is a proxy token's lifetime until a renewal showed
	// it: "about an hour", as Colab documents.
	assumedTokenLife = time.Hour
)

// ErrNotExtended is the failure of a renewal whose reply did not move
// expireTime later: the call succeeded but the token is as stale as
// before. errors.Is matches a *NotExtendedError.
var ErrNotExtended = errors.New("renewal did not extend the token")

// NotExtendedError is a renewal that did not extend the token: Expire is
// the expireTime the reply carried (zero: none), Retry the pause before
// the next attempt.
type NotExtendedError struct {
	Expire time.Time
	Retry  time.Duration
}

// Error says "renewal did not extend the token (next try in 30s)".
func (e *NotExtendedError) Error() string {
	return ErrNotExtended.Error() + " (next try in " + FormatCountdown(e.Retry) + ")"
}

// Is makes errors.Is(err, ErrNotExtended) true.
func (e *NotExtendedError) Is(target error) bool { return target == ErrNotExtended }

// Renewals decides when each runtime's proxy token is renewed, pure and
// clock-free (every method takes now):
//
//   - A token is renewed Lead before its expireTime. Once a renewal has
//     shown the token's lifetime, the lead shrinks to a tenth of it (at
//     least MinRenewLead, at most half): one renewal per token lifetime,
//     not two (a 2-minute token is renewed every 108 s, an hour-long one
//     5 minutes before it lapses, as before).
//   - A failed renewal, an error or a reply that did not move expireTime
//     later (ErrNotExtended), is retried after RenewBackoff, doubling with
//     every failure in a row up to the regular cadence (lifetime − lead),
//     shortened for a short-lived token to a quarter of its lifetime and
//     to half the time it has left, and never below MinRenewRetry.
//
// The zero value is not usable; call NewRenewals. Not safe for concurrent
// use (the dashboard model owns it).
type Renewals struct {
	// Lead is how long before expireTime a token is renewed while its
	// lifetime is unknown, and the most it is ever renewed ahead.
	Lead time.Duration
	m    map[string]*renewState
}

type renewState struct {
	last     time.Time     // start of the last attempt
	life     time.Duration // lifetime of the token the last good renewal got
	failures int           // failed renewals in a row
	retryAt  time.Time     // after a failure: the next attempt, not before
}

// NewRenewals returns a schedule with the given lead (≤ 0: 5 minutes).
func NewRenewals(lead time.Duration) *Renewals {
	if lead <= 0 {
		lead = DefaultExpiringThreshold
	}
	return &Renewals{Lead: lead, m: map[string]*renewState{}}
}

func (rn *Renewals) get(name string) *renewState {
	st := rn.m[name]
	if st == nil {
		st = &renewState{}
		rn.m[name] = st
	}
	return st
}

// LeadFor returns how long before expireTime runtime name's token is
// renewed (see Renewals).
func (rn *Renewals) LeadFor(name string) time.Duration { return rn.leadFor(rn.Life(name)) }

// leadFor is the lead for a token that lives life (≤ 0: unknown).
func (rn *Renewals) leadFor(life time.Duration) time.Duration {
	if life <= 0 {
		return rn.Lead
	}
	return min(rn.Lead, max(life/10, MinRenewLead), life/2)
}

// Life returns the token lifetime the last good renewal of name showed
// (0: none yet).
func (rn *Renewals) Life(name string) time.Duration {
	if st := rn.m[name]; st != nil {
		return st.life
	}
	return 0
}

// ExpiringThreshold returns how long before expireTime runtime name's
// proxy token counts as EXPIRING: base (the configured threshold), but at
// most a quarter of the token's lifetime once a renewal or create showed
// it (and never under a second), so a token that lives two minutes is not
// EXPIRING from its first second.
func (rn *Renewals) ExpiringThreshold(name string, base time.Duration) time.Duration {
	if life := rn.Life(name); life > 0 {
		return min(base, max(life/4, time.Second))
	}
	return base
}

// Learn records the lifetime of name's token as another call showed it
// (create_runtime), before any renewal: it sets the lead of the first one.
func (rn *Renewals) Learn(name string, life time.Duration) {
	if life > 0 {
		rn.get(name).life = life
	}
}

// Failures returns the failed renewals of name in a row.
func (rn *Renewals) Failures(name string) int {
	if st := rn.m[name]; st != nil {
		return st.failures
	}
	return 0
}

// Due returns when runtime name's token (expiring at expire) is renewed
// next; ok is false when expire is unknown (zero). A time at or before now
// means now.
func (rn *Renewals) Due(name string, expire, now time.Time) (at time.Time, ok bool) {
	if expire.IsZero() {
		return time.Time{}, false
	}
	at = expire.Add(-rn.LeadFor(name))
	st := rn.m[name]
	if st == nil {
		return at, true
	}
	if st.retryAt.After(at) { // (zero unless the last renewal failed)
		at = st.retryAt
	}
	if !st.last.IsZero() && !now.Before(st.last) {
		if gate := st.last.Add(MinRenewRetry); gate.After(at) {
			at = gate
		}
	}
	return at, true
}

// Started records that a renewal of name started at now.
func (rn *Renewals) Started(name string, now time.Time) { rn.get(name).last = now }

// Done records the outcome of the renewal of name that started at
// started: before is the token's expireTime when it was sent (not when
// the reply came: a list answered meanwhile may hold the new token), after the
// one the reply carried (zero when none), err the call's error. A reply
// that did not move expireTime later is a failure too: Done then returns
// a *NotExtendedError. On failure it returns the pause before the next
// attempt (retry) and failed true.
func (rn *Renewals) Done(name string, started, before, after time.Time, err error) (retry time.Duration, failed bool, notExtended error) {
	st := rn.get(name)
	if err == nil && !after.IsZero() && (before.IsZero() || after.After(before)) {
		st.failures, st.retryAt = 0, time.Time{}
		if after.After(started) {
			st.life = after.Sub(started)
		}
		return 0, false, nil
	}
	st.failures++
	retry = rn.backoff(st, before, started)
	st.retryAt = started.Add(retry)
	if err == nil {
		notExtended = &NotExtendedError{Expire: after, Retry: retry}
	}
	return retry, true, notExtended
}

// backoff is the pause after st's latest failure (see Renewals).
func (rn *Renewals) backoff(st *renewState, expire, at time.Time) time.Duration {
	life := st.life
	if life <= 0 {
		life = assumedTokenLife
	}
	cadence := max(life-rn.leadFor(life), MinRenewRetry)
	base := RenewBackoff
	if st.life > 0 {
		base = min(base, st.life/4)
	}
	if rem := expire.Sub(at); !expire.IsZero() && rem > 0 {
		base = min(base, rem/2)
	}
	d := base
	// (d < cadence only stops the doubling, and an overflow, once d is
	// clamped to cadence anyway: d <= cadence would give the same pause.)
	for i := 1; i < st.failures && d < cadence; i++ {
		d *= 2
	}
	return max(min(d, cadence), MinRenewRetry)
}

// RetryIn returns how long until the next attempt on name after a failure
// (0 when none is pending or it is due).
func (rn *Renewals) RetryIn(name string, now time.Time) time.Duration {
	st := rn.m[name]
	if st == nil || st.failures == 0 {
		return 0
	}
	return max(st.retryAt.Sub(now), 0)
}

// Forget drops what is known about name (a runtime gone).
func (rn *Renewals) Forget(name string) { delete(rn.m, name) }

// Reset forgets every runtime (a profile switch).
func (rn *Renewals) Reset() { rn.m = map[string]*renewState{} }
