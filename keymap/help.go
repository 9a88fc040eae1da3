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

// ShortHelp is the dashboard's one-line help in the footer (help.KeyMap).
func (d *Dashboard) ShortHelp() []key.Binding {
	// Help and quit first: a narrow footer cuts from the end, and these
	// two must always be found.
	return []key.Binding{d.Help, d.Quit, d.NewRuntime, d.DeleteRuntime, d.RunCode, d.Refresh}
}

// FullHelp is the dashboard's groups of the full help, without the
// layers' (help.KeyMap; KeyMap.HelpGroups has them all).
func (d *Dashboard) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{d.NextPanel, d.PrevPanel, d.Details, d.Profile, d.Events},
		{d.Filter, d.Sort, d.Refresh},
		{d.Back, d.Help, d.Quit, d.Suspend},
		{d.NewRuntime, d.QuickCreate, d.DeleteRuntime, d.Cancel, d.RenewToken, d.GuardCancel},
		{d.OpenSession, d.CloseSession, d.RunCode, d.Files, d.Shell, d.Logs},
		{d.CopyURL, d.RevealToken, d.CopyToken},
	}
}

// FullHelp is the help shown by "?", in columns: navigation, panels, data,
// general, runtimes, sessions, clipboard, the files pane, the run-code
// console, the runtimes table's marks and sorts. HelpGroups gives the
// same groups with titles.
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
// their keys are read ("files pane (f)"; the key is the one in effect):
// the lists' cursor keys, the dashboard's groups, the files pane's own
// keys, the console's and the runtimes table's marks and sort keys.
func (k *KeyMap) HelpGroups() []HelpGroup {
	l, d, f, c := &k.RuntimesTable, &k.Dashboard, &k.FilesPane, &k.Console
	gs := []HelpGroup{{"", []key.Binding{l.Up, l.Down, l.PageUp, l.PageDown, l.Top, l.Bottom}}}
	for _, g := range d.FullHelp() {
		gs = append(gs, HelpGroup{"", g})
	}
	gs = append(gs,
		HelpGroup{ScopeFiles + " (" + d.Files.Help().Key + ")",
			[]key.Binding{f.Open, f.Parent, f.Download, f.DownloadTo, f.Upload, f.Delete}},
		HelpGroup{ScopeConsole + " (" + d.RunCode.Help().Key + ")",
			[]key.Binding{c.Run, c.NewLine, c.Stop, c.Back, c.ScrollUp, c.ScrollDown}},
		HelpGroup{ScopeLogView + " (" + d.Logs.Help().Key + ")",
			[]key.Binding{k.LogView.Follow, k.LogView.Search, k.LogView.Next, k.LogView.Prev, k.LogView.Wrap,
				k.LogView.Save, k.LogView.Close}},
		HelpGroup{ScopeRuntimes, []key.Binding{l.Mark, l.ClearMarks, l.SortName, l.SortSpec, l.SortVersion,
			l.SortSessions, l.SortExpiry, l.SortRAM, l.SortGPU, l.SortActivity, l.SortReverse}})
	// The config's plugins, one group per scope that has any (enabled).
	for _, s := range []struct{ scope, where string }{{"runtimes", ScopeRuntimes}, {"sessions", ScopeSessions}, {"files", ScopeFiles}} {
		if bs := k.PluginBindings(s.scope); len(bs) > 0 {
			gs = append(gs, HelpGroup{"plugins: " + s.where, bs})
		}
	}
	return gs
}
