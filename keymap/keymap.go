// Package keymap holds every action of the dashboard, of the files pane
// and of the run-code console as a key.Binding with help text, grouped for
// the help view. Bindings can be changed at run time with Rebind (main
// does, from the config file's keys); the help then shows the effective
// keys. Only the text editor's own keys (←/→, home/end, backspace, ↑/↓
// between lines and through the history…), the same in every text field,
// and a dialog's answer keys are not here.
package keymap

import (
	"sort"

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
	ActionDemo      = "demo"
	ActionProfile   = "profile"
	ActionEvents    = "events"

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
)

// Scopes: where an action's keys are read. Two actions of one scope may
// not share a key (Conflicts); actions of different scopes may.
const (
	// ScopeDashboard is the dashboard with no layer open.
	ScopeDashboard = "dashboard"
	// ScopeFiles is the files pane (f).
	ScopeFiles = "files pane"
	// ScopeConsole is the run-code console (e).
	ScopeConsole = "run-code console"
)

// scopes lists, per scope, the actions whose keys are read there. The
// demo key is read only on the no-credentials screen: in no scope here.
var scopes = map[string][]string{
	ScopeDashboard: {ActionUp, ActionDown, ActionPageUp, ActionPageDown, ActionTop, ActionBottom,
		ActionNextPanel, ActionPrevPanel, ActionDetails, ActionFilter, ActionSort, ActionRefresh, ActionBack,
		ActionHelp, ActionQuit, ActionProfile, ActionEvents, ActionNewRuntime, ActionQuickCreate,
		ActionDeleteRuntime, ActionOpenSession, ActionCloseSession, ActionRunCode, ActionRenewToken, ActionCancel,
		ActionCopyURL, ActionCopyToken, ActionRevealToken, ActionFiles, ActionShell},
	ScopeFiles: {ActionUp, ActionDown, ActionPageUp, ActionPageDown, ActionTop, ActionBottom, ActionRefresh, ActionFilter,
		ActionBack, ActionFiles, ActionQuit, ActionHelp, ActionProfile, ActionFilesOpen, ActionFilesParent,
		ActionFilesDownload, ActionFilesDownloadTo, ActionFilesUpload, ActionFilesDelete},
	ScopeConsole: {ActionConsoleRun, ActionConsoleNewLine, ActionConsoleStop, ActionConsoleBack,
		ActionConsoleScrollUp, ActionConsoleScrollDown},
}

// KeyMap is every action of the dashboard. It implements help.KeyMap.
type KeyMap struct {
	// Navigation.
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	// Panels: tab/shift+tab move focus; enter toggles the details panel.
	NextPanel, PrevPanel, Details key.Binding
	// Data: / filters runtimes, s cycles the sort key, r refreshes now.
	Filter, Sort, Refresh key.Binding
	// General: esc closes/clears, ? toggles full help, q quits.
	Back, Help, Quit key.Binding
	// Demo continues in demo mode from the no-credentials screen.
	Demo key.Binding
	// Profile opens the profile picker; Events toggles the event log.
	Profile, Events key.Binding

	// Actions (disabled and hidden from help by SetReadOnly): n picks a
	// runtimeSpec and creates a runtime, N re-creates the last used spec,
	// d deletes the selected runtime, o opens a session on it, x closes the
	// selected session, e opens the run-code panel, R renews the selected
	// runtime's proxy token now, c cancels a create waiting to retry.
	NewRuntime, QuickCreate, DeleteRuntime, OpenSession, CloseSession, RunCode, RenewToken, Cancel key.Binding

	// Clipboard: y copies the selected runtime's connection URL, v reveals
	// its proxy token in the details panel, Y copies the token (only once
	// revealed).
	CopyURL, CopyToken, RevealToken key.Binding

	// Files opens the files pane of the selected runtime (f), and closes
	// it.
	Files key.Binding

	// Shell opens a shell on the selected runtime in this terminal (S),
	// suspending the dashboard until it ends (disabled by SetReadOnly).
	Shell key.Binding

	// The files pane (ScopeFiles): enter/→ opens the selected directory,
	// backspace/← the parent, d downloads the selected file here, D to a
	// path typed in a dialog, u uploads a typed path into the directory
	// shown, x/delete deletes the selected entry (y-only confirmation).
	// FilesUpload and FilesDelete are disabled by SetReadOnly.
	FilesOpen, FilesParent, FilesDownload, FilesDownloadTo, FilesUpload, FilesDelete key.Binding

	// The run-code console (ScopeConsole): enter runs a complete
	// statement (else starts a line), alt+enter/ctrl+j always start a
	// line, ctrl+c interrupts running code (idle: clears the input), esc
	// goes back to the dashboard, pgup/pgdn scroll the transcript.
	ConsoleRun, ConsoleNewLine, ConsoleStop, ConsoleBack, ConsoleScrollUp, ConsoleScrollDown key.Binding
}

type def struct {
	keys []string
	desc string
}

var defaults = map[string]def{
	ActionUp:        {[]string{"up", "k"}, "up"},
	ActionDown:      {[]string{"down", "j"}, "down"},
	ActionPageUp:    {[]string{"pgup", "ctrl+b"}, "page up"},
	ActionPageDown:  {[]string{"pgdown", "ctrl+f"}, "page down"},
	ActionTop:       {[]string{"home", "g"}, "top"},
	ActionBottom:    {[]string{"end", "G"}, "bottom"},
	ActionNextPanel: {[]string{"tab"}, "next panel"},
	ActionPrevPanel: {[]string{"shift+tab"}, "prev panel"},
	ActionDetails:   {[]string{"enter"}, "details"},
	ActionFilter:    {[]string{"/"}, "filter"},
	ActionSort:      {[]string{"s"}, "sort"},
	ActionRefresh:   {[]string{"r"}, "refresh"},
	ActionBack:      {[]string{"esc"}, "back/clear"},
	ActionHelp:      {[]string{"?"}, "help"},
	ActionQuit:      {[]string{"q", "ctrl+c"}, "quit"},
	ActionDemo:      {[]string{"d"}, "demo mode"},
	ActionProfile:   {[]string{"P"}, "switch profile"},
	ActionEvents:    {[]string{"L"}, "event log"},

	ActionNewRuntime:    {[]string{"n"}, "new runtime"},
	ActionQuickCreate:   {[]string{"N"}, "re-create last spec"},
	ActionDeleteRuntime: {[]string{"d"}, "delete"},
	ActionOpenSession:   {[]string{"o"}, "open session"},
	ActionCloseSession:  {[]string{"x"}, "close session"},
	ActionRunCode:       {[]string{"e"}, "run code"},
	ActionRenewToken:    {[]string{"R"}, "renew token now"},
	ActionCancel:        {[]string{"c"}, "cancel create retry"},
	ActionCopyURL:       {[]string{"y"}, "copy URL"},
	ActionCopyToken:     {[]string{"Y"}, "copy token"},
	ActionRevealToken:   {[]string{"v"}, "reveal token"},
	ActionFiles:         {[]string{"f"}, "files"},
	ActionShell:         {[]string{"S"}, "shell on runtime"},

	ActionFilesOpen:       {[]string{"enter", "right"}, "open directory"},
	ActionFilesParent:     {[]string{"backspace", "left"}, "parent directory"},
	ActionFilesDownload:   {[]string{"d"}, "download here"},
	ActionFilesDownloadTo: {[]string{"D"}, "download to a path"},
	ActionFilesUpload:     {[]string{"u"}, "upload here"},
	ActionFilesDelete:     {[]string{"x", "delete"}, "delete"},

	ActionConsoleRun:        {[]string{"enter"}, "run"},
	ActionConsoleNewLine:    {[]string{"alt+enter", "ctrl+j"}, "new line"},
	ActionConsoleStop:       {[]string{"ctrl+c"}, "stop the code (idle: clear)"},
	ActionConsoleBack:       {[]string{"esc"}, "back (code keeps running)"},
	ActionConsoleScrollUp:   {[]string{"pgup"}, "scroll up"},
	ActionConsoleScrollDown: {[]string{"pgdown"}, "scroll down"},
}

// Default returns the default key map: arrows and vim keys (k/j, g/G,
// ctrl+b/ctrl+f), tab between panels, enter for details, / filter, s sort,
// r refresh, esc back, ? help, q and ctrl+c quit, d demo (no-credentials
// screen); in the dashboard n new runtime, N re-create last spec, d delete,
// o open session, x close session, e run code, R renew token, c cancel a
// create retry, y copy URL, v reveal token, Y copy token, P switch
// profile, L event log.
func Default() *KeyMap {
	k := &KeyMap{}
	for name, d := range defaults {
		b := k.binding(name)
		*b = key.NewBinding(key.WithKeys(d.keys...), key.WithHelp(helpKeys(d.keys), d.desc))
	}
	return k
}

// binding returns the field for an action name, or nil.
func (k *KeyMap) binding(action string) *key.Binding {
	switch action {
	case ActionUp:
		return &k.Up
	case ActionDown:
		return &k.Down
	case ActionPageUp:
		return &k.PageUp
	case ActionPageDown:
		return &k.PageDown
	case ActionTop:
		return &k.Top
	case ActionBottom:
		return &k.Bottom
	case ActionNextPanel:
		return &k.NextPanel
	case ActionPrevPanel:
		return &k.PrevPanel
	case ActionDetails:
		return &k.Details
	case ActionFilter:
		return &k.Filter
	case ActionSort:
		return &k.Sort
	case ActionRefresh:
		return &k.Refresh
	case ActionBack:
		return &k.Back
	case ActionHelp:
		return &k.Help
	case ActionQuit:
		return &k.Quit
	case ActionDemo:
		return &k.Demo
	case ActionProfile:
		return &k.Profile
	case ActionEvents:
		return &k.Events
	case ActionNewRuntime:
		return &k.NewRuntime
	case ActionQuickCreate:
		return &k.QuickCreate
	case ActionDeleteRuntime:
		return &k.DeleteRuntime
	case ActionOpenSession:
		return &k.OpenSession
	case ActionCloseSession:
		return &k.CloseSession
	case ActionRunCode:
		return &k.RunCode
	case ActionRenewToken:
		return &k.RenewToken
	case ActionCancel:
		return &k.Cancel
	case ActionCopyURL:
		return &k.CopyURL
	case ActionCopyToken:
		return &k.CopyToken
	case ActionRevealToken:
		return &k.RevealToken
	case ActionFiles:
		return &k.Files
	case ActionShell:
		return &k.Shell
	case ActionFilesOpen:
		return &k.FilesOpen
	case ActionFilesParent:
		return &k.FilesParent
	case ActionFilesDownload:
		return &k.FilesDownload
	case ActionFilesDownloadTo:
		return &k.FilesDownloadTo
	case ActionFilesUpload:
		return &k.FilesUpload
	case ActionFilesDelete:
		return &k.FilesDelete
	case ActionConsoleRun:
		return &k.ConsoleRun
	case ActionConsoleNewLine:
		return &k.ConsoleNewLine
	case ActionConsoleStop:
		return &k.ConsoleStop
	case ActionConsoleBack:
		return &k.ConsoleBack
	case ActionConsoleScrollUp:
		return &k.ConsoleScrollUp
	case ActionConsoleScrollDown:
		return &k.ConsoleScrollDown
	}
	return nil
}

// Actions returns every action name, sorted.
func Actions() []string {
	out := make([]string, 0, len(defaults))
	for name := range defaults {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
