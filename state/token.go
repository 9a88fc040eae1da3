package state

import "time"

// DefaultExpiringThreshold is how long before expireTime a proxy token
// counts as EXPIRING (5 minutes, the margin colab-vscode renews at).
const DefaultExpiringThreshold = 5 * time.Minute

// TokenStatus is the state of a runtime's proxy token at an instant.
type TokenStatus int

// Token states. The zero value is TokenUnknown.
const (
	// TokenUnknown: expireTime is absent or unparseable (or the runtime has
	// no connectionInfo).
	TokenUnknown TokenStatus = iota
	// TokenOK: more than the expiring threshold remains.
	TokenOK
	// TokenExpiring: some time remains, at most the threshold.
	TokenExpiring
	// TokenExpired: expireTime is now or in the past. The runtime itself
	// may well still be running: renew with get_runtime.
	TokenExpired
)

// String returns the upper-case word shown next to a countdown: "OK",
// "EXPIRING", "EXPIRED" or "UNKNOWN", so the status reads without colour.
func (s TokenStatus) String() string {
	switch s {
	case TokenOK:
		return "OK"
	case TokenExpiring:
		return "EXPIRING"
	case TokenExpired:
		return "EXPIRED"
	}
	return "UNKNOWN"
}

// TokenAt classifies a proxy token whose expireTime is expire (zero =
// unknown) at instant now. remaining is always expire − now computed on
// absolute instants (monotonic readings are stripped), so a suspended laptop
// or a wall-clock jump shows the truth on the next call; it is 0 when the
// status is TokenUnknown and may be negative when expired. threshold ≤ 0
// means DefaultExpiringThreshold.
func TokenAt(expire, now time.Time, threshold time.Duration) (status TokenStatus, remaining time.Duration) {
	if expire.IsZero() {
		return TokenUnknown, 0
	}
	if threshold <= 0 {
		threshold = DefaultExpiringThreshold
	}
	remaining = expire.Round(0).Sub(now.Round(0))
	if remaining <= 0 {
		return TokenExpired, remaining
	}
	if remaining <= threshold {
		return TokenExpiring, remaining
	}
	return TokenOK, remaining
}
