package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// Effect is what a pane, an overlay or a global key asks the root to do.
// The set is closed: only the types in this package implement it, and the
// root's apply is the one place that carries each out. A nil Effect does
// nothing.
type Effect interface{ effect() }

// The effects. Each names its target where it has one, so an answer built
// when something opened acts on that thing, not on whatever is selected.
type (
	// Quit cancels every call and quits. While console code runs it asks
	// first (the code keeps running on the runtime), unless Anyway: the
	// answer yes to that question.
	Quit struct{ Anyway bool }
	// Close closes the overlay on top; then Text, if any, goes to the
	// status line (Err: as an error) and Cmd, if any, runs.
	Close struct {
		Text string
		Err  bool
		Cmd  tea.Cmd
	}
	// Open opens Overlay on top of the stack.
	Open struct{ Overlay Overlay }
	// Say shows Text in the status line (Err: as an error) for a few
	// seconds: the one way anything reaches the status line. Pane marks a
	// status about a key of the files pane: it is cleared when the pane
	// closes. About names the runtime a status about the selection speaks
	// of ("runtimes/{id}"): it goes once the selection leaves that runtime.
	// For names the call an under-way status waits for (its tool, a space,
	// its target: "delete_runtime runtimes/r-1"): it goes when that call
	// answers.
	Say struct {
		Text       string
		Err, Pane  bool
		About, For string
	}
	// Move moves the runtimes cursor by N rows (negative: up).
	Move struct{ N int }
	// MoveSession moves the sessions cursor by N rows.
	MoveSession struct{ N int }
	// Focus moves the focus to the other panel.
	Focus struct{}
	// Details expands or collapses the details panel.
	Details struct{}
	// Sort cycles the runtimes table's sort key.
	Sort struct{}
	// SortBy sorts the runtimes table by the column whose sort action
	// (ui/render SortBy.Action) is Action, reversing the order when it is
	// sorted by it already; keymap.ActionSortReverse reverses the order.
	SortBy struct{ Action string }
	// Mark marks the selected runtime for a bulk delete or close, or
	// unmarks it, and moves the cursor down a row.
	Mark struct{}
	// ClearMarks unmarks every runtime.
	ClearMarks struct{}
	// Refresh lists everything again now.
	Refresh struct{}
	// Back is esc on the dashboard: the filter, the expanded details, then
	// the status line, one per press.
	Back struct{}
	// Filter sets the runtimes filter to Text (typed so far).
	Filter struct{ Text string }
	// ClearFilter closes the filter line and clears the filter.
	ClearFilter struct{}
	// SwitchProfile closes the picker and switches to profile Name.
	SwitchProfile struct{ Name string }
	// RunCode runs Code in the run-code console's session.
	RunCode struct{ Code string }
	// StopCode asks whether to stop the code running in the console.
	StopCode struct{}
	// Run runs Cmd, an overlay's own call (the files pane's listing).
	Run struct{ Cmd tea.Cmd }
	// Help opens the help; First names the keymap scope listed first
	// ("" for the dashboard's).
	Help struct{ First string }
	// Do is a dashboard command on the selected runtime or session.
	Do struct{ Op Op }
	// RunPlugin runs the files-scope plugin Name (keymap.PluginMatch) on
	// File, a path on runtime Runtime (its id), the files pane's
	// selection when the key was pressed.
	RunPlugin struct{ Name, Runtime, File string }
	// Answer closes Dialog, a dialog that was answered (wherever it is on
	// the stack), then carries out Then: the effect its opener built for
	// that answer, from the target it captured (nil: nothing more).
	Answer struct {
		Dialog Overlay
		Then   Effect
	}
)

// The effects of dialogs' answers: each names the target its dialog
// captured when it opened, never the selection of the moment.
type (
	// DeleteRuntime sends delete_runtime for runtime Name
	// ("runtimes/{id}"), the user having confirmed.
	DeleteRuntime struct{ Name string }
	// DeleteRuntimes sends delete_runtime for each of Names, the user
	// having confirmed them all in one question; their marks drop.
	DeleteRuntimes struct{ Names []string }
	// CloseSessions sends delete_session for each of Names, the user
	// having confirmed them all in one question about the marked Runtimes,
	// whose marks drop.
	CloseSessions struct{ Names, Runtimes []string }
	// AskDelete selects runtime Name and asks whether to delete it (the
	// next step chosen after a failed create); nothing if it is gone.
	AskDelete struct{ Name string }
	// CloseSession sends delete_session for session Name
	// ("runtimes/{id}/sessions/{sid}").
	CloseSession struct{ Name string }
	// OpenSession sends create_session on Runtime ("runtimes/{id}") with
	// session id ID ("": a colabdash-… id is chosen). ForConsole opens
	// the run-code console on the session once it is there.
	OpenSession struct {
		Runtime, ID string
		ForConsole  bool
	}
	// StopRun ends the code running on Session (the console's) by closing
	// that session (delete_session): Colab cannot interrupt code.
	StopRun struct{ Session string }
	// CreateRuntime submits a create_runtime of Spec with runtime image
	// Version ("": latest) and runtime id ID ("": Colab chooses it); the
	// app refuses it while a create sent moments ago is under way.
	CreateRuntime struct {
		Spec        api.RuntimeSpecKey
		Version, ID string
	}
	// ResendCreate re-sends a create whose outcome was unknown, with its
	// same requestId. Create is the app's own record of that create,
	// handed to the dialog that asked and back unchanged: nothing but the
	// app looks inside.
	ResendCreate struct{ Create any }
)

func (RunPlugin) effect()     {}
func (Quit) effect()          {}
func (Close) effect()         {}
func (Open) effect()          {}
func (Say) effect()           {}
func (Move) effect()          {}
func (MoveSession) effect()   {}
func (Focus) effect()         {}
func (Details) effect()       {}
func (Sort) effect()          {}
func (Refresh) effect()       {}
func (Back) effect()          {}
func (Filter) effect()        {}
func (ClearFilter) effect()   {}
func (SwitchProfile) effect() {}
func (RunCode) effect()       {}
func (StopCode) effect()      {}
func (Run) effect()           {}
func (Do) effect()            {}
func (Help) effect()          {}
func (Answer) effect()        {}
func (DeleteRuntime) effect() {}
func (AskDelete) effect()     {}
func (CloseSession) effect()  {}
func (OpenSession) effect()   {}
func (StopRun) effect()       {}
func (CreateRuntime) effect() {}
func (ResendCreate) effect()  {}

// The runtimes table's marks and sorts, and the bulk answers.
func (SortBy) effect()         {}
func (Mark) effect()           {}
func (ClearMarks) effect()     {}
func (DeleteRuntimes) effect() {}
func (CloseSessions) effect()  {}

// Op is a dashboard command a global key starts (Do).
type Op int

// The dashboard's commands.
const (
	OpEvents       Op = iota + 1 // open the event log
	OpProfiles                   // open the profile picker
	OpOpenFilter                 // open the filter line
	OpNewRuntime                 // open the create picker
	OpQuickCreate                // ask to re-create the last spec
	OpDelete                     // ask to delete the selected runtime
	OpOpenSession                // ask for a session id to open
	OpCloseSession               // ask to close the selected session
	OpRenew                      // renew the selected runtime's token now
	OpCancelCreate               // cancel a create waiting to retry
	OpRunCode                    // open the run-code console
	OpCopyURL                    // copy the selected runtime's URL
	OpCopyToken                  // copy its proxy token (once revealed)
	OpReveal                     // reveal or hide its proxy token
	OpFiles                      // open the files pane of the selected runtime
	OpShell                      // suspend the dashboard for a shell on the selected runtime
	OpLogs                       // open the log viewer on the selected runtime's job
	OpGuardCancel                // keep the selected runtime from the idle guard's delete
)

// Overlay is one layer of the dashboard's stack: a dialog, the create
// picker, the help, the event log, the profile picker, the filter line,
// the run-code console, the files pane. While it is on top it gets every
// key; it never changes the Context nor starts a call itself: it answers
// with an Effect.
type Overlay interface {
	// HandleKey takes every key while the overlay is on top.
	HandleKey(k tea.KeyMsg, c *Context) Effect
	// Draw paints the overlay onto the frame below it.
	Draw(c *Context, f *frame.Frame)
	// Fits reports whether the overlay can be shown in c.Layout.
	Fits(c *Context) bool
	// Keys are the footer's key help while the overlay is on top: its
	// own keys, never the dashboard's (which do nothing under it).
	Keys(c *Context) []key.Binding
	// Name says what the overlay is, for the too-small screen ("dialog").
	Name() string
}

// Graced is an overlay that ignores keys for a moment after it appears;
// Regrace starts that moment again (the screen could not show it).
type Graced interface{ Regrace(now time.Time) }
