package ui

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/clipboard"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/events"
	"github.com/colabdash/colabdash/ui/overlay/filter"
	"github.com/colabdash/colabdash/ui/overlay/help"
	"github.com/colabdash/colabdash/ui/overlay/profile"
	"github.com/colabdash/colabdash/ui/theme"
	"github.com/muesli/termenv"
)

// noChange fails when anything changed on the server since before.
type serverCounts struct{ creates, deletes, sessionsDeleted, sessionsCreated, runtimes int }

func countsOf(srv *colabfake.Server) serverCounts {
	return serverCounts{srv.CreateCalls(), srv.CallCount(api.ToolDeleteRuntime), srv.CallCount(api.ToolDeleteSession),
		srv.CallCount(api.ToolCreateSession), len(srv.Runtimes())}
}

// For every overlay, the dashboard's destructive keys pressed while it is
// open do nothing: no delete, create or session change reaches the
// server, and no dialog about something else opens on top. Keys are
// pressed only while the overlay is still open (a key may close it, e.g.
// any key but y cancels a confirmation).
func TestDestructiveKeysNeverPassAnOpenOverlay(t *testing.T) {
	destructive := []string{"d", "y", "x", "y", "n", "N", "y", "o", "e", "R", "c", "y"}
	for _, tc := range []struct {
		name string
		open func(e *emu, m Model) Model
		is   func(o overlay) bool
	}{
		{"help", func(e *emu, m Model) Model { return e.press(t, m, "?") }, isType[*help.Overlay]},
		{"event log", func(e *emu, m Model) Model { return e.press(t, m, "L") }, isType[*events.Overlay]},
		{"profile picker", func(e *emu, m Model) Model { return e.press(t, m, "P") }, isType[*profile.Overlay]},
		{"filter line", func(e *emu, m Model) Model { return e.press(t, m, "/") }, isType[*filter.Overlay]},
		{"create picker", func(e *emu, m Model) Model { return e.press(t, m, "n") }, isDialog("New runtime: variant")},
		{"open-session input", func(e *emu, m Model) Model { return e.press(t, m, "o") }, isDialog("Open a session on ")},
		{"quick-create confirmation", func(e *emu, m Model) Model {
			m.cr.lastSpec = &LastSpec{Spec: specCPU}
			return e.press(t, m, "N")
		}, isDialog("Create a runtime like the last one?")},
		{"typed close confirmation", func(e *emu, m Model) Model { return e.press(t, m, "tab", "x") }, isDialog("Close NOTEBOOK session ")},
		{"run-code console", func(e *emu, m Model) Model { return e.press(t, m, "tab", "e") }, isType[*console.Overlay]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, m := emuModel(t, colabfake.Options{}, func(o *Options) {
				o.Profiles = []string{"default", "work"}
				o.Connect = func(context.Context, string) (api.Service, ConnInfo, error) {
					return nil, ConnInfo{}, errors.New("not used")
				}
			})
			m = m.selectID(t, "rt-t4demo7k2p")
			m = tc.open(e, m)
			o := m.scr.top()
			if o == nil || !tc.is(o) {
				t.Fatalf("%s did not open:\n%s", tc.name, m.View())
			}
			before := countsOf(e.srv)
			for _, k := range destructive {
				if m.scr.top() != o {
					break // the key closed it: the rest would reach the dashboard
				}
				m = e.press(t, m, k)
				if d := m.dlg(); d != nil && d != o {
					t.Fatalf("%q opened %q over the %s", k, d.Title, tc.name)
				}
			}
			if after := countsOf(e.srv); after != before {
				t.Fatalf("keys reached the dashboard under the %s: %+v → %+v", tc.name, before, after)
			}
		})
	}
}

func isType[T overlay](o overlay) bool { _, ok := o.(T); return ok }

// isDialog is a dialog whose title starts with title.
func isDialog(title string) func(overlay) bool {
	return func(o overlay) bool { d, ok := o.(*dialog.Dialog); return ok && strings.HasPrefix(d.Title, title) }
}

// The two cases: ? then d opened "Delete runtime?" on top of the
// help; L then n opened the picker behind the event log.
func TestKeysDoNotReachBelowHelpOrEventLog(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = e.press(t, m, "?", "d")
	if !m.helpOpen() || m.dlg() != nil || strings.Contains(m.View(), "Delete runtime") {
		t.Fatalf("? d:\n%s", m.View())
	}
	m = e.press(t, m, "esc", "L", "n")
	if _, ok := find[*dialog.Dialog](m.scr); ok || !topIs[*events.Overlay](m.scr) {
		t.Fatalf("L n opened a dialog behind the event log (stack %d)", len(m.scr.stack))
	}
	m = e.press(t, m, "esc")
	if len(m.scr.stack) != 0 {
		t.Fatalf("esc left %d overlays", len(m.scr.stack))
	}
}

// d, shrink the terminal to 40×10 (only "terminal too small" shows), y:
// nothing is deleted; no key but quit (and esc) acts; the dialog waits and shows
// again, with its grace period started anew, when the window grows.
func TestTooSmallScreenAnswersNothing(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "d")
	d := m.dlg()
	if d == nil || !strings.HasPrefix(d.Title, "Delete runtime ") {
		t.Fatal("no delete dialog")
	}
	m, _ = update(m, tea.WindowSizeMsg{Width: 40, Height: 10})
	v := m.View()
	mustContain(t, v, "Terminal too small", "dialog waits")
	if strings.Contains(v, "Delete") {
		t.Fatalf("the dialog shows at 40×10:\n%s", v)
	}
	for _, k := range []string{"y", "enter", "n", "d", "y"} { // esc would cancel it (TestEscClosesAnOverlayTheScreenCannotShow)
		m = e.press(t, m, k)
	}
	if !serverHas(e.srv, "runtimes/rt-t4demo7k2p") || m.dlg() != d {
		t.Fatalf("a key answered the hidden dialog (dialog %v)", m.dlg())
	}
	// Back to a size that shows it: keys typed right then are ignored too.
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	mustContain(t, m.View(), "Delete runtime rt-t4demo7k2p?")
	// The returned command is run (drive): were the y to answer the
	// dialog, the delete would reach the server and the check could fail.
	m, cmd := update(m, keyMsg("y"))
	m = drive(t, m, cmd)
	if !serverHas(e.srv, "runtimes/rt-t4demo7k2p") {
		t.Fatal("a y typed as the dialog reappeared deleted the runtime")
	}
	// q still quits at the small size.
	m, _ = update(m, tea.WindowSizeMsg{Width: 40, Height: 10})
	_, cmd = update(m, keyMsg("q"))
	if cmd == nil {
		t.Fatal("q did not quit at 40×10")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q did not quit at 40×10")
	}
}

// A dialog taller than the screen counts as not shown: the dashboard fits
// at 60×15, the dialog does not, so its keys wait.
func TestDialogTallerThanScreenWaits(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	var items []dialog.Item
	for i := 0; i < 20; i++ {
		items = append(items, dialog.Item{Label: "item " + itoa(i)})
	}
	d := dialog.NewChoice(e.clk.now(), "A long list", items, 0)
	m.scr.push(d)
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	mustContain(t, m.View(), "Terminal too small to show the dialog")
	m = e.press(t, m, "enter")
	if m.dlg() != d {
		t.Fatal("enter answered a dialog that was not on screen")
	}
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	mustContain(t, m.View(), "item 19")
}

// View draws the stack in the order keys reach it: a dialog over the
// run-code console shows over it and gets the keys.
func TestViewDrawsTheStackInKeyOrder(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "tab", "e")
	m.scr.push(dialog.New(dialog.Confirm, e.clk.now().Add(-time.Second), "On top"))
	v := m.View()
	mustContain(t, v, "RUN CODE", "On top")
	m = e.press(t, m, "x") // any key but y cancels the dialog; x is not text for the console
	if m.dlg() != nil || !topIs[*console.Overlay](m.scr) || m.ex.console().Input() != "" {
		t.Fatalf("x did not go to the dialog on top (console input %q)", m.ex.console().Input())
	}
}

// The too-small screen is read whole, not cut: at 40×10 each sentence
// wraps instead of ending in "…".
func TestTooSmallScreenWrapsItsMessage(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = e.press(t, m, "d")
	for _, sz := range [][2]int{{40, 10}, {50, 10}, {30, 8}} {
		m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		v := m.View()
		if strings.Contains(v, "…") {
			t.Fatalf("%dx%d: the message is cut:\n%s", sz[0], sz[1], v)
		}
		mustContain(t, strings.Join(strings.Fields(v), " "), "need 60×15", "Enlarge the window, or q to quit.",
			"The dialog waits: esc closes it; no other key but q acts until it shows.")
	}
}

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
// clipboard), to a tmux buffer, hedged (OSC 52 alone, which tmux may
// drop), or failed.
func TestCopyMessageSaysHow(t *testing.T) {
	for _, tc := range []struct {
		how  clipboard.Method
		err  error
		want string
	}{
		{clipboard.Native, nil, "✓ copied the URL of r-alpha to the clipboard"},
		{clipboard.OSC52, nil, "✓ copied the URL of r-alpha (OSC 52; in tmux this needs `set -g set-clipboard on`)"},
		{clipboard.OSC52, errors.New("no tty; no xclip"), "copy failed: no tty; no xclip"},
		{clipboard.Tmux, nil, "✓ copied the URL of r-alpha to a tmux buffer (prefix ] pastes it)"},
	} {
		_, _, m := fixture(t)
		m, _ = update(m, tea.WindowSizeMsg{Width: 160, Height: 30})
		m.opts.CopyTo = func(string) (clipboard.Method, error) { return tc.how, tc.err }
		m, cmd := update(m, keyMsg("y"))
		m, _ = update(m, cmd())
		v := m.View()
		mustContain(t, v, tc.want)
		if tc.how != clipboard.Native && strings.Contains(v, "to the clipboard") {
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

// keyLine is the last line of the footer: the key help.
func keyLine(m Model) string {
	v := m.View()
	return v[strings.LastIndex(v, "\n")+1:]
}

// While a layer is on top (help, event log, filter, profile picker, every
// kind of dialog, the console's stop dialog), the footer's key help is that
// layer's own: never the dashboard's letters, which do nothing there.
func TestFooterShowsTheTopLayersKeys(t *testing.T) {
	const rt = "runtimes/rt-t4demo7k2p"
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
		{"console stop dialog", func(e *emu, m Model) Model {
			m = withConsole(m, rt, rt+"/sessions/colabdash-1", []*execRun{{code: "time.sleep(60)", started: e.clk.now()}}, "")
			return e.press(t, m, "ctrl+c")
		}, []string{"y", "cancel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, m := emuModel(t, colabfake.Options{}, func(o *Options) {
				o.Profiles = []string{"default", "work"}
				o.Connect = func(context.Context, string) (api.Service, ConnInfo, error) { return nil, ConnInfo{}, nil }
			})
			m = m.selectID(t, "rt-t4demo7k2p")
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

// The console's way out (esc) and ctrl+c are never the part of its key
// help that a narrow footer cuts.
func TestConsoleFooterKeepsEscAndCtrlC(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "tab", "e")
	for _, w := range []int{60, 80, 100} {
		m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: 24})
		mustContain(t, keyLine(m), "esc back", "ctrl+c clear", "enter run")
	}
	// Scrolled up, the footer says newer lines are below, whatever the width.
	m = withConsole(m, m.ex.console().Runtime(), m.ex.console().Session(), bigRuns(e.clk.now(), 3), "")
	m = e.press(t, m, "pgup")
	mustContain(t, keyLine(m), "esc back", "newer below")
}

// The event log records every call, the actions too
// (create_runtime, delete_runtime, create_session, delete_session,
// execute_code), with its target and outcome.
func TestEventLogRecordsEveryCall(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m.cr.lastSpec = &LastSpec{Spec: specCPU}
	m = e.press(t, m, "N", "y") // create_runtime
	created := m.Selected()
	m = e.press(t, m, "o", "enter") // create_session
	m = e.press(t, m, "tab", "e")   // the session just opened
	m = typeText(e, t, m, "print(1)")
	m = e.press(t, m, "enter", "esc")  // execute_code
	m = e.press(t, m, "x", "y", "tab") // delete_session
	m = e.press(t, m, "d", "y")        // delete_runtime
	got := map[string]Event{}
	for _, ev := range m.Events() {
		if _, seen := got[ev.Tool]; !seen {
			got[ev.Tool] = ev
		}
	}
	for _, tool := range []string{api.ToolCreateRuntime, api.ToolCreateSession, api.ToolExecuteCode, api.ToolDeleteSession, api.ToolDeleteRuntime} {
		ev, ok := got[tool]
		if !ok {
			t.Fatalf("no %s event in %+v", tool, m.Events())
		}
		if ev.Err != nil || ev.Outcome() != "ok" || ev.Target == "" {
			t.Fatalf("%s event: %+v", tool, ev)
		}
	}
	if got[api.ToolCreateRuntime].Target != created || got[api.ToolDeleteRuntime].Target != created ||
		!strings.HasPrefix(got[api.ToolExecuteCode].Target, created+"/sessions/") {
		t.Fatalf("targets: %+v", got)
	}
	v := e.press(t, m, "L").View()
	mustContain(t, v, "create_runtime", "delete_runtime", "create_session", "delete_session", "execute_code")
}

// An error shown in a dialog stays in the event log, whole, after the
// dialog closed; its text wraps at word boundaries, so a URL stays on one
// line.
func TestDialogErrorStaysInEventLogWrappedAtWords(t *testing.T) {
	const url = "https://console.cloud.google.com/apis/api/colab.googleapis.com/quotas?project=my-project"
	msg := "Quota exceeded for quota metric 'Create requests' and limit 'Create requests per minute per user' of service colab.googleapis.com; see " + url + " for the limits in force."
	e, m := emuModel(t, colabfake.Options{}, nil)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Times: 1,
		Code: api.ResourceExhausted, Reason: api.ReasonQuotaExceededUsageTime, Message: msg})
	m, cmd := startCreate(t, m, e, specT4)
	m = drive(t, m, cmd)
	mustContain(t, strings.Join(strings.Fields(m.View()), " "), "Usage limit reached", "(L keeps the │ │ full error)")
	m = e.press(t, m, "esc")
	if m.dlg() != nil {
		t.Fatal("dialog still open")
	}
	for _, w := range []int{120, 100} {
		m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: 40})
		v := e.press(t, m, "L").View()
		m = e.press(t, m, "esc")
		flat := strings.Join(strings.Fields(v), " ")
		if !strings.Contains(flat, "limits in force") || !strings.Contains(flat, "RESOURCE_EXHAUSTED") {
			t.Fatalf("%d: the full error is not in the event log:\n%s", w, v)
		}
		if !strings.Contains(v, url) {
			t.Fatalf("%d: the URL is split across lines:\n%s", w, v)
		}
		for _, ln := range strings.Split(v, "\n") {
			if ansi.StringWidth(ln) > w {
				t.Fatalf("%d: line too wide: %q", w, ln)
			}
			// Word boundaries: no line of the error ends inside a word
			// that the next line continues.
			if strings.HasSuffix(ln, "Cre") || strings.HasSuffix(ln, "minu") {
				t.Fatalf("%d: a word is broken: %q", w, ln)
			}
		}
	}
}

type closeCounter struct {
	*fakeService
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

func TestProfileSwitchFailureKeepsProfileAndLateAnswersAreDropped(t *testing.T) {
	f, _, m := fixture(t)
	old := &closeCounter{fakeService: f}
	m.link.svc = old
	next := newFake()
	next.runtimes = []api.Runtime{mkRuntime("r-other", specCPU, t0.Add(time.Hour), "")}
	m.cx.Profile, m.cx.Profiles = "alpha", []string{"alpha", "broken", "other"}
	m.opts.Connect = func(_ context.Context, name string) (api.Service, ConnInfo, error) {
		if name == "broken" {
			return nil, ConnInfo{}, errors.New("no Google credentials found; fix: run gcloud auth application-default login")
		}
		return next, ConnInfo{Endpoint: "https://other.example.com/mcp"}, nil
	}
	m, _ = update(m, keyMsg("P"))
	if v := m.View(); !strings.Contains(v, "› alpha (active)") {
		t.Fatalf("picker:\n%s", v)
	}
	m, _ = update(m, keyMsg("down"))
	m, cmd := update(m, keyMsg("enter"))
	m, _ = update(m, cmd())
	if v := m.View(); m.Profile() != "alpha" || !strings.Contains(v, "profile broken: no Google credentials found") || !strings.Contains(v, "r-alpha") {
		t.Fatalf("failed switch:\n%s", v)
	}
	// A list_runtimes of the old profile is in flight while switching.
	late := m.calls.refresh(m.cx.Now(), true)
	m, _ = update(m, keyMsg("P"))
	m, _ = update(m, keyMsg("down"))
	m, _ = update(m, keyMsg("down"))
	m, cmd = update(m, keyMsg("enter"))
	m, cmd = update(m, cmd())
	if m.Profile() != "other" || m.Snapshot().Len() != 0 {
		t.Fatalf("after switch: profile %q, %d runtimes (snapshot not reset)", m.Profile(), m.Snapshot().Len())
	}
	m, _ = run(t, m, cmd) // closes the old Service, loads the new one
	if old.closed != 1 {
		t.Fatalf("old Service closed %d times", old.closed)
	}
	for _, c := range late {
		m, _ = run(t, m, c) // the old profile's answers arrive late
	}
	v := m.View()
	if !strings.Contains(v, "r-other") || strings.Contains(v, "r-alpha") || !strings.Contains(v, "profile other") {
		t.Fatalf("view after the switch:\n%s", v)
	}
}

func TestEventLogPanel(t *testing.T) {
	f, clk, m := fixture(t)
	f.renewErr["runtimes/r-charlie"] = &api.Error{Code: api.FailedPrecondition, HTTPStatus: 400,
		Message: "The runtime is being deleted and its proxy token cannot be renewed until the deletion finishes; try again later"}
	m.cx.Redact = func(s string) string { return strings.ReplaceAll(s, "proxy token", "[redacted]") }
	clk.add(time.Second)
	m, cmd := update(m, tickMsg{gen: m.life.tickGen})
	m, _ = run(t, m, cmd)
	evs := m.Events()
	if len(evs) == 0 || evs[0].Tool != "get_runtime" {
		t.Fatalf("events %+v", evs)
	}
	m, _ = update(m, tea.WindowSizeMsg{Width: 80, Height: 40})
	m, _ = update(m, keyMsg("L"))
	v := m.View()
	for _, want := range []string{"EVENTS", "list_runtimes", "FAILED_PRECONDITION", "FAILED_PRECONDITION  r-charlie", "until the deletion", "finishes; try again later", "[redacted]"} {
		if !strings.Contains(v, want) {
			t.Errorf("event log lacks %q:\n%s", want, v)
		}
	}
	m, _ = update(m, keyMsg("esc"))
	if strings.Contains(m.View(), "EVENTS") {
		t.Fatal("esc did not close the event log")
	}
}

// v reveals the token where the details are, without
// expanding them or moving anything else on the screen.
func TestRevealKeepsTheLayout(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {60, 15}, {160, 48}} {
		_, _, m := fixture(t)
		m, _ = update(m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		before := strings.Split(m.View(), "\n")
		m, _ = update(m, keyMsg("v"))
		after := strings.Split(m.View(), "\n")
		if m.scr.showDetails || len(after) != len(before) {
			t.Fatalf("%v: v expanded the details or changed the height", sz)
		}
		if !strings.Contains(strings.Join(after, "\n"), secrettest.Token("r-alpha")) {
			t.Fatalf("%v: the token is not shown:\n%s", sz, strings.Join(after, "\n"))
		}
		for i := range before {
			// Only the details' lines and the status line may change.
			if before[i] != after[i] && !strings.Contains(after[i], "token") && !strings.Contains(after[i], "revealed") &&
				!strings.Contains(before[i], "spec ") && !strings.Contains(before[i], "expires") && !strings.Contains(before[i], "url ") {
				t.Fatalf("%v: line %d moved:\n%q\n%q", sz, i, before[i], after[i])
			}
		}
		if strings.Index(strings.Join(after, "\n"), "SESSIONS ·") != strings.Index(strings.Join(before, "\n"), "SESSIONS ·") {
			t.Fatalf("%v: the sessions panel moved", sz)
		}
	}
}

// The sessions panel is on screen at every size the dashboard lays out,
// with the details expanded or not, focused or not.
func TestSessionsPanelAtEveryWidth(t *testing.T) {
	_, _, m := fixture(t)
	for w := MinWidth; w <= 200; w += 7 {
		for h := MinHeight; h <= 50; h += 5 {
			for _, expand := range []bool{false, true} {
				m.scr.showDetails = expand
				m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: h})
				if v := m.View(); !strings.Contains(v, "SESSIONS · r-alpha") || !strings.Contains(v, "colabdash-1a2b") {
					t.Fatalf("%dx%d expanded=%v: no sessions panel:\n%s", w, h, expand, v)
				}
			}
		}
	}
}

// On a narrow screen SPEC shortens before NAME.
func TestNarrowScreenCutsSpecBeforeName(t *testing.T) {
	_, m := emuModel(t, colabfake.Options{}, nil)
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	v := m.View()
	mustContain(t, v, "rt-t4demo7k2p ", "rt-cpudemo4qx ", "rt-v6edemo2mw ", "GPU/T4/STAND…")
}

// The no-credentials screen never breaks a command or URL across lines:
// a command wider than the screen is cut, and the screen says q prints it.
func TestAuthScreenKeepsCommandsWhole(t *testing.T) {
	const scopes = "--scopes=https://www.googleapis.com/auth/colaboratory,https://www.googleapis.com/auth/cloud-platform"
	info := AuthErrorInfo{Headline: "No Google credentials found", NoColor: true,
		Tried: []string{"GOOGLE_APPLICATION_CREDENTIALS: not set", "~/.config/gcloud/application_default_credentials.json: not found"},
		Fix: []string{
			"Sign in with the Colab scope (Application Default Credentials):",
			"  gcloud auth application-default login \\",
			"    " + scopes,
			"or pass --credentials FILE (authorized_user or service_account JSON),",
		}}
	for _, w := range []int{60, 80, 120} {
		tm, _ := NewAuthError(info).Update(tea.WindowSizeMsg{Width: w, Height: 30})
		v := tm.View()
		lines := strings.Split(v, "\n")
		var cmd, scope string
		for i, ln := range lines {
			if ansi.StringWidth(ln) > w {
				t.Fatalf("%d: line too wide: %q", w, ln)
			}
			if strings.Contains(ln, "gcloud auth") {
				cmd = ln
			}
			if strings.Contains(ln, "--scopes=") {
				scope = ln
			}
			// Nothing continues a URL or path on the next line.
			if i > 0 && (strings.HasPrefix(strings.TrimSpace(ln), "cloud-platform") || strings.HasPrefix(strings.TrimSpace(ln), "auth/") ||
				strings.HasPrefix(strings.TrimSpace(ln), "application-default")) {
				t.Fatalf("%d: a command or URL continues on line %d:\n%s", w, i, v)
			}
		}
		if strings.TrimSpace(cmd) != "gcloud auth application-default login \\" {
			t.Fatalf("%d: the command line is %q", w, cmd)
		}
		whole := strings.TrimSpace(scope) == scopes
		if !whole && (!strings.HasSuffix(scope, "…") || !strings.Contains(v, "q prints it whole")) {
			t.Fatalf("%d: the scopes line is neither whole nor cut with a note: %q\n%s", w, scope, v)
		}
		if w == 120 && !whole {
			t.Fatalf("120: the scopes line is cut: %q", scope)
		}
	}
}

// The empty runtimes list points at the key that creates one (there is no
// `colabdash create` command), the configured key when rebound, and only
// says "no runtimes" in --readonly, where creating is disabled.
func TestEmptyListNamesTheCreateKey(t *testing.T) {
	k := keymap.Default()
	if err := k.Rebind(keymap.ActionNewRuntime, "space"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		mod  func(*Options)
		want string
	}{
		{"default", nil, "no runtimes: press n to create one"},
		{"rebound", func(o *Options) { o.Keymap = k }, "no runtimes: press space to create one"},
		{"readonly", func(o *Options) { o.ReadOnly = true }, "no runtimes\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, m := emuModel(t, colabfake.Options{Seed: colabfake.SeedEmpty}, tc.mod)
			v := m.View()
			if !strings.Contains(stripRight(v), tc.want) || strings.Contains(v, "colabdash create") {
				t.Errorf("view lacks %q:\n%s", tc.want, v)
			}
		})
	}
}

// stripRight drops trailing blanks of every line.
func stripRight(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// Run-code output and tracebacks wrap at the width instead of being cut,
// pgup/pgdn scroll the output (newest at the bottom), and a long input line
// scrolls so its end and the cursor stay visible.
func TestRunCodeWrapsAndScrolls(t *testing.T) {
	_, clk, m := fixture(t)
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	long := "START" + strings.Repeat("x", 250) + "END"
	frame := "File \"/content/train.py\", line 12, in <module> model.frame.Fit(dataset, epochs=10, callbacks=[checkpoint]) TBEND"
	var runs []*execRun
	for i := 0; i < 6; i++ {
		runs = append(runs, &execRun{id: i + 1, code: "print(1)", done: true, started: clk.now(), res: api.ExecuteCodeResult{Stdout: "line one\nline two\n"}})
	}
	runs = append(runs, &execRun{id: 7, code: "run()", done: true, started: clk.now(), res: api.ExecuteCodeResult{
		Stdout:         long + "\n",
		ExecutionError: &api.ExecuteError{Name: "ValueError", Value: "bad", Traceback: []string{frame}},
	}})
	m = withConsole(m, "runtimes/r-alpha", "runtimes/r-alpha/sessions/colabdash-1a2b", runs,
		"df = pd.read_csv('/content/drive/MyDrive/data/some_long_file_name.csv') # INPUTEND")
	v := m.View()
	flat := strings.ReplaceAll(strings.ReplaceAll(v, "\n", ""), " ", "")
	for _, want := range []string{"END", "TBEND", "INPUTEND█", "✕ValueError"} {
		if !strings.Contains(flat, want) {
			t.Errorf("run-code panel lacks %q:\n%s", want, v)
		}
	}
	for _, ln := range strings.Split(v, "\n") {
		if w := ansi.StringWidth(ln); w > 60 {
			t.Errorf("line %d wide: %q", w, ln)
		}
	}
	if strings.Contains(v, "START") {
		t.Fatalf("wrapped output all fits?\n%s", v)
	}
	// pgup shows older output and says newer lines are below; pgdn returns.
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyPgUp})
	v = m.View()
	if !strings.Contains(v, "START") || !strings.Contains(v, "newer line") || !strings.Contains(v, "below (pgdn)") {
		t.Errorf("pgup did not scroll back:\n%s", v)
	}
	for i := 0; i < 5; i++ {
		m, _ = update(m, tea.KeyMsg{Type: tea.KeyPgDown})
	}
	if v = m.View(); !strings.Contains(v, "✕ ValueError") || strings.Contains(v, "below (pgdn)") {
		t.Errorf("pgdn did not return to the newest output:\n%s", v)
	}
}

// The light and dark themes as a colour terminal receives them. EXPIRING
// is yellow (33) on dark and magenta (35) on light; the selected row is
// reverse video with a "›" marker in both, so it shows without colour.
func TestThemeGoldens(t *testing.T) {
	for _, name := range []string{ThemeDark, ThemeLight} {
		t.Run(name, func(t *testing.T) {
			_, _, m := fixture(t)
			m.opts.Theme = name
			m.cx.Styles = theme.NewWith(ansiRenderer(), name)
			v := m.View()
			golden.RequireEqual(t, []byte(styleMap(v)))
			var expiring string
			for _, ln := range strings.Split(v, "\n") {
				if strings.Contains(ln, "EXPIRING") && !strings.Contains(ln, "›") {
					expiring = ln
				}
			}
			yellow, magenta := strings.Contains(expiring, "\x1b[1;33m"), strings.Contains(expiring, "\x1b[1;35m")
			if name == ThemeDark && (!yellow || magenta) || name == ThemeLight && (yellow || !magenta) {
				t.Errorf("%s: EXPIRING row %q", name, expiring)
			}
			var sel string
			for _, ln := range strings.Split(v, "\n") {
				if strings.HasPrefix(ansi.Strip(ln), "› ") {
					sel = ln
				}
			}
			if !strings.Contains(sel, "\x1b[7m") {
				t.Errorf("%s: selected row not in reverse video: %q", name, sel)
			}
		})
	}
	// Options.Theme reaches the styles.
	if m := New(Options{Service: newFake(), Theme: ThemeLight}); m.opts.Theme != ThemeLight {
		t.Fatal("theme lost")
	}
}

// styleSeq is one SGR escape sequence and its parameters.
var styleSeq = regexp.MustCompile("\x1b\\[([0-9;]*)m")

// sgrNames names the SGR parameters the themes use (16-colour profile).
var sgrNames = func() map[string]string {
	m := map[string]string{"1": "bold", "2": "faint", "3": "italic", "4": "underline", "7": "reverse", "9": "strike"}
	for i, c := range []string{"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"} {
		m[strconv.Itoa(30+i)], m[strconv.Itoa(90+i)] = c, "bright-"+c
		m[strconv.Itoa(40+i)], m[strconv.Itoa(100+i)] = "on-"+c, "on-bright-"+c
	}
	return m
}()

// styleMap renders a coloured frame for review by eye: the plain text,
// then one line per run of same-styled cells, "line:from-to attributes
// "text"" (1-based line, 0-based cell columns, end exclusive), so a
// reviewer reads the layout as it looks and each span's style in words
// instead of an escape code around every character.
func styleMap(frame string) string {
	var plain, spans strings.Builder
	for n, line := range strings.Split(frame, "\n") {
		type cell struct {
			r     string
			style string
		}
		var cells []cell
		style := []string{}
		rest := line
		for rest != "" {
			loc := styleSeq.FindStringSubmatchIndex(rest)
			text := rest
			if loc != nil {
				text = rest[:loc[0]]
			}
			for _, r := range text {
				cells = append(cells, cell{string(r), strings.Join(style, " ")})
			}
			if loc == nil {
				break
			}
			for _, p := range strings.Split(rest[loc[2]:loc[3]], ";") {
				if p == "" || p == "0" {
					style = style[:0]
				} else if name, ok := sgrNames[p]; ok && !slices.Contains(style, name) {
					style = append(style, name)
				} else if !ok {
					style = append(style, "sgr"+p)
				}
			}
			rest = rest[loc[1]:]
		}
		col := 0
		for i := 0; i < len(cells); {
			j, text := i, ""
			for j < len(cells) && cells[j].style == cells[i].style {
				text += cells[j].r
				j++
			}
			w := ansi.StringWidth(text)
			if cells[i].style != "" {
				fmt.Fprintf(&spans, "%d:%d-%d %s %q\n", n+1, col, col+w, cells[i].style, text)
			}
			plain.WriteString(text)
			col += w
			i = j
		}
		plain.WriteString("\n")
	}
	return plain.String() + "--- styled spans (line:from-to attributes \"text\") ---\n" + spans.String()
}

// ansiRenderer renders with the 16-colour ANSI profile, so goldens show
// which palette index each theme uses.
func ansiRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI)
	return r
}

// readmePath is README.md, seen from this package's directory; its demo
// screenshot stands between these two lines.
const (
	readmePath               = "../README.md"
	screenshotStart          = "<!-- demo screenshot: generated by ui's TestReadmeScreenshot; go test ./ui -run TestReadmeScreenshot -update -->\n```\n"
	screenshotEnd            = "```\n<!-- end of demo screenshot -->\n"
	screenshotW, screenshotH = 100, 30
)

// README's text screenshot is what `colabdash --demo` shows at 100×30:
// the demo seed of the emulator, rendered by the dashboard on a clock
// fixed 4 minutes after the seed was made, the second runtime selected;
// its details show beside its sessions (split layout) without enter, which
// would widen them. A change to the dashboard that changes this frame
// fails here until README is regenerated (-update), so the picture stays
// true.
func TestReadmeScreenshot(t *testing.T) {
	// The monitor on, as in `colabdash --demo`: a tick after its first
	// polls (runtimes whose tokens were being renewed wait for it) every
	// runtime has its figures.
	s := newStack(t, stackOpts{emu: colabfake.Options{Seed: colabfake.SeedDemo}, width: screenshotW,
		ui: Options{Demo: true, Profile: "demo", Monitor: apimon.New(apimon.Options{})}})
	s.m, _ = update(s.m, tea.WindowSizeMsg{Width: screenshotW, Height: screenshotH})
	s.start()
	s.tick(4 * time.Minute)
	s.tick(30 * time.Second)
	s.m, _ = update(s.m, keyMsg("down"))
	// The emulator's runtime proxy listens on a port of the moment: the
	// picture shows one fixed port of the same width.
	view := regexp.MustCompile(`127\.0\.0\.1:[0-9]{5}`).ReplaceAllString(s.view(), "127.0.0.1:41234")
	var frame strings.Builder
	for _, l := range strings.Split(view, "\n") {
		frame.WriteString(strings.TrimRight(l, " ") + "\n")
	}
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(readme, []byte(screenshotStart))
	j := bytes.Index(readme, []byte(screenshotEnd))
	if i < 0 || j < i {
		t.Fatalf("README.md has no demo screenshot block (%q … %q)", screenshotStart, screenshotEnd)
	}
	got := string(readme[i+len(screenshotStart) : j])
	if got == frame.String() {
		return
	}
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		out := append(append(append([]byte{}, readme[:i+len(screenshotStart)]...), frame.String()...), readme[j:]...)
		if err := os.WriteFile(readmePath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README's demo screenshot is stale (go test ./ui -run TestReadmeScreenshot -update); the dashboard shows:\n%s", frame.String())
}

// ctrl+c quits from every dialog and the create picker, as README promises
// and as in k9s and lazygit, and answers nothing: the runtime asked about
// is not deleted.
func TestCtrlCQuitsFromDialogs(t *testing.T) {
	for _, open := range [][]string{{"d"}, {"n"}, {"o"}} {
		e, m := emuModel(t, colabfake.Options{}, nil)
		m = m.selectID(t, "rt-t4demo7k2p")
		m = e.press(t, m, open...)
		if _, ok := m.scr.top().(*dialog.Dialog); !ok {
			t.Fatalf("%v opened no dialog:\n%s", open, m.View())
		}
		m, cmd := update(m, tea.KeyMsg{Type: tea.KeyCtrlC})
		if cmd == nil {
			t.Fatalf("%v then ctrl+c: no command", open)
		}
		if _, quit := cmd().(tea.QuitMsg); !quit {
			t.Fatalf("%v then ctrl+c did not quit:\n%s", open, m.View())
		}
		if !serverHas(e.srv, "runtimes/rt-t4demo7k2p") {
			t.Fatalf("%v then ctrl+c deleted the runtime", open)
		}
	}
}

// typeAhead sends keys at one instant, as keys typed ahead of the screen
// arrive, driving every command to its end.
func (e *emu) typeAhead(t testing.TB, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		var cmd tea.Cmd
		m, cmd = update(m, keyMsg(k))
		m = drive(t, m, cmd)
	}
	return m
}

// topTitle is the title of the dialog on top ("" for none).
func (m Model) topTitle() string {
	if d, ok := m.scr.top().(*dialog.Dialog); ok {
		return d.Title
	}
	return ""
}

// Keys typed ahead reach the picker's steps (n j enter j enter
// enter names a step, esc esc backs out two), while the y of a delete
// typed before its question could be read is ignored, and the status line
// says so.
func TestTypeAheadInTheDashboard(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = e.typeAhead(t, m, "n", "j", "enter", "j", "enter", "enter")
	if got := m.topTitle(); got != "New runtime GPU/L4/STANDARD: runtime version" {
		t.Fatalf("after n j enter j enter enter typed ahead: %q\n%s", got, m.View())
	}
	m = e.typeAhead(t, m, "esc", "esc")
	if got := m.topTitle(); got != "New runtime: accelerator (GPU)" {
		t.Fatalf("after esc esc: %q\n%s", got, m.View())
	}
	// Two escapes in one read arrive as alt+esc: still two escapes.
	m, cmd := update(m, tea.KeyMsg{Type: tea.KeyEsc, Alt: true})
	m = drive(t, m, cmd)
	if got := m.topTitle(); got != "" || strings.Contains(m.View(), "ignored") {
		t.Fatalf("esc esc in one read did not back out of the picker: %q\n%s", got, m.View())
	}

	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.typeAhead(t, m, "d", "y")
	if len(e.srv.Runtimes()) != 3 || !strings.HasPrefix(m.topTitle(), "Delete runtime") {
		t.Fatalf("a y typed ahead answered the delete: %d runtimes, top %q", len(e.srv.Runtimes()), m.topTitle())
	}
	if v := m.View(); !strings.Contains(v, "key y ignored: the question had only just appeared") {
		t.Fatalf("the ignored y is not reported:\n%s", v)
	}
	e.clk.add(DialogGrace + time.Millisecond)
	m = e.typeAhead(t, m, "y")
	if len(e.srv.Runtimes()) != 2 {
		t.Fatalf("y after the grace period did not delete:\n%s", m.View())
	}
}

// esc closes the overlay on top even when the screen cannot
// show it (a dialog taller than the screen, or a screen too small for
// the dashboard), where every other key but quit is dropped.
func TestEscClosesAnOverlayTheScreenCannotShow(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	var items []dialog.Item
	for i := 0; i < 20; i++ {
		items = append(items, dialog.Item{Label: "item " + itoa(i)})
	}
	d := dialog.NewChoice(e.clk.now(), "A long list", items, 0)
	var replies []dialog.Reply
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect { replies = append(replies, r); return nil }
	m.scr.push(d)
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	mustContain(t, m.View(), "Terminal too small to show the dialog")
	m = e.typeAhead(t, m, "j", "enter")
	if m.dlg() != d || len(replies) != 0 {
		t.Fatalf("a key other than esc reached a dialog not on screen: replies %+v", replies)
	}
	m = e.typeAhead(t, m, "esc")
	if m.dlg() != nil || len(replies) != 1 || replies[0].OK {
		t.Fatalf("esc did not cancel the dialog too tall for the screen: top %v, replies %+v", m.topTitle(), replies)
	}
	mustContain(t, m.View(), "RUNTIMES")

	// Too small for the dashboard itself: esc still backs out of the
	// delete question (cancelled, nothing deleted).
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m = e.press(t, m, "d")
	m, _ = update(m, tea.WindowSizeMsg{Width: 40, Height: 10})
	m = e.typeAhead(t, m, "y", "esc")
	if m.dlg() != nil || len(e.srv.Runtimes()) != 3 {
		t.Fatalf("esc at 40×10: top %q, %d runtimes", m.topTitle(), len(e.srv.Runtimes()))
	}
}

// No cancel is silent. esc on each dialog, picker and the
// profile picker says what was cancelled; that message goes when the next
// dialog opens (it is not about that one).
func TestNoCancelIsSilent(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		want string
	}{
		{[]string{"n", "esc"}, "new runtime cancelled: nothing created"},
		{[]string{"d", "esc"}, "delete cancelled: rt-t4demo7k2p is kept"},
		{[]string{"d", "n"}, "delete cancelled: rt-t4demo7k2p is kept"},
		{[]string{"o", "esc"}, "open session cancelled: no session opened on rt-t4demo7k2p"},
		{[]string{"P", "esc"}, "profile switch cancelled: still on alpha"},
		{[]string{"f", "down", "D", "esc"}, "download of data.csv cancelled: nothing downloaded"},
		{[]string{"f", "u", "esc"}, "upload cancelled: nothing uploaded"},
		{[]string{"f", "down", "x", "esc"}, "delete of data.csv cancelled: nothing deleted"},
	} {
		t.Run(strings.Join(tc.keys, " "), func(t *testing.T) {
			e, m := emuModel(t, colabfake.Options{}, func(o *Options) {
				o.Profile, o.Profiles = "alpha", []string{"alpha", "beta"}
				o.Connect = func(context.Context, string) (api.Service, ConnInfo, error) {
					return nil, ConnInfo{}, errors.New("not used")
				}
			})
			putRemote(t, e, "rt-t4demo7k2p", "content/data.csv", "a,b\n")
			m = m.selectID(t, "rt-t4demo7k2p")
			m = e.press(t, m, tc.keys...)
			if m.dlg() != nil {
				t.Fatalf("a dialog is still open:\n%s", m.View())
			}
			if got := statusLine(m); !strings.Contains(got, tc.want) {
				t.Fatalf("status %q, want %q", got, tc.want)
			}
		})
	}
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "d", "esc", "o")
	if m.dlg() == nil || strings.Contains(m.View(), "delete cancelled") {
		t.Fatalf("the cancel of the last dialog shows under the next:\n%s", m.View())
	}
}

// A status about the selected runtime (its token revealed) goes
// when the selection moves to another row; one about a finished call
// (copied) is no such status and stays.
func TestStatusAboutARuntimeGoesWithTheSelection(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "v")
	mustContain(t, statusLine(m), "proxy token of rt-cpudemo4qx revealed")
	m = e.press(t, m, "down")
	if got := statusLine(m); strings.Contains(got, "revealed") || m.cx.Selected == "runtimes/rt-cpudemo4qx" {
		t.Fatalf("after moving to %s the status still says %q", m.cx.Selected, got)
	}
	m = e.press(t, m, "y", "up")
	mustContain(t, statusLine(m), "copied the URL of rt-t4demo7k2p")
}

// "deleting X…" goes once X is gone from the list, though
// delete_runtime has not answered yet.
func TestDeletingGoesWithTheRuntime(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	now := e.clk.now()
	m.scr.say(now, common.Say{Text: "deleting rt-t4demo7k2p…", For: api.ToolDeleteRuntime + " " + "runtimes/rt-t4demo7k2p"})
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	mustContain(t, statusLine(m), "deleting rt-t4demo7k2p…")
	var rest []api.Runtime
	for _, r := range e.srv.Runtimes() {
		if r.Name != "runtimes/rt-t4demo7k2p" {
			rest = append(rest, r)
		}
	}
	m.cx.Snap.ApplyRuntimes(now, rest) // listed without it: gone
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	if got := statusLine(m); strings.Contains(got, "deleting") {
		t.Fatalf("status %q after the runtime is gone", got)
	}
}

// A long refusal in the files pane is cut in the status line
// with "(L: in full)", and it is true there: L opens the event log over
// the pane, which has the message whole; esc comes back to the pane.
func TestFilesPaneLongRefusalIsReadableInFull(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m, _ = update(m, tea.WindowSizeMsg{Width: 60, Height: 15})
	m = e.press(t, m, "f", "backspace", "x") // x on /content itself
	const whole = "not deleting /content: colabdash never removes /content itself or a top-level directory"
	if got := statusLine(m); !strings.Contains(got, "not deleting /content") || !strings.HasSuffix(strings.TrimSpace(got), "(L: in full)") {
		t.Fatalf("status %q", got)
	}
	m = e.press(t, m, "L")
	if v := flat(m.View()); !strings.Contains(v, "EVENTS") || !strings.Contains(v, "refused") ||
		!strings.Contains(v, whole) {
		t.Fatalf("the event log lacks the whole message:\n%s", m.View())
	}
	m = e.press(t, m, "esc")
	mustContain(t, m.View(), "FILES · rt-t4demo7k2p:/")
}
