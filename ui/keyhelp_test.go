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
