package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/ops"
)

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
	e.clk.add(dialogGrace + time.Millisecond)
	m, cmd := update(m, keyMsg("enter"))
	e.clk.add(2 * time.Second)
	mustContain(t, rowOf(t, m.View(), "my-gpu"), " + my-gpu ", " GPU/T4/STANDARD ", " creating… 2s")
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
	b, err := os.ReadFile(filepath.Join(e.dir, ops.LastSpecFile))
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
	if live := liveRuntimes(m); live != 5 || len(m.cr.creates) != 0 {
		t.Fatalf("%d live rows after the stale list, %d creates pending:\n%s", live, len(m.cr.creates), m.View())
	}
	// The next list agrees.
	m = drive(t, m, tea.Batch(m.calls.refresh(e.clk.now(), true)...))
	if n := strings.Count(m.View(), "GONE"); n != 0 {
		t.Fatalf("%d rows gone:\n%s", n, m.View())
	}
}

// createCase is one create a test's dashboard meets, given the server's
// counts at the case's start.
type createCase func(t *testing.T, e *emu, m Model, was createCounts) Model

// createCounts are the server's create_runtime calls and runtimes
// created when a case starts.
type createCounts struct{ calls, created int }

// wantSince fails t unless the emulator has had calls create_runtime calls
// and created runtimes since was.
func (was createCounts) wantSince(t *testing.T, e *emu, calls, created int) {
	t.Helper()
	if e.srv.CreateCalls() != was.calls+calls || e.srv.RuntimesCreated() != was.created+created {
		t.Fatalf("create calls %d, runtimes created %d; want %d, %d", e.srv.CreateCalls()-was.calls, e.srv.RuntimesCreated()-was.created, calls, created)
	}
}

// createDashboard is the demo dashboard the create tests share between
// their cases: the emulator's runtime limit and create quota are off (the
// cases create runtimes beside the seed's three), so that the only
// refusals are the cases' own.
func createDashboard(t *testing.T) (*emu, Model) {
	return emuModel(t, colabfake.Options{RuntimeLimit: -1, CreatesPerMinute: -1}, nil)
}

// createCaseRun runs c as a subtest on the shared dashboard, from nothing
// open, no create under way and no fault left from the case before.
func createCaseRun(t *testing.T, name string, e *emu, m *Model, c createCase) {
	t.Run(name, func(t *testing.T) {
		e.srv.ClearFaults()
		*m = e.closeAll(t, *m, "rt-t4demo7k2p")
		if n := len(m.cr.creates); n != 0 {
			t.Fatalf("%d creates under way before the case", n)
		}
		*m = c(t, e, *m, createCounts{e.srv.CreateCalls(), e.srv.RuntimesCreated()})
	})
}

// createFaulted injects fault, sends a create of spec and drives it to its
// end (or its first wait).
func createFaulted(t *testing.T, e *emu, m Model, fault colabfake.Fault, spec api.RuntimeSpecKey) Model {
	t.Helper()
	e.srv.Inject(fault)
	m, cmd := startCreate(t, m, e, spec)
	return drive(t, m, cmd)
}

// A create whose outcome is lost on the way, on one dashboard. The
// connection drops after create_runtime was sent: the outcome is unknown;
// the dashboard re-lists, shows the runtime it finds and never creates a
// second one. Then DEADLINE_EXCEEDED re-sends the identical call: one
// runtime.
func TestCreateConnectionDropsAfterSending(t *testing.T) {
	e, m := createDashboard(t)
	createCaseRun(t, "connection drops after sending", e, &m, func(t *testing.T, e *emu, m Model, was createCounts) Model {
		liveT4 := func() int {
			live := 0
			for r := range m.cx.Snap.All() {
				if !r.Gone() && r.RuntimeSpec == specT4 {
					live++
				}
			}
			return live
		}
		before := liveT4()
		m = createFaulted(t, e, m, colabfake.Fault{Kind: colabfake.FaultReset, Tool: "create_runtime", Times: 1}, specT4)
		was.wantSince(t, e, 1, 1)
		v := m.View()
		mustContain(t, v, "outcome was unknown", "found new runtime", "not creating again")
		if live := liveT4(); live != before+1 { // the T4s there were and the new one
			t.Fatalf("%d T4 rows, %d before:\n%s", live, before, v)
		}
		// Ticks do not re-send it.
		e.clk.add(time.Minute)
		m = e.tick(t, m)
		if e.srv.CreateCalls() != was.calls+1 {
			t.Fatal("created again after an unknown outcome")
		}
		return m
	})
	createCaseRun(t, "deadline re-sends", e, &m, createDeadlineResends)
}

// DEADLINE_EXCEEDED re-sends the identical call: one runtime.
func createDeadlineResends(t *testing.T, e *emu, m Model, was createCounts) Model {
	m = createFaulted(t, e, m, colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: "create_runtime", Times: 1}, specT4)
	was.wantSince(t, e, 2, 1)
	mustContain(t, m.View(), "created ")
	return m
}

// A create refused for a while is retried with a visible countdown, on
// one dashboard. No capacity (HTTP 503 UNAVAILABLE) is retried with a
// growing countdown; after the last attempt other eligible specs are
// offered, never a silent downgrade. A rate limit (RESOURCE_EXHAUSTED
// with RetryInfo 53s): a visible countdown, the identical call after it,
// and a key to cancel.
func TestCreateCapacityUnavailable(t *testing.T) {
	e, m := createDashboard(t)
	createCaseRun(t, "capacity unavailable", e, &m, func(t *testing.T, e *emu, m Model, was createCounts) Model {
		m = createFaulted(t, e, m, colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: "create_runtime", Times: 1000, Status: 503,
			Body: `{"error":{"code":503,"status":"UNAVAILABLE","message":"No capacity"}}`}, specA100)
		mustContain(t, m.View(), "capacity unavailable, retrying 2/5 in 10s")
		for i := 1; i < maxCreateAttempts; i++ {
			if op := m.cr.creates[0]; op.attempt != i || op.state != createWaiting {
				t.Fatalf("attempt %d state %d, want %d waiting", op.attempt, op.state, i)
			}
			e.clk.add(defaultCreateRetry<<(i-1) - time.Second)
			m = e.tick(t, m)
			if m.cr.creates[0].attempt != i {
				t.Fatal("re-sent before the countdown ended")
			}
			e.clk.add(time.Second)
			m = e.tick(t, m)
		}
		if len(m.cr.creates) != 0 || e.srv.RuntimesCreated() != was.created {
			t.Fatalf("%d creates pending, created %d", len(m.cr.creates), e.srv.RuntimesCreated()-was.created)
		}
		v := m.View()
		mustContain(t, v, "Create gave up after 5 attempts", "create GPU/T4/STANDARD instead")
		if strings.Contains(v, "retrying") {
			t.Fatalf("still retrying:\n%s", v)
		}
		return m
	})
	createCaseRun(t, "rate limited, cancelled", e, &m, createRateLimitedCancelled)
	createCaseRun(t, "rate limited, waits and re-sends", e, &m, createRateLimitedWaits)
}

var createRateLimit = colabfake.Fault{Kind: colabfake.FaultToolError, Tool: "create_runtime", Times: 1,
	Text: colabfake.GoogleErrorText(api.ResourceExhausted, "Quota exceeded for requests per minute per user.", "", 53*time.Second)}

func createRateLimitedCancelled(t *testing.T, e *emu, m Model, was createCounts) Model {
	m = createFaulted(t, e, m, createRateLimit, specT4)
	m = e.press(t, m, "c")
	e.clk.add(time.Minute)
	m = e.tick(t, m)
	if e.srv.CreateCalls() != was.calls+1 || len(m.cr.creates) != 0 || strings.Contains(m.View(), "retrying") {
		t.Fatalf("cancel did not stop the retry: %d calls", e.srv.CreateCalls()-was.calls)
	}
	return m
}

func createRateLimitedWaits(t *testing.T, e *emu, m Model, was createCounts) Model {
	m = createFaulted(t, e, m, createRateLimit, specT4)
	mustContain(t, m.View(), "rate limited, retrying 2/5 in 53s", "c cancel")
	e.clk.add(50 * time.Second)
	m = e.tick(t, m)
	mustContain(t, m.View(), "in 3s")
	if e.srv.CreateCalls() != was.calls+1 {
		t.Fatal("re-sent before the retry delay")
	}
	e.clk.add(3 * time.Second)
	m = e.tick(t, m)
	was.wantSince(t, e, 2, 1)
	mustContain(t, m.View(), "created ")
	return m
}

// A refusal offers the next steps that can work, on one dashboard: the
// accelerators available, a CPU runtime past the usage quota, a runtime
// to delete past the limit of active runtimes (rt-v6edemo2mw deleted: the
// last case).
func TestCreateFailedPreconditionNextSteps(t *testing.T) {
	e, m := createDashboard(t)
	createCaseRun(t, "accelerator unavailable: offer the others", e, &m, createAcceleratorUnavailable)
	createCaseRun(t, "usage quota: offer a CPU runtime", e, &m, createUsageQuotaOffersCPU)
	createCaseRun(t, "too many runtimes: offer to delete one", e, &m, func(t *testing.T, e *emu, m Model, _ createCounts) Model {
		runtimes := len(e.srv.Runtimes())
		m = createFaulted(t, e, m, colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Times: 1,
			Code: api.FailedPrecondition, Reason: api.ReasonTooManyActiveRuntimes, Message: "too many"}, specT4)
		mustContain(t, m.View(), "Too many active runtimes", "may still count", "delete rt-cpudemo4qx")
		for !strings.Contains(m.dlg().Items[m.dlg().Cursor()].Label, "rt-v6edemo2mw") {
			m = e.press(t, m, "down")
		}
		m = e.press(t, m, "enter")
		mustContain(t, m.View(), "Delete runtime rt-v6edemo2mw?", "cannot be undone")
		m = e.press(t, m, "y")
		if serverHas(e.srv, "runtimes/rt-v6edemo2mw") || len(e.srv.Runtimes()) != runtimes-1 {
			t.Fatalf("runtimes %v", e.srv.Runtimes())
		}
		return m
	})
}

func createAcceleratorUnavailable(t *testing.T, e *emu, m Model, _ createCounts) Model {
	m = createFaulted(t, e, m, colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Times: 1,
		Code: api.FailedPrecondition, Message: "no capacity"}, specA100)
	v := m.View()
	mustContain(t, v, "Accelerator A100 unavailable", "create GPU/T4/STANDARD", "create GPU/L4/HIGHMEM")
	for _, it := range m.dlg().Items {
		if strings.Contains(it.Label, "H100") || strings.Contains(it.Label, "A100") || strings.Contains(it.Label, "CPU") {
			t.Fatalf("offered %q:\n%s", it.Label, v)
		}
	}
	return m
}

func createUsageQuotaOffersCPU(t *testing.T, e *emu, m Model, was createCounts) Model {
	runtimes := len(e.srv.Runtimes())
	m = createFaulted(t, e, m, colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: "create_runtime", Times: 1,
		Code: api.ResourceExhausted, Reason: api.ReasonQuotaExceededUsageTime, Message: "usage limit"}, specT4)
	mustContain(t, m.View(), "Usage limit reached (QUOTA_EXCEEDED_USAGE_TIME)", "Pro tier", "create a CPU runtime (CPU/STANDARD)")
	if e.srv.CreateCalls() != was.calls+1 {
		t.Fatal("quota was retried")
	}
	m = e.press(t, m, "enter")          // CPU
	m = e.press(t, m, "enter", "enter") // version, id
	if rs := e.srv.Runtimes(); e.srv.RuntimesCreated() != was.created+1 || len(rs) != runtimes+1 || rs[runtimes].RuntimeSpec != specCPU {
		t.Fatalf("CPU runtime not created: %v\n%s", rs, m.View())
	}
	return m
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

// A burst from the create form (N y N y before the first
// create answered) sends one create_runtime, not two; once it answered,
// the next one goes.
func TestCreateBurstIsDebounced(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	m.cr.lastSpec = &ops.LastSpec{Spec: specCPU}
	m = e.press(t, m, "N")
	e.clk.add(dialogGrace + time.Millisecond)
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

// The connection drops after create_runtime was sent, slow side: the
// reply is lost while Colab is still creating the runtime, so the
// re-list does not show it. The dashboard asks; the
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
	e.clk.add(dialogGrace + time.Millisecond)
	m, cmd = update(m, keyMsg("enter"))
	m = drive(t, m, cmd)
	if n := e.srv.CreateCalls(); n < 2 || e.srv.RuntimesCreated() != 1 {
		t.Fatalf("%d create calls, %d runtimes created: want the one runtime", n, e.srv.RuntimesCreated())
	}
	mustContain(t, m.View(), "created")
}

// create_runtime answering with another runtime than the one asked for
// (an id given): the dashboard neither selects it nor calls it created,
// and opens nothing on it.
func TestCreateAnsweredWithAnotherRuntimeIsNotUsed(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, nil)
	victim := e.srv.Runtimes()[0].Name
	op := json.RawMessage(`{"name":"operations/1","done":true,"response":` + string(runtimeJSON(t, victim, e.clk.now().Add(time.Hour))) + `}`)
	e.srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: api.ToolCreateRuntime, Output: op})
	sessionsBefore := e.srv.CallCount(api.ToolListSessions)
	cmd := m.cr.startCreate(specT4, "", "mine", e.clk.now())
	m = drive(t, m, cmd)
	if m.Selected() == victim {
		t.Errorf("the runtime the server named instead (%s) was selected", victim)
	}
	mustContain(t, m.View(), "not the runtime mine")
	if n := e.srv.CallCount(api.ToolListSessions) - sessionsBefore; n != 0 {
		t.Errorf("%d list_sessions call(s) after the create: it acted on %s", n, victim)
	}
	if len(m.cr.creates) != 0 {
		t.Errorf("the create is still pending: %d", len(m.cr.creates))
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
	m.cr.lastSpec = &ops.LastSpec{Spec: specCPU}
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

// In demo mode a create is remembered for N in memory, never written to
// (or read from) the user's state directory.
func TestDemoLastSpecStaysInMemory(t *testing.T) {
	var dir string
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.Demo = true; dir = o.StateDir })
	if err := ops.SaveLastSpec(dir, &ops.LastSpec{Spec: specCPU}); err != nil {
		t.Fatal(err)
	}
	m = e.press(t, m, "n", "down", "enter", "enter", "enter", "enter", "enter")
	if e.srv.RuntimesCreated() != 1 {
		t.Fatalf("%d created", e.srv.RuntimesCreated())
	}
	if ls, err := ops.LoadLastSpec(dir); err != nil || ls.Spec != specCPU {
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

// Before any create, N offers the config's defaultRuntimeSpec (a T4 in
// two keys once the config names it) rather than refusing: the question
// names the spec and where it comes from, and y creates it.
func TestQuickCreateBeforeAnyCreateUsesTheDefaultSpec(t *testing.T) {
	e, m := emuModel(t, colabfake.Options{}, func(o *Options) { o.DefaultSpec = specT4 })
	if m.cr.lastSpec != nil {
		t.Fatal("a last spec before any create")
	}
	m = e.press(t, m, "N")
	mustContain(t, m.View(), "Create a runtime of your default spec?", "GPU/T4/STANDARD", "defaultRuntimeSpec")
	m = e.press(t, m, "y")
	if e.srv.RuntimesCreated() != 1 {
		t.Fatalf("N y before any create: %d created", e.srv.RuntimesCreated())
	}
	for _, r := range e.srv.Runtimes() {
		if r.RuntimeSpec == specT4 && r.Name != "runtimes/rt-t4demo7k2p" {
			return
		}
	}
	t.Fatalf("no new T4 among %v", e.srv.Runtimes())
}
