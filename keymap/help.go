package keymap

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// keyGlyphs are the help view's spellings of keys whose names are long or
// invisible (the space bar, the arrows).
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
// general, runtimes, sessions, clipboard, the files pane, the run-code
// console (help.KeyMap). HelpGroups gives the same groups with titles.
func (k *KeyMap) FullHelp() [][]key.Binding {
	gs := k.HelpGroups()
	out := make([][]key.Binding, len(gs))
	for i, g := range gs {
		out[i] = g.Keys
	}
	return out
}

// HelpGroup is one column of the full help: a title ("" for the
// dashboard's own groups) and its bindings.
type HelpGroup struct {
	Title string
	Keys  []key.Binding
}

// HelpGroups are FullHelp's groups, the layers' with a title saying where
// their keys are read ("files pane (f)"; the key is the one in effect).
func (k *KeyMap) HelpGroups() []HelpGroup {
	return []HelpGroup{
		{"", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}},
		{"", []key.Binding{k.NextPanel, k.PrevPanel, k.Details, k.Profile, k.Events}},
		{"", []key.Binding{k.Filter, k.Sort, k.Refresh}},
		{"", []key.Binding{k.Back, k.Help, k.Quit}},
		{"", []key.Binding{k.NewRuntime, k.QuickCreate, k.DeleteRuntime, k.Cancel, k.RenewToken}},
		{"", []key.Binding{k.OpenSession, k.CloseSession, k.RunCode, k.Files, k.Shell}},
		{"", []key.Binding{k.CopyURL, k.RevealToken, k.CopyToken}},
		{ScopeFiles + " (" + k.Files.Help().Key + ")",
			[]key.Binding{k.FilesOpen, k.FilesParent, k.FilesDownload, k.FilesDownloadTo, k.FilesUpload, k.FilesDelete}},
		{ScopeConsole + " (" + k.RunCode.Help().Key + ")",
			[]key.Binding{k.ConsoleRun, k.ConsoleNewLine, k.ConsoleStop, k.ConsoleBack, k.ConsoleScrollUp, k.ConsoleScrollDown}},
	}
}
