package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// esc clears the filter before collapsing details or clearing a message.
func TestEscClearsFilterFirst(t *testing.T) {
	_, _, m := fixture(t)
	for _, k := range []string{"/", "t", "4", "enter", "enter", "s"} { // filter, expand details, a status message
		m, _ = update(m, keyMsg(k))
	}
	if m.filter != "t4" || !m.showDetails || m.status == "" {
		t.Fatalf("setup: filter %q details %v status %q", m.filter, m.showDetails, m.status)
	}
	m, _ = update(m, keyMsg("esc"))
	if m.filter != "" || len(m.rows) != 5 {
		t.Fatalf("first esc left the filter %q", m.filter)
	}
	m, _ = update(m, keyMsg("esc"))
	m, _ = update(m, keyMsg("esc"))
	if m.showDetails || m.status != "" {
		t.Fatalf("details %v status %q", m.showDetails, m.status)
	}
}

// Reopening / shows the old filter selected: typing replaces it,
// backspace edits it, enter keeps it.
func TestReopenedFilterIsReplacedByTyping(t *testing.T) {
	_, _, m := fixture(t)
	for _, k := range []string{"/", "t", "4", "enter", "/"} {
		m, _ = update(m, keyMsg(k))
	}
	mustContain(t, m.View(), "/t4█", "type to replace")
	m, _ = update(m, keyMsg("c"))
	m, _ = update(m, keyMsg("p"))
	if m.filter != "cp" {
		t.Fatalf("typing appended to the old filter: %q", m.filter)
	}
	for _, k := range []string{"enter", "/", "backspace", "enter"} {
		m, _ = update(m, keyMsg(k))
	}
	if m.filter != "c" {
		t.Fatalf("backspace on the reopened filter: %q", m.filter)
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
