package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/help"
)

// esc clears the filter before collapsing details or clearing a message.
func TestEscClearsFilterFirst(t *testing.T) {
	_, _, m := fixture(t)
	for _, k := range []string{"/", "t", "4", "enter", "enter", "s"} { // filter, expand details, a status message
		m, _ = update(m, keyMsg(k))
	}
	if m.rt.Filter() != "t4" || !m.scr.showDetails || m.cx.Status.Text == "" {
		t.Fatalf("setup: filter %q details %v status %q", m.rt.Filter(), m.scr.showDetails, m.cx.Status.Text)
	}
	m, _ = update(m, keyMsg("esc"))
	if m.rt.Filter() != "" || len(m.rt.Rows()) != 5 {
		t.Fatalf("first esc left the filter %q", m.rt.Filter())
	}
	m, _ = update(m, keyMsg("esc"))
	m, _ = update(m, keyMsg("esc"))
	if m.scr.showDetails || m.cx.Status.Text != "" {
		t.Fatalf("details %v status %q", m.scr.showDetails, m.cx.Status.Text)
	}
}

// A reattached run says what happened in words.
func TestReattachWording(t *testing.T) {
	_, clk, m := fixture(t)
	m = withConsole(m, "runtimes/r-alpha", "runtimes/r-alpha/sessions/colabdash-1a2b",
		[]*execRun{{id: 1, code: "train()", attempt: 3, started: clk.now().Add(-time.Minute)}}, "")
	mustContain(t, m.View(), "reattached to the running code 2 times (same executionId)")
}

// The copy message says how the text was copied: certainly (native
// clipboard), hedged (OSC 52 alone, which tmux may drop), or failed.
func TestCopyMessageSaysHow(t *testing.T) {
	for _, tc := range []struct {
		how  ClipboardMethod
		err  error
		want string
	}{
		{ClipboardNative, nil, "✓ copied the URL of r-alpha to the clipboard"},
		{ClipboardOSC52, nil, "✓ copied the URL of r-alpha (OSC 52; in tmux this needs `set -g set-clipboard on`)"},
		{ClipboardOSC52, errors.New("no tty; no xclip"), "copy failed: no tty; no xclip"},
	} {
		_, _, m := fixture(t)
		m, _ = update(m, tea.WindowSizeMsg{Width: 160, Height: 30})
		m.opts.CopyTo = func(string) (ClipboardMethod, error) { return tc.how, tc.err }
		m, cmd := update(m, keyMsg("y"))
		m, _ = update(m, cmd())
		v := m.View()
		mustContain(t, v, tc.want)
		if tc.how == ClipboardOSC52 && strings.Contains(v, "to the clipboard") {
			t.Fatalf("OSC 52 alone claimed the clipboard:\n%s", v)
		}
	}
}

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
	e.clk.add(DialogGrace)
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyCtrlQ})
	if topIs[*console.Overlay](m.scr) {
		t.Fatalf("ctrl+q did not leave the console:\n%s", m.View())
	}
}
