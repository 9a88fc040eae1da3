// Package state is colabdash's pure domain: a snapshot of what the Colab API
// said (subscription tier, runtime specs, runtimes and their sessions), how
// each API result folds into it, proxy-token status and countdowns, data
// freshness, and sorting and filtering of runtimes.
//
// It imports neither Bubble Tea nor the MCP SDK, and it never reads the
// clock: every function that needs the time takes now.
package state

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
)

// DefaultGoneRetention is how long a runtime that disappeared from
// list_runtimes stays on screen, marked gone (10 minutes).
const DefaultGoneRetention = 10 * time.Minute

// OwnSessionPrefix is the sessionId prefix of sessions colabdash opens
// ("colabdash-…"); list_sessions also returns the user's notebook sessions.
const OwnSessionPrefix = "colabdash-"

// Config holds the snapshot's tunables. Zero fields take the defaults.
type Config struct {
	// ExpiringThreshold: a token with at most this much left is EXPIRING
	// (default DefaultExpiringThreshold, 5 min).
	ExpiringThreshold time.Duration
	// GoneRetention: how long a gone runtime stays listed after it was
	// noticed gone (default DefaultGoneRetention, 10 min).
	GoneRetention time.Duration
	// OwnSessionPrefix: sessionId prefix of the dashboard's own sessions
	// (default OwnSessionPrefix).
	OwnSessionPrefix string
}

func (c Config) withDefaults() Config {
	// (A zero ExpiringThreshold is TokenAt's default already.)
	if c.GoneRetention <= 0 {
		c.GoneRetention = DefaultGoneRetention
	}
	if c.OwnSessionPrefix == "" {
		c.OwnSessionPrefix = OwnSessionPrefix
	}
	return c
}

// Freshness records when a list was last fetched and whether the last
// attempt failed. The zero value means "never fetched, nothing failed yet"
// (loading).
type Freshness struct {
	// FetchedAt is the time of the last successful fetch (zero: never).
	FetchedAt time.Time
	// Err is the last attempt's error, nil when it succeeded. Data from
	// before the failure is kept, and is stale while Err is set.
	Err error
	// FailedAt is when Err happened.
	FailedAt time.Time
	// Failures counts consecutive failed attempts (0 after a success).
	Failures int
}

// Loaded reports whether the list was fetched successfully at least once.
func (f Freshness) Loaded() bool { return !f.FetchedAt.IsZero() }

// Loading reports whether no attempt has finished yet.
func (f Freshness) Loading() bool { return f.FetchedAt.IsZero() && f.Err == nil }

// Stale reports whether the last attempt failed (any data shown is old).
func (f Freshness) Stale() bool { return f.Err != nil }

func (f *Freshness) ok(now time.Time) {
	*f = Freshness{FetchedAt: now}
}

func (f *Freshness) fail(now time.Time, err error) {
	f.Err, f.FailedAt = err, now
	f.Failures++
}

// List names one of the snapshot's account-wide lists, for ApplyError.
type List int

// The account-wide lists.
const (
	ListRuntimes List = iota
	ListSubscription
	ListSpecs
)

// Snapshot is everything the dashboard knows. The zero value is not usable;
// call New. Methods are not safe for concurrent use (the UI owns it).
type Snapshot struct {
	cfg Config

	// Subscription is the last get_subscription result.
	Subscription api.Subscription
	// SubscriptionFresh is its freshness.
	SubscriptionFresh Freshness
	// Specs is the last list_runtime_specs result.
	Specs []api.RuntimeSpec
	// SpecsFresh is its freshness.
	SpecsFresh Freshness
	// RuntimesFresh is the freshness of list_runtimes.
	RuntimesFresh Freshness

	runtimes map[string]*Runtime
	owned    map[string]struct{}
	version  uint64
}

// New returns an empty snapshot ("loading": nothing fetched yet).
func New(cfg Config) *Snapshot {
	return &Snapshot{cfg: cfg.withDefaults(), runtimes: map[string]*Runtime{}, owned: map[string]struct{}{}}
}

// Version increases whenever the set of runtimes or anything that sorting
// or filtering reads changes; callers cache Rows by it.
func (s *Snapshot) Version() uint64 { return s.version }

// Len returns the number of runtimes known, gone ones included.
func (s *Snapshot) Len() int { return len(s.runtimes) }

// Counts returns how many runtimes are listed (live) and how many are
// listed as gone (reclaimed by Colab: missing from list_runtimes or
// NOT_FOUND); runtimes the user deleted count in neither.
func (s *Snapshot) Counts() (live, gone int) {
	for _, r := range s.runtimes {
		switch {
		case r.Deleted():
		case r.Gone():
			gone++
		default:
			live++
		}
	}
	return live, gone
}

// Runtime returns the runtime named name ("runtimes/{id}"), or nil.
func (s *Snapshot) Runtime(name string) *Runtime { return s.runtimes[name] }

// ApplySubscription folds a get_subscription result in.
func (s *Snapshot) ApplySubscription(now time.Time, sub api.Subscription) {
	s.Subscription = sub
	s.SubscriptionFresh.ok(now)
}

// ApplySpecs folds a list_runtime_specs result in.
func (s *Snapshot) ApplySpecs(now time.Time, specs []api.RuntimeSpec) {
	s.Specs = slices.Clone(specs)
	s.SpecsFresh.ok(now)
}

// ApplyRuntimes folds a list_runtimes result in. Listed runtimes are added
// or updated (a gone one that is listed again comes back); runtimes not in
// the list are marked gone ("missing from list_runtimes") with their last
// seen time kept, and their sessions cleared. A listed runtime's renewal
// failure (RenewErr) is cleared: the list shows its state (but a renewal
// that did not extend the token, ErrNotExtended, stays until a later
// token is seen). A runtime whose token expired
// but which is still listed is NOT gone. Entries without a
// name are ignored.
func (s *Snapshot) ApplyRuntimes(now time.Time, rts []api.Runtime) {
	s.ApplyRuntimesSince(now, ^uint64(0), rts)
}

// ApplyRuntimesSince is ApplyRuntimes for a list_runtimes request sent when
// the snapshot's Version was since: what the snapshot learnt after that
// from other calls wins over the older list. A runtime created, renewed or
// deleted (UpdateRuntime, MarkRuntimeGone, ApplyRenewError NOT_FOUND) after
// the request was sent is neither marked gone for missing from the list nor
// brought back by it. So a list that raced a create_runtime does not hide
// the new runtime, and one that raced a delete_runtime does not revive the
// deleted one.
func (s *Snapshot) ApplyRuntimesSince(now time.Time, since uint64, rts []api.Runtime) {
	seen := make(map[string]struct{}, len(rts))
	for _, rt := range rts {
		if rt.Name == "" {
			continue
		}
		seen[rt.Name] = struct{}{}
		if r := s.runtimes[rt.Name]; r != nil && r.touched > since {
			continue
		}
		s.upsert(now, rt)
	}
	for name, r := range s.runtimes {
		if _, ok := seen[name]; !ok && !r.Gone() && r.touched <= since {
			s.markGone(r, now, "missing from list_runtimes")
		}
	}
	s.RuntimesFresh.ok(now)
	s.version++
}

func (s *Snapshot) upsert(now time.Time, rt api.Runtime) *Runtime {
	r := s.runtimes[rt.Name]
	if r == nil {
		r = &Runtime{FirstSeen: now}
		s.runtimes[rt.Name] = r
	}
	if r.Gone() {
		r.GoneAt, r.GoneReason = time.Time{}, ""
	}
	old := r.ExpireTime()
	r.Runtime = rt
	r.LastSeen = now
	// Listed or renewed just now: the failure is over, unless the renewal
	// did not extend the token and this shows no later one either.
	if !errors.Is(r.RenewErr, ErrNotExtended) || rt.ExpireTime().After(old) {
		r.RenewErr = nil
	}
	r.index()
	return r
}

func (s *Snapshot) markGone(r *Runtime, now time.Time, reason string) {
	r.GoneAt, r.GoneReason = now, reason
	r.Sessions = nil
	r.SessionsFresh = Freshness{}
}

// UpdateRuntime folds a get_runtime result in: typically a renewed proxy
// token and expireTime. It also clears a previous renewal error and brings
// back a runtime that was marked gone.
func (s *Snapshot) UpdateRuntime(now time.Time, rt api.Runtime) {
	if rt.Name == "" {
		return
	}
	r := s.upsert(now, rt)
	r.RenewErr = nil
	s.version++
	r.touched = s.version
}

// ApplyRenewError records a failed get_runtime for runtime name. A NOT_FOUND
// *api.Error marks the runtime gone (confirmed by the server); any other
// error keeps the row, with RenewErr set (state unknown).
func (s *Snapshot) ApplyRenewError(now time.Time, name string, err error) {
	r := s.runtimes[name]
	if r == nil || err == nil {
		return
	}
	if errors.Is(err, &api.Error{Code: api.NotFound}) {
		if !r.Gone() {
			s.markGone(r, now, string(api.NotFound))
			s.version++
			r.touched = s.version
		}
		return
	}
	r.RenewErr = err
}

// MarkRuntimeGone marks runtime name gone at now for reason (no-op when
// unknown or already gone). With reason ReasonDeleted the runtime leaves
// Rows and Counts at once (see Runtime.Deleted), also when it was already
// gone for another reason: a renewal that met NOT_FOUND just before the
// user's delete answered does not keep the deleted runtime listed.
func (s *Snapshot) MarkRuntimeGone(now time.Time, name, reason string) {
	if r := s.runtimes[name]; r != nil && (!r.Gone() || reason == ReasonDeleted && !r.Deleted()) {
		s.markGone(r, now, reason)
		s.version++
		r.touched = s.version
	}
}

// ApplySessions folds a list_sessions result for runtime name in. It is
// ignored for unknown or gone runtimes (a late answer after the runtime
// vanished). Sessions are kept in server order.
func (s *Snapshot) ApplySessions(now time.Time, name string, sessions []api.Session) {
	r := s.runtimes[name]
	if r == nil || r.Gone() {
		return
	}
	r.Sessions = slices.Clone(sessions)
	r.SessionsFresh.ok(now)
}

// ApplySessionsError records a failed list_sessions for runtime name; the
// previous sessions stay, marked stale.
func (s *Snapshot) ApplySessionsError(now time.Time, name string, err error) {
	if r := s.runtimes[name]; r != nil && !r.Gone() && err != nil {
		r.SessionsFresh.fail(now, err)
	}
}

// ApplyError records a failed fetch of an account-wide list. The data
// already there stays, marked stale with err as the reason.
func (s *Snapshot) ApplyError(list List, now time.Time, err error) {
	if err == nil {
		return
	}
	switch list {
	case ListRuntimes:
		s.RuntimesFresh.fail(now, err)
	case ListSubscription:
		s.SubscriptionFresh.fail(now, err)
	case ListSpecs:
		s.SpecsFresh.fail(now, err)
	}
}

// Prune drops runtimes gone for longer than the retention. It reports
// whether any was dropped.
func (s *Snapshot) Prune(now time.Time) bool {
	dropped := false
	for name, r := range s.runtimes {
		if r.Gone() && now.Sub(r.GoneAt) > s.cfg.GoneRetention {
			delete(s.runtimes, name)
			dropped = true
		}
	}
	if dropped {
		s.version++
	}
	return dropped
}

// MarkOwned records that the dashboard opened session name
// ("runtimes/r/sessions/s"), whatever its sessionId.
func (s *Snapshot) MarkOwned(session string) { s.owned[session] = struct{}{} }

// Owned reports whether the dashboard opened the session: it was recorded
// with MarkOwned or its sessionId starts with the own-session prefix.
// Other sessions are the user's (notebooks).
func (s *Snapshot) Owned(session string) bool {
	if _, ok := s.owned[session]; ok {
		return true
	}
	return strings.HasPrefix(api.LastSegment(session), s.cfg.OwnSessionPrefix)
}

// TokenStatus returns the proxy-token status of runtime name at now with the
// snapshot's threshold; TokenUnknown for an unknown runtime.
func (s *Snapshot) TokenStatus(now time.Time, name string) (TokenStatus, time.Duration) {
	r := s.runtimes[name]
	if r == nil {
		return TokenUnknown, 0
	}
	return r.Token(now, s.cfg.ExpiringThreshold)
}
