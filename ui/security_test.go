package ui

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/testkit"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/report"
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
// errors) and hostile config values (profile names, endpoint) stays inert
// and within the terminal: no control sequence from a server or a
// config file reaches it.
func TestHostileSeedNeverDrivesTheTerminal(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{Seed: colabfake.SeedHostile}, func(o *Options) {
		o.NoColor = false
		o.Profile = "work" + hostile
		o.Profiles = []string{"work" + hostile, "home\x1b[2J"}
		o.Endpoint = "https://me" + colabfake.HostileOSC0 + "@example.com/mcp"
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
	m = e.press(t, m, "enter", "enter", "enter", "enter")
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
	if err := report.WriteTable(&buf, ov, time.Now(), true, "colabdash"); err != nil {
		t.Fatal(err)
	}
	assertInert(t, "status text", buf.String(), 0)
	// The URL and token lines stay whole, to be used; the others fit.
	lines := slices.DeleteFunc(strings.Split(buf.String(), "\n"), func(ln string) bool { return strings.Contains(ln, "https://") })
	commontest.MustFit(t, "status text", lines, 200)
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

// TestNoSecretOnScreenOrInLogs drives the dashboard through loading,
// renewals (new proxy tokens), failures whose bodies echo a proxy token or
// the bearer, and recovery, with the client's debug log on. Every frame
// (sessions and details panels open) and the whole log are scanned for
// every proxy token the emulator ever issued and for the OAuth token, and
// any piece of them (secrettest.Piece characters).
func TestNoSecretOnScreenOrInLogs(t *testing.T) {
	var logs testkit.SyncBuffer
	s := newStack(t, stackOpts{logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		emu: colabfake.Options{TokenTTL: 10 * time.Minute}})
	s.addRuntime(t, "r-alpha", stackT4)
	s.addRuntime(t, "r-bravo", stackCPU)
	s.srv.AddNotebookSession("r-alpha", "nb")
	secrets := map[string]bool{stackOAuthToken: true}
	collect := func() {
		for _, rt := range s.srv.Runtimes() {
			if rt.ConnectionInfo != nil && rt.ConnectionInfo.Token != "" {
				secrets[rt.ConnectionInfo.Token] = true
			}
		}
	}
	var frames []string
	frame := func() { collect(); frames = append(frames, s.view()) }

	s.start()
	frame()
	s.m, _ = update(s.m, keyMsg("enter")) // details panel
	frame()
	tok := s.srv.Runtimes()[0].ConnectionInfo.Token
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "list_runtimes", Times: 3,
		Text: `{"error":{"code":500,"status":"INTERNAL","message":"backend error","details":[{"token":"` + tok + `"}]}}`})
	s.tick(config.DefaultRefreshInterval + time.Second)
	frame()
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "list_runtimes", Status: 401, Times: -1,
		Body: `{"error":{"code":401,"status":"UNAUTHENTICATED","message":"bad credentials"},"echo":"Authorization: Bearer ` + stackOAuthToken + `"}`})
	s.tick(MaxBackoff)
	frame()
	s.srv.ClearFaults()
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultMalformed, Tool: "get_runtime", Body: `{"connectionInfo":{"token":"` + tok + `"`})
	// Ten minutes of idling: both tokens renew (get_runtime), the first
	// renewal's reply is malformed and echoes a token.
	for i := 0; i < 12; i++ {
		s.tick(time.Minute)
		frame()
	}
	if s.srv.CallCount("get_runtime") < 2 {
		t.Fatalf("only %d renewals: the scan did not see renewed tokens", s.srv.CallCount("get_runtime"))
	}
	if len(secrets) < 4 {
		t.Fatalf("only %d distinct secrets seen", len(secrets))
	}
	all := strings.Join(frames, "\n")
	logText := logs.String()
	if testing.Verbose() {
		t.Log(logText)
	}
	if !strings.Contains(logText, "list_runtimes") {
		t.Fatalf("the debug log is empty; the scan would prove nothing:\n%s", logText)
	}
	list := slices.Collect(maps.Keys(secrets))
	secrettest.Check(t, "a frame", all, list...)
	secrettest.Check(t, "the debug log", logText, list...)
}

// Echoed secrets are redacted on the dashboard: a server that echoes the bearer token
// (not shaped like a Google token, so only its registration can catch it)
// and the proxy tokens, bare, in every error: refresh failures (the status
// line and header), a failed renewal (the row, the details panel, the
// status line) and the event log show no 8-byte piece of any of them.
func TestEchoedSecretsNotOnAnyScreen(t *testing.T) {
	const bearer = "BEARq8Zx3Kw7Nm2Vt"
	red := &api.Redactor{}
	red.Add(bearer) // as api/auth does when it reads or mints the token
	s := newStack(t, stackOpts{bearer: bearer, redactor: red, ui: Options{Redact: red.Redact},
		emu: colabfake.Options{TokenTTL: 10 * time.Minute}})
	if _, err := s.srv.AddRuntime(api.Runtime{Name: "r-alpha", RuntimeSpec: stackT4,
		ConnectionInfo: &api.ConnectionInfo{Token: "PRXYw4Jd9Qs2Lc7Hn"}}); err != nil {
		t.Fatal(err)
	}
	s.start()
	var proxies []string
	for _, rt := range s.srv.Runtimes() {
		proxies = append(proxies, rt.ConnectionInfo.Token)
	}
	echo := "caller " + bearer + " proxy " + strings.Join(proxies, " ")
	var frames []string
	frame := func() { frames = append(frames, s.view()) }

	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "list_runtimes", Times: -1, Text: "INTERNAL: " + echo})
	s.m, _ = update(s.m, keyMsg("r"))
	s.tick(time.Second)
	frame()
	s.srv.ClearFaults()
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "get_runtime", Status: 503, Times: -1, Body: "overloaded: " + echo})
	s.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "list_runtimes", Times: -1, Text: "UNAVAILABLE: " + echo})
	for i := 0; i < 10; i++ { // renewals fall due and fail
		s.tick(time.Minute)
		frame()
	}
	if s.srv.CallCount("get_runtime") == 0 && !strings.Contains(strings.Join(frames, ""), "renew") {
		t.Fatalf("no renewal was attempted: the scan proves little")
	}
	s.m, _ = update(s.m, keyMsg("enter")) // details panel
	frame()
	s.m, _ = update(s.m, keyMsg("esc"))
	s.m, _ = update(s.m, keyMsg("L")) // event log
	frame()
	all := strings.Join(frames, "\n")
	if !strings.Contains(all, "caller") {
		t.Fatalf("no echo reached the screen: the scan proves little\n%s", all)
	}
	secrettest.Check(t, "a frame", all, append([]string{bearer}, proxies...)...)
}

const panicSecret = "ya-not-google-SECRET-4f9e2c"

// secretPanics panics, quoting a secret, in list_sessions and
// delete_runtime.
type secretPanics struct{ *fakeService }

func (s secretPanics) ListSessions(context.Context, string) ([]api.Session, error) {
	panic("nil map in reply {token: " + panicSecret + "}")
}

func (s secretPanics) DeleteRuntime(context.Context, string) error {
	panic("bad request Authorization=" + panicSecret[:10] + " key " + panicSecret)
}

// A panic the ui turns into an error can quote a secret: it reached the
// status line, the header and the details unredacted (known leftover).
// Every screen now shows "[redacted]" instead.
func TestPanicTextIsRedacted(t *testing.T) {
	f := newFake()
	f.runtimes = []api.Runtime{mkRuntime("r-alpha", specT4, t0.Add(time.Hour), "")}
	var red api.Redactor
	red.Add(panicSecret)
	clk := &clock{t: t0}
	m := testModel(secretPanics{f}, clk)
	m.cx.Redact = red.Redact
	m, _ = update(m, tea.WindowSizeMsg{Width: 160, Height: 40})
	m, _ = run(t, m, m.Init())
	check := func(when string) {
		t.Helper()
		if !secrettest.Check(t, when, m.View(), panicSecret) {
			t.FailNow()
		}
	}
	check("after list_sessions panicked")
	m, _ = update(m, keyMsg("tab"))
	check("sessions panel")
	m, _ = update(m, keyMsg("shift+tab"))
	m, _ = update(m, keyMsg("d"))
	clk.t = clk.t.Add(time.Second)
	m, cmd := update(m, keyMsg("y"))
	m = drive(t, m, cmd)
	if !strings.Contains(m.View(), "internal error") || !strings.Contains(m.View(), api.Redacted) {
		t.Fatalf("delete_runtime's panic is not on the status line, redacted:\n%s", m.View())
	}
	check("after delete_runtime panicked")
	m, _ = update(m, keyMsg("L"))
	check("event log")
}
