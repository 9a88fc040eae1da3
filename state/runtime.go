package state

import (
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
)

// Runtime is one runtime as the dashboard knows it: the last api.Runtime
// seen plus what the dashboard learnt around it.
type Runtime struct {
	api.Runtime
	// FirstSeen and LastSeen are when list_runtimes (or get_runtime) first
	// and last returned it.
	FirstSeen, LastSeen time.Time
	// GoneAt is when the runtime was noticed missing (zero while listed);
	// GoneReason says how ("missing from list_runtimes", "NOT_FOUND").
	GoneAt     time.Time
	GoneReason string
	// Sessions are the runtime's sessions from the last list_sessions, in
	// the order the server gave; SessionsFresh is that list's freshness.
	Sessions      []api.Session
	SessionsFresh Freshness
	// RenewErr is the last failed token renewal (get_runtime) error, nil
	// after a success: the runtime's state is then unknown, not gone.
	RenewErr error

	search  string // lower-case text the filter matches
	touched uint64 // snapshot version of the last change from a non-list source
}

// Gone reports whether the runtime disappeared from list_runtimes or
// get_runtime answered NOT_FOUND.
func (r *Runtime) Gone() bool { return !r.GoneAt.IsZero() }

// ReasonDeleted is the GoneReason of a runtime the user deleted
// (delete_runtime succeeded); see MarkRuntimeGone.
const ReasonDeleted = "deleted"

// Deleted reports whether the user deleted the runtime (GoneReason
// ReasonDeleted). Such a runtime is kept only as a tombstone, so a list
// that raced the delete cannot revive it: Rows and Counts leave it out.
func (r *Runtime) Deleted() bool { return r.Gone() && r.GoneReason == ReasonDeleted }

// Token returns the proxy token's status and expireTime − now at now, for
// the given expiring threshold (≤ 0: default). See TokenAt.
func (r *Runtime) Token(now time.Time, threshold time.Duration) (TokenStatus, time.Duration) {
	return TokenAt(r.ExpireTime(), now, threshold)
}

// Spec returns the runtime's variant/accelerator/shape as
// api.RuntimeSpecKey.String ("GPU/T4/STANDARD").
func (r *Runtime) Spec() string { return r.RuntimeSpec.String() }

// DisplayVersion returns the runtime version as the dashboard shows it:
// the API's version string, or "latest" when it is empty (the API's
// "newest available" default).
func (r *Runtime) DisplayVersion() string {
	if r.Version == "" {
		return "latest"
	}
	return r.Version
}

// index builds the filter's search text from what the dashboard displays,
// so every word on a row (including "latest") can be filtered on.
func (r *Runtime) index() {
	r.search = strings.ToLower(r.ID() + "\x00" + r.RuntimeSpec.String() + "\x00" + string(r.RuntimeSpec.Variant) + "\x00" + r.DisplayVersion())
}
