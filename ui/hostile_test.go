package ui

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/overlay/console"
)

// assertInert is commontest.AssertInert.
func assertInert(t *testing.T, screen, out string, w int) {
	t.Helper()
	commontest.AssertInert(t, screen, out, w)
}

// hostile is the payload of every hostile string, for Options the dashboard
// reads from a config file or credentials.
const hostile = colabfake.HostileOSC52 + colabfake.HostileOSC0 + colabfake.HostileCSI2J + colabfake.HostileC1CSI + colabfake.HostileRLO

// Every screen rendered from the hostile seed (runtime names, spec fields,
// version, tier, URL, sessions, list_runtime_specs, execute_code output,
// errors) and hostile config values (profile names, account) stays inert
// and within the terminal (issue 9 §1, case 29).
func TestHostileSeedNeverDrivesTheTerminal(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{Seed: colabfake.SeedHostile}, func(o *Options) {
		o.NoColor = false
		o.Profile = "work" + hostile
		o.Profiles = []string{"work" + hostile, "home\x1b[2J"}
		o.Account = "me" + colabfake.HostileOSC0 + "@example.com"
		o.Connect = func(context.Context, string) (api.Service, ConnInfo, error) {
			return nil, ConnInfo{}, errors.New("not used")
		}
	})
	if len(m.rt.Rows()) != 3 {
		t.Fatalf("hostile seed: %d rows, want 3:\n%s", len(m.rt.Rows()), m.View())
	}
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: h})
		check := func(screen string, m Model) {
			t.Helper()
			assertInert(t, screen+" at "+itoa(w), m.View(), w)
		}
		for i := range m.rt.Rows() {
			m.rt.Select(m.rt.Rows()[i].Name)
			m.syncRows()
			check("table, sessions and details of row "+itoa(i), m)
			m = e.press(t, m, "enter")
			check("expanded details of row "+itoa(i), m)
			m = e.press(t, m, "enter", "tab")
			check("sessions focused of row "+itoa(i), m)
			m = e.press(t, m, "tab")
		}
		// Models share state: each screen is opened on m and closed again.
		closeAll := func() {
			for i := 0; i < 6 && len(m.scr.stack) > 0; i++ {
				m = e.press(t, m, "esc")
			}
		}
		m = e.press(t, m, "?")
		mustContain(t, m.View(), "HELP")
		check("help", m)
		closeAll()
		m = e.press(t, m, "L")
		mustContain(t, m.View(), "EVENTS")
		check("event log", m)
		closeAll()
		m = e.press(t, m, "P")
		mustContain(t, m.View(), "PROFILES", "home␛[2J")
		check("profile picker", m)
		closeAll()
		// The create picker: variants, accelerators and shapes from
		// list_runtime_specs, hostile entries first.
		m = e.press(t, m, "n")
		mustContain(t, m.View(), "New runtime")
		check("picker: variant", m)
		for i, it := range m.dlg().Items {
			if strings.Contains(it.Label, "\x1b") {
				m.dlg().Select(i)
			}
		}
		m = e.press(t, m, "enter")
		check("picker: accelerator", m)
		m = e.press(t, m, "enter")
		check("picker: shape", m)
		closeAll()
		m.rt.Select(m.rt.Rows()[1].Name)
		m.syncRows()
		m = e.press(t, m, "d")
		mustContain(t, m.View(), "rt-clip␛]52;c;aGFja2Vk␇board")
		if m.dlg() == nil {
			t.Fatal("no delete dialog")
		}
		check("delete dialog", m)
		closeAll()
		m = e.press(t, m, "tab", "x")
		if m.dlg() == nil {
			t.Fatal("no close-session dialog")
		}
		check("close-session dialog", m)
		closeAll()
		m = e.press(t, m, "tab")
	}

	// A create of a hostile spec the server refuses: the status line.
	m = e.press(t, m, "n")
	for i, it := range m.dlg().Items {
		if strings.Contains(it.Label, "\x1b") {
			m.dlg().Select(i)
		}
	}
	m = e.press(t, m, "enter", "enter", "enter", "enter", "enter")
	mustContain(t, m.View(), "failed")
	assertInert(t, "create failed", m.View(), 80)

	// A failing call whose error carries the payloads: sessions panel,
	// status line and event log.
	m, _ = update(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "list_sessions", Text: "denied " + hostile, Times: 10})
	m = e.press(t, m, "r")
	assertInert(t, "refresh failing", m.View(), 100)
	assertInert(t, "event log with errors", e.press(t, m, "L").View(), 100)
	m = e.press(t, m, "esc") // copies of a Model share one dashboard: close the log again
	e.srv.ClearFaults()

	// The run-code console: a multi-line paste and hostile output.
	m = e.press(t, m, "e")
	if m.dlg() != nil { // no session chosen: e asks before opening one
		m = e.press(t, m, "y")
	}
	if !topIs[*console.Overlay](m.scr) {
		t.Fatalf("e did not open the run-code console:\n%s", m.View())
	}
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune("import os\rprint(1)\r\nprint(2)" + hostile)})
	if want := "import os\nprint(1)\nprint(2)" + colabfake.HostileOSC52[1:len(colabfake.HostileOSC52)-1]; !strings.HasPrefix(m.ex.console().Input(), "import os\nprint(1)\nprint(2)") || strings.ContainsAny(m.ex.console().Input(), "\x1b\x07\r\u009b\u202e") {
		t.Fatalf("run-code input after the paste: %q (want controls dropped, lines kept, like %q)", m.ex.console().Input(), want)
	}
	v := m.View()
	mustContain(t, v, ">>> import os", "... print(1)")
	assertInert(t, "run-code input", v, 100)
	m = e.press(t, m, "enter")
	run := m.ex.execState.runs[len(m.ex.execState.runs)-1]
	if !strings.HasPrefix(run.code, "import os\nprint(1)\nprint(2)") || run.err != nil {
		t.Fatalf("sent %q (err %v), want the pasted lines joined by \\n", run.code, run.err)
	}
	v = m.View()
	mustContain(t, v, "]: import os", "print(1)", "stdout ", "stderr ", "Out: ")
	assertInert(t, "run-code transcript", v, 100)

	// `colabdash status` text.
	ov, err := api.LoadOverview(context.Background(), e.svc)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteStatusTable(&buf, ov, time.Now(), true); err != nil {
		t.Fatal(err)
	}
	assertInert(t, "status text", buf.String(), 0)
	for _, ln := range strings.Split(buf.String(), "\n") {
		if strings.Contains(ln, "https://") {
			continue // the URL and token lines stay whole, to be used
		}
		if w := ansi.StringWidth(ln); w > 200 {
			t.Errorf("status line %d cells wide: %q", w, ln)
		}
	}
}

// A paste of "a1", ESC "]0;T" BEL, CR, "00" into the filter leaves no
// control (case 32b).
func TestPasteIntoFilterDropsControls(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = e.press(t, m, "/")
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune("a1\x1b]0;T\x07\r00")})
	if m.rt.Filter() != "a100" {
		t.Fatalf("filter after the paste = %q, want %q", m.rt.Filter(), "a100")
	}
	assertInert(t, "filter", m.View(), 120)
	// A paste of controls only changes nothing.
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune("\x1b[2J\x07")})
	if m.rt.Filter() != "a100" {
		t.Fatalf("filter after a paste of controls = %q", m.rt.Filter())
	}
}

// The no-credentials screen quotes files and the environment.
func TestAuthScreenNeverDrivesTheTerminal(t *testing.T) {
	m := NewAuthError(AuthErrorInfo{Headline: "bad credentials file " + hostile, Tried: []string{"GOOGLE_APPLICATION_CREDENTIALS=" + hostile},
		Fix: []string{"fix " + hostile}, Err: errors.New("parse: " + hostile)})
	tm, _ := m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	v := tm.View()
	mustContain(t, v, "bad credentials file")
	assertInert(t, "auth screen", v, 60)
}
