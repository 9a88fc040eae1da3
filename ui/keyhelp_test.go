package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/help"
)

// The files pane's and the console's keys are the key map's: rebound in
// the config, the new key acts and the old one no longer does, and the
// help (?) lists both layers' keys under their titles.
func TestFilesAndConsoleKeysFollowTheKeyMap(t *testing.T) {
	km := keymap.Default()
	for a, k := range map[string]string{keymap.ActionFilesDownloadTo: "w", keymap.ActionConsoleBack: "ctrl+q",
		keymap.ActionFilesOpen: "o"} {
		if err := km.Rebind(a, k); err != nil {
			t.Fatal(err)
		}
	}
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.Keymap = km })
	putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a")
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "?")
	help := strings.Join(help.Lines(m.cx, 200, ""), "\n")
	mustContain(t, help, "files pane (f)", "w", "download to a path", "o", "open directory", "x/delete",
		"run-code console (e)", "ctrl+q", "back (code keeps running)", "alt+enter/ctrl+j", "new line")
	m = e.press(t, m, "esc", "f")
	mustContain(t, m.View(), "w save as…", "o open")
	m = e.press(t, m, "enter") // no longer opens sample_data/
	if strings.Contains(m.View(), ":/content/sample_data") {
		t.Fatalf("enter still opens a directory after open was rebound to o:\n%s", m.View())
	}
	m = e.press(t, m, "o")
	mustContain(t, m.View(), ":/content/sample_data")
	m = e.press(t, m, "backspace", "down", "D")
	if m.dlg() != nil {
		t.Fatalf("D still asks after download_to was rebound to w:\n%s", m.View())
	}
	m = e.press(t, m, "w")
	mustContain(t, m.View(), "Download data.csv")
	m = e.press(t, m, "esc", "esc")
	// The console: esc is text-free but no longer its way back; ctrl+q is.
	m = e.press(t, m, "tab", "e")
	if !topIs[*console.Overlay](m.scr) {
		t.Fatalf("e did not open the console:\n%s", m.View())
	}
	mustContain(t, m.View(), "ctrl+q back")
	m = e.press(t, m, "esc")
	if !topIs[*console.Overlay](m.scr) {
		t.Fatal("esc left the console after back was rebound to ctrl+q")
	}
	e.clk.add(dialogGrace)
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyCtrlQ})
	if topIs[*console.Overlay](m.scr) {
		t.Fatalf("ctrl+q did not leave the console:\n%s", m.View())
	}
}

// keyLine is the last line of the footer: the key help.
func keyLine(m Model) string {
	v := m.View()
	return v[strings.LastIndex(v, "\n")+1:]
}

// While a layer is on top (help, event log, filter, profile picker, every
// kind of dialog, the console's stop dialog), the footer's key help is that
// layer's own: never the dashboard's letters, which do nothing there. One
// dashboard opens each layer in turn from nothing open.
func TestFooterShowsTheTopLayersKeys(t *testing.T) {
	const rt = "runtimes/rt-t4demo7k2p"
	e, m := emuModel(t, colabfake.Options{}, withProfiles("", "default", "work"))
	for _, tc := range []struct {
		name string
		open func(e *emu, m Model) Model
		want []string // what the key line must say
	}{
		{"help", func(e *emu, m Model) Model { return e.press(t, m, "?") }, []string{"esc", "close"}},
		{"event log", func(e *emu, m Model) Model { return e.press(t, m, "L") }, []string{"esc", "close"}},
		{"filter", func(e *emu, m Model) Model { return e.press(t, m, "/") }, []string{"enter", "esc"}},
		{"profile picker", func(e *emu, m Model) Model { return e.press(t, m, "P") }, []string{"enter", "esc"}},
		{"confirm dialog", func(e *emu, m Model) Model { return e.press(t, m, "d") }, []string{"y", "cancel"}},
		{"typed dialog", func(e *emu, m Model) Model { return e.press(t, m, "tab", "x") }, []string{"enter", "esc"}},
		{"input dialog", func(e *emu, m Model) Model { return e.press(t, m, "o") }, []string{"enter", "esc"}},
		{"choice dialog", func(e *emu, m Model) Model { return e.press(t, m, "n") }, []string{"enter", "esc"}},
		{"open-a-session dialog", func(e *emu, m Model) Model { return e.press(t, m, "e") }, []string{"y", "cancel"}},
		{"files pane's delete dialog", func(e *emu, m Model) Model {
			putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
			return e.press(t, m, "f", "down", "x")
		}, []string{"y", "cancels"}},
		{"files pane's upload dialog", func(e *emu, m Model) Model { return e.press(t, m, "f", "u") }, []string{"enter", "esc"}},
		{"run-code console", func(e *emu, m Model) Model { return e.press(t, m, "tab", "e") }, []string{"esc back", "ctrl+c clear", "enter run"}},
		{"console stop dialog", func(e *emu, m Model) Model {
			m = withConsole(m, rt, rt+"/sessions/colabdash-1", []*execRun{{code: "time.sleep(60)", started: e.clk.now()}}, "")
			return e.press(t, m, "ctrl+c")
		}, []string{"y", "cancel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m = e.closeAll(t, m, "rt-t4demo7k2p")
			m = tc.open(e, m)
			if m.scr.top() == nil {
				t.Fatalf("nothing opened:\n%s", m.View())
			}
			keys := keyLine(m)
			for _, dash := range []string{"new runtime", "delete", "run code", "refresh", "download", "upload"} {
				if strings.Contains(keys, dash) {
					t.Fatalf("the %s's footer shows keys from under it (%q): %q", m.scr.top().Name(), dash, keys)
				}
			}
			mustContain(t, keys, tc.want...)
		})
	}
}
