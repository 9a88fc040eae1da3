package ui

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/picker"
	"github.com/google/uuid"
)

// CreateDebounce: while a create submitted less than this long ago is
// still waiting for its answer, another submission is refused with a
// message. Colab limits create_runtime per minute per user and per
// project, so a burst from the create form (a double Enter, N y N y) must
// not spend the quota (field case 18).
const CreateDebounce = 3 * time.Second

// submitCreate starts a create the user asked for, unless a burst.
func (m *createOps) submitCreate(spec api.RuntimeSpecKey, version, runtimeID string, now time.Time) tea.Cmd {
	for _, op := range m.cr.creates {
		if since := now.Sub(op.started); since >= 0 && since < CreateDebounce {
			m.scr.setStatus(now, "a create was sent "+state.FormatAgo(since)+" and is under way; wait a moment "+
				"before the next (Colab limits creates per minute)", true)
			// The first create's "✓ created" soon replaces this line: the
			// event log keeps why the confirmed one did nothing.
			m.scr.logEvent(Event{At: now, Tool: "dashboard", Refused: m.cx.Status.Text})
			return nil
		}
	}
	return m.cr.startCreate(spec, version, runtimeID, now)
}

// createDoneMsg is the answer of one attempt of a create.
type createDoneMsg struct {
	op      int
	attempt int
	rt      api.Runtime
	err     error
}

// createState is where a create stands.
type createState int

const (
	createSending createState = iota // create_runtime in flight
	createWaiting                    // waiting to retry (countdown)
	createUnknown                    // outcome unknown: re-listing
)

// MaxCreateAttempts bounds the dashboard's own re-sends of one create
// (RESOURCE_EXHAUSTED, UNAVAILABLE, DEADLINE_EXCEEDED), first one included:
// state.MaxCreateAttempts, shared with `colabdash create`.
const MaxCreateAttempts = state.MaxCreateAttempts

// DefaultCreateRetry is the wait before re-sending a create refused with
// RESOURCE_EXHAUSTED (no RetryInfo) or UNAVAILABLE, doubled per attempt
// (state.DefaultCreateRetry).
const DefaultCreateRetry = state.DefaultCreateRetry

// createOp is one create_runtime the user asked for. Every re-send uses the
// same requestID, so the server creates at most one runtime for it.
type createOp struct {
	id        int
	requestID string
	spec      api.RuntimeSpecKey
	version   string
	runtimeID string
	started   time.Time // when the user asked for it (or asked to re-send it)
	sent      time.Time // when the current attempt was sent
	// known holds the runtimes listed when the create started: after an
	// unknown outcome, only a runtime not among them can be this one.
	known   map[string]bool
	attempt int
	state   createState
	retryAt time.Time
	lastErr error
	cancel  context.CancelFunc
}

func (m *createOps) findCreate(id int) (int, *createOp) {
	for i, op := range m.cr.creates {
		if op.id == id {
			return i, op
		}
	}
	return -1, nil
}

func (m *createOps) dropCreate(id int) {
	if i, op := m.cr.findCreate(id); op != nil {
		if op.cancel != nil {
			op.cancel()
		}
		m.cr.creates = append(m.cr.creates[:i], m.cr.creates[i+1:]...)
	}
}

// startCreate sends create_runtime for a new operation with a fresh UUID4
// requestId, remembers the spec as the last used one, and shows the new
// row at once.
func (m *createOps) startCreate(spec api.RuntimeSpecKey, version, runtimeID string, now time.Time) tea.Cmd {
	m.cr.nextOp++
	op := &createOp{id: m.cr.nextOp, requestID: uuid.NewString(), spec: spec, version: version, runtimeID: runtimeID, started: now,
		known: map[string]bool{}}
	for r := range m.cx.Snap.All() {
		op.known[r.Name] = true
	}
	m.cr.creates = append(m.cr.creates, op)
	ls := &LastSpec{Spec: spec, Version: version}
	m.cr.lastSpec = ls
	if m.opts.Demo || m.opts.StateDir == "" {
		// demo mode: remembered in memory only (newActionState)
		return m.cr.sendCreate(op, now)
	}
	dir := m.opts.StateDir
	save := func() tea.Msg { // file I/O stays out of Update
		if err := SaveLastSpec(dir, ls); err != nil {
			return lastSpecSaveFailedMsg{err: err}
		}
		return nil
	}
	return tea.Batch(save, m.cr.sendCreate(op, now))
}

// lastSpecSaveFailedMsg reports that the last used spec could not be
// written to the state directory.
type lastSpecSaveFailedMsg struct{ err error }

// sendCreate (re-)sends op's identical create_runtime call. It has no
// timeout of its own (a create takes minutes; the client bounds it);
// op.cancel abandons it.
func (m *createOps) sendCreate(op *createOp, now time.Time) tea.Cmd {
	op.attempt++
	op.state, op.sent = createSending, now
	req := api.CreateRuntimeRequest{Spec: op.spec, Version: op.version, RuntimeID: op.runtimeID, RequestID: op.requestID}
	id, attempt := op.id, op.attempt
	spec := callSpec{what: api.ToolCreateRuntime, svc: m.svc, needSvc: true, parent: m.life.ctx, cancel: &op.cancel}
	return guard(spec, func(ctx context.Context, svc api.Service) tea.Msg {
		rt, err := svc.CreateRuntime(ctx, req)
		return createDoneMsg{op: id, attempt: attempt, rt: rt, err: err}
	}, func(err error) tea.Msg { return createDoneMsg{op: id, attempt: attempt, err: err} })
}

func (m *createOps) onCreateDone(msg createDoneMsg, now time.Time) tea.Cmd {
	_, op := m.cr.findCreate(msg.op)
	if op == nil || msg.attempt != op.attempt || op.state != createSending {
		return nil // cancelled, or superseded by a re-send
	}
	took := state.FormatCountdown(now.Sub(op.started))
	target := op.spec.String() // what was asked for, or the runtime made
	if msg.err == nil {
		target = msg.rt.Name
	} else if op.runtimeID != "" {
		target = "runtimes/" + op.runtimeID
	}
	m.scr.recordEvent(now, api.ToolCreateRuntime, target, now.Sub(op.sent), msg.err)
	if msg.err == nil {
		m.cr.dropCreate(op.id)
		// The row shows what the server returned.
		m.cx.Snap.UpdateRuntime(now, msg.rt)
		m.calls.learnTokenLife(msg.rt, op.sent)
		m.rt.Select(msg.rt.Name)
		m.cx.Focus = common.PanelRuntimes
		m.scr.setStatus(now, "✓ created "+msg.rt.ID()+" ("+msg.rt.RuntimeSpec.String()+") in "+took, false)
		return m.calls.issue(callKey{kind: callSessions, runtime: msg.rt.Name}, now)
	}
	op.lastErr = msg.err
	var ae *api.Error
	if !errors.As(msg.err, &ae) {
		m.cr.dropCreate(op.id)
		m.scr.setStatus(now, "create "+op.spec.String()+" failed: "+common.ErrLine(msg.err), true)
		return nil
	}
	switch {
	case ae.OutcomeUnknown:
		// The request reached the server but the reply was lost: a runtime
		// may exist. Re-list; never create again on our own.
		op.state = createUnknown // cleared by onRuntimesListed
		m.scr.setStatus(now, "create "+op.spec.String()+": outcome unknown (connection lost after sending); re-listing runtimes — one may already be using compute units", true)
		delete(m.calls.pending, callKey{kind: callRuntimes})
		return tea.Batch(m.calls.refresh(now, false)...)
	}
	if resend, wait := state.CreateRetry(ae, op.attempt); resend {
		if wait == 0 {
			return m.cr.sendCreate(op, now) // the identical call: same requestId
		}
		op.state, op.retryAt = createWaiting, now.Add(wait)
		return nil
	}
	m.cr.dropCreate(op.id)
	return m.cr.offerAfterCreate(op, ae, now)
}

// onRuntimesListed clears outcome-unknown creates once a list_runtimes
// sent after them answered, pointing at what the list found.
func (m *createOps) onRuntimesListed(now time.Time) {
	for _, op := range slices.Clone(m.cr.creates) {
		if op.state != createUnknown {
			continue
		}
		var found []string
		for r := range m.cx.Snap.All() {
			match := r.RuntimeSpec == op.spec && !op.known[r.Name]
			if op.runtimeID != "" {
				match = r.ID() == op.runtimeID
			}
			if !r.Gone() && match {
				found = append(found, r.ID())
			}
		}
		slices.Sort(found)
		m.cr.dropCreate(op.id)
		if len(found) > 0 {
			m.scr.setStatus(now, "create "+op.spec.String()+": outcome was unknown; found new runtime "+found[0]+" (not creating again)", false)
		} else {
			m.cr.offerResend(op, now)
		}
	}
}

// offerResend asks what to do with a create whose outcome is unknown and
// whose runtime is not listed: Colab may still be creating it, so a new
// create (a new requestId) could make a second runtime, while re-sending
// the identical call (the same requestId) waits for or returns the one
// runtime (colab-api.md §1.5).
func (m *createOps) offerResend(op *createOp, now time.Time) {
	m.scr.setStatus(now, "create "+op.spec.String()+": outcome unknown and no new runtime listed yet", true)
	m.scr.openFromAnswer(nil, "the choice to re-send the create of "+op.spec.String(), func(m *app, now time.Time) bool {
		d := dialog.NewChoice(now, "Create "+op.spec.String()+": outcome unknown", []dialog.Item{
			{Label: "re-send the identical request (same requestId: Colab returns the one runtime, never a second)"},
			{Label: "leave it (r re-lists; a runtime may still appear)"},
		}, 0,
			"The connection was lost after the request was sent, and the runtime is not listed yet:",
			"Colab may still be creating it (and using compute units).")
		d.Guard = true // it appears by itself: a key typed for something else must not answer it
		d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
			if !r.OK || r.Choice != 0 {
				return nil
			}
			return common.ResendCreate{Create: op}
		}
		m.scr.push(d)
		return true
	})
}

// offerAfterCreate shows why a create failed and the next steps
// (state.ExplainCreateFailure, shared with `colabdash create`).
func (m *createOps) offerAfterCreate(op *createOp, ae *api.Error, now time.Time) tea.Cmd {
	m.scr.setStatus(now, "create "+op.spec.String()+" failed: "+common.ErrLine(ae), true)
	m.scr.openFromAnswer(nil, "what to do after the failed create of "+op.spec.String(), func(m *app, now time.Time) bool {
		m.scr.push(m.cr.afterCreateDialog(op, ae, now))
		return true
	})
	return nil
}

// afterCreateDialog is the choice of next steps after op failed with ae:
// each item's answer is built here, with the runtime or spec it names.
func (m *createOps) afterCreateDialog(op *createOp, ae *api.Error, now time.Time) *dialog.Dialog {
	f := state.ExplainCreateFailure(ae, op.spec, m.cx.Snap.Specs, m.cx.Snap.Subscription.Tier, op.attempt)
	body := append([]string{api.OneLine(ae.Error(), 200) + " (" + m.cx.Keys.Dashboard.Events.Help().Key + " keeps the full error)"}, f.Body...)
	var items []dialog.Item
	var next []func(now time.Time) common.Effect // what each item does
	if f.Kind == state.CreateTooManyRuntimes {
		body = append(body, "Delete one of them (you will confirm), or wait and create again.")
		for _, r := range m.rt.Rows() {
			if r.Gone() {
				continue
			}
			items = append(items, dialog.Item{Label: "delete " + r.ID() + " (" + r.Spec() + ")"})
			name := r.Name
			next = append(next, func(time.Time) common.Effect { return common.AskDelete{Name: name} })
		}
	}
	for _, k := range f.Alternatives {
		label := "create " + k.String()
		switch f.Kind {
		case state.CreateQuota:
			label = "create a CPU runtime (" + k.String() + ")"
		case state.CreateGaveUp:
			label += " instead"
		}
		items = append(items, dialog.Item{Label: label})
		next = append(next, func(now time.Time) common.Effect { return common.Open{Overlay: picker.Version(now, k, nil)} })
	}
	if len(items) == 0 {
		items = []dialog.Item{{Label: "close"}}
		next = []func(time.Time) common.Effect{func(time.Time) common.Effect { return nil }}
	}
	d := dialog.NewChoice(now, f.Title, items, 0, body...)
	d.Guard = true // it appears by itself: a key typed for something else must not answer it
	d.OnAnswer = func(c *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return nil
		}
		return next[r.Choice](c.Now())
	}
	return d
}

// resendCreate re-sends op, a create whose outcome was unknown, with its
// same requestId (the step chosen after offerResend).
func (m *createOps) resendCreate(op *createOp, now time.Time) tea.Cmd {
	op.attempt, op.started = 0, now
	m.cr.creates = append(m.cr.creates, op)
	m.scr.setStatus(now, "re-sending the create of "+op.spec.String()+" with the same requestId…", false)
	return m.cr.sendCreate(op, now)
}

// rowName is what a create's row shows in the NAME column: the runtime id
// asked for, or what is being created.
func (op *createOp) rowName() string {
	if op.runtimeID != "" {
		return op.runtimeID
	}
	return "creating " + op.spec.String()
}

// creations lists the creates of ax under way at now, for the runtimes
// table (common.Activity.Creating); keys name the cancel key.
func (m *createOps) creations(now time.Time) []common.Creation {
	out := make([]common.Creation, 0, len(m.creates))
	for _, op := range m.creates {
		var status string
		switch op.state {
		case createSending:
			status = "creating… " + state.FormatCountdown(now.Sub(op.started))
			if op.attempt > 1 {
				status += " · attempt " + strconv.Itoa(op.attempt) + "/" + strconv.Itoa(MaxCreateAttempts)
			}
		case createWaiting:
			why := "capacity unavailable"
			var ae *api.Error
			if errors.As(op.lastErr, &ae) && ae.Code == api.ResourceExhausted {
				why = "rate limited"
			}
			status = why + ", retrying " + strconv.Itoa(op.attempt+1) + "/" + strconv.Itoa(MaxCreateAttempts) + " in " +
				state.FormatCountdown(op.retryAt.Sub(now)) + " · " + m.cx.Keys.Dashboard.Cancel.Help().Key + " cancel"
		case createUnknown:
			status = "outcome unknown · re-listing…"
		}
		out = append(out, common.Creation{Name: op.rowName(), Spec: op.spec.String(), Status: status})
	}
	return out
}

// The last used runtimeSpec, remembered across runs (N re-creates it).

// LastSpec is the runtimeSpec and version of the last runtime the user
// created (ui/ops keeps it, for the dashboard and the verbs alike).
type LastSpec = ops.LastSpec

// LastSpecFile is the file name of the last used spec in the state
// directory.
const LastSpecFile = ops.LastSpecFile

// LoadLastSpec reads dir/last-spec.json the bounded way (ops.LoadLastSpec).
func LoadLastSpec(dir string) (*LastSpec, error) { return ops.LoadLastSpec(dir) }

// SaveLastSpec writes ls to dir/last-spec.json (ops.SaveLastSpec). An
// empty dir stores nothing.
func SaveLastSpec(dir string, ls *LastSpec) error { return ops.SaveLastSpec(dir, ls) }

// loadLastSpec reads the remembered spec for an account: none in demo mode
// (the emulator's specs are not the account's, so a demo A100 never becomes
// the real account's quick re-create), nil when there is none to read.
func loadLastSpec(demo bool, dir string) *LastSpec {
	if demo {
		return nil
	}
	ls, err := LoadLastSpec(dir)
	if err != nil {
		return nil
	}
	return ls
}
