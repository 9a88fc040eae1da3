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

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
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
	// Activity says what is under way, for the rows it concerns.
	Activity Activity
	// Profile is the active profile's name; Profiles every profile the
	// configuration names, in order.
	Profile  string
	Profiles []string
}

// Layout is the geometry of a W×H screen: what each pane is given. It is
// computed when the size changes or the details expand, never while
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

// Activity is what the dashboard is doing for which row: when each
// delete_runtime, delete_session and create_session was sent (by runtime
// or session name), and whose proxy token is revealed.
type Activity struct {
	Deleting, Closing, Opening map[string]time.Time
	Revealed                   string
}
