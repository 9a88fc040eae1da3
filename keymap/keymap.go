// Package keymap holds every action of colabdash's screens as a
// key.Binding with help text: defaults is one row per action (its config
// name, default keys, help, whether it changes something on Colab), and
// KeyMap holds one struct of bindings per scope (the dashboard's global
// keys, the runtimes table, the sessions pane, the files pane, the
// run-code console, the help, the event log, the profile picker, the
// no-credentials screen), each matched only by the component that owns
// it. An action read in several scopes (up, quit) has a binding in each
// with the same keys. Bindings can be changed at run time with Rebind
// (main does, from the config file's keys), in every scope at once; the
// help then shows the effective keys. Only the text editor's own keys
// (←/→, home/end, backspace, ↑/↓ between lines and through the history…),
// the same in every text field, a dialog's answer keys and the profile
// picker's enter are not here.
package keymap

import (
	"sort"
	"sync"

	"github.com/charmbracelet/bubbles/key"
)

// Action names, as a config file would spell them.
const (
	ActionUp        = "up"
	ActionDown      = "down"
	ActionPageUp    = "page_up"
	ActionPageDown  = "page_down"
	ActionTop       = "top"
	ActionBottom    = "bottom"
	ActionNextPanel = "next_panel"
	ActionPrevPanel = "prev_panel"
	ActionDetails   = "details"
	ActionFilter    = "filter"
	ActionSort      = "sort"
	ActionRefresh   = "refresh"
	ActionBack      = "back"
	ActionHelp      = "help"
	ActionQuit      = "quit"
	ActionSuspend   = "suspend"
	ActionDemo      = "demo"
	ActionProfile   = "profile"
	ActionEvents    = "events"

	// The runtimes table's marks and sort keys (ScopeRuntimes): mark
	// toggles the selected runtime's mark (bulk delete and close act on
	// the marked rows), clear_marks drops every mark; each sort_* action
	// sorts by its column (again: reversed), sort_reverse reverses the
	// order. A column that sorts names its action (ui/render SortBy).
	ActionMark         = "mark"
	ActionClearMarks   = "clear_marks"
	ActionSortName     = "sort_name"
	ActionSortSpec     = "sort_spec"
	ActionSortVersion  = "sort_version"
	ActionSortSessions = "sort_sessions"
	ActionSortExpiry   = "sort_expiry"
	ActionSortRAM      = "sort_ram"
	ActionSortGPU      = "sort_gpu"
	ActionSortActivity = "sort_activity"
	ActionSortReverse  = "sort_reverse"

	// Actions that change something on Colab (disabled by SetReadOnly).
	ActionNewRuntime    = "new_runtime"
	ActionQuickCreate   = "quick_create"
	ActionDeleteRuntime = "delete_runtime"
	ActionOpenSession   = "open_session"
	ActionCloseSession  = "close_session"
	ActionRunCode       = "run_code"
	ActionRenewToken    = "renew_token"
	ActionCancel        = "cancel"
	// ActionShell opens a shell on the selected runtime (S; k9s's s is
	// sort here), suspending the dashboard until it ends.
	ActionShell = "shell"

	// Clipboard actions (read-only, allowed in --readonly).
	ActionCopyURL     = "copy_url"
	ActionCopyToken   = "copy_token"
	ActionRevealToken = "reveal_token"

	// The files pane of the selected runtime (browsing and downloads are
	// read-only; its upload and delete keys are off in --readonly).
	ActionFiles = "files"

	// ActionLogs opens the log viewer (l, k9s's key) on the selected
	// runtime's job; it only reads.
	ActionLogs = "logs"

	// ActionGuardCancel cancels the idle guard's delete of the selected
	// runtime after its last warning (ctrl+g); the guard does not act on
	// that runtime again until it has worked and gone idle anew. It
	// changes nothing on Colab (allowed in --readonly, where the guard
	// never deletes anyway).
	ActionGuardCancel = "guard_cancel"

	// The files pane's own keys, read only while it is open (it also reads
	// up, down, page_up, page_down, top, bottom, refresh, back, files and
	// quit). files_upload and files_delete are disabled by SetReadOnly.
	ActionFilesOpen       = "files_open"
	ActionFilesParent     = "files_parent"
	ActionFilesDownload   = "files_download"
	ActionFilesDownloadTo = "files_download_to"
	ActionFilesUpload     = "files_upload"
	ActionFilesDelete     = "files_delete"

	// The run-code console's own keys, read only while it is open; every
	// other key edits its input.
	ActionConsoleRun        = "console_run"
	ActionConsoleNewLine    = "console_newline"
	ActionConsoleStop       = "console_stop"
	ActionConsoleBack       = "console_back"
	ActionConsoleScrollUp   = "console_scroll_up"
	ActionConsoleScrollDown = "console_scroll_down"

	// The log viewer's own keys, read only while it is open (it also
	// reads up, down, page_up, page_down, top, bottom and back).
	ActionLogFollow = "log_follow"
	ActionLogSearch = "log_search"
	ActionLogNext   = "log_next"
	ActionLogPrev   = "log_prev"
	ActionLogWrap   = "log_wrap"
	ActionLogSave   = "log_save"
	ActionLogClose  = "log_close"
)

// Scopes: where an action's keys are read, each owned by one component
// that alone matches them. Two actions of one scope may not share a key,
// nor may two actions of scopes read at the same time (Conflicts); other
// scopes may.
const (
	// ScopeDashboard is the dashboard's global keys (package ui: the app),
	// read when the focused pane did not take the key.
	ScopeDashboard = "dashboard"
	// ScopeRuntimes is the runtimes table's own keys (ui/pane/runtimes):
	// its cursor, marks and sort keys, read first while it has the focus.
	ScopeRuntimes = "runtimes table"
	// ScopeSessions is the sessions pane's cursor keys (ui/pane/sessions),
	// read first while it has the focus.
	ScopeSessions = "sessions pane"
	// ScopeFiles is the files pane (f; ui/overlay/files).
	ScopeFiles = "files pane"
	// ScopeConsole is the run-code console (e; ui/overlay/console).
	ScopeConsole = "run-code console"
	// ScopeLogView is the log viewer (l; ui/overlay/logview).
	ScopeLogView = "log viewer"
	// ScopeHelp is the full help's keys while it is open (?;
	// ui/overlay/help).
	ScopeHelp = "help"
	// ScopeEvents is the event log's keys while it is open (L;
	// ui/overlay/events).
	ScopeEvents = "event log"
	// ScopeProfile is the profile picker's keys while it is open (P;
	// ui/overlay/profile).
	ScopeProfile = "profile picker"
	// ScopeSetup is the no-credentials screen shown instead of the
	// dashboard (package ui: run.go).
	ScopeSetup = "no-credentials screen"
)

// KeyMap is every scope's bindings, each scope a value of its own: a
// component matches only the field of its scope. An action read in
// several scopes (up, quit) has a binding in each, with the same keys:
// Rebind and SetReadOnly change them all. Each field's tag names its
// scope; each binding's tag names its action.
type KeyMap struct {
	// Dashboard is ScopeDashboard, matched by the app (package ui).
	Dashboard Dashboard `scope:"dashboard"`
	// RuntimesTable is ScopeRuntimes, matched by ui/pane/runtimes.
	RuntimesTable Runtimes `scope:"runtimes table"`
	// SessionsPane is ScopeSessions, matched by ui/pane/sessions.
	SessionsPane List `scope:"sessions pane"`
	// FilesPane is ScopeFiles, matched by ui/overlay/files.
	FilesPane Files `scope:"files pane"`
	// Console is ScopeConsole, matched by ui/overlay/console.
	Console Console `scope:"run-code console"`
	// LogView is ScopeLogView, matched by ui/overlay/logview.
	LogView LogView `scope:"log viewer"`
	// HelpView is ScopeHelp, matched by ui/overlay/help.
	HelpView Pager `scope:"help"`
	// EventLog is ScopeEvents, matched by ui/overlay/events.
	EventLog Log `scope:"event log"`
	// ProfilePicker is ScopeProfile, matched by ui/overlay/profile.
	ProfilePicker Picker `scope:"profile picker"`
	// Setup is ScopeSetup, matched by package ui's no-credentials screen.
	Setup Setup `scope:"no-credentials screen"`

	// plugins are the config's plugin keys (AddPlugin), each read in the
	// scope its plugin names (PluginMatch), after the built-in keys there.
	plugins []PluginKey
}

// Dashboard is the dashboard's global keys (ScopeDashboard): what no
// focused pane took. It implements help.KeyMap (the footer's short help).
type Dashboard struct {
	// Panels: tab/shift+tab move focus; enter toggles the details panel.
	NextPanel key.Binding `action:"next_panel"`
	PrevPanel key.Binding `action:"prev_panel"`
	Details   key.Binding `action:"details"`
	// Data: / filters runtimes, s cycles the sort key, r refreshes now.
	Filter  key.Binding `action:"filter"`
	Sort    key.Binding `action:"sort"`
	Refresh key.Binding `action:"refresh"`
	// General: esc closes/clears, ? opens the full help, q quits,
	// ctrl+z suspends the dashboard to the shell (fg brings it back), as
	// every full-screen terminal program does; read over every overlay.
	Back    key.Binding `action:"back"`
	Help    key.Binding `action:"help"`
	Quit    key.Binding `action:"quit"`
	Suspend key.Binding `action:"suspend"`
	// Profile opens the profile picker; Events opens the event log.
	Profile key.Binding `action:"profile"`
	Events  key.Binding `action:"events"`

	// Actions (disabled and hidden from help by SetReadOnly): n picks a
	// runtimeSpec and creates a runtime, N re-creates the last used spec,
	// d deletes the selected runtime, o opens a session on it, x closes the
	// selected session, e opens the run-code panel, c cancels a create
	// waiting to retry. R renews the selected runtime's proxy token now
	// (it only reads: not disabled).
	NewRuntime    key.Binding `action:"new_runtime"`
	QuickCreate   key.Binding `action:"quick_create"`
	DeleteRuntime key.Binding `action:"delete_runtime"`
	OpenSession   key.Binding `action:"open_session"`
	CloseSession  key.Binding `action:"close_session"`
	RunCode       key.Binding `action:"run_code"`
	RenewToken    key.Binding `action:"renew_token"`
	Cancel        key.Binding `action:"cancel"`

	// Clipboard: y copies the selected runtime's connection URL, v reveals
	// its proxy token in the details panel, Y copies the token (only once
	// revealed).
	CopyURL     key.Binding `action:"copy_url"`
	CopyToken   key.Binding `action:"copy_token"`
	RevealToken key.Binding `action:"reveal_token"`

	// Files opens the files pane of the selected runtime (f).
	Files key.Binding `action:"files"`
	// Shell opens a shell on the selected runtime in this terminal (S),
	// suspending the dashboard until it ends (disabled by SetReadOnly).
	Shell key.Binding `action:"shell"`
	// Logs opens the log viewer on the selected runtime's job (l).
	Logs key.Binding `action:"logs"`
	// GuardCancel cancels the idle guard's coming delete of the selected
	// runtime (ctrl+g).
	GuardCancel key.Binding `action:"guard_cancel"`
}

// List is a list's cursor keys (ScopeRuntimes, ScopeSessions): a line,
// a page, the first and the last row.
type List struct {
	Up       key.Binding `action:"up"`
	Down     key.Binding `action:"down"`
	PageUp   key.Binding `action:"page_up"`
	PageDown key.Binding `action:"page_down"`
	Top      key.Binding `action:"top"`
	Bottom   key.Binding `action:"bottom"`
}

// Files is the files pane's keys (ScopeFiles): its cursor, the
// dashboard's keys it also reads (refresh, filter, back, files closes it,
// help, profile, events opens the event log over it, quit), and its own: enter/→ opens the selected
// directory, backspace/← the parent, d downloads the selected file here,
// D to a path typed in a dialog, u uploads a typed path into the
// directory shown, x/delete deletes the selected entry (y-only
// confirmation). Upload and Delete are disabled by SetReadOnly.
type Files struct {
	Up         key.Binding `action:"up"`
	Down       key.Binding `action:"down"`
	PageUp     key.Binding `action:"page_up"`
	PageDown   key.Binding `action:"page_down"`
	Top        key.Binding `action:"top"`
	Bottom     key.Binding `action:"bottom"`
	Refresh    key.Binding `action:"refresh"`
	Filter     key.Binding `action:"filter"`
	Back       key.Binding `action:"back"`
	Files      key.Binding `action:"files"`
	Quit       key.Binding `action:"quit"`
	Help       key.Binding `action:"help"`
	Profile    key.Binding `action:"profile"`
	Events     key.Binding `action:"events"`
	Open       key.Binding `action:"files_open"`
	Parent     key.Binding `action:"files_parent"`
	Download   key.Binding `action:"files_download"`
	DownloadTo key.Binding `action:"files_download_to"`
	Upload     key.Binding `action:"files_upload"`
	Delete     key.Binding `action:"files_delete"`
}

// Console is the run-code console's keys (ScopeConsole): enter runs a
// complete statement (else starts a line), alt+enter/ctrl+j always start
// a line, ctrl+c interrupts running code (idle: clears the input), esc
// goes back to the dashboard, pgup/pgdn scroll the transcript. Every other
// key edits the input.
type Console struct {
	Run        key.Binding `action:"console_run"`
	NewLine    key.Binding `action:"console_newline"`
	Stop       key.Binding `action:"console_stop"`
	Back       key.Binding `action:"console_back"`
	ScrollUp   key.Binding `action:"console_scroll_up"`
	ScrollDown key.Binding `action:"console_scroll_down"`
}

// LogView is the log viewer's keys (ScopeLogView): its scroll keys, esc
// and q close it, f turns following on and off, / searches, n and N go
// to the next and previous line holding the search, w wraps long lines,
// s saves what was received to a local file.
type LogView struct {
	Up       key.Binding `action:"up"`
	Down     key.Binding `action:"down"`
	PageUp   key.Binding `action:"page_up"`
	PageDown key.Binding `action:"page_down"`
	Top      key.Binding `action:"top"`
	Bottom   key.Binding `action:"bottom"`
	Back     key.Binding `action:"back"`
	Close    key.Binding `action:"log_close"`
	Follow   key.Binding `action:"log_follow"`
	Search   key.Binding `action:"log_search"`
	Next     key.Binding `action:"log_next"`
	Prev     key.Binding `action:"log_prev"`
	Wrap     key.Binding `action:"log_wrap"`
	Save     key.Binding `action:"log_save"`
}

// Pager is a scrolled view's keys (ScopeHelp with Close = help; the
// event log's Log has the same and a filter): a line, a page, the top and
// the bottom, close (Close or Back) and quit.
type Pager struct {
	Up       key.Binding `action:"up"`
	Down     key.Binding `action:"down"`
	PageUp   key.Binding `action:"page_up"`
	PageDown key.Binding `action:"page_down"`
	Top      key.Binding `action:"top"`
	Bottom   key.Binding `action:"bottom"`
	// Close is the key that opened the view (? for the help, L for the
	// event log): it closes it again.
	Close key.Binding
	Back  key.Binding `action:"back"`
	Quit  key.Binding `action:"quit"`
}

// Log is the event log's keys (ScopeEvents): a Pager's, and Filter
// (/) opens its filter line, narrowing the events to those whose text
// holds what is typed.
type Log struct {
	Up       key.Binding `action:"up"`
	Down     key.Binding `action:"down"`
	PageUp   key.Binding `action:"page_up"`
	PageDown key.Binding `action:"page_down"`
	Top      key.Binding `action:"top"`
	Bottom   key.Binding `action:"bottom"`
	// Close is the key that opened the log (L): it closes it again.
	Close  key.Binding
	Back   key.Binding `action:"back"`
	Quit   key.Binding `action:"quit"`
	Filter key.Binding `action:"filter"`
}

// Picker is the profile picker's keys (ScopeProfile): move (a line, the
// first or the last profile), cancel (back, or profile that opened it)
// and quit. Its enter (switch) is fixed.
type Picker struct {
	Up      key.Binding `action:"up"`
	Down    key.Binding `action:"down"`
	Top     key.Binding `action:"top"`
	Bottom  key.Binding `action:"bottom"`
	Back    key.Binding `action:"back"`
	Profile key.Binding `action:"profile"`
	Quit    key.Binding `action:"quit"`
}

// Setup is the no-credentials screen's keys (ScopeSetup): d continues in
// demo mode, quit or back quit.
type Setup struct {
	Demo key.Binding `action:"demo"`
	Quit key.Binding `action:"quit"`
	Back key.Binding `action:"back"`
}

// def is one action's row: its default keys, its help text, and whether
// it changes something on Colab (off in --readonly).
type def struct {
	keys     []string
	desc     string
	mutating bool
}

// defaults is one row per action; where each is read is the scope
// structs' action tags (and Pager.Close, see closeActions).
var defaults = sync.OnceValue(func() map[string]def {
	return map[string]def{
		ActionUp:        {[]string{"up", "k"}, "up", false},
		ActionDown:      {[]string{"down", "j"}, "down", false},
		ActionPageUp:    {[]string{"pgup", "ctrl+b"}, "page up", false},
		ActionPageDown:  {[]string{"pgdown", "ctrl+f"}, "page down", false},
		ActionTop:       {[]string{"home", "g"}, "top", false},
		ActionBottom:    {[]string{"end", "G"}, "bottom", false},
		ActionNextPanel: {[]string{"tab"}, "next panel", false},
		ActionPrevPanel: {[]string{"shift+tab"}, "prev panel", false},
		ActionDetails:   {[]string{"enter"}, "details", false},
		ActionFilter:    {[]string{"/"}, "filter", false},
		ActionSort:      {[]string{"s"}, "sort", false},
		ActionRefresh:   {[]string{"r"}, "refresh", false},
		ActionBack:      {[]string{"esc"}, "back/clear", false},
		ActionHelp:      {[]string{"?"}, "help", false},
		ActionQuit:      {[]string{"q", "ctrl+c"}, "quit", false},
		ActionSuspend:   {[]string{"ctrl+z"}, "suspend (fg resumes)", false},
		ActionDemo:      {[]string{"d"}, "demo mode", false},
		ActionProfile:   {[]string{"P"}, "switch profile", false},
		ActionEvents:    {[]string{"L"}, "event log", false},

		ActionMark:         {[]string{" "}, "mark/unmark", false},
		ActionClearMarks:   {[]string{"ctrl+\\"}, "clear marks", false},
		ActionSortName:     {[]string{"A"}, "sort by NAME", false},
		ActionSortSpec:     {[]string{"C"}, "sort by SPEC", false},
		ActionSortVersion:  {[]string{"V"}, "sort by VERSION", false},
		ActionSortSessions: {[]string{"E"}, "sort by SESS", false},
		ActionSortExpiry:   {[]string{"T"}, "sort by TOKEN expiry", false},
		ActionSortRAM:      {[]string{"M"}, "sort by RAM used", false},
		ActionSortGPU:      {[]string{"U"}, "sort by GPU utilisation", false},
		ActionSortActivity: {[]string{"I"}, "sort by ACTIVITY", false},
		ActionSortReverse:  {[]string{"O"}, "reverse the sort", false},

		ActionNewRuntime:    {[]string{"n"}, "new runtime", true},
		ActionQuickCreate:   {[]string{"N"}, "re-create last spec", true},
		ActionDeleteRuntime: {[]string{"d"}, "delete", true},
		ActionOpenSession:   {[]string{"o"}, "open session", true},
		ActionCloseSession:  {[]string{"x"}, "close session", true},
		ActionRunCode:       {[]string{"e"}, "run code", true},
		ActionRenewToken:    {[]string{"R"}, "renew token now", false},
		ActionCancel:        {[]string{"c"}, "cancel create retry", true},
		ActionCopyURL:       {[]string{"y"}, "copy URL", false},
		ActionCopyToken:     {[]string{"Y"}, "copy token", false},
		ActionRevealToken:   {[]string{"v"}, "reveal token", false},
		ActionFiles:         {[]string{"f"}, "files", false},
		ActionShell:         {[]string{"S"}, "shell on runtime", true},
		ActionLogs:          {[]string{"l"}, "job log", false},
		ActionGuardCancel:   {[]string{"ctrl+g"}, "keep from idle guard", false},

		ActionFilesOpen:       {[]string{"enter", "right"}, "open directory", false},
		ActionFilesParent:     {[]string{"backspace", "left"}, "parent directory", false},
		ActionFilesDownload:   {[]string{"d"}, "download here", false},
		ActionFilesDownloadTo: {[]string{"D"}, "download to a path", false},
		ActionFilesUpload:     {[]string{"u"}, "upload here", true},
		ActionFilesDelete:     {[]string{"x", "delete"}, "delete", true},

		ActionConsoleRun:        {[]string{"enter"}, "run", false},
		ActionConsoleNewLine:    {[]string{"alt+enter", "ctrl+j"}, "new line", false},
		ActionConsoleStop:       {[]string{"ctrl+c"}, "stop the code (idle: clear)", false},
		ActionConsoleBack:       {[]string{"esc"}, "back (code keeps running)", false},
		ActionConsoleScrollUp:   {[]string{"pgup"}, "scroll up", false},
		ActionConsoleScrollDown: {[]string{"pgdown"}, "scroll down", false},

		ActionLogFollow: {[]string{"f"}, "follow on/off", false},
		ActionLogSearch: {[]string{"/"}, "search", false},
		ActionLogNext:   {[]string{"n"}, "next match", false},
		ActionLogPrev:   {[]string{"N"}, "previous match", false},
		ActionLogWrap:   {[]string{"w"}, "wrap on/off", false},
		ActionLogSave:   {[]string{"s"}, "save to a file", false},
		ActionLogClose:  {[]string{"q"}, "close", false},
	}
})

// Default returns the default key map: arrows and vim keys (k/j, g/G,
// ctrl+b/ctrl+f), tab between panels, enter for details, / filter, s sort,
// r refresh, esc back, ? help, q and ctrl+c quit, d demo (no-credentials
// screen); in the dashboard n new runtime, N re-create last spec, d delete,
// o open session, x close session, e run code, R renew token, c cancel a
// create retry, y copy URL, v reveal token, Y copy token, P switch
// profile, L event log, l a job's log (the log viewer: f follow, /
// search, n/N next/previous, w wrap, s save, q/esc close); in the
// runtimes table space marks, ctrl+\ clears
// the marks, A/C/V/E/T sort by NAME/SPEC/VERSION/SESS/TOKEN and O
// reverses.
func Default() *KeyMap {
	k := &KeyMap{}
	for _, p := range k.places() {
		d := defaults()[p.action]
		*p.b = key.NewBinding(key.WithKeys(d.keys...), key.WithHelp(helpKeys(d.keys), d.desc))
	}
	return k
}

// Actions returns every action name, sorted.
func Actions() []string {
	out := make([]string, 0, len(defaults()))
	for name := range defaults() {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
