// Package ui is colabdash's interactive dashboard: an Elm-style Bubble Tea
// model (header, runtimes table, sessions panel, details panel, footer)
// over the pure domain in package state, talking to Colab only through
// api.Service.
//
// Every API call is a tea.Cmd whose result message names what it was for
// (kind, runtime name, request generation): a late answer lands on the right
// row and a superseded one is dropped. One tick per second drives every
// countdown, the spinner and auto-refresh; there is no other timer.
package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Defaults and limits of Options.
const (
	// MaxBackoff caps the delay between failed refreshes (5 min).
	MaxBackoff = 5 * time.Minute
	// DefaultCallTimeout bounds each API call (30 s).
	DefaultCallTimeout = 30 * time.Second
	// RenewRetry is the longest pause before retrying a failed or
	// unhelpful proxy token renewal (get_runtime) of one runtime (30 s).
	// Short-lived tokens are retried sooner: see renewRetryDelay.
	RenewRetry = 30 * time.Second
	// MinRenewRetry is the shortest pause between two renewals of one
	// runtime (1 s), so a token that lives only seconds is not hammered.
	MinRenewRetry = time.Second
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
	// Endpoint, Account and Profile are shown in the header (any may be
	// empty); Demo adds a DEMO badge.
	Endpoint, Account, Profile string
	Demo                       bool
	// Keymap is the key map (default keymap.Default()).
	Keymap *keymap.KeyMap
	// NoColor renders without any colour or style escape codes (set it when
	// NO_COLOR is non-empty; see NoColorFromEnv).
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
	// token's lifetime, the lead is at most half of it, so a token that
	// lives less than RenewLead is still renewed before it lapses.
	RenewLead time.Duration
	// ReadOnly disables every action that changes something on Colab
	// (create, delete, sessions, run code) and hides it from the help (the
	// --readonly flag); renewing a token (get_runtime) only reads and stays.
	ReadOnly bool
	// StateDir is where the last used runtimeSpec is remembered
	// (LastSpecFile); "" remembers nothing across runs. main passes
	// DefaultStateDir(). In Demo mode it is neither read nor written: the
	// last spec is kept in memory.
	StateDir string
	// DefaultSpec is the runtimeSpec the create picker starts on, step by
	// step, where it is offered and eligible (the config file's
	// defaultRuntimeSpec); the zero value starts on the first eligible
	// choice.
	DefaultSpec api.RuntimeSpecKey
	// Clipboard copies text (when it and CopyTo are nil,
	// SystemClipboardCopy: OSC 52 plus the native clipboard). Tests inject
	// a recorder. A copy through it is
	// reported as reaching the clipboard.
	Clipboard func(text string) error
	// CopyTo, when set, copies text and says which way worked; it takes
	// precedence over Clipboard. When both are nil it is
	// SystemClipboardCopy, so the status line can say when only OSC 52
	// was written (which tmux may drop).
	CopyTo func(text string) (ClipboardMethod, error)
}

type panel int

const (
	panelRuntimes panel = iota
	panelSessions
)

type callKind int

const (
	callRuntimes callKind = iota
	callSessions
	callSubscription
	callSpecs
	callRenew
)

func (k callKind) String() string {
	return [...]string{"list_runtimes", "list_sessions", "get_subscription", "list_runtime_specs", "get_runtime"}[k]
}

// callKey says what a call is for: its kind and, for per-runtime calls,
// the runtime name.
type callKey struct {
	kind    callKind
	runtime string
}

type pendingCall struct {
	gen     uint64
	started time.Time
	version uint64 // snapshot version when sent
}

// resultMsg is the answer to one API call. gen is the request generation:
// the answer is applied only if it is still the latest request for key.
type resultMsg struct {
	key      callKey
	gen      uint64
	err      error
	runtimes []api.Runtime
	sessions []api.Session
	runtime  api.Runtime
	sub      api.Subscription
	specs    []api.RuntimeSpec
}

// tickMsg is the one-second tick; ticks of another generation are dropped.
type tickMsg struct{ gen uint64 }

// Model is the dashboard's root Bubble Tea model. Build it with New.
type Model struct {
	opts   Options
	svc    api.Service
	now    func() time.Time
	keys   *keymap.KeyMap
	st     styles
	help   help.Model
	snap   *state.Snapshot
	ctx    context.Context
	cancel context.CancelFunc
	sem    chan struct{}
	every  func(time.Duration, func(time.Time) tea.Msg) tea.Cmd

	width, height int
	focus         panel
	showDetails   bool
	showHelp      bool
	helpOffset    int // first line of the full help shown (it scrolls when taller than the screen)
	filtering     bool
	filterFresh   bool // "/" reopened on a filter: the first keystroke replaces it
	filter        string
	sortKey       state.SortKey

	rows        []*state.Runtime
	rowsVersion uint64
	rowsDirty   bool
	selected    string // selected runtime name; survives re-sorting
	cursor      int
	offset      int
	sessCursor  int

	tickGen     uint64
	frame       int
	seq         uint64
	pending     map[callKey]pendingCall
	lastRenew   map[string]time.Time
	manualRenew map[string]bool          // R pressed: report the renewal's outcome
	manualRef   bool                     // r pressed: report the refresh's outcome
	tokenLife   map[string]time.Duration // proxy-token lifetime seen by the last renewal
	nextRefresh time.Time
	status      string
	statusErr   bool
	statusUntil time.Time
	initCmds    []tea.Cmd

	prof       profileState
	events     eventLog
	showEvents bool
	ax         *actionState // dialogs and actions (actions.go)
}

// New builds the dashboard. The first frame renders at once on an empty
// snapshot ("loading"); Init then starts get_subscription,
// list_runtime_specs and list_runtimes, and the tick.
func New(o Options) Model {
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
	if o.Clipboard == nil && o.CopyTo == nil {
		o.CopyTo = SystemClipboardCopy
	}
	if o.ReadOnly {
		km := *o.Keymap // leave the caller's key map alone
		km.SetReadOnly(true)
		o.Keymap = &km
	}
	ctx, cancel := context.WithCancel(o.Context)
	st := newThemeStyles(rendererFor(o.NoColor), paletteFor(o.Theme))
	h := help.New()
	h.Styles = st.help
	m := Model{
		opts: o, svc: o.Service, now: o.Now, keys: o.Keymap, st: st, help: h,
		snap:    state.New(state.Config{ExpiringThreshold: o.ExpiringThreshold, GoneRetention: o.GoneRetention}),
		ctx:     ctx,
		cancel:  cancel,
		sem:     make(chan struct{}, 32), // per-runtime calls in flight; with 4 a 20-runtime dashboard took 1.8× the round-trip floor (BenchmarkFullDashboard), with 32 1.06×
		every:   tea.Every,
		tickGen: 1,
		pending: map[callKey]pendingCall{}, lastRenew: map[string]time.Time{}, manualRenew: map[string]bool{}, tokenLife: map[string]time.Duration{},
		rowsDirty: true,
		ax:        newActionState(loadLastSpec(o.Demo, o.StateDir)), // New is not Update: reading here is fine
	}
	now := m.now()
	m.nextRefresh = now.Add(o.RefreshInterval)
	m.initCmds = []tea.Cmd{
		m.issue(callKey{kind: callSubscription}, now),
		m.issue(callKey{kind: callSpecs}, now),
		m.issue(callKey{kind: callRuntimes}, now),
	}
	return m
}

// Snapshot returns the dashboard's domain state (read-only use).
func (m Model) Snapshot() *state.Snapshot { return m.snap }

// Selected returns the name of the selected runtime ("" when none).
func (m Model) Selected() string { return m.selected }

// Init starts the first API calls and the one tick chain.
func (m Model) Init() tea.Cmd {
	return tea.Batch(append([]tea.Cmd{m.tick()}, m.initCmds...)...)
}

func (m *Model) tick() tea.Cmd {
	gen := m.tickGen
	return m.every(time.Second, func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

// issue registers a call for key and returns its command, or nil when the
// same call is already in flight (and not overdue): refreshes coalesce.
func (m *Model) issue(k callKey, now time.Time) tea.Cmd {
	if p, ok := m.pending[k]; ok {
		if el := now.Sub(p.started); el >= 0 && el < m.opts.CallTimeout+5*time.Second {
			return nil
		}
	}
	m.seq++
	gen := m.seq
	m.pending[k] = pendingCall{gen: gen, started: now, version: m.snap.Version()}
	svc, parent, timeout, sem, red := m.svc, m.ctx, m.opts.CallTimeout, m.sem, m.opts.Redact
	return func() (msg tea.Msg) {
		res := resultMsg{key: k, gen: gen}
		defer func() {
			// A panicking Service must not take the terminal down: it
			// becomes this call's error.
			if r := recover(); r != nil {
				res.err = panicError(red, "internal error in "+k.kind.String(), r)
				msg = res
			}
		}()
		if svc == nil {
			res.err = fmt.Errorf("%s: no Colab service configured", k.kind)
			return res
		}
		if k.runtime != "" {
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-parent.Done():
				res.err = parent.Err()
				return res
			}
		}
		ctx, cancel := context.WithTimeout(parent, timeout)
		defer cancel()
		switch k.kind {
		case callRuntimes:
			res.runtimes, res.err = svc.ListRuntimes(ctx)
		case callSessions:
			res.sessions, res.err = svc.ListSessions(ctx, k.runtime)
		case callSubscription:
			res.sub, res.err = svc.GetSubscription(ctx)
		case callSpecs:
			res.specs, res.err = svc.ListRuntimeSpecs(ctx)
		case callRenew:
			res.runtime, res.err = svc.GetRuntime(ctx, k.runtime)
		}
		return res
	}
}

// Update handles keys, window sizes, ticks and API results. It never
// blocks: every API call runs in a returned tea.Cmd.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.scroll()
	case tickMsg:
		if msg.gen != m.tickGen {
			return m, nil // a stale chain dies here
		}
		m.frame++
		cmd = tea.Batch(append(m.onTick(m.now()), m.tick())...)
	case resultMsg:
		cmd = m.onResult(msg)
	case profileMsg:
		cmd = m.onProfile(msg)
	case tea.KeyMsg:
		if msg, ok := m.cleanKey(msg); ok {
			cmd = m.onKeys(msg)
		}
	default:
		cmd, _ = m.onActionMsg(msg)
	}
	m.syncRows()
	return m, cmd
}

func (m *Model) onTick(now time.Time) []tea.Cmd {
	var cmds []tea.Cmd
	if m.snap.Prune(now) {
		m.rowsDirty = true
	}
	// A wall clock that jumped back would put the next refresh far away:
	// never wait longer than the longest legitimate delay.
	if now.Before(m.nextRefresh.Add(-MaxBackoff)) || !now.Before(m.nextRefresh) {
		cmds = append(cmds, m.refresh(now, false)...)
	}
	cmds = append(cmds, m.actionsTick(now)...)
	// Renew proxy tokens within the lead time of expireTime, or expired
	// (field case 1); a failed renewal is retried after renewRetryDelay.
	// issue keeps it to one get_runtime per runtime in flight.
	for r := range m.snap.All() {
		if r.Gone() || m.opts.NoAutoRenew {
			continue
		}
		at, ok := m.nextRenewal(r, now)
		if !ok || now.Before(at) {
			continue
		}
		if c := m.issue(callKey{kind: callRenew, runtime: r.Name}, now); c != nil {
			m.lastRenew[r.Name] = now
			cmds = append(cmds, c)
		}
	}
	if m.status != "" && !now.Before(m.statusUntil) {
		m.status = ""
	}
	return cmds
}

// refresh starts list_runtimes (and, when manual, get_subscription). The
// sessions follow when the runtimes arrive. get_subscription and
// list_runtime_specs that have not succeeded yet are retried with every
// refresh, so a tier that failed to load does not stay unknown.
func (m *Model) refresh(now time.Time, manual bool) []tea.Cmd {
	m.nextRefresh = now.Add(m.opts.RefreshInterval)
	var cmds []tea.Cmd
	if !manual && !m.snap.SubscriptionFresh.Loaded() {
		if c := m.issue(callKey{kind: callSubscription}, now); c != nil {
			cmds = append(cmds, c)
		}
	}
	if !m.snap.SpecsFresh.Loaded() {
		if c := m.issue(callKey{kind: callSpecs}, now); c != nil {
			cmds = append(cmds, c)
		}
	}
	c := m.issue(callKey{kind: callRuntimes}, now)
	if c == nil {
		if manual {
			m.setStatus(now, "refresh already in progress", false)
		}
		return cmds
	}
	cmds = append(cmds, c)
	if manual {
		if c := m.issue(callKey{kind: callSubscription}, now); c != nil {
			cmds = append(cmds, c)
		}
		m.setStatus(now, "refreshing…", false)
		m.manualRef = true
	}
	return cmds
}

func (m *Model) setStatus(now time.Time, s string, isErr bool) {
	if m.opts.Redact != nil {
		s = m.opts.Redact(s)
	}
	m.status, m.statusErr, m.statusUntil = s, isErr, now.Add(5*time.Second)
}

// panicError turns a recovered panic value into the error a call reports,
// "PREFIX: VALUE", with every secret removed by red (Options.Redact; nil
// removes nothing): a panic's text can quote a request or a reply, and it
// is shown in the status line, the header and the event log.
func panicError(red func(string) string, prefix string, r any) error {
	s := fmt.Sprintf("%s: %v", prefix, r)
	if red != nil {
		s = red(s)
	}
	return errors.New(s)
}

// backoff is the delay after n consecutive failures: the interval doubled
// per failure, capped at MaxBackoff, and at least the server's retry delay.
func (m *Model) backoff(n int, err error) time.Duration {
	d := m.opts.RefreshInterval
	for i := 0; i < n && d < MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, MaxBackoff)
	if ae, ok := err.(*api.Error); ok && ae.RetryDelay > d {
		d = ae.RetryDelay
	}
	return d
}

func (m *Model) onResult(msg resultMsg) tea.Cmd {
	p, ok := m.pending[msg.key]
	if !ok || p.gen != msg.gen {
		return nil // late or superseded answer: drop it
	}
	delete(m.pending, msg.key)
	now := m.now()
	m.recordEvent(now, msg.key.kind.String(), msg.key.runtime, now.Sub(p.started), msg.err)
	switch msg.key.kind {
	case callRuntimes:
		manual := m.manualRef
		m.manualRef = false
		if msg.err != nil {
			m.snap.ApplyError(state.ListRuntimes, now, msg.err)
			m.nextRefresh = now.Add(m.backoff(m.snap.RuntimesFresh.Failures, msg.err))
			if manual { // "refreshing…" must not outlive the failure
				m.setStatus(now, "refresh failed: "+errLine(msg.err), true)
			}
			return nil
		}
		if manual && m.status == "refreshing…" { // a newer message stays
			m.setStatus(now, "✓ refreshed", false)
		}
		m.snap.ApplyRuntimesSince(now, p.version, msg.runtimes)
		m.onRuntimesListed(now)
		m.nextRefresh = now.Add(m.opts.RefreshInterval)
		var cmds []tea.Cmd
		for r := range m.snap.All() {
			if r.Gone() {
				// Answers still on their way for it are dropped.
				delete(m.pending, callKey{kind: callSessions, runtime: r.Name})
				delete(m.pending, callKey{kind: callRenew, runtime: r.Name})
				continue
			}
			if c := m.issue(callKey{kind: callSessions, runtime: r.Name}, now); c != nil {
				cmds = append(cmds, c)
			}
		}
		return tea.Batch(cmds...)
	case callSessions:
		if msg.err != nil {
			m.snap.ApplySessionsError(now, msg.key.runtime, msg.err)
		} else {
			m.snap.ApplySessions(now, msg.key.runtime, msg.sessions)
			m.forgetVanishedSession(msg.key.runtime, p.started, msg.sessions)
		}
	case callSubscription:
		if msg.err != nil {
			m.snap.ApplyError(state.ListSubscription, now, msg.err)
		} else {
			m.snap.ApplySubscription(now, msg.sub)
		}
	case callSpecs:
		if msg.err != nil {
			m.snap.ApplyError(state.ListSpecs, now, msg.err)
		} else {
			m.snap.ApplySpecs(now, msg.specs)
		}
	case callRenew:
		id := api.LastSegment(msg.key.runtime)
		manual := m.manualRenew[msg.key.runtime]
		delete(m.manualRenew, msg.key.runtime)
		if manual {
			if msg.err != nil {
				m.setStatus(now, "renew "+id+" failed: "+errLine(msg.err), true)
			} else if _, rem := state.TokenAt(msg.runtime.ExpireTime(), now, 0); !msg.runtime.ExpireTime().IsZero() {
				m.setStatus(now, "✓ renewed "+id+" (expires in "+state.FormatCountdown(rem)+")", false)
			} else {
				m.setStatus(now, "✓ renewed "+id+" (expiry unknown)", false)
			}
		}
		if msg.err != nil {
			m.snap.ApplyRenewError(now, msg.key.runtime, msg.err)
		} else if msg.runtime.Name == msg.key.runtime {
			m.snap.UpdateRuntime(now, msg.runtime)
			// The new token's lifetime, as seen from this renewal, bounds
			// the lead of the next one.
			if exp := msg.runtime.ExpireTime(); !exp.IsZero() && exp.After(p.started) {
				m.tokenLife[msg.key.runtime] = exp.Sub(p.started)
			}
		}
	}
	return nil
}

// cleanKey makes typed and pasted text safe before any routing, so every
// input field gets clean text by construction (termtext.Input): controls
// and escape sequences are dropped; a CR becomes a newline in the run-code
// input, the one field that takes several lines. ok is false when nothing
// is left (a paste of controls only).
func (m *Model) cleanKey(k tea.KeyMsg) (_ tea.KeyMsg, ok bool) {
	if k.Type != tea.KeyRunes {
		return k, true
	}
	multiline := m.ax.exec != nil && m.ax.exec.open && m.ax.dlg == nil
	s := string(k.Runes)
	if c := termtext.Input(s, multiline); c != s {
		k.Runes = []rune(c)
	}
	return k, len(k.Runes) > 0
}

// onKeys splits runes that arrived in one read (fast typing, a held key,
// tmux send-keys) into single keystrokes, so "jj" moves twice and a "?"
// typed right after another key still opens the help. A bracketed paste
// stays whole.
func (m *Model) onKeys(k tea.KeyMsg) tea.Cmd {
	if k.Type != tea.KeyRunes || len(k.Runes) < 2 || k.Paste {
		return m.onKey(k)
	}
	cmds := make([]tea.Cmd, 0, len(k.Runes))
	for _, r := range k.Runes {
		cmds = append(cmds, m.onKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt}))
	}
	return tea.Batch(cmds...)
}

func (m *Model) onKey(k tea.KeyMsg) tea.Cmd {
	now := m.now()
	if m.ax.dlg != nil {
		return m.onDialogKey(k, now)
	}
	if m.ax.exec != nil && m.ax.exec.open {
		return m.onExecKey(k, now)
	}
	if m.filtering {
		switch k.Type {
		case tea.KeyCtrlC:
			m.cancel()
			return tea.Quit
		case tea.KeyEsc:
			m.filtering, m.filter = false, ""
		case tea.KeyEnter:
			m.filtering = false
		case tea.KeyBackspace:
			if r := []rune(m.filter); len(r) > 0 {
				m.filter = string(r[:len(r)-1])
			}
		case tea.KeyCtrlU:
			m.filter = ""
		case tea.KeyRunes, tea.KeySpace:
			if m.filterFresh {
				m.filter = "" // typing replaces the old, selected filter
			}
			m.filter += string(k.Runes)
		}
		m.filterFresh = false
		m.rowsDirty = true
		return nil
	}
	if m.prof.picking {
		return m.onProfilePickerKey(k)
	}
	keys := m.keys
	if m.showHelp {
		page := max(m.helpRows(m.layout())-1, 1)
		step := 0
		switch {
		case key.Matches(k, keys.Up):
			step = -1
		case key.Matches(k, keys.Down):
			step = 1
		case key.Matches(k, keys.PageUp):
			step = -page
		case key.Matches(k, keys.PageDown):
			step = page
		}
		if step != 0 {
			l := m.layout()
			m.helpOffset = max(0, min(m.helpOffset+step, len(m.helpLines(l.w))-m.helpRows(l)))
			return nil
		}
	}
	if m.showEvents {
		switch {
		case key.Matches(k, keys.Up):
			m.events.offset = max(m.events.offset-1, 0)
			return nil
		case key.Matches(k, keys.Down):
			m.events.offset++
			return nil
		case key.Matches(k, keys.Back), key.Matches(k, keys.Events):
			m.showEvents, m.events.offset = false, 0
			return nil
		}
	}
	switch {
	case key.Matches(k, keys.Profile):
		m.openProfilePicker()
	case key.Matches(k, keys.Events):
		m.showEvents, m.events.offset = true, 0
		m.showHelp = false
	case key.Matches(k, keys.Quit):
		m.cancel()
		return tea.Quit
	case key.Matches(k, keys.Help):
		m.showHelp = !m.showHelp
		m.helpOffset = 0
	case key.Matches(k, keys.Back):
		// One thing per esc, the most specific first: help, the filter,
		// the expanded details, then the status message.
		switch {
		case m.showHelp:
			m.showHelp = false
		case m.filter != "":
			m.filter, m.rowsDirty = "", true
		case m.showDetails:
			m.showDetails = false
		default:
			m.status = ""
		}
	case key.Matches(k, keys.Up):
		m.move(-1)
	case key.Matches(k, keys.Down):
		m.move(1)
	case key.Matches(k, keys.PageUp):
		m.move(-m.layout().tableRows)
	case key.Matches(k, keys.PageDown):
		m.move(m.layout().tableRows)
	case key.Matches(k, keys.Top):
		m.move(-1 << 30)
	case key.Matches(k, keys.Bottom):
		m.move(1 << 30)
	case key.Matches(k, keys.NextPanel), key.Matches(k, keys.PrevPanel):
		m.focus = 1 - m.focus
	case key.Matches(k, keys.Details):
		m.showDetails = !m.showDetails
	case key.Matches(k, keys.Filter):
		m.filtering, m.filterFresh = true, m.filter != ""
	case key.Matches(k, keys.Sort):
		m.sortKey = m.sortKey.Next()
		m.rowsDirty = true
		m.setStatus(now, "sorted by "+m.sortKey.String(), false)
	case key.Matches(k, keys.Refresh):
		return tea.Batch(m.refresh(now, true)...)
	default:
		if b, ok := keys.DisabledMatch(k); ok {
			m.setStatus(now, "read-only mode: "+b.Help().Key+" ("+b.Help().Desc+") is disabled", true)
			return nil
		}
		cmd, _ := m.onActionKey(k, now)
		return cmd
	}
	return nil
}

func (m *Model) move(delta int) {
	if m.focus == panelSessions {
		n := 0
		if r := m.snap.Runtime(m.selected); r != nil {
			n = len(r.Sessions)
		}
		m.sessCursor = clamp(m.sessCursor+delta, 0, n-1)
		if s := m.selectedSession(); s != "" {
			m.pickSession(m.selected, s, m.now())
		}
		return
	}
	if len(m.rows) == 0 {
		return
	}
	m.cursor = clamp(m.cursor+delta, 0, len(m.rows)-1)
	if m.rows[m.cursor].Name != m.selected {
		m.selected = m.rows[m.cursor].Name
		m.sessCursor = 0
	}
	m.scroll()
}

func clamp(v, lo, hi int) int {
	if hi < lo {
		return lo
	}
	return max(lo, min(v, hi))
}

// syncRows re-sorts and re-filters only when the data, sort or filter
// changed, keeps the selection on the same runtime by name, and keeps it
// visible.
func (m *Model) syncRows() {
	if !m.rowsDirty && m.rowsVersion == m.snap.Version() {
		return
	}
	m.rows = m.snap.Rows(m.sortKey, m.filter)
	m.rowsVersion, m.rowsDirty = m.snap.Version(), false
	found := false
	for i, r := range m.rows {
		if r.Name == m.selected {
			m.cursor, found = i, true
			break
		}
	}
	if !found {
		m.cursor = clamp(m.cursor, 0, len(m.rows)-1)
		m.selected = ""
		if len(m.rows) > 0 {
			m.selected = m.rows[m.cursor].Name
		}
		m.sessCursor = 0
	}
	m.scroll()
}

// scroll keeps the cursor inside the visible window of the table.
func (m *Model) scroll() {
	h := m.layout().tableRows
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+h {
		m.offset = m.cursor - h + 1
	}
	m.offset = clamp(m.offset, 0, max(0, len(m.rows)-h))
}

// inFlight returns the number of API calls in flight.
func (m Model) inFlight() int { return len(m.pending) }

// spinnerFrames advance once per tick (no second timer).
var spinnerFrames = spinner.Dot.Frames

// renewLead is how long before expireTime runtime name's proxy token is
// renewed: Options.RenewLead, but at most half the token lifetime the last
// renewal showed.
func (m Model) renewLead(name string) time.Duration {
	lead := m.opts.RenewLead
	if life, ok := m.tokenLife[name]; ok {
		lead = min(lead, life/2)
	}
	return lead
}

// renewRetryDelay is the pause after a renewal attempt of runtime name
// before the next one: RenewRetry, shortened to a quarter of the observed
// token lifetime and to half the time the token has left, never under
// MinRenewRetry.
func (m Model) renewRetryDelay(name string, rem time.Duration) time.Duration {
	d := RenewRetry
	if life, ok := m.tokenLife[name]; ok {
		d = min(d, life/4)
	}
	if rem > 0 {
		d = min(d, rem/2)
	}
	return max(d, MinRenewRetry)
}

// nextRenewal is when runtime r's proxy token is (re)newed next: its
// expireTime minus the lead, but not before the retry pause after the last
// attempt has passed. ok is false when the expireTime is unknown.
func (m Model) nextRenewal(r *state.Runtime, now time.Time) (at time.Time, ok bool) {
	if st, _ := r.Token(now, m.opts.ExpiringThreshold); st == state.TokenUnknown {
		return time.Time{}, false
	}
	at = r.ExpireTime().Add(-m.renewLead(r.Name))
	if last, ok := m.lastRenew[r.Name]; ok && !now.Before(last) {
		// The pause is measured from the attempt, with the time the token
		// had left then.
		lastRem := r.ExpireTime().Sub(last)
		if gate := last.Add(m.renewRetryDelay(r.Name, lastRem)); gate.After(at) {
			at = gate
		}
	}
	return at, true
}
