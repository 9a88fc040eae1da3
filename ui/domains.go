package ui

// The dashboard's domain types. The root (app, model.go) owns them all
// and is the only code that calls more than one: each holds what it needs
// (the Context, the link to Colab, the screen, the panes it reads) and
// never another domain type. An answer that concerns two of them (a
// session closed: its runs end and its runtime's sessions are listed
// again) is handed to each in turn by the root (answers.go), and what a
// domain type needs of the read calls it does not own it returns as a
// want, which app.carryOut issues through callState.
//
//	app ─┬─ screen      overlays, status line, event log (screen.go, status.go)
//	     ├─ callState   the read calls, refreshes, renewals (calls.go, renewals.go)
//	     ├─ createOps   creates and their questions (create.go, createask.go)
//	     ├─ execOps     run code and its console (exec.go), the kernel
//	     │              interrupt (access.go)
//	     ├─ runtimeOps  deletes, sessions, copies (ops.go), marks (marks.go),
//	     │              the files pane and the shell (access.go)
//	     ├─ profiles    the profile switch (profile.go)
//	     └─ monitorOps  the monitor's polls (panes.go)
//
// Every one of them may use the link to Colab (below; its calls are
// wrapped by guard.go), the screen, the Context and the panes; none uses
// another. The status line is written only through a common.Say handed to
// screen.say.

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/files"
	"github.com/colabdash/colabdash/ui/paint"
	"github.com/colabdash/colabdash/ui/pane/runtimes"
	"github.com/colabdash/colabdash/ui/pane/sessions"
	"github.com/colabdash/colabdash/ui/poll"
)

// lifetime is the dashboard's run: its context (cancelled on quit), the
// per-runtime call semaphore, the one tick chain and the first calls.
type lifetime struct {
	ctx      context.Context
	cancel   context.CancelFunc
	sem      chan struct{}
	every    func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
	tickGen  uint64
	frame    int
	initCmds []tea.Cmd
	// term is the terminal's painter (nil: Bubble Tea's renderer), for
	// the commands that give the terminal to a shell or a plugin, or to
	// the shell on ctrl+z.
	term *paint.Painter
}

// link is the dashboard's way to Colab: the Service of the profile in
// use (a profile switch replaces it), the options calls read (the call
// timeout, the clock) and the lifetime every call runs under.
type link struct {
	svc    api.Service
	opts   *Options
	life   *lifetime
	redact func(string) string // Options.Redact, or nothing removed
}

// screen is what the dashboard shows beyond its panes: the size, the
// overlay stack and the overlays waiting for their layer (screen.go), the
// status line and the event log (status.go). It reads and writes only the
// Context.
type screen struct {
	cx            *common.Context
	width, height int
	showDetails   bool
	stack         []overlay        // the overlay stack, bottom first
	waiting       []waitingOverlay // overlays answers brought, waiting for their layer (openFromAnswer)
	// filesClosed are files panes closed while a transfer ran, until its
	// answer says how it ended (access.go).
	filesClosed files.Closed
	statusFor   string // the call an under-way status waits for (Say.For), else ""
	statusPane  bool   // the status is about a key in the files pane: closing it clears it
	// statusAbout is the runtime a status about the selection names
	// (Say.About): it goes once the selection leaves that runtime.
	statusAbout string
	// statusCancel marks a status saying a dialog was cancelled: the next
	// overlay opened clears it (push).
	statusCancel bool
	// statusLive, when set, words the status line anew at each tick (the
	// idle guard's countdown, sayLive): it returns the text at now, or
	// false when what it says is over (the line is then cleared). It lasts
	// until liveUntil; liveErr is its style, liveShown whether the line
	// shows it now (another status may have it for a while).
	statusLive func(now time.Time) (string, bool)
	liveErr    bool
	liveUntil  time.Time
	liveShown  bool
	events     *eventLog
}

// want is what a domain type's answer asks of the read calls, which it
// does not own: the root carries it out through callState (carryOut).
type want struct {
	cmd     tea.Cmd // the domain type's own command, if any
	refresh bool    // list the runtimes again (as the refresh does)
	// relist drops a list_runtimes under way first: its answer may have
	// been sent before what changed.
	relist bool
	// forget is a runtime that is gone: the session and renewal calls
	// under way for it are dropped.
	forget string
	// sessions is a runtime whose sessions are listed now; relistSessions
	// drops a list_sessions of it under way first.
	sessions       string
	relistSessions bool
	// issued is a runtime whose proxy token a call sent at sent issued
	// (callState.learnTokenLife).
	issued *api.Runtime
	sent   time.Time
}

// createOps are the creates under way (create.go) and the spec
// remembered for N.
type createOps struct {
	cx       *common.Context
	opts     *Options
	link     *link
	scr      *screen
	rt       *runtimes.Pane // a runtime created is selected
	creates  []*createOp
	nextOp   int
	lastSpec *ops.LastSpec
}

// execOps is run code (exec.go): the runs and transcripts, the session
// each runtime's code goes to, and the sessions closed.
type execOps struct {
	cx   *common.Context
	link *link
	scr  *screen
	rt   *runtimes.Pane // the selected runtime is where e runs code
	sess *sessions.Pane // and its selected session, when focused
	execState
	// lastSession is, per runtime name, the session most recently selected
	// in the sessions panel, opened with o or opened for run code: where e
	// runs when the sessions panel is not focused.
	lastSession map[string]sessionPick
	// closed holds the sessions the user closed: run code never uses them
	// again (execute_code would silently recreate them).
	closed map[string]bool
}

// runtimeOps are the commands on a runtime or session (ops.go: delete,
// sessions, marks, copies; access.go: the files pane, the shell): when
// each delete_runtime, delete_session and create_session was sent.
type runtimeOps struct {
	cx       *common.Context
	opts     *Options
	link     *link
	scr      *screen
	rt       *runtimes.Pane
	sess     *sessions.Pane
	deleting map[string]time.Time // runtime name → when delete_runtime was sent
	closing  map[string]time.Time // session name → when delete_session was sent
	opening  map[string]time.Time // runtime name → when create_session was sent
	// deleted are the ids deleted since deleting was last empty: a bulk
	// delete's status line names them all, not only the last.
	deleted []string
}

// monitorOps is the monitor in the dashboard (panes.go): the polls of
// the selected runtime and those on screen and their answers; a refused
// proxy token's renewal it asks of the root. A nil *monitorOps is
// monitoring off: its methods do nothing.
type monitorOps struct {
	cx    *common.Context
	opts  *Options
	link  *link
	rt    *runtimes.Pane
	poll  *poll.Poller
	onScr []string // scratch: the runtimes on screen
	// version is the snapshot version the monitor last forgot the
	// runtimes no longer listed at.
	version uint64
}

// resetOps starts the creates, run code and runtime commands afresh (a
// new dashboard, or a profile switch: they were the old account's) with
// last, the spec remembered for N, and points the Context's activity at
// them.
func (a *app) resetOps(last *ops.LastSpec) {
	a.cr = &createOps{cx: a.cx, opts: &a.opts, link: a.link, scr: a.scr, rt: a.rt, lastSpec: last}
	a.ex = &execOps{cx: a.cx, link: a.link, scr: a.scr, rt: a.rt, sess: a.sess,
		execState:   execState{transcripts: map[string]*console.Transcript{}},
		lastSession: map[string]sessionPick{}, closed: map[string]bool{}}
	a.ops = &runtimeOps{cx: a.cx, opts: &a.opts, link: a.link, scr: a.scr, rt: a.rt, sess: a.sess,
		deleting: map[string]time.Time{}, closing: map[string]time.Time{}, opening: map[string]time.Time{}}
	if a.mon != nil {
		a.mon.poll.Reset() // the runtimes were the old account's
	}
	a.jobs.reset()
	a.cx.Activity = common.Activity{Deleting: a.ops.deleting, Closing: a.ops.closing, Opening: a.ops.opening,
		Creating: a.cr.creations, Renewals: a.calls.renewals()}
}
