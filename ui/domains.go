package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/files"
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
	// answer says how it ended (files.go).
	filesClosed files.Closed
	statusFor   string // the call an under-way status waits for (setProgress), else ""
	statusPane  bool   // the status is about a key in the files pane: closing it clears it
	// statusAbout is the runtime a status about the selection names
	// (setStatusAbout): it goes once the selection leaves that runtime.
	statusAbout string
	// statusCancel marks a status saying a dialog was cancelled: the next
	// overlay opened clears it (push).
	statusCancel bool
	events       *eventLog
}

// createOps are the creates under way (create.go, picker.go) and the
// spec remembered for N.
type createOps struct {
	*app
	creates  []*createOp
	nextOp   int
	lastSpec *LastSpec
}

// execOps is run code (exec.go, console.go): the runs and transcripts,
// the session each runtime's code goes to, and the sessions closed.
type execOps struct {
	*app
	execState
	// lastSession is, per runtime name, the session most recently selected
	// in the sessions panel, opened with o or opened for run code: where e
	// runs when the sessions panel is not focused.
	lastSession map[string]sessionPick
	// closed holds the sessions the user closed: run code never uses them
	// again (execute_code would silently recreate them).
	closed map[string]bool
}

// runtimeOps are the commands on a runtime or session (actions.go,
// sessions.go, clipboard.go, shell.go, files.go, profile.go): when each
// delete_runtime, delete_session and create_session was sent, and the
// profile switch under way.
type runtimeOps struct {
	*app
	deleting map[string]time.Time // runtime name → when delete_runtime was sent
	closing  map[string]time.Time // session name → when delete_session was sent
	opening  map[string]time.Time // runtime name → when create_session was sent
	// deleted are the ids deleted since deleting was last empty: a bulk
	// delete's status line names them all, not only the last.
	deleted []string
	prof    profileState
}

// monitorOps is the monitor in the dashboard (panes.go): the polls of
// the selected runtime and those on screen, their answers and the
// renewals a refused proxy token asks for. A nil *monitorOps is
// monitoring off: its methods do nothing.
type monitorOps struct {
	*app
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
func (a *app) resetOps(last *LastSpec) {
	a.cr = &createOps{app: a, lastSpec: last}
	a.ex = &execOps{app: a, execState: execState{transcripts: map[string]*console.Transcript{}},
		lastSession: map[string]sessionPick{}, closed: map[string]bool{}}
	prof := profileState{}
	if a.ops != nil {
		prof = a.ops.prof
	}
	a.ops = &runtimeOps{app: a, deleting: map[string]time.Time{}, closing: map[string]time.Time{}, opening: map[string]time.Time{}, prof: prof}
	if a.mon != nil {
		a.mon.poll.Reset() // the runtimes were the old account's
	}
	a.cx.Activity = common.Activity{Deleting: a.ops.deleting, Closing: a.ops.closing, Opening: a.ops.opening,
		Creating: a.cr.creations, Renewals: a.calls.renewals()}
}
