// Package keymap holds every dashboard action as a key.Binding with help
// text, grouped for the help view. Bindings can be changed at run time with
// Rebind (main does, from the config file's keys); the help then shows the
// effective keys.
package keymap

import (
	"fmt"
	"slices"
	"sort"
	"strings"

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

	// Clipboard actions (read-only, allowed in --readonly).
	ActionCopyURL     = "copy_url"
	ActionCopyToken   = "copy_token"
	ActionRevealToken = "reveal_token"

	// The files pane of the selected runtime (browsing and downloads are
	// read-only; its upload and delete keys are off in --readonly).
	ActionFiles = "files"
)

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

	// Files opens the files pane of the selected runtime (f).
	Files key.Binding
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
}

// mutating lists the actions that change something on Colab.
// Renewing a proxy token (get_runtime) only reads, so it stays.
var mutating = []string{ActionNewRuntime, ActionQuickCreate, ActionDeleteRuntime, ActionOpenSession,
	ActionCloseSession, ActionRunCode, ActionCancel}

// SetReadOnly disables every action that changes something on Colab
// (create, delete, sessions, run code): a disabled
// binding matches no key and is left out of the help. Navigation, refresh
// and the clipboard stay.
func (k *KeyMap) SetReadOnly(readOnly bool) {
	for _, a := range mutating {
		k.binding(a).SetEnabled(!readOnly)
	}
}

// DisabledMatch returns the action that SetReadOnly disabled and that msg
// (a tea.KeyMsg, or anything whose String is a key name like "n") would
// trigger if it were enabled, with its binding, so the dashboard can say
// "read-only mode: n (new runtime) is disabled" instead of ignoring the
// key. ok is false when msg matches no disabled action.
func (k *KeyMap) DisabledMatch(msg fmt.Stringer) (b key.Binding, ok bool) {
	for _, a := range mutating {
		b := *k.binding(a)
		if b.Enabled() {
			continue
		}
		b.SetEnabled(true)
		if key.Matches(msg, b) {
			return b, true
		}
	}
	return key.Binding{}, false
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

// AlwaysQuit is the key that quits whatever the config says (as in k9s
// and lazygit): Rebind keeps it on quit, so a config binding it to another
// action is a conflict.
const AlwaysQuit = "ctrl+c"

// Rebind replaces the keys of action (one of the Action* names) with keys,
// written as Bubble Tea key strings ("ctrl+r", "f5", "x"; " " or "space"
// for the space bar). The help text then shows the new keys. quit always
// keeps AlwaysQuit (ctrl+c) besides the keys given. It returns an error for
// an unknown action or an empty key list, saying what is accepted, and
// leaves the binding unchanged.
func (k *KeyMap) Rebind(action string, keys ...string) error {
	b := k.binding(action)
	if b == nil {
		return fmt.Errorf("unknown action %q (accepted: %s)", action, strings.Join(Actions(), ", "))
	}
	var clean []string
	for _, s := range keys {
		if s = normalizeKey(s); s != "" && !slices.Contains(clean, s) {
			clean = append(clean, s)
		}
	}
	if len(clean) == 0 {
		return fmt.Errorf("no key given for action %q (accepted: a key such as r, ctrl+r, \" \" or space, or a list [r, f5])", action)
	}
	if action == ActionQuit && !slices.Contains(clean, AlwaysQuit) {
		clean = append(clean, AlwaysQuit)
	}
	b.SetKeys(clean...)
	b.SetHelp(helpKeys(clean), b.Help().Desc)
	return nil
}

// normalizeKey turns a key as written in a config into Bubble Tea's
// KeyMsg.String() spelling: " " and "space" are the space bar (" "),
// surrounding blanks are dropped from any other key.
func normalizeKey(s string) string {
	if s != "" && strings.TrimSpace(s) == "" {
		return " "
	}
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "space") {
		return " "
	}
	if rest, ok := strings.CutPrefix(s, "alt+"); ok && strings.EqualFold(rest, "space") {
		return "alt+ "
	}
	return s
}

var keyGlyphs = map[string]string{" ": "space", "alt+ ": "alt+space", "up": "↑", "down": "↓", "left": "←", "right": "→", "pgup": "pgup", "pgdown": "pgdn"}

// helpKeys renders keys for the help view: "↑/k", "q/ctrl+c".
func helpKeys(keys []string) string {
	out := make([]string, len(keys))
	for i, s := range keys {
		if g, ok := keyGlyphs[s]; ok {
			s = g
		}
		out[i] = s
	}
	return strings.Join(out, "/")
}

// ShortHelp is the one-line help of the footer (help.KeyMap).
func (k *KeyMap) ShortHelp() []key.Binding {
	// Help and quit first: a narrow footer cuts from the end, and these
	// two must always be found.
	return []key.Binding{k.Help, k.Quit, k.NewRuntime, k.DeleteRuntime, k.RunCode, k.Refresh}
}

// FullHelp is the help shown by "?", in columns: navigation, panels, data,
// general, runtimes, sessions, clipboard (help.KeyMap).
func (k *KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.NextPanel, k.PrevPanel, k.Details, k.Profile, k.Events},
		{k.Filter, k.Sort, k.Refresh},
		{k.Back, k.Help, k.Quit},
		{k.NewRuntime, k.QuickCreate, k.DeleteRuntime, k.Cancel, k.RenewToken},
		{k.OpenSession, k.CloseSession, k.RunCode, k.Files},
		{k.CopyURL, k.RevealToken, k.CopyToken},
	}
}
