package ui

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
)

// clip records what was copied.
type clip struct {
	mu   sync.Mutex
	text []string
}

func (c *clip) write(s string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.text = append(c.text, s)
	return nil
}

func (c *clip) last() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.text) == 0 {
		return ""
	}
	return c.text[len(c.text)-1]
}

type emu struct {
	srv  *colabfake.Server
	svc  *client.Client
	clk  *clock
	clip *clip
	dir  string
}

// emuModel starts the emulator (demo seed: three runtimes on tier Pro), a
// client that does not retry by itself (the dashboard's own retries are
// under test), and a loaded dashboard at 120×40 on a fake clock.
func emuModel(t *testing.T, o colabfake.Options, mod func(*Options)) (*emu, Model) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if o.Seed == "" {
		o.Seed = colabfake.SeedDemo
	}
	srv, endpoint, err := colabfake.Start(ctx, "127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	svc, err := client.New(ctx, client.Options{Endpoint: endpoint, MaxAttempts: 1,
		HTTPClient: &http.Client{Transport: bearerTransport{"test"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	e := &emu{srv: srv, svc: svc, clk: &clock{t: time.Now()}, clip: &clip{}, dir: t.TempDir()}
	opts := Options{Service: svc, Now: e.clk.now, Location: time.UTC, NoColor: true, StateDir: e.dir,
		Clipboard: e.clip.write, Context: ctx}
	if mod != nil {
		mod(&opts)
	}
	m := New(opts)
	m.life.every = func(_ time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		return func() tea.Msg { return fn(time.Time{}) }
	}
	m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m = drive(t, m, m.Init())
	return e, m
}

// withProfiles gives the dashboard the profiles names, active the one in
// use ("": none named), so P opens the profile picker; a switch is
// refused (nothing connects).
func withProfiles(active string, names ...string) func(*Options) {
	return func(o *Options) {
		o.Profile, o.Profiles = active, names
		o.Connect = func(context.Context, string) (api.Service, ConnInfo, error) {
			return nil, ConnInfo{}, errors.New("no profile connects in this test")
		}
	}
}

// drive runs cmd and everything it leads to, feeding every message but
// ticks back into the model.
func drive(t testing.TB, m Model, cmd tea.Cmd) Model {
	t.Helper()
	walk(cmd, func(msg tea.Msg) tea.Cmd {
		switch msg.(type) {
		case tickMsg, tea.QuitMsg, nil:
			return nil
		}
		var next tea.Cmd
		m, next = update(m, msg)
		return next
	})
	return m
}

// press sends keys one by one, each after the dialog grace, driving every
// command to its end.
func (e *emu) press(t testing.TB, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		e.clk.add(dialogGrace + time.Millisecond)
		var cmd tea.Cmd
		m, cmd = update(m, keyMsg(k))
		m = drive(t, m, cmd)
	}
	return m
}

// closeAll presses esc until nothing is open over the dashboard (at most
// five layers), focuses the runtimes pane and selects id: a table whose cases share one dashboard
// starts each case from the bare dashboard this way.
func (e *emu) closeAll(t testing.TB, m Model, id string) Model {
	t.Helper()
	for i := 0; i < 5 && m.scr.top() != nil; i++ {
		m = e.press(t, m, "esc")
	}
	if m.scr.top() != nil {
		t.Fatalf("esc did not close the %s:\n%s", m.scr.top().Name(), m.View())
	}
	if m.cx.Focus != common.PanelRuntimes {
		m = e.press(t, m, "tab") // tab toggles the focus between the two panes
	}
	return m.selectID(t, id)
}

func typeText(e *emu, t testing.TB, m Model, s string) Model {
	for _, r := range s {
		m = e.press(t, m, string(r))
	}
	return m
}

// tick delivers one tick and drives what it started.
func (e *emu) tick(t testing.TB, m Model) Model {
	m, cmd := update(m, tickMsg{gen: m.life.tickGen})
	return drive(t, m, cmd)
}

func (m Model) selectID(t testing.TB, id string) Model {
	t.Helper()
	for _, r := range m.rt.Rows() {
		if r.ID() == id {
			m.rt.Select(r.Name)
			m.syncRows()
			return m
		}
	}
	t.Fatalf("no row %s", id)
	return m
}

// mustContain fails at once when the view v lacks any of want.
var mustContain = commontest.MustContain

func serverHas(srv *colabfake.Server, name string) bool {
	for _, r := range srv.Runtimes() {
		if r.Name == name {
			return true
		}
	}
	return false
}

func startCreate(t testing.TB, m Model, e *emu, spec api.RuntimeSpecKey) (Model, tea.Cmd) {
	t.Helper()
	cmd := m.cr.startCreate(spec, "", "", e.clk.now())
	return m, cmd
}

func sessionNames(ss []api.Session) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}
