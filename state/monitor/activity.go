package monitor

import (
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
)

// Idleness thresholds.
const (
	// NeverConnectedAfter is how long a kernel may be "starting" with no
	// connection before it counts as never connected.
	NeverConnectedAfter = 60 * time.Second
	// IdleWarnAfter is how long every kernel must have been idle before
	// the runtime shows an idle warning (IDLE 1:12). Colab's own idle
	// disconnect is unofficial (about 60–90 min).
	IdleWarnAfter = time.Hour
	// ActivityHorizon is how far from now a kernel's last_activity may be
	// for it to count, as for a proxy token's expireTime (a year): a
	// kernel's activity is minutes or days old, so a time further away,
	// in the past or the future ("1000-01-01T00:00:00Z", a placeholder,
	// a clock gone wrong), is no activity time at all. Judge treats it
	// as absent, so the runtime reads "idle" with no duration instead of
	// the 292-year limit of time.Duration ("IDLE 292y171d").
	ActivityHorizon = 366 * 24 * time.Hour
)

// plausible is t when it lies within ActivityHorizon of now either way,
// else the zero time (absent).
func plausible(t, now time.Time) time.Time {
	if d := now.Sub(t); d > ActivityHorizon || d < -ActivityHorizon {
		return time.Time{}
	}
	return t
}

// State is a runtime's kernel activity, as a word that reads without
// colour.
type State int

// Kernel activity states, in the order Judge checks them.
const (
	// StateUnknown: no kernel list yet.
	StateUnknown State = iota
	// StateNoKernels: the runtime runs no kernel.
	StateNoKernels
	// StateBusy: a kernel is busy, restarting or autorestarting,
	// whatever last_activity says.
	StateBusy
	// StateNeverConnected: a kernel has been "starting" for over
	// NeverConnectedAfter with no connection: a connection problem
	// (WebSocket blocked?), not idleness.
	StateNeverConnected
	// StateStarting: a kernel is starting.
	StateStarting
	// StateIdle: every kernel is idle, or dead beside an idle one.
	StateIdle
	// StateRestarted: a kernel that was up (seen idle or busy) is
	// starting again: the server restarted it after it died (an
	// out-of-memory kill, kill -9), and nobody has used it since. Not a
	// connection problem, as a kernel that never came up would be.
	StateRestarted
	// StateDead: every kernel is dead (listed "dead", or seen up and then
	// gone from the list: the server gave up restarting it and dropped
	// it); nothing can run until one is started again.
	StateDead
)

// String is the state's word: "unknown", "no kernels", "busy", "never
// connected", "starting", "idle", "restarted", "dead".
func (s State) String() string {
	switch s {
	case StateRestarted:
		return "restarted"
	case StateDead:
		return "dead"
	case StateNoKernels:
		return "no kernels"
	case StateBusy:
		return "busy"
	case StateNeverConnected:
		return "never connected"
	case StateStarting:
		return "starting"
	case StateIdle:
		return "idle"
	}
	return "unknown"
}

// Activity is Judge's verdict on a runtime's kernels.
type Activity struct {
	State State
	// Kernels counts the kernels; Busy the busy (or restarting) ones;
	// NeverConnected the ones stuck starting; Starting the ones starting
	// that are not stuck (yet); Restarted the ones starting again after
	// being up; Dead the dead ones. The rest are idle (Idle).
	Kernels, Busy, NeverConnected, Starting, Restarted, Dead int
	// Vanished counts, of Kernels and of Dead, the kernels seen up that
	// the server no longer lists (KernelHistory.Vanished).
	Vanished int
	// Since is, for StateBusy, the newest last_activity of the busy
	// kernels (the last output: "busy 0:42 (no output)"); for StateIdle,
	// the newest last_activity of the kernels that are not dead (the last
	// activity); for StateRestarted, when the newest restart was first
	// seen; for StateDead, the newest last_activity of the kernels
	// listed dead or when a vanished one was first missed, whichever is
	// newer (about when they died); else zero.
	Since time.Time
	// For is now − Since (never negative; 0 when Since is zero).
	For time.Duration
}

// Idle is how many kernels are idle.
func (a Activity) Idle() int {
	return a.Kernels - a.Busy - a.NeverConnected - a.Starting - a.Restarted - a.Dead
}

// IdleWarning reports whether every kernel has been idle for
// IdleWarnAfter or more.
func (a Activity) IdleWarning() bool { return a.State == StateIdle && a.For >= IdleWarnAfter }

// active reports whether a state means the kernel works, whatever its
// last_activity (colab-vscode's ACTIVE_KERNEL_STATES less "starting").
func busyState(s string) bool {
	return s == "busy" || s == "restarting" || s == "autorestarting"
}

// noHistory is the KernelHistory of a first list: nothing seen before.
type noHistory struct{}

func (noHistory) StartingSince(string) (time.Time, bool) { return time.Time{}, false }
func (noHistory) WasUp(string) bool                      { return false }
func (noHistory) Vanished() []time.Time                  { return nil }

// KernelHistory is what earlier kernel lists of the same runtime said
// of a kernel id (Store keeps it, by the local clock).
type KernelHistory interface {
	// StartingSince is when id was first seen "starting" in the lists
	// that have shown it starting since; ok is false when it was not.
	StartingSince(id string) (t time.Time, ok bool)
	// WasUp reports whether id was seen idle or busy in an earlier list.
	WasUp(id string) bool
	// Vanished is, for each kernel that was seen up and is no longer
	// listed, when a list first missed it (jupyter-server drops a kernel
	// whose restarts failed, and its session with it), leaving out the
	// kernels closed with a session (Store.SessionClosed). Judge counts
	// them dead.
	Vanished() []time.Time
}

// Judge returns the activity of a runtime whose kernels are ks at now.
// h, when not nil, says since when a kernel id has been seen
// "starting" (otherwise, or when it does not know, a starting kernel's
// last_activity, its start time, is used) and whether it was up before:
// a kernel starting again after being up was restarted, never "never
// connected". A dead kernel is no activity: the runtime is idle when
// another is idle, dead when all are; a kernel h says vanished counts
// as dead, so a runtime whose only kernel died for good reads dead, not
// "no kernels". A last_activity beyond
// ActivityHorizon either way counts as absent. nil ks (never listed) is
// StateUnknown.
func Judge(ks []apimon.Kernel, now time.Time, h KernelHistory) Activity {
	if h == nil {
		h = noHistory{}
	}
	if ks == nil {
		return Activity{}
	}
	gone := h.Vanished()
	a := Activity{Kernels: len(ks) + len(gone), Dead: len(gone), Vanished: len(gone)}
	if a.Kernels == 0 {
		a.State = StateNoKernels
		return a
	}
	var newest, newestBusy, newestDead, newestRestart time.Time
	for _, t := range gone {
		newestDead = latest(newestDead, plausible(t, now))
	}
	for _, k := range ks {
		last := plausible(k.LastActivity, now)
		// An if chain, not a switch: Go's coverage counts an if's
		// condition, which mutation testing needs to see reached.
		if k.ExecutionState == "dead" {
			a.Dead++
			newestDead = latest(newestDead, last)
			continue
		}
		newest = latest(newest, last)
		if busyState(k.ExecutionState) {
			a.Busy++
			newestBusy = latest(newestBusy, last)
		} else if k.ExecutionState == "starting" {
			since := last
			if t, ok := h.StartingSince(k.ID); ok && (since.IsZero() || t.Before(since)) {
				since = t
			}
			if h.WasUp(k.ID) {
				a.Restarted++
				newestRestart = latest(newestRestart, since)
			} else if k.Connections == 0 && !since.IsZero() && now.Sub(since) > NeverConnectedAfter {
				a.NeverConnected++
			} else {
				a.Starting++
			}
		}
	}
	if a.Busy > 0 {
		a.State, a.Since = StateBusy, newestBusy
	} else if a.Restarted > 0 {
		a.State, a.Since = StateRestarted, newestRestart
	} else if a.NeverConnected > 0 {
		a.State = StateNeverConnected
	} else if a.Starting > 0 {
		a.State = StateStarting
	} else if a.Dead == a.Kernels {
		a.State, a.Since = StateDead, newestDead
	} else {
		a.State, a.Since = StateIdle, newest
	}
	if !a.Since.IsZero() {
		a.For = max(now.Sub(a.Since), 0)
	}
	return a
}
