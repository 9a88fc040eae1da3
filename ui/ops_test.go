//go:build unix

package ui

import (
	"context"
	"errors"
	"fmt"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/api/secrettest"
	"github.com/colabdash/colabdash/api/tty"
	"github.com/colabdash/colabdash/ui/overlay/console"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/files"
	"github.com/colabdash/colabdash/ui/shell"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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

// drive runs cmd and everything it leads to, feeding every message but
// ticks back into the model.
func drive(t testing.TB, m Model, cmd tea.Cmd) Model {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tickMsg, tea.QuitMsg, nil:
		default:
			var next tea.Cmd
			m, next = update(m, msg)
			queue = append(queue, next)
		}
	}
	return m
}

// press sends keys one by one, each after the dialog grace, driving every
// command to its end.
func (e *emu) press(t testing.TB, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		e.clk.add(DialogGrace + time.Millisecond)
		var cmd tea.Cmd
		m, cmd = update(m, keyMsg(k))
		m = drive(t, m, cmd)
	}
	return m
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

func mustContain(t testing.TB, v string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(v, w) {
			t.Fatalf("view lacks %q:\n%s", w, v)
		}
	}
}

func serverHas(srv *colabfake.Server, name string) bool {
	for _, r := range srv.Runtimes() {
		if r.Name == name {
			return true
		}
	}
	return false
}

// --- delete ---

func TestDeleteConfirmOnlyY(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m, _ = update(m, keyMsg("d"))
	mustContain(t, m.View(), "Delete runtime rt-t4demo7k2p?", "runtimes/rt-t4demo7k2p", "accelerator T4", "cannot be undone", "files", "session")
	// A "y" already on its way when the dialog opened does not confirm.
	m, cmd := update(m, keyMsg("y"))
	m = drive(t, m, cmd)
	if m.dlg() == nil || !serverHas(e.srv, "runtimes/rt-t4demo7k2p") {
		t.Fatal("a keystroke inside the grace period answered the dialog")
	}
	// Enter cancels.
	m = e.press(t, m, "enter")
	if m.dlg() != nil || !serverHas(e.srv, "runtimes/rt-t4demo7k2p") {
		t.Fatal("enter did not cancel, or deleted")
	}
	// Esc and any other key cancel too.
	for _, k := range []string{"esc", "n", "Y"} {
		m = e.press(t, m, "d", k)
		if m.dlg() != nil || !serverHas(e.srv, "runtimes/rt-t4demo7k2p") {
			t.Fatalf("%q did not cancel", k)
		}
	}
	m = e.press(t, m, "d", "y")
	if serverHas(e.srv, "runtimes/rt-t4demo7k2p") || len(e.srv.Runtimes()) != 2 {
		t.Fatalf("not deleted: %v", e.srv.Runtimes())
	}
	r := m.cx.Snap.Runtime("runtimes/rt-t4demo7k2p")
	if r != nil && !r.Gone() {
		t.Fatal("row not gone after delete")
	}
	mustContain(t, m.View(), "deleted rt-t4demo7k2p")
}

// The list refreshes and reorders while the dialog is open: the runtime
// captured when it opened is deleted, no other.
func TestDeleteAfterReorder(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "d")
	// A new runtime that sorts first appears; the selection moves.
	if _, err := e.srv.AddRuntime(api.Runtime{Name: "runtimes/aaa-first", RuntimeSpec: specCPU}); err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, tea.Batch(m.calls.refresh(e.clk.now(), true)...))
	m.rt.Select(m.rt.Rows()[0].Name)
	m.syncRows()
	if m.Selected() != "runtimes/aaa-first" {
		t.Fatalf("selected %s", m.Selected())
	}
	m = e.press(t, m, "y")
	if serverHas(e.srv, "runtimes/rt-t4demo7k2p") {
		t.Fatal("captured runtime not deleted")
	}
	if !serverHas(e.srv, "runtimes/aaa-first") || len(e.srv.Runtimes()) != 3 {
		t.Fatalf("another runtime was deleted: %v", e.srv.Runtimes())
	}
}

// --- create ---

func TestCreatePickerAndQuickSpinUp(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = e.press(t, m, "n")
	v := m.View()
	mustContain(t, v, "New runtime: variant", "CPU", "GPU", "TPU")
	m = e.press(t, m, "down", "enter") // GPU
	v = m.View()
	mustContain(t, v, "accelerator (GPU)", "T4", "A100", "H100  (not eligible on tier Pro)")
	// Ineligible specs cannot be chosen: the cursor skips them.
	m = e.press(t, m, "down", "down", "down", "down", "down")
	if it := m.dlg().Items[m.dlg().Cursor()]; it.Disabled {
		t.Fatalf("cursor on a disabled item %q", it.Label)
	}
	m = e.press(t, m, "g") // not a list key: stays
	for m.dlg().Cursor() > 0 {
		m = e.press(t, m, "up")
	}
	m = e.press(t, m, "enter") // T4
	mustContain(t, m.View(), "shape (GPU T4)", "STANDARD", "HIGHMEM")
	m = e.press(t, m, "enter") // STANDARD
	mustContain(t, m.View(), "runtime version", "empty: latest")
	m = e.press(t, m, "enter")
	mustContain(t, m.View(), "runtime id")
	m = typeText(e, t, m, "My")
	mustContain(t, m.View(), "must start with a lower-case letter")
	m = e.press(t, m, "enter")
	if m.dlg() == nil {
		t.Fatal("an invalid runtime id was submitted")
	}
	m = e.press(t, m, "backspace", "backspace")
	m = typeText(e, t, m, "my-gpu")
	mustContain(t, m.View(), "✓ valid")
	// Submit: the row appears at once, before create_runtime answers.
	e.clk.add(DialogGrace + time.Millisecond)
	m, cmd := update(m, keyMsg("enter"))
	e.clk.add(2 * time.Second)
	mustContain(t, m.View(), " + my-gpu ", "GPU/T4/STANDARD    creating… 0:02")
	m = drive(t, m, cmd)
	if !serverHas(e.srv, "runtimes/my-gpu") || m.Selected() != "runtimes/my-gpu" {
		t.Fatalf("created %v, selected %s", e.srv.Runtimes(), m.Selected())
	}
	// The row shows what the server returned.
	got := m.cx.Snap.Runtime("runtimes/my-gpu")
	if got.ConnectionInfo == nil || got.ConnectionInfo.URL == "" || got.RuntimeSpec != specT4 {
		t.Fatalf("row %+v", got.Runtime)
	}
	mustContain(t, m.View(), "created my-gpu (GPU/T4/STANDARD)")
	// The spec is remembered across runs (and holds no token).
	b, err := os.ReadFile(filepath.Join(e.dir, LastSpecFile))
	if err != nil || !strings.Contains(string(b), "VARIANT_GPU") || strings.Contains(string(b), "token") {
		t.Fatalf("last spec %q, %v", b, err)
	}
	m2 := New(Options{Service: e.svc, StateDir: e.dir, Now: e.clk.now})
	if m2.cr.lastSpec == nil || m2.cr.lastSpec.Spec != specT4 {
		t.Fatal("last spec not loaded by a new dashboard")
	}
	// Quick spin-up: N and y.
	m = e.press(t, m, "N")
	mustContain(t, m.View(), "Create a runtime like the last one?", "GPU/T4/STANDARD")
	m = e.press(t, m, "y")
	if e.srv.RuntimesCreated() != 2 || len(e.srv.Runtimes()) != 5 {
		t.Fatalf("quick spin-up: %d created", e.srv.RuntimesCreated())
	}
}

func startCreate(t testing.TB, m Model, e *emu, spec api.RuntimeSpecKey) (Model, tea.Cmd) {
	t.Helper()
	cmd := m.cr.startCreate(spec, "", "", e.clk.now())
	return m, cmd
}

// Two creates race a refresh whose list was taken before they finished:
// the stale list neither hides nor marks gone the new runtimes.
func TestTwoCreatesRacingRefresh(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	delete(m.calls.pending, callKey{kind: callRuntimes})
	listCmd := tea.Batch(m.calls.refresh(e.clk.now(), false)...)
	stale, _ := collect(listCmd) // list_runtimes answered before the creates
	m, c1 := startCreate(t, m, e, specT4)
	m, c2 := startCreate(t, m, e, specCPU)
	m = drive(t, m, tea.Batch(c1, c2))
	if len(e.srv.Runtimes()) != 5 {
		t.Fatalf("server has %d runtimes", len(e.srv.Runtimes()))
	}
	for _, r := range stale {
		m, _ = update(m, r)
	}
	live := 0
	for r := range m.cx.Snap.All() {
		if !r.Gone() {
			live++
		}
	}
	if live != 5 || len(m.cr.creates) != 0 {
		t.Fatalf("%d live rows after the stale list, %d creates pending:\n%s", live, len(m.cr.creates), m.View())
	}
	// The next list agrees.
	m = drive(t, m, tea.Batch(m.calls.refresh(e.clk.now(), true)...))
	if n := strings.Count(m.View(), "GONE"); n != 0 {
		t.Fatalf("%d rows gone:\n%s", n, m.View())
	}
}

// The connection drops after create_runtime was sent. The
// outcome is unknown; the dashboard re-lists, shows the runtime it finds
// and never creates a second one.
func TestCreateConnectionDropsAfterSending(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: "create_runtime", Times: 1})
	m, cmd := startCreate(t, m, e, specT4)
	m = drive(t, m, cmd)
	if e.srv.CreateCalls() != 1 || e.srv.RuntimesCreated() != 1 {
		t.Fatalf("create calls %d, runtimes created %d", e.srv.CreateCalls(), e.srv.RuntimesCreated())
	}
	v := m.View()
	mustContain(t, v, "outcome was unknown", "found new runtime", "not creating again")
	live := 0
	for r := range m.cx.Snap.All() {
		if !r.Gone() && r.RuntimeSpec == specT4 {
			live++
		}
	}
	if live != 2 { // the demo T4 and the new one
		t.Fatalf("%d T4 rows:\n%s", live, v)
	}
	// Ticks do not re-send it.
	e.clk.add(time.Minute)
	m = e.tick(t, m)
	if e.srv.CreateCalls() != 1 {
		t.Fatal("created again after an unknown outcome")
	}
}

// DEADLINE_EXCEEDED re-sends the identical call: one runtime.
func TestCreateDeadlineResends(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: "create_runtime", Times: 1})
	m, cmd := startCreate(t, m, e, specT4)
	m = drive(t, m, cmd)
	if e.srv.CreateCalls() != 2 || e.srv.RuntimesCreated() != 1 {
		t.Fatalf("create calls %d, runtimes created %d", e.srv.CreateCalls(), e.srv.RuntimesCreated())
	}
	mustContain(t, m.View(), "created ")
}

// RESOURCE_EXHAUSTED with RetryInfo 53s: a visible
// countdown, the identical call after it, and a key to cancel.
func TestCreateRateLimitedCountdown(t *testing.T) {
	rl := colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "create_runtime", Times: 1,
		Text: colabfake.GoogleErrorText(api.ResourceExhausted, "Quota exceeded for requests per minute per user.", "", 53*time.Second)}
	t.Run("waits and re-sends", func(t *testing.T) {
		e, m := emuModel(t, colabfake.Options{}, nil)
		e.srv.Inject(rl)
		m, cmd := startCreate(t, m, e, specT4)
		m = drive(t, m, cmd)
		mustContain(t, m.View(), "rate limited, retrying 2/5 in 0:53", "c cancel")
		e.clk.add(50 * time.Second)
		m = e.tick(t, m)
		mustContain(t, m.View(), "in 0:03")
		if e.srv.CreateCalls() != 1 {
			t.Fatal("re-sent before the retry delay")
		}
		e.clk.add(3 * time.Second)
		m = e.tick(t, m)
		if e.srv.CreateCalls() != 2 || e.srv.RuntimesCreated() != 1 {
			t.Fatalf("calls %d created %d", e.srv.CreateCalls(), e.srv.RuntimesCreated())
		}
		mustContain(t, m.View(), "created ")
	})
	t.Run("cancel", func(t *testing.T) {
		e, m := emuModel(t, colabfake.Options{}, nil)
		e.srv.Inject(rl)
		m, cmd := startCreate(t, m, e, specT4)
		m = drive(t, m, cmd)
		m = e.press(t, m, "c")
		e.clk.add(time.Minute)
		m = e.tick(t, m)
		if e.srv.CreateCalls() != 1 || len(m.cr.creates) != 0 || strings.Contains(m.View(), "retrying") {
			t.Fatalf("cancel did not stop the retry: %d calls", e.srv.CreateCalls())
		}
	})
}

// No capacity (HTTP 503 UNAVAILABLE) is retried with a
// visible, growing countdown; after the last attempt other eligible specs
// are offered, never a silent downgrade.
func TestCreateCapacityUnavailable(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "create_runtime", Times: 1000, Status: 503,
		Body: `{"error":{"code":503,"status":"UNAVAILABLE","message":"No capacity"}}`})
	m, cmd := startCreate(t, m, e, specA100)
	m = drive(t, m, cmd)
	mustContain(t, m.View(), "capacity unavailable, retrying 2/5 in 0:10")
	for i := 1; i < MaxCreateAttempts; i++ {
		if op := m.cr.creates[0]; op.attempt != i || op.state != createWaiting {
			t.Fatalf("attempt %d state %d, want %d waiting", op.attempt, op.state, i)
		}
		e.clk.add(DefaultCreateRetry<<(i-1) - time.Second)
		m = e.tick(t, m)
		if m.cr.creates[0].attempt != i {
			t.Fatal("re-sent before the countdown ended")
		}
		e.clk.add(time.Second)
		m = e.tick(t, m)
	}
	if len(m.cr.creates) != 0 || e.srv.RuntimesCreated() != 0 {
		t.Fatalf("%d creates pending, created %d", len(m.cr.creates), e.srv.RuntimesCreated())
	}
	v := m.View()
	mustContain(t, v, "Create gave up after 5 attempts", "create GPU/T4/STANDARD instead")
	if strings.Contains(v, "retrying") {
		t.Fatalf("still retrying:\n%s", v)
	}
}

func TestCreateFailedPreconditionNextSteps(t *testing.T) {
	t.Run("too many runtimes: offer to delete one", func(t *testing.T) {
		e, m := emuModel(t, colabfake.Options{}, nil)
		e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Times: 1,
			Code: api.FailedPrecondition, Reason: api.ReasonTooManyActiveRuntimes, Message: "too many"})
		m, cmd := startCreate(t, m, e, specT4)
		m = drive(t, m, cmd)
		mustContain(t, m.View(), "Too many active runtimes", "may still count", "delete rt-cpudemo4qx")
		for !strings.Contains(m.dlg().Items[m.dlg().Cursor()].Label, "rt-v6edemo2mw") {
			m = e.press(t, m, "down")
		}
		m = e.press(t, m, "enter")
		mustContain(t, m.View(), "Delete runtime rt-v6edemo2mw?", "cannot be undone")
		m = e.press(t, m, "y")
		if serverHas(e.srv, "runtimes/rt-v6edemo2mw") || len(e.srv.Runtimes()) != 2 {
			t.Fatalf("runtimes %v", e.srv.Runtimes())
		}
	})
	t.Run("usage quota: offer a CPU runtime", func(t *testing.T) {
		e, m := emuModel(t, colabfake.Options{}, nil)
		e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Times: 1,
			Code: api.ResourceExhausted, Reason: api.ReasonQuotaExceededUsageTime, Message: "usage limit"})
		m, cmd := startCreate(t, m, e, specT4)
		m = drive(t, m, cmd)
		mustContain(t, m.View(), "Usage limit reached (QUOTA_EXCEEDED_USAGE_TIME)", "Pro tier", "create a CPU runtime (CPU/STANDARD)")
		if e.srv.CreateCalls() != 1 {
			t.Fatal("quota was retried")
		}
		m = e.press(t, m, "enter")          // CPU
		m = e.press(t, m, "enter", "enter") // version, id
		if e.srv.RuntimesCreated() != 1 || e.srv.Runtimes()[3].RuntimeSpec != specCPU {
			t.Fatalf("CPU runtime not created: %v\n%s", e.srv.Runtimes(), m.View())
		}
	})
	t.Run("accelerator unavailable: offer the others", func(t *testing.T) {
		e, m := emuModel(t, colabfake.Options{}, nil)
		e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Times: 1,
			Code: api.FailedPrecondition, Message: "no capacity"})
		m, cmd := startCreate(t, m, e, specA100)
		m = drive(t, m, cmd)
		v := m.View()
		mustContain(t, v, "Accelerator A100 unavailable", "create GPU/T4/STANDARD", "create GPU/L4/HIGHMEM")
		for _, it := range m.dlg().Items {
			if strings.Contains(it.Label, "H100") || strings.Contains(it.Label, "A100") || strings.Contains(it.Label, "CPU") {
				t.Fatalf("offered %q:\n%s", it.Label, v)
			}
		}
	})
}

// --- sessions ---

func TestSessionsOpenAndClose(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "o")
	m = typeText(e, t, m, "Bad")
	mustContain(t, m.View(), "must start with a lower-case letter")
	m = e.press(t, m, "backspace", "backspace", "backspace")
	m = typeText(e, t, m, "mine")
	m = e.press(t, m, "enter")
	ss := e.srv.Sessions("runtimes/rt-cpudemo4qx")
	if len(ss) != 2 {
		t.Fatalf("sessions %v", ss)
	}
	mustContain(t, m.View(), "opened session mine")
	// The new session is marked as the dashboard's; the notebook is not.
	m = e.press(t, m, "tab")
	v := m.View()
	mustContain(t, v, "notebook-5e6f7a8b", "notebook ", "mine")
	var mineIdx = -1
	for i, s := range m.cx.Snap.Runtime("runtimes/rt-cpudemo4qx").Sessions {
		if s.ID() == "mine" {
			mineIdx = i
		}
	}
	if mineIdx < 0 || !m.cx.Snap.Owned("runtimes/rt-cpudemo4qx/sessions/mine") {
		t.Fatal("own session not marked")
	}
	// Closing the notebook needs the stronger confirmation.
	nb := 1 - mineIdx
	m.sess.SetCursor(nb)
	m = e.press(t, m, "x")
	mustContain(t, m.View(), "Close NOTEBOOK session notebook-5e6f7a8b?", "kernel state", "will be lost", "type close")
	m = e.press(t, m, "y", "enter")
	if len(e.srv.Sessions("runtimes/rt-cpudemo4qx")) != 2 || m.dlg() == nil {
		t.Fatal("y closed a notebook session, or closed the dialog")
	}
	m = e.press(t, m, "backspace")
	m = typeText(e, t, m, "close")
	m = e.press(t, m, "enter")
	if len(e.srv.Sessions("runtimes/rt-cpudemo4qx")) != 1 {
		t.Fatal("typed confirmation did not close the notebook session")
	}
	// Our own session: a plain y.
	m.sess.Reset()
	m = e.press(t, m, "x")
	mustContain(t, m.View(), "Close session mine?")
	m = e.press(t, m, "y")
	if len(e.srv.Sessions("runtimes/rt-cpudemo4qx")) != 0 {
		t.Fatal("own session not closed")
	}
	mustContain(t, m.View(), "closed session mine")
}

// --- token renewal ---

func TestRenewalFailsThenSucceeds(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.RenewLead = 10 * time.Minute })
	name := "runtimes/rt-cpudemo4qx" // 3 min left: inside the lead
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "get_runtime", Times: 3,
		Text: colabfake.GoogleErrorText(api.Unavailable, "backend unavailable", "", 0)})
	m = e.tick(t, m)
	r := m.cx.Snap.Runtime(name)
	if r.RenewErr == nil || r.Gone() {
		t.Fatalf("renew err %v gone %v", r.RenewErr, r.Gone())
	}
	mustContain(t, m.View(), "! rt-cpudemo4qx", "RENEW FAILED", "retry in 0:30")
	before := e.srv.CallCount("get_runtime")
	e.clk.add(10 * time.Second)
	m = e.tick(t, m)
	if e.srv.CallCount("get_runtime") != before {
		t.Fatal("retried before 30 s")
	}
	e.srv.ClearFaults()
	e.clk.add(20 * time.Second)
	m = e.tick(t, m)
	r = m.cx.Snap.Runtime(name)
	if r.RenewErr != nil {
		t.Fatalf("renewal did not succeed: %v", r.RenewErr)
	}
	// The countdown reset to the new expireTime (TTL 1 h).
	if rem := r.ExpireTime().Sub(time.Now()); rem < 55*time.Minute {
		t.Fatalf("expireTime not renewed: %v left", rem)
	}
}

func TestRenewKeyAndReclaimed(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	name := "runtimes/rt-t4demo7k2p"
	m = m.selectID(t, "rt-t4demo7k2p")
	old := m.cx.Snap.Runtime(name).ExpireTime()
	m = e.press(t, m, "R")
	if !m.cx.Snap.Runtime(name).ExpireTime().After(old) {
		t.Fatal("R did not renew")
	}
	// Reclaimed by the server: R gets NOT_FOUND and the row is gone.
	e.srv.Reclaim(name)
	m = e.press(t, m, "R")
	r := m.cx.Snap.Runtime(name)
	if r == nil || !r.Gone() {
		t.Fatal("reclaimed runtime not marked gone")
	}
	mustContain(t, m.View(), "GONE")
}

// --- run code ---

func TestRunCodePanel(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	// No session is chosen on it: e asks before opening one.
	m = e.press(t, m, "e")
	mustContain(t, m.View(), "Open a new session on rt-t4demo7k2p?", "create_session")
	m = e.press(t, m, "y")
	mustContain(t, m.View(), "RUN CODE · rt-t4demo7k2p · session colabdash-")
	// The footer shows the console's keys, not the dashboard's letters.
	footer := m.View()[strings.LastIndex(m.View(), "\n")+1:]
	mustContain(t, footer, "enter run", "history", "esc back")
	if strings.Contains(footer, "new runtime") || strings.Contains(footer, "delete") {
		t.Fatalf("run-code footer shows dashboard keys: %q", footer)
	}
	m = typeText(e, t, m, "print(1)")
	m = e.press(t, m, "enter")
	v := m.View()
	sid := api.LastSegment(m.ex.console().Session())
	mustContain(t, v, "In ["+sid+"]: print(1)", "  1", "✓ done")
	ss := e.srv.Sessions("runtimes/rt-t4demo7k2p")
	if len(ss) != 3 || !m.cx.Snap.Owned(m.ex.console().Session()) {
		t.Fatalf("sessions %v, panel session %q", ss, m.ex.console().Session())
	}
	m = typeText(e, t, m, "raise ValueError('bad')")
	m = e.press(t, m, "enter")
	v = m.View()
	mustContain(t, v, "ValueError", "✕ ValueError")
	// An exception is a failure: the raising run is not marked done.
	if tail := v[strings.LastIndex(v, "]: raise"):]; strings.Contains(tail, "✓ done") {
		t.Fatalf("a raised exception is reported as success:\n%s", v)
	}
	// History: up recalls the last line.
	m = e.press(t, m, "up")
	if m.ex.console().Input() != "raise ValueError('bad')" {
		t.Fatalf("history %q", m.ex.console().Input())
	}
	m = e.press(t, m, "up")
	if m.ex.console().Input() != "print(1)" {
		t.Fatalf("history %q", m.ex.console().Input())
	}
	// A reattach after DEADLINE_EXCEEDED uses the same executionId.
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: "execute_code", Times: 1})
	m = e.press(t, m, "enter")
	last := m.ex.execState.runs[len(m.ex.execState.runs)-1]
	if last.attempt != 2 || last.err != nil || !strings.Contains(last.res.Stdout, "1") {
		t.Fatalf("reattach: attempt %d err %v res %+v", last.attempt, last.err, last.res)
	}
	// Esc goes back to the dashboard; a run in flight goes on.
	m = typeText(e, t, m, "print(2)")
	e.clk.add(DialogGrace)
	m, cmd := update(m, keyMsg("enter"))
	m, _ = update(m, keyMsg("esc"))
	e.clk.add(5 * time.Second)
	mustContain(t, m.View(), "RUNTIMES", "code running 0:05")
	m = drive(t, m, cmd)
	mustContain(t, m.View(), "code run finished")
	m = e.press(t, m, "e")
	mustContain(t, m.View(), "In ["+sid+"]: print(2)")
}

// --- clipboard and read-only ---

func TestCopyURLAndToken(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	r := m.cx.Snap.Runtime("runtimes/rt-t4demo7k2p")
	m = e.press(t, m, "y")
	if e.clip.last() != r.ConnectionInfo.URL {
		t.Fatalf("copied %q", e.clip.last())
	}
	mustContain(t, m.View(), "copied the URL of rt-t4demo7k2p")
	m = e.press(t, m, "Y")
	if e.clip.last() == r.ConnectionInfo.Token {
		t.Fatal("token copied without a reveal")
	}
	secrettest.Check(t, "the view before a reveal", m.View(), r.ConnectionInfo.Token)
	mustContain(t, m.View(), "reveal the token first")
	m = e.press(t, m, "v")
	mustContain(t, m.View(), r.ConnectionInfo.Token)
	m = e.press(t, m, "Y")
	if e.clip.last() != r.ConnectionInfo.Token {
		t.Fatal("token not copied after reveal")
	}
	m = e.press(t, m, "v")
	secrettest.Check(t, "the view after hiding the token", m.View(), r.ConnectionInfo.Token)
}

func TestReadOnly(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.ReadOnly = true })
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "d", "y", "n", "N", "o", "e", "R")
	if len(m.scr.stack) != 0 || m.ex.console() != nil || len(e.srv.Runtimes()) != 3 || e.srv.CreateCalls() != 0 {
		t.Fatal("a mutating action ran in read-only mode")
	}
	mustContain(t, m.View(), "READONLY")
	m = e.press(t, m, "?")
	v := m.View()
	for _, gone := range []string{"new runtime", "delete", "run code", "open session"} {
		if strings.Contains(v, gone) {
			t.Fatalf("read-only help offers %q:\n%s", gone, v)
		}
	}
	// Renewing a token only reads (get_runtime), so it stays.
	mustContain(t, v, "copy URL", "refresh", "renew token")
	// A disabled key says why it does nothing.
	m = e.press(t, m, "?", "n")
	mustContain(t, m.View(), "read-only mode: n (new runtime) is disabled")
	// The caller's key map is untouched.
	if !New(Options{Service: e.svc}).cx.Keys.Dashboard.DeleteRuntime.Enabled() {
		t.Fatal("read-only leaked into the default key map")
	}
}

// Dialogs, create rows and the run-code panel keep every line inside the
// terminal at every size.
func TestActionViewsFitTerminal(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m.cr.creates = append(m.cr.creates, &createOp{id: 99, spec: specT4, started: e.clk.now(), state: createWaiting, retryAt: e.clk.now().Add(time.Minute)})
	for _, setup := range []func(Model) Model{
		func(m Model) Model { return e.press(t, m, "d") },
		func(m Model) Model { return e.press(t, m, "n") },
		func(m Model) Model {
			m = e.press(t, m, "e", "y")
			return typeText(e, t, m, strings.Repeat("x", 150))
		},
	} {
		m.scr.stack, m.ex.execState.console = nil, nil // the action state is shared by copies
		m, _ = update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
		m2 := setup(m)
		if len(m2.scr.stack) == 0 {
			t.Fatal("nothing opened")
		}
		for _, sz := range sizes {
			m2, _ = update(m2, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			lines := strings.Split(m2.View(), "\n")
			if len(lines) > sz[1] {
				t.Fatalf("%v: %d lines", sz, len(lines))
			}
			for i, ln := range lines {
				if w := ansi.StringWidth(ln); w > sz[0] {
					t.Fatalf("%v: line %d is %d wide: %q", sz, i, w, ln)
				}
			}
		}
	}
}

// The config file's defaultRuntimeSpec is where the picker starts, so
// Enter, Enter, Enter walks straight to it.
func TestCreatePickerStartsOnDefaultSpec(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) {
		o.DefaultSpec = api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "A100", Shape: api.ShapeHighMem}
	})
	m = e.press(t, m, "n", "enter")
	mustContain(t, m.View(), "accelerator (GPU)")
	m = e.press(t, m, "enter")
	mustContain(t, m.View(), "shape (GPU A100)")
	m = e.press(t, m, "enter")
	mustContain(t, m.View(), "runtime version")
	if title := m.dlg().Title; !strings.Contains(title, "GPU/A100/HIGHMEM") {
		t.Fatalf("picked %q, want the default GPU/A100/HIGHMEM", title)
	}
}

// Remembering the spec is file I/O, done in a command, not in Update; a
// state directory that cannot be written is reported and the create goes
// on.
func TestLastSpecSaveFailureIsReported(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.StateDir = filepath.Join(blocker, "colabdash") })
	m.cr.lastSpec = &LastSpec{Spec: specCPU}
	m = e.press(t, m, "N", "y")
	var logged bool
	for _, ev := range m.Events() {
		logged = logged || ev.Tool == "state file" && ev.Err != nil
	}
	if !logged {
		t.Fatalf("the failed save is not in the event log: %+v", m.Events())
	}
	if e.srv.RuntimesCreated() != 1 {
		t.Fatalf("the create did not go on: %d created", e.srv.RuntimesCreated())
	}
}

// A burst from the create form (N y N y before the first
// create answered) sends one create_runtime, not two; once it answered,
// the next one goes.
func TestCreateBurstIsDebounced(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m.cr.lastSpec = &LastSpec{Spec: specCPU}
	m = e.press(t, m, "N")
	e.clk.add(DialogGrace + time.Millisecond)
	m, first := update(m, keyMsg("y")) // sent, not answered yet
	m = e.press(t, m, "N", "y")
	mustContain(t, m.View(), "a create was sent", "wait a moment")
	var logged bool
	for _, ev := range m.Events() {
		logged = logged || strings.Contains(ev.Refused, "a create was sent")
	}
	if !logged {
		t.Errorf("the refused create is not in the event log: %+v", m.Events())
	}
	m = drive(t, m, first)
	if n := e.srv.CreateCalls(); n != 1 {
		t.Fatalf("%d create_runtime calls for a burst, want 1", n)
	}
	m = e.press(t, m, "N", "y")
	if n := e.srv.RuntimesCreated(); n != 2 {
		t.Fatalf("after the first create answered, the next was refused: %d created", n)
	}
}

// The create call's connection drops, slow side: the reply is lost while Colab is still creating
// the runtime, so the re-list does not show it. The dashboard asks; the
// re-send carries the same requestId and gets the one runtime, never a
// second.
func TestCreateOutcomeUnknownResendsSameRequest(t *testing.T) {
	// Each create_runtime call waits 200 ms (then DEADLINE_EXCEEDED, the
	// creation going on); the creation goes on until the test releases
	// it; the first reply is lost.
	ready := make(chan struct{})
	e, m := emuModel(t, colabfake.Options{CreateHold: ready, CreateDeadline: 200 * time.Millisecond}, nil)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: "create_runtime", Times: 1})
	m, cmd := startCreate(t, m, e, specT4)
	m = drive(t, m, cmd)
	if e.srv.RuntimesCreated() != 0 {
		t.Fatal("the creation finished before the re-list; the test cannot see the question")
	}
	mustContain(t, m.View(), "outcome unknown", "re-send the identical request", "same requestId")
	// Colab finishes the creation; the re-send then finds it.
	close(ready)
	for deadline := time.Now().Add(10 * time.Second); e.srv.RuntimesCreated() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the emulator did not finish the creation")
		}
	}
	e.clk.add(DialogGrace + time.Millisecond)
	m, cmd = update(m, keyMsg("enter"))
	m = drive(t, m, cmd)
	if n := e.srv.CreateCalls(); n < 2 || e.srv.RuntimesCreated() != 1 {
		t.Fatalf("%d create calls, %d runtimes created: want the one runtime", n, e.srv.RuntimesCreated())
	}
	mustContain(t, m.View(), "created")
}

// In demo mode a create is remembered for N in memory, never written to
// (or read from) the user's state directory.
func TestDemoLastSpecStaysInMemory(t *testing.T) {
	var dir string
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.Demo = true; dir = o.StateDir })
	if err := SaveLastSpec(dir, &LastSpec{Spec: specCPU}); err != nil {
		t.Fatal(err)
	}
	m = e.press(t, m, "n", "down", "enter", "enter", "enter", "enter", "enter")
	if e.srv.RuntimesCreated() != 1 {
		t.Fatalf("%d created", e.srv.RuntimesCreated())
	}
	if ls, err := LoadLastSpec(dir); err != nil || ls.Spec != specCPU {
		t.Fatalf("demo create overwrote the real last spec: %+v %v", ls, err)
	}
	if m.cr.lastSpec == nil || m.cr.lastSpec.Spec != specT4 {
		t.Fatalf("demo last spec not kept in memory: %+v", m.cr.lastSpec)
	}
	m = e.press(t, m, "N")
	mustContain(t, m.View(), "Create a runtime like the last one?", "GPU/T4/STANDARD")
	// A demo dashboard does not offer the real account's last spec either.
	if n := New(Options{Service: e.svc, StateDir: dir, Demo: true}); n.cr.lastSpec != nil {
		t.Fatal("demo dashboard loaded the real last spec")
	}
}

// last-spec.json is read back at start and on every profile switch: a
// FIFO nobody writes to (hung the read forever), a link to /dev/zero (read
// without end) or a huge file in its place must give an error at once, and
// the dashboard then simply has no remembered spec (red team).
func TestLastSpecFileIsReadBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LastSpecFile)
	cases := map[string]func() error{
		"fifo":      func() error { return syscall.Mkfifo(path, 0o600) },
		"/dev/zero": func() error { return os.Symlink("/dev/zero", path) },
		"directory": func() error { return os.Mkdir(path, 0o700) },
		"huge": func() error {
			return os.WriteFile(path, []byte(`{"spec":{"variant":"VARIANT_CPU"},"x":"`+strings.Repeat("a", safefile.MaxStateFile)+`"}`), 0o600)
		},
	}
	for name, setup := range cases {
		os.RemoveAll(path)
		if err := setup(); err != nil {
			t.Fatal(err)
		}
		done := goRun(t, name+": LoadLastSpec", func() error { _, err := LoadLastSpec(dir); return err })
		select {
		case err := <-done:
			var se *safefile.Error
			if !errors.As(err, &se) || !strings.Contains(err.Error(), LastSpecFile) {
				t.Errorf("%s: LoadLastSpec = %v, want a safefile error naming %s", name, err, LastSpecFile)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: LoadLastSpec still reading after 30s", name)
		}
	}
}

// `y` on the hostile seed's runtime copied its connection URL, escape
// sequences and U+202E included, to the clipboard (OSC 52 and native), so
// a later paste replayed them into a shell or terminal (red team). A text
// with controls is now not copied and the status line says why; a clean
// URL still is.
func TestCopyRefusesControlCharacters(t *testing.T) {
	var copied []string
	e, m := emuModel(t, colabfake.Options{Seed: colabfake.SeedHostile}, func(o *Options) {
		o.CopyTo = nil
		o.Clipboard = func(s string) error { copied = append(copied, s); return nil }
	})
	m = m.selectID(t, "rt-clip"+colabfake.HostileOSC52+"board")
	m = e.press(t, m, "y")
	if len(copied) != 0 {
		t.Fatalf("copied %q", copied)
	}
	if v := m.View(); !strings.Contains(v, "copy failed") || !strings.Contains(v, "control characters") {
		t.Fatalf("no reason on the status line:\n%s", v)
	}
	e2, m2 := emuModel(t, colabfake.Options{}, func(o *Options) {
		o.CopyTo = nil
		o.Clipboard = func(s string) error { copied = append(copied, s); return nil }
	})
	m2 = m2.selectID(t, "rt-t4demo7k2p")
	e2.press(t, m2, "y")
	if len(copied) != 1 || !strings.HasSuffix(copied[0], "/proxy/rt-t4demo7k2p/") { // the emulator's own runtime proxy
		t.Fatalf("a clean URL was not copied: %q", copied)
	}
}

// S on a runtime suspends the dashboard for its shell (a tea.Exec
// command); under --readonly it is refused with the read-only line; the
// shell's end is said in the status line, the dashboard otherwise as it
// was (the same selection).
func TestShellKey(t *testing.T) {
	_, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m, cmd := update(m, keyMsg("S"))
	if cmd == nil {
		t.Fatal("S started nothing")
	}
	m, _ = update(m, shellDoneMsg{runtime: "runtimes/rt-t4demo7k2p", id: "rt-t4demo7k2p", outcome: shell.Exited})
	mustContain(t, m.View(), "shell on rt-t4demo7k2p: exited")
	if m.Selected() != "runtimes/rt-t4demo7k2p" {
		t.Errorf("selection moved to %q", m.Selected())
	}
	m, _ = update(m, shellDoneMsg{runtime: "runtimes/rt-t4demo7k2p", id: "rt-t4demo7k2p", outcome: shell.Lost,
		err: &tty.CloseError{Code: 1008, Reason: "proxy token expired"}})
	mustContain(t, m.View(), "connection lost", "1008")

	_, ro := emuModel(t, colabfake.Options{}, func(o *Options) { o.ReadOnly = true })
	ro = ro.selectID(t, "rt-t4demo7k2p")
	ro, cmd = update(ro, keyMsg("S"))
	mustContain(t, ro.View(), "read-only mode: S (shell on runtime) is disabled")
	if cmd != nil {
		if msg := cmd(); msg != nil {
			t.Errorf("read-only S returned a command giving %T", msg)
		}
	}
}

func sessionNames(ss []api.Session) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

// e runs on the session just opened with o, not on a new one.
func TestRunCodeAfterOpenUsesThatSession(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	const rt = "runtimes/rt-cpudemo4qx"
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "o")
	m = typeText(e, t, m, "mine")
	m = e.press(t, m, "enter", "e")
	mustContain(t, m.View(), "RUN CODE · rt-cpudemo4qx · session mine")
	m = typeText(e, t, m, "print(1)")
	m = e.press(t, m, "enter")
	if n := len(e.srv.Sessions(rt)); n != 2 {
		t.Fatalf("run code created another session: %v", sessionNames(e.srv.Sessions(rt)))
	}
	if got := m.ex.execState.runs[0].session; got != rt+"/sessions/mine" {
		t.Fatalf("ran on %q, want the session o opened", got)
	}
}

// e runs on the session under the cursor when the sessions panel has the
// focus, and never on a session the user closed.
func TestRunCodeTargetsSelectedSessionAndNeverAClosedOne(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	const rt = "runtimes/rt-t4demo7k2p"
	m = m.selectID(t, "rt-t4demo7k2p")
	before := sessionNames(e.srv.Sessions(rt))
	// Focus the sessions panel, move to the second session, run there.
	m = e.press(t, m, "tab", "j", "e")
	want := m.cx.Snap.Runtime(rt).Sessions[1].Name
	mustContain(t, m.View(), "· session "+api.LastSegment(want))
	m = typeText(e, t, m, "print(1)")
	m = e.press(t, m, "enter", "esc")
	if got := m.ex.execState.runs[0].session; got != want {
		t.Fatalf("ran on %q, want the selected %q", got, want)
	}
	// From the runtimes panel e goes back to the session used last.
	m = e.press(t, m, "tab", "e")
	mustContain(t, m.View(), "· session "+api.LastSegment(want))
	m = e.press(t, m, "esc")

	// Run once on a new colabdash session, then close it.
	m = e.press(t, m, "tab", "k", "tab") // first session selected, back on runtimes
	m.ex.lastSession = map[string]sessionPick{}
	m = e.press(t, m, "e")
	mustContain(t, m.View(), "Open a new session on rt-t4demo7k2p?")
	m = e.press(t, m, "y")
	m = typeText(e, t, m, "print(2)")
	m = e.press(t, m, "enter", "esc")
	own := m.ex.console().Session()
	if own == "" || slices.Contains(before, own) {
		t.Fatalf("run code did not open a new session: %q", own)
	}
	m = e.press(t, m, "tab")
	for i, s := range m.cx.Snap.Runtime(rt).Sessions {
		if s.Name == own {
			m.sess.SetCursor(i)
		}
	}
	m = e.press(t, m, "x", "y", "tab")
	if slices.Contains(sessionNames(e.srv.Sessions(rt)), own) {
		t.Fatal("close did not close the session")
	}
	// e must not reuse (and so resurrect) the closed session: it asks.
	m = e.press(t, m, "e")
	mustContain(t, m.View(), "Open a new session on rt-t4demo7k2p?")
	m = e.press(t, m, "y")
	m = typeText(e, t, m, "print(3)")
	m = e.press(t, m, "enter", "esc", "r")
	if slices.Contains(sessionNames(e.srv.Sessions(rt)), own) {
		t.Fatal("the closed session came back: run code used it again")
	}
	if last := m.ex.execState.runs[len(m.ex.execState.runs)-1]; last.session == own || last.err != nil {
		t.Fatalf("last run on %q err %v", last.session, last.err)
	}
}

// Each session has its own transcript, and each In:
// names its session.
func TestConsoleTranscriptBelongsToItsSession(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "tab", "e") // the first session
	first := m.ex.console().Session()
	m = typeText(e, t, m, "print('first')")
	m = e.press(t, m, "enter", "esc", "j", "e") // the second session
	second := m.ex.console().Session()
	if first == second {
		t.Fatal("j did not choose another session")
	}
	v := m.View()
	if strings.Contains(v, "first") {
		t.Fatalf("the second session's console shows the first one's run:\n%s", v)
	}
	m = typeText(e, t, m, "print('second')")
	m = e.press(t, m, "enter")
	mustContain(t, m.View(), "In ["+api.LastSegment(second)+"]: print('second')")
	m = e.press(t, m, "esc", "k", "e")
	v = m.View()
	mustContain(t, v, "In ["+api.LastSegment(first)+"]: print('first')", "  first")
	if strings.Contains(v, "second") {
		t.Fatalf("the first session's console shows the second one's run:\n%s", v)
	}
}

// ctrl+c never quits from the console. Idle, it clears the input; while
// code runs it offers to stop it, saying that stopping closes the session
// and discards its state; y closes the session (delete_session), which
// ends the run.
func TestConsoleCtrlCStopsInsteadOfQuitting(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "tab", "e")
	sess := m.ex.console().Session()
	m = typeText(e, t, m, "x = 1")
	m, cmd := update(m, keyMsg("ctrl+c"))
	if cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("ctrl+c quit from the console")
		}
	}
	if m.ex.console().Input() != "" || !topIs[*console.Overlay](m.scr) {
		t.Fatalf("idle ctrl+c: input %q", m.ex.console().Input())
	}
	// A long run (the emulator sleeps an hour).
	m = typeText(e, t, m, "print('start')")
	e.clk.add(DialogGrace)
	m, runCmd := update(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("\ntime.sleep(3600)"), Paste: true})
	m, runCmd = update(m, keyMsg("enter"))
	done := goRun(t, "enter on the console's long run", runCmd)
	mustContain(t, m.View(), "running…")
	for deadline := time.Now().Add(30 * time.Second); e.srv.RunningCode(sess) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the run never started on the server")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The kernel cannot be interrupted through the runtime proxy (its
	// Jupyter server fails): ctrl+c falls back to offering the stop.
	e.srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "api/sessions", Status: 503, Times: -1})
	m = e.press(t, m, "ctrl+c")
	mustContain(t, strings.Join(strings.Fields(m.View()), " "), "could not interrupt")
	d := m.dlg()
	if d == nil || d.Title != "Stop the running code?" {
		t.Fatalf("ctrl+c while code runs did not offer to stop it:\n%s", m.View())
	}
	mustContain(t, strings.Join(strings.Fields(m.View()), " "), "Stop the running code?", "delete_session", "discards", "state")
	m = e.press(t, m, "y")
	for _, s := range e.srv.Sessions("runtimes/rt-t4demo7k2p") {
		if s.Name == sess {
			t.Fatal("y did not close the session")
		}
	}
	// The run's own answer (ABORTED) arrives late and is dropped; the
	// transcript already says it stopped.
	select {
	case msg := <-done:
		m, _ = update(m, msg)
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end when its session was closed")
	}
	v := m.View()
	mustContain(t, v, "✕ stopped: the session was closed", "no session (enter asks to open one)")
	if strings.Contains(v, "running…") {
		t.Fatalf("still running:\n%s", v)
	}
	// The next run asks before opening a new session.
	m = typeText(e, t, m, "print(2)")
	m = e.press(t, m, "enter")
	mustContain(t, m.View(), "Open a new session on rt-t4demo7k2p?")
	m = e.press(t, m, "y", "enter")
	if ns := m.ex.console().Session(); ns == sess || ns == "" {
		t.Fatalf("console session after stop: %q", ns)
	}
	mustContain(t, m.View(), "]: print(2)", "  2")
}

// Multi-line input: a paste keeps its lines, alt+enter and ctrl+j add a
// line, enter on an open block adds a line, and enter on a complete
// statement runs the whole input.
func TestConsoleMultiLineInput(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "tab", "e")
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("print(1)\r\nprint(2)"), Paste: true})
	if got := m.ex.console().Input(); got != "print(1)\nprint(2)" {
		t.Fatalf("paste: %q", got)
	}
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
	m = typeText(e, t, m, "print(3)")
	m, _ = update(m, tea.KeyMsg{Type: tea.KeyCtrlJ})
	m = typeText(e, t, m, "for i in range(2):")
	m = e.press(t, m, "enter") // an open block: a new line, not a run
	m = typeText(e, t, m, "    print(i)")
	m = e.press(t, m, "enter") // still inside the block
	if got := m.ex.console().Input(); got != "print(1)\nprint(2)\nprint(3)\nfor i in range(2):\n    print(i)\n" {
		t.Fatalf("input: %q", got)
	}
	mustContain(t, m.View(), ">>> ", "... ")
	m = e.press(t, m, "enter") // the empty line closes the block: it runs
	runs := m.ex.execState.runs
	if len(runs) != 1 || runs[0].code != "print(1)\nprint(2)\nprint(3)\nfor i in range(2):\n    print(i)" {
		t.Fatalf("runs: %+v", runs)
	}
	if got := runs[0].res.Stdout; got != "1\n2\n3\n0\n1\n" {
		t.Fatalf("stdout %q", got)
	}
}

// bigRuns are n finished runs of 2 MB of output each (40,000 lines of 50
// bytes).
func bigRuns(at time.Time, n int) []*execRun {
	var b strings.Builder
	for i := 0; i < 40000; i++ {
		fmt.Fprintf(&b, "output line %-38d\n", i)
	}
	out := b.String()
	var runs []*execRun
	for i := 0; i < n; i++ {
		runs = append(runs, &execRun{id: i + 1, code: "big()", done: true, started: at, res: api.ExecuteCodeResult{Stdout: out}})
	}
	return runs
}

// BenchmarkConsoleView renders the console over ten 2 MB outputs: the cost
// follows the screen, not what was printed.
func BenchmarkConsoleView(b *testing.B) {
	_, clk, m := fixture(b)
	m, _ = update(m, tea.WindowSizeMsg{Width: 160, Height: 48})
	m = withConsole(m, "runtimes/r-alpha", "runtimes/r-alpha/sessions/colabdash-1a2b", bigRuns(clk.now(), 10), "")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if v := m.View(); !strings.Contains(v, "✓ done") {
			b.Fatal("no output")
		}
	}
}

// A question an answer brings never lands on the dialog the user is
// answering: a create that fails while "Delete runtime …?" is open leaves
// the y typed for that dialog to it, and its own choices open once the
// user is back on the dashboard.
func TestAnswerDialogWaitsForTheLayerItWasAskedFrom(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "create_runtime", Times: 1,
		Text: colabfake.GoogleErrorText(api.PermissionDenied, "The caller does not have permission.", "", 0)})
	m, create := startCreate(t, m, e, specT4)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "d")
	mustContain(t, m.View(), "Delete runtime rt-t4demo7k2p?")
	m = drive(t, m, create) // the create fails while the user reads the question
	if d := m.dlg(); d == nil || !strings.HasPrefix(d.Title, "Delete runtime ") {
		t.Fatalf("the failed create's choices opened over the delete question:\n%s", m.View())
	}
	mustContain(t, strings.Join(strings.Fields(m.View()), " "), "failed", "opens when you are back on the dashboard")
	m = e.press(t, m, "y")
	if serverHas(e.srv, "runtimes/rt-t4demo7k2p") {
		t.Fatalf("the y typed for the delete question did not answer it:\n%s", m.View())
	}
	if d := m.dlg(); d == nil || d.Kind() != dialog.Choice {
		t.Fatalf("the failed create's choices did not open once the dashboard was back:\n%s", m.View())
	}
}

// The console asked for with e opens on its new session when that session
// is there, but not over the files pane the user opened meanwhile: it
// waits until the pane is closed, and the pane keeps its keys.
func TestConsoleForANewSessionWaitsForTheDashboard(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "e")
	mustContain(t, m.View(), "Open a new session on rt-t4demo7k2p?")
	e.clk.add(DialogGrace + time.Millisecond)
	m, open := update(m, keyMsg("y")) // create_session, answered later
	m = e.press(t, m, "f")
	m = drive(t, m, open)
	if !topIs[*files.Overlay](m.scr) {
		t.Fatalf("the console opened over the files pane:\n%s", m.View())
	}
	m = e.press(t, m, "esc")
	if !topIs[*console.Overlay](m.scr) {
		t.Fatalf("the console did not open once the files pane closed:\n%s", m.View())
	}
	mustContain(t, m.View(), "RUN CODE")
}

// The runtimes table's marks, sort keys and layout, driven
// through the whole app.

// rowLine is the table line of runtime id in view v ("" when absent).
func rowLine(v, id string) string {
	for _, ln := range strings.Split(v, "\n") {
		if strings.Contains(ln, " "+id+" ") || strings.Contains(ln, "*"+id+" ") {
			return ln
		}
	}
	return ""
}

// Space marks a row (a "*" cell, so it reads without colour) and moves
// down; d then asks ONE y-only question listing every marked runtime,
// and y deletes exactly those.
func TestMarksThenOneQuestionDeletesEveryMarkedRow(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "space", "space")
	v := m.View()
	if m.Selected() != "runtimes/rt-v6edemo2mw" {
		t.Fatalf("space did not move the cursor down: selected %s", m.Selected())
	}
	for _, id := range []string{"rt-cpudemo4qx", "rt-t4demo7k2p"} {
		if ln := rowLine(v, id); !strings.HasPrefix(ln, "  *"+id) {
			t.Fatalf("%s is not shown marked: %q\n%s", id, ln, v)
		}
	}
	if ln := rowLine(v, "rt-v6edemo2mw"); !strings.HasPrefix(ln, "›  rt-v6edemo2mw") {
		t.Fatalf("the unmarked row reads %q", ln)
	}
	mustContain(t, v, "RUNTIMES 3 · 2 marked", "marked rt-t4demo7k2p · 2 runtimes marked: d deletes them")

	m = e.press(t, m, "d")
	v = m.View()
	mustContain(t, v, "Delete 2 marked runtimes?", "rt-cpudemo4qx (CPU, accelerator NONE, 1 session(s))",
		"rt-t4demo7k2p (GPU, accelerator T4, 2 session(s))", "y confirm")
	if strings.Contains(v, "rt-v6edemo2mw (") { // how the question lists a runtime
		t.Fatalf("the question lists the unmarked runtime:\n%s", v)
	}
	m = e.press(t, m, "y")
	if serverHas(e.srv, "runtimes/rt-cpudemo4qx") || serverHas(e.srv, "runtimes/rt-t4demo7k2p") ||
		!serverHas(e.srv, "runtimes/rt-v6edemo2mw") || e.srv.CallCount(api.ToolDeleteRuntime) != 2 {
		t.Fatalf("after y: %v (%d deletes)", e.srv.Runtimes(), e.srv.CallCount(api.ToolDeleteRuntime))
	}
	v = m.View()
	if strings.Contains(v, "marked") || m.dlg() != nil {
		t.Fatalf("marks or the question outlived the delete:\n%s", v)
	}
	// The status line names both, not only the last to answer.
	mustContain(t, v, "✓ deleted 2 runtimes: rt-")
}

// Any key but y cancels the bulk question and keeps the marks; the answer
// deletes the runtimes listed when it opened even if the marks change.
func TestBulkDeleteCancelsAndActsOnWhatItListed(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "space", "d", "enter")
	if m.dlg() != nil || e.srv.CallCount(api.ToolDeleteRuntime) != 0 || !m.rt.IsMarked("runtimes/rt-cpudemo4qx") {
		t.Fatal("enter did not cancel the bulk delete, or dropped the mark")
	}
	m = e.press(t, m, "d")
	m.rt.ClearMarks() // the marks change under the open question
	m = e.press(t, m, "y")
	if serverHas(e.srv, "runtimes/rt-cpudemo4qx") || len(e.srv.Runtimes()) != 2 {
		t.Fatalf("the listed runtime was not the one deleted: %v", e.srv.Runtimes())
	}
}

// Marks are by name: they follow a runtime through a re-sort, drop when
// it disappears, and a bulk key acts only on marked rows the table shows.
func TestMarksFollowTheRuntimeAndActOnlyOnWhatIsShown(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "space", "O") // marked, then the order reversed
	if ln := rowLine(m.View(), "rt-t4demo7k2p"); !strings.HasPrefix(ln, "  *rt-t4demo7k2p") {
		t.Fatalf("the mark did not follow the re-sort: %q", ln)
	}
	// Hidden by the filter: d acts on nothing and says why.
	m = e.press(t, m, "/", "c", "p", "u", "enter", "d")
	if m.dlg() != nil {
		t.Fatalf("d opened a question with every mark hidden:\n%s", m.View())
	}
	mustContain(t, m.View(), "1 marked runtime hidden by the filter, none shown: esc clears the filter")
	m = e.press(t, m, "esc", "d")
	mustContain(t, m.View(), "Delete 1 marked runtime?", "rt-t4demo7k2p (GPU")
	m = e.press(t, m, "esc")
	// The runtime disappears (reclaimed): its mark drops with it.
	e.srv.Reclaim("runtimes/rt-t4demo7k2p")
	m = drive(t, m, tea.Batch(m.calls.refresh(e.clk.now(), true)...))
	if m.rt.IsMarked("runtimes/rt-t4demo7k2p") || strings.Contains(m.View(), "marked") {
		t.Fatalf("a gone runtime kept its mark:\n%s", m.View())
	}
	// A gone row cannot be marked.
	m = m.selectID(t, "rt-t4demo7k2p")
	m = e.press(t, m, "space")
	mustContain(t, m.View(), "rt-t4demo7k2p is gone: it cannot be marked")
	// ctrl+\ clears the marks.
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "space", `ctrl+\`)
	if m.rt.IsMarked("runtimes/rt-cpudemo4qx") {
		t.Fatal(`ctrl+\ kept the mark`)
	}
	mustContain(t, m.View(), "cleared 1 mark")
}

// x with marked rows (the table focused) closes, after one question, the
// sessions colabdash opened on them; notebook sessions are left alone and
// the question says so.
func TestBulkCloseClosesOnlyOwnSessions(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m = m.selectID(t, "rt-v6edemo2mw")
	m = e.press(t, m, "o", "enter") // a colabdash-… session on the v6e
	if len(e.srv.Sessions("runtimes/rt-v6edemo2mw")) != 1 {
		t.Fatal("no session opened")
	}
	own := e.srv.Sessions("runtimes/rt-v6edemo2mw")[0]
	m = m.selectID(t, "rt-cpudemo4qx")
	m = e.press(t, m, "space")
	m = m.selectID(t, "rt-v6edemo2mw")
	m = e.press(t, m, "space", "x")
	mustContain(t, m.View(), "Close 1 session on 2 marked runtimes?", "rt-v6edemo2mw · "+own.ID(),
		"1 notebook session (not opened by colabdash) left alone")
	m = e.press(t, m, "y")
	if len(e.srv.Sessions("runtimes/rt-v6edemo2mw")) != 0 || len(e.srv.Sessions("runtimes/rt-cpudemo4qx")) != 1 {
		t.Fatalf("after y: v6e %v, cpu %v", e.srv.Sessions("runtimes/rt-v6edemo2mw"), e.srv.Sessions("runtimes/rt-cpudemo4qx"))
	}
	if m.rt.IsMarked("runtimes/rt-v6edemo2mw") || m.rt.IsMarked("runtimes/rt-cpudemo4qx") {
		t.Fatal("marks outlived the close")
	}
}

// A key per column sorts by it, the same key again (or O) reverses; the
// header's arrow says which column and which way; gone rows stay last.
func TestSortKeysAndTheHeaderArrow(t *testing.T) {
	for _, tc := range []struct {
		keys          []string
		header, order string
	}{
		{nil, "NAME↑", "r-alpha r-bravo r-charlie r-delta r-echo"},
		{[]string{"A"}, "NAME↓", "r-delta r-charlie r-bravo r-alpha r-echo"},
		{[]string{"T"}, "TOKEN↑", "r-charlie r-bravo r-alpha r-delta r-echo"},
		{[]string{"T", "T"}, "TOKEN↓", "r-delta r-alpha r-bravo r-charlie r-echo"},
		{[]string{"T", "O"}, "TOKEN↓", "r-delta r-alpha r-bravo r-charlie r-echo"},
		{[]string{"E"}, "SESS↑", "r-bravo r-charlie r-delta r-alpha r-echo"},
		{[]string{"E", "O"}, "SESS↓", "r-alpha r-bravo r-charlie r-delta r-echo"},
		{[]string{"C"}, "SPEC↑", "r-bravo r-delta r-alpha r-charlie r-echo"},
		{[]string{"V"}, "VERSION↑", "r-delta r-alpha r-bravo r-charlie r-echo"},
		{[]string{"V", "V"}, "VERSION↓", "r-bravo r-charlie r-alpha r-delta r-echo"}, // ties keep their name order
	} {
		_, _, m := fixture(t)
		for _, k := range tc.keys {
			m, _ = update(m, keyMsg(k))
		}
		v := m.View()
		if got := rowIDs(m); got != tc.order {
			t.Errorf("%v: rows %s, want %s", tc.keys, got, tc.order)
		}
		header := strings.Split(v, "\n")[3]
		if !strings.Contains(header, tc.header) || strings.Count(header, "↑")+strings.Count(header, "↓") != 1 {
			t.Errorf("%v: header %q, want one arrow on %s", tc.keys, header, tc.header)
		}
	}
}

// At 200 columns NAME takes the width: the selected row (reverse video)
// spans the screen and the other columns sit at its right edge.
func TestWideScreenNameTakesTheWidth(t *testing.T) {
	for _, w := range []int{160, 200} {
		_, _, m := fixture(t)
		m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: 40})
		lines := strings.Split(m.View(), "\n")
		sel := lines[4]
		if !strings.HasPrefix(sel, "›  r-alpha") || ansi.StringWidth(sel) != w {
			t.Fatalf("%d columns: the selected row is %d cells: %q", w, ansi.StringWidth(sel), sel)
		}
		// TOKEN (24 cells) ends the header at the right edge.
		if at := ansi.StringWidth(lines[3][:strings.Index(lines[3], "TOKEN")]); at != w-24+3 {
			t.Fatalf("%d columns: TOKEN at %d, want %d: %q", w, at, w-24+3, lines[3])
		}
	}
}

// enter answers visibly in every layout: split layouts of 100–125
// columns widen the details too (the default 100×30 frame is unchanged
// until enter), and a tall stacked screen that already shows every
// detail says so.
func TestEnterIsVisibleInEveryLayout(t *testing.T) {
	_, _, m := fixture(t)
	// Each layout's edges: stacked below 100, split 100–125 (sessions no
	// wider than a session id), split beyond.
	for _, w := range []int{MinWidth, 79, 80, 99, 100, 112, 125, 126, 160, 200} {
		for _, h := range []int{MinHeight, 24, 30, 45} {
			m.scr.showDetails, m.cx.Status.Text = false, ""
			m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: h})
			before := m.View()
			m, _ = update(m, keyMsg("enter"))
			after := m.View()
			if before == after {
				t.Fatalf("%dx%d: enter changed nothing on screen:\n%s", w, h, after)
			}
			if !m.scr.showDetails && !strings.Contains(after, "the details show every line at this size already") {
				t.Fatalf("%dx%d: details not expanded and nothing said", w, h)
			}
		}
	}
	// 110×30, split: the sessions panel gives width to the details.
	m.scr.showDetails = false
	m, _ = update(m, tea.WindowSizeMsg{Width: 110, Height: 30})
	sep := func(v string) int { return strings.Index(strings.Split(v, "\n")[18], "│") }
	before := sep(m.View())
	m, _ = update(m, keyMsg("enter"))
	if after := sep(m.View()); after >= before || !m.scr.showDetails {
		t.Fatalf("110×30: the details did not widen (separator %d → %d)", before, after)
	}
}

// Every size the dashboard lays out: expanding the details changes the
// layout, except on a stacked screen whose details already have every
// line (where enter says so instead).
func TestExpandedLayoutDiffersWhereThereIsMoreToShow(t *testing.T) {
	for _, monitoring := range []bool{false, true} {
		for w := MinWidth; w <= 260; w++ {
			for h := MinHeight; h <= 80; h++ {
				l, x := newLayout(w, h, false, monitoring), newLayout(w, h, true, monitoring)
				if l != x {
					continue
				}
				if l.Split || l.BottomRows+1-l.SessLines < detailsHeight(monitoring) {
					t.Fatalf("%dx%d (monitoring %v): expanding changes nothing though the details lack room: %+v", w, h, monitoring, l)
				}
			}
		}
	}
}
