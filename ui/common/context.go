// Package common is what the dashboard's parts share: the read-only
// Context every pane and overlay draws and decides from, the closed set of
// Effects they answer with, and the Overlay interface of the stack.
//
// A pane or an overlay never changes the dashboard's state nor starts a
// call itself: it returns an Effect, and the root (package ui, its one
// apply) carries it out. Nothing here imports the root.
package common

import (
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/theme"
)

// Context is the one narrow view of the dashboard that panes and overlays
// read. The root owns it and refreshes it before it routes a key or draws
// a frame; components must treat it as read-only.
type Context struct {
	// Snap is the domain state (runtimes, sessions, tier, specs).
	Snap *state.Snapshot
	// Keys is the key map in effect (read-only mode applied).
	Keys *keymap.KeyMap
	// Styles are the theme's styles, built once.
	Styles *theme.Styles
	// Now is the clock; Location the zone times are shown in.
	Now      func() time.Time
	Location *time.Location
	// ReadOnly is set by --readonly: keys that change something are off.
	ReadOnly bool
	// Redact masks every registered secret in s; never nil once the root
	// built the Context.
	Redact func(s string) string
	// Layout is the screen's geometry, computed by the root alone.
	Layout Layout
	// Status is the status line of the moment.
	Status Status
	// Selected is the selected runtime's name ("runtimes/{id}"; "" when
	// none); SelectedSession the sessions pane's selection ("" when none).
	Selected, SelectedSession string
	// Focus is the panel the dashboard's keys go to (no overlay open).
	Focus Panel
	// Activity says what is under way, for the rows it concerns.
	Activity Activity
	// RefreshInterval is how often the runtimes and their session counts
	// are listed again.
	RefreshInterval time.Duration
	// Profile is the active profile's name; Profiles every profile the
	// configuration names, in order.
	Profile  string
	Profiles []string
	// Monitor is what the monitor knows of each runtime's resources and
	// kernels; nil when monitoring is off (no monitor client).
	Monitor Monitor
	// Jobs is what is known of each runtime's jobs; nil when they are
	// not listed (monitoring off).
	Jobs Jobs
}

// Jobs is what panes read of the runtimes' jobs (api/jupyter/jobs), per
// runtime name ("runtimes/{id}"), as the root last listed them.
type Jobs interface {
	// Jobs returns runtime name's jobs, newest first; ok is false before
	// the first listing answered (or when it failed).
	Jobs(name string) (js []Job, ok bool)
	// ByRun reports whether runtime name is to be deleted when a job
	// started from this machine ends (a job note's DeleteWhenDone: a run
	// in progress created it).
	ByRun(name string) bool
}

// Job is one job of a runtime as the panes show it: its record as read
// from the runtime and the last line of its output ("" when not read).
type Job struct {
	Record jobs.Record
	Last   string
}

// Monitor is what panes read of the monitor (state/monitor), per runtime
// name ("runtimes/{id}"). Its answers are the root's: read them, never
// change them.
type Monitor interface {
	// Runtime returns what is known of runtime name's resources and
	// kernels; nil when nothing came yet.
	Runtime(name string) *monitor.Runtime
}

// Layout is the geometry of a W×H screen: what each pane is given. It is
// computed when the size changes, the details expand or the table's
// number of rows changes (the table takes the rows it has), never while
// drawing.
type Layout struct {
	W, H int
	// TooSmall is set below the smallest screen the dashboard lays out.
	TooSmall bool
	// TableRows is the number of visible runtime rows; BottomRows the
	// content lines of the sessions/details area.
	TableRows, BottomRows int
	// Split puts sessions and details side by side (else stacked).
	Split bool
	// SessLines is the stacked sessions panel's height (title included);
	// SessWidth the split sessions panel's width, in cells.
	SessLines, SessWidth int
}

// Status is the status line: Text (already redacted) shown until Until;
// Err marks an error.
type Status struct {
	Text  string
	Err   bool
	Until time.Time
}

// Shown reports whether the status line still shows s at now.
func (s Status) Shown(now time.Time) bool { return s.Text != "" && now.Before(s.Until) }

// Panel is one of the dashboard's two focusable panes.
type Panel int

// The focusable panes.
const (
	PanelRuntimes Panel = iota
	PanelSessions
)

// Activity is what the dashboard is doing for which row: when each
// delete_runtime, delete_session and create_session was sent (by runtime
// or session name), whose proxy token is revealed, the creates under way
// and where each proxy token's renewal stands.
type Activity struct {
	Deleting, Closing, Opening map[string]time.Time
	Revealed                   string
	// Creating lists the creates under way at now, oldest first (nil
	// until the root sets it: none).
	Creating func(now time.Time) []Creation
	// Renewals says where renewals stand (nil until the root sets it:
	// every token renews at the default threshold, none in flight).
	Renewals Renewals
}

// Creation is a create_runtime under way, as the runtimes table shows it
// above the runtimes: the runtime id asked for (or what is being
// created), the spec, and where it stands ("creating… 0:12", "capacity
// unavailable, retrying 2/5 in 0:30 · c cancel").
type Creation struct {
	Name, Spec, Status string
}

// Renewals is what the panes read of proxy-token renewal, per runtime name
// ("runtimes/{id}").
type Renewals interface {
	// Threshold is how close to expireTime the token reads EXPIRING.
	Threshold(name string) time.Duration
	// InFlight reports whether a renewal (get_runtime) is under way.
	InFlight(name string) bool
	// RetryIn is how long until the next renewal attempt, from now.
	RetryIn(name string, now time.Time) time.Duration
	// Auto reports whether tokens are renewed automatically (config
	// autoRenew).
	Auto() bool
}
