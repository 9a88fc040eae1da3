// Package ui is colabdash's interactive dashboard: an Elm-style Bubble Tea
// model over the pure domain in package state, talking to Colab only
// through api.Service.
//
// The screen is made of panes (ui/pane/header, runtimes, sessions,
// details, footer) and of overlays on one stack (ui/overlay/dialog and
// picker, help, events, profile, filter, console, files, logview: screen.go). Each
// pane and overlay reads one read-only common.Context and answers a key
// with a typed common.Effect; a key goes to the top overlay, else to the
// focused pane, else to the global keys, and one function (app.apply,
// action.go) turns effects into state changes and calls.
//
// Every API call is a tea.Cmd whose result message names what it was for
// (kind, runtime name, request generation): a late answer lands on the right
// row and a superseded one is dropped. One tick per second drives every
// countdown, the spinner and auto-refresh; there is no other timer.
package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/logview"
	"github.com/colabdash/colabdash/ui/pane/runtimes"
	"github.com/colabdash/colabdash/ui/pane/sessions"
	"github.com/colabdash/colabdash/ui/poll"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/theme"
)

// tickMsg is the one-second tick; ticks of another generation are dropped.
type tickMsg struct{ gen uint64 }

// Model is the dashboard's root Bubble Tea model. Build it with New.
//
// A Model is a handle: its copies share one dashboard (app), owned by the
// Update loop.
type Model struct{ *app }

// app is the dashboard behind a Model: the Context its panes and overlays
// read, the two panes with state, the screen (overlays, status line, event
// log), and the domain types (domains.go), each holding only what it
// needs: callState the read calls, renewals and refreshes; createOps
// creates; execOps run code; runtimeOps deletes, sessions, files, shell,
// clipboard; profiles the profile switch; monitorOps the monitor. The app
// routes keys and messages to them and carries out their effects
// (action.go, answers.go); none of them calls another.
type app struct {
	opts Options
	// cx is what panes and overlays read (common.Context): the snapshot,
	// keys, styles, clock, layout, status.
	cx    *common.Context
	life  *lifetime
	link  *link // the Service in use
	scr   *screen
	rt    *runtimes.Pane // the table's rows, selection, sort and filter
	sess  *sessions.Pane // the sessions pane's cursor
	calls *callState
	cr    *createOps
	ex    *execOps
	ops   *runtimeOps
	prof  *profiles
	mon   *monitorOps // the monitor's polls (nil: monitoring off)
	jobs  *jobsOps    // the runtimes' jobs (nil: monitoring off)
	notes *notifyOps  // notifications and the idle guard (notify.go)
	// quitAsk is the last quit question (quit.go): a quit while it is on
	// top does not ask again.
	quitAsk *dialog.Dialog
	// leftBehind is what a quit anyway left in flight (LeftBehind).
	leftBehind []string
}

// New builds the dashboard. The first frame renders at once on an empty
// snapshot ("loading"); Init then starts get_subscription,
// list_runtime_specs and list_runtimes, and the tick.
func New(o Options) Model {
	o = o.withDefaults()
	ctx, cancel := context.WithCancel(o.Context)
	st := theme.New(o.NoColor, o.Theme)
	last := loadLastSpec(o.Demo, o.StateDir) // New is not Update: reading here is fine
	redact := o.Redact
	if redact == nil {
		redact = func(s string) string { return s }
	}
	cx := &common.Context{
		Snap:            state.New(state.Config{ExpiringThreshold: o.ExpiringThreshold, GoneRetention: o.GoneRetention}),
		Keys:            o.Keymap,
		Styles:          st,
		Now:             o.Now,
		Location:        o.Location,
		ReadOnly:        o.ReadOnly,
		Redact:          redact,
		Profile:         o.Profile,
		Profiles:        o.Profiles,
		RefreshInterval: o.RefreshInterval,
	}
	a := &app{opts: o, cx: cx, rt: runtimes.New(), sess: &sessions.Pane{},
		life: &lifetime{ctx: ctx, cancel: cancel, sem: make(chan struct{}, api.FanOut), every: tea.Every, tickGen: 1}}
	a.link = &link{svc: o.Service, opts: &a.opts, life: a.life, redact: redact}
	a.scr = &screen{cx: cx, events: &eventLog{}}
	if o.Monitor != nil {
		a.mon = &monitorOps{cx: cx, opts: &a.opts, link: a.link, rt: a.rt, poll: poll.New(o.Monitor)}
		cx.Monitor = a.mon.poll
		a.jobs = newJobsOps(a)
		cx.Jobs = a.jobs
	}
	a.notes = newNotifyOps(&a.opts)
	a.calls = newCalls(cx, &a.opts, a.link, a.scr, a.rt)
	a.prof = &profiles{cx: cx, opts: &a.opts, link: a.link, scr: a.scr}
	a.resetOps(last)
	m := Model{a}
	m.relayout()
	now := m.cx.Now()
	m.calls.nextRefresh = now.Add(o.RefreshInterval)
	for _, n := range o.Notices {
		m.scr.noteEvent(now, "run", "", n)
		m.scr.say(now, common.Say{Text: n, Err: true})
	}
	m.life.initCmds = []tea.Cmd{
		m.calls.issue(callKey{kind: callSubscription}, now),
		m.calls.issue(callKey{kind: callSpecs}, now),
		m.calls.issue(callKey{kind: callRuntimes}, now),
	}
	return m
}

// StartCalls starts the first API calls (the tier, the runtime specs and
// the runtimes) at once, in goroutines of their own, and leaves Init
// their results to wait for: the caller may then wait for something else
// (the terminal's answer to the theme query) before Run without holding
// the calls back. Call it at most once, before Run; without it Init starts
// them. A call's result is delivered once, to Init's command.
func (m Model) StartCalls() {
	for i, c := range m.life.initCmds {
		if c == nil {
			continue
		}
		ch := make(chan tea.Msg, 1)
		go func() { ch <- c() }() // the calls recover their own panics
		m.life.initCmds[i] = func() tea.Msg { return <-ch }
	}
}

// SetTheme draws with theme (ThemeDark or ThemeLight) from now on, for a
// theme known only after New (detected while the first calls were under
// way). Call it before Run: the styles are not guarded against a View
// running at the same time.
func (m Model) SetTheme(name string) {
	*m.cx.Styles = *theme.New(m.opts.NoColor, name)
	m.opts.Theme = name
}

// Snapshot returns the dashboard's domain state (read-only use).
func (m Model) Snapshot() *state.Snapshot { return m.cx.Snap }

// Selected returns the name of the selected runtime ("" when none).
func (m Model) Selected() string { return m.rt.Selected() }

// Service returns the Service in use (after profile switches, the last
// one). The caller closes it after Run returns.
func (m Model) Service() api.Service { return m.link.svc }

// Profile returns the active profile's name.
func (m Model) Profile() string { return m.cx.Profile }

// Init starts the first API calls and the one tick chain.
func (m Model) Init() tea.Cmd {
	return tea.Batch(append([]tea.Cmd{m.tick()}, m.life.initCmds...)...)
}

func (m *app) tick() tea.Cmd {
	gen := m.life.tickGen
	return m.life.every(time.Second, func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

// Update handles keys, window sizes, ticks and API results. It never
// blocks: every API call runs in a returned tea.Cmd.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case tickMsg:
		if msg.gen != m.life.tickGen {
			return m, nil // a stale chain dies here
		}
		m.life.frame++
		cmd = tea.Batch(append(m.onTick(m.cx.Now()), m.tick())...)
	case resultMsg:
		cmd = m.onResult(msg)
	case poll.ResultMsg:
		cmd = m.onPoll(msg)
	case profileMsg:
		cmd = m.onProfile(msg)
	case tea.KeyMsg:
		if msg, ok := m.cleanKey(msg); ok {
			cmd = m.onKeys(msg)
		}
	default:
		cmd, _ = m.onActionMsg(msg)
	}
	m.scr.openWaiting()
	m.syncRows()
	m.scr.dropStaleStatus()
	m.scroll() // rows, the table's height or the creates above it changed
	return m, cmd
}

// cleanKey makes typed and pasted text safe before any routing, so every
// input field gets clean text by construction (termtext.Input): controls
// and escape sequences are dropped; a CR becomes a newline in the run-code
// console, the one field that takes several lines. ok is false when
// nothing is left (a paste of controls only).
func (m *app) cleanKey(k tea.KeyMsg) (_ tea.KeyMsg, ok bool) {
	if k.Type != tea.KeyRunes {
		return k, true
	}
	multiline := topIs[*console.Overlay](m.scr)
	s := string(k.Runes)
	if c := termtext.Input(s, multiline); c != s {
		k.Runes = []rune(c)
	}
	return k, len(k.Runes) > 0
}

// onKeys splits runes that arrived in one read (fast typing, a held key,
// tmux send-keys) into single keystrokes, so "jj" moves twice and a "?"
// typed right after another key still opens the help. A bracketed paste
// stays whole. Two escapes in one read, which Bubble Tea reads as
// alt+esc, are two escapes (esc esc backs out two levels however fast it
// was typed; no binding is alt+esc). Each keystroke goes to routeKey, the
// one place that decides who gets it.
func (m *app) onKeys(k tea.KeyMsg) tea.Cmd {
	if k.Type == tea.KeyEsc && k.Alt {
		esc := tea.KeyMsg{Type: tea.KeyEsc}
		return tea.Batch(m.routeKey(esc), m.routeKey(esc))
	}
	if k.Type != tea.KeyRunes || len(k.Runes) < 2 || k.Paste {
		return m.routeKey(k)
	}
	cmds := make([]tea.Cmd, 0, len(k.Runes))
	for _, r := range k.Runes {
		cmds = append(cmds, m.routeKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt}))
	}
	return tea.Batch(cmds...)
}

func (m *app) onTick(now time.Time) []tea.Cmd {
	var cmds []tea.Cmd
	m.cx.Snap.Prune(now)
	// A wall clock that jumped back would put the next refresh far away:
	// never wait longer than the longest legitimate delay.
	if now.Before(m.calls.nextRefresh.Add(-MaxBackoff)) || !now.Before(m.calls.nextRefresh) {
		cmds = append(cmds, m.calls.refresh(now, false)...)
	}
	cmds = append(cmds, m.cr.actionsTick(now)...)
	cmds = append(cmds, m.calls.renewDue(now)...)
	cmds = append(cmds, m.mon.due(now, m.runtimeRows())...)
	cmds = append(cmds, m.jobs.due(now, m.runtimeRows(), m.mon)...)
	if o, open := find[*logview.Overlay](m.scr); open {
		cmds = append(cmds, o.Tick(now)) // a failed read's retry
	}
	// Session counts of the other runtimes, as the budget allows; not
	// while a list_runtimes is under way (its answer plans them), nor in
	// the last tenth of the interval before the next one (they ride along
	// with it: a refresh the budget put off by a second would otherwise
	// list them twice).
	if _, listing := m.calls.pending[callKey{kind: callRuntimes}]; !listing && m.calls.budget.Room(now) > 0 &&
		now.Before(m.calls.nextRefresh.Add(-m.opts.RefreshInterval/10)) {
		cmds = append(cmds, m.calls.refreshSessions(now, false)...)
	}
	m.scr.expireStatus(now)
	cmds = append(cmds, m.notifyTick(now)...)
	m.scr.liveStatus(now) // the idle guard's countdown, after the guard's memories of this tick
	return cmds
}
