package ui

import (
	"context"
	"time"

	"github.com/colabdash/colabdash/api"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/clipboard"
	"github.com/colabdash/colabdash/ui/theme"
)

// Defaults and limits of Options.
const (
	// MaxBackoff caps the delay between failed refreshes (5 min).
	MaxBackoff = 5 * time.Minute
	// DefaultCallTimeout bounds each API call (30 s).
	DefaultCallTimeout = 30 * time.Second
	// RenewRetry is the first pause before retrying a failed or
	// unextending proxy token renewal (get_runtime) of one runtime (30 s);
	// it doubles with every failure in a row (state.Renewals).
	RenewRetry = state.RenewBackoff
	// MinRenewRetry is the shortest pause between two renewals of one
	// runtime (5 s), so a token that lives only seconds is not hammered.
	MinRenewRetry = state.MinRenewRetry
	// MinWidth and MinHeight are the smallest terminal the dashboard lays
	// out (60×15 cells); below it, it shows "terminal too small".
	MinWidth, MinHeight = 60, 15
)

// Options configure New. Only Service is required.
type Options struct {
	// Service is the Colab API (api/client, or the emulator in demo mode).
	Service api.Service
	// Now is the clock (default time.Now). Tests inject a fixed clock.
	Now func() time.Time
	// Location is the zone expireTime is shown in (default time.Local, so
	// TZ is respected). Countdowns never depend on it.
	Location *time.Location
	// RefreshInterval between automatic list_runtimes/list_sessions calls
	// (default config.DefaultRefreshInterval, 30 s; at least
	// config.MinRefreshInterval, 5 s).
	RefreshInterval time.Duration
	// ExpiringThreshold: a proxy token with at most this much left shows
	// EXPIRING (default 5 min). When it is renewed follows RenewLead.
	ExpiringThreshold time.Duration
	// NoAutoRenew turns automatic proxy-token renewal off (config
	// autoRenew: false); refresh (r) still lists fresh tokens.
	NoAutoRenew bool
	// GoneRetention: how long a vanished runtime stays listed as gone
	// (default 10 min).
	GoneRetention time.Duration
	// CallTimeout bounds each API call (default 30 s).
	CallTimeout time.Duration
	// Endpoint (the MCP endpoint URL, its host named as the server) and
	// Profile are shown in the header (either may be empty); Demo names
	// the embedded emulator instead and adds a DEMO badge.
	Endpoint, Profile string
	Demo              bool
	// Keymap is the key map (default keymap.Default()).
	Keymap *keymap.KeyMap
	// NoColor renders without any colour or style escape codes (set it when
	// colour is off: --color never, NO_COLOR, CLICOLOR=0; see
	// theme.ColorOn).
	NoColor bool
	// Theme is "dark" (default) or "light": which ANSI colours suit the
	// background (see DetectTheme).
	Theme string
	// Context is the parent of every API call's context (default
	// context.Background()); calls are cancelled when the user quits.
	Context context.Context
	// Profiles are the names the profile picker (P) offers, sorted;
	// Connect builds the Service of one. Both are needed for switching.
	Profiles []string
	Connect  ConnectFunc
	// Redact, when set, removes secrets from error text before the event
	// log shows it (api.Redactor.Redact).
	Redact func(string) string
	// RenewLead: each proxy token is renewed with get_runtime this long
	// before its expireTime, at once when already inside the window
	// (default ExpiringThreshold, 5 min). Once a renewal has shown the
	// token's lifetime, the lead is a tenth of it (at least 5 s), so a
	// short-lived token is renewed once per lifetime, before it lapses
	// (state.Renewals).
	RenewLead time.Duration
	// CallBudget is how many background calls a minute the dashboard
	// makes at most, so the idle cost does not grow with the number of
	// runtimes (config callBudget; 0: state.DefaultCallBudget, or the
	// refresh's own calls plus 18 under a short RefreshInterval; never
	// less than the refresh's own calls plus 4; negative: no limit).
	// list_runtimes, the selected runtime's sessions and renewal and first
	// loads are always made; the other runtimes' token renewals (soonest
	// expiry first) and session counts (oldest first) share the rest.
	CallBudget int
	// ReadOnly disables every action that changes something on Colab
	// (create, delete, sessions, run code) and hides it from the help (the
	// --readonly flag); renewing a token (get_runtime) only reads and stays.
	ReadOnly bool
	// StateDir is where the last used runtimeSpec is remembered
	// (LastSpecFile); "" remembers nothing across runs. ui/cli passes
	// ops.StateDir(). In Demo mode it is neither read nor written: the
	// last spec is kept in memory.
	StateDir string
	// DefaultSpec is the runtimeSpec the create picker starts on, step by
	// step, where it is offered and eligible (the config file's
	// defaultRuntimeSpec); the zero value starts on the first eligible
	// choice.
	DefaultSpec api.RuntimeSpecKey
	// Clipboard copies text (when it and CopyTo are nil,
	// clipboard.Copy: OSC 52 plus the native clipboard). Tests inject
	// a recorder. A copy through it is
	// reported as reaching the clipboard.
	Clipboard func(text string) error
	// CopyTo, when set, copies text and says which way worked; it takes
	// precedence over Clipboard. When both are nil it is
	// clipboard.Copy, so the status line can say when only OSC 52
	// was written (which tmux may drop).
	CopyTo func(text string) (clipboard.Method, error)
	// Notices are lines said at start, in the status line and the event
	// log (tool "run"): runtimes left by a `colabdash run` that did not
	// finish, with how to delete them.
	Notices []string
	// Monitor, when set, turns monitoring on: the selected
	// runtime's resources and kernels are read through its proxy every
	// 5 s, the other runtimes' on screen every 30 s (ui/poll), with the
	// proxy token only; the table gains RAM, GPU and ACTIVITY columns and
	// the details and sessions panes the figures. nil: off.
	Monitor *apimon.Client
	// Plugins are the config's plugins; their keys must be in Keymap
	// (keymap.AddPlugin, which kit.BuildKeymap does). A key of the
	// focused pane's scope runs its plugin (ui/plugin): under ReadOnly a
	// dangerous one is refused.
	Plugins []config.Plugin
	// Environ is the environment plugins and the notify command inherit
	// (nil: os.Environ()).
	Environ []string
	// Notify is the config's notify: section: how the dashboard tells
	// the user that a job ended, a runtime went idle or away, a token
	// could not be renewed or console code finished (ui/notify; the zero
	// value: auto, no command). Events are claimed in StateDir, so two
	// dashboards tell each once.
	Notify config.Notify
	// IdleGuard returns the idle guard of a profile (the config's
	// Settings.GuardFor); nil: off everywhere.
	IdleGuard func(profile string) config.IdleGuard
	// Getenv reads the terminal's variables that choose how a
	// notification reaches it (TERM, TERM_PROGRAM, TMUX…; nil: os.Getenv).
	Getenv func(string) string
}

// Themes accepted by Options.Theme and DetectTheme's result.
const (
	ThemeDark  = theme.Dark
	ThemeLight = theme.Light
)

// withDefaults is o as New uses it: each unset field given its default,
// the refresh interval raised to config.MinRefreshInterval, the renew lead
// defaulting to the expiring threshold, the call budget leaving room
// beyond the refresh's own calls, and under ReadOnly a copy of the key map
// with the writing keys off (the caller's left alone).
func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.RefreshInterval <= 0 {
		o.RefreshInterval = config.DefaultRefreshInterval
	}
	o.RefreshInterval = max(o.RefreshInterval, config.MinRefreshInterval)
	if o.ExpiringThreshold <= 0 {
		o.ExpiringThreshold = state.DefaultExpiringThreshold
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.Keymap == nil {
		o.Keymap = keymap.Default()
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	if o.RenewLead <= 0 {
		o.RenewLead = o.ExpiringThreshold
	}
	if reserve := state.ReserveFor(o.RefreshInterval); o.CallBudget == 0 {
		// A refresh interval under 30 s needs more than the default for its
		// own calls: 19 are left for the rest, as by default
		// (state.DefaultCallBudget less a 30 s refresh's 4).
		o.CallBudget = max(state.DefaultCallBudget, reserve+19)
	} else if o.CallBudget > 0 {
		// However small the budget, a few calls a minute are left for
		// renewals and counts beyond the refresh's own.
		o.CallBudget = max(o.CallBudget, reserve+4)
	}
	if o.Clipboard == nil && o.CopyTo == nil {
		o.CopyTo = clipboard.Copy
	}
	if o.ReadOnly {
		km := *o.Keymap // leave the caller's key map alone
		km.SetReadOnly(true)
		o.Keymap = &km
	}
	return o
}
