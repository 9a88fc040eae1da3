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
	"github.com/google/uuid"
)

// createDebounce: while a create submitted less than this long ago is
// still waiting for its answer, another submission is refused with a
// message. Colab limits create_runtime per minute per user and per
// project, so a burst from the create form (a double Enter, N y N y) must
// not spend the quota.
const createDebounce = 3 * time.Second

// submitCreate starts a create the user asked for, unless a burst.
func (m *createOps) submitCreate(spec api.RuntimeSpecKey, version, runtimeID string, now time.Time) tea.Cmd {
	for _, op := range m.creates {
		if since := now.Sub(op.started); since >= 0 && since < createDebounce {
			m.scr.say(now, common.Say{Text: "a create was sent " + state.FormatAgo(since) + " and is under way; wait a moment " +
				"before the next (Colab limits creates per minute)", Err: true})
			// The first create's "✓ created" soon replaces this line: the
			// event log keeps why the confirmed one did nothing.
			m.scr.logEvent(Event{At: now, Tool: "dashboard", Refused: m.cx.Status.Text})
			return nil
		}
	}
	return m.startCreate(spec, version, runtimeID, now)
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

// maxCreateAttempts bounds the sends of one create, first one included:
// state.MaxCreateAttempts, shared with `colabdash create` and `run`.
const maxCreateAttempts = state.MaxCreateAttempts

// defaultCreateRetry is the wait before re-sending a create refused with
// RESOURCE_EXHAUSTED (no RetryInfo), UNAVAILABLE or another passing server
// failure, doubled per attempt (state.DefaultCreateRetry).
const defaultCreateRetry = state.DefaultCreateRetry

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
	for i, op := range m.creates {
		if op.id == id {
			return i, op
		}
	}
	return -1, nil
}

func (m *createOps) dropCreate(id int) {
	if i, op := m.findCreate(id); op != nil {
		if op.cancel != nil {
			op.cancel()
		}
		m.creates = append(m.creates[:i], m.creates[i+1:]...)
	}
}

// actionsTick re-sends the creates whose retry wait is over at now.
func (m *createOps) actionsTick(now time.Time) []tea.Cmd {
	var cmds []tea.Cmd
	for _, op := range m.creates {
		if op.state == createWaiting && !now.Before(op.retryAt) {
			cmds = append(cmds, m.sendCreate(op, now))
		}
	}
	return cmds
}

// startCreate sends create_runtime for a new operation with a fresh UUID4
// requestId, remembers the spec as the last used one, and shows the new
// row at once.
func (m *createOps) startCreate(spec api.RuntimeSpecKey, version, runtimeID string, now time.Time) tea.Cmd {
	m.nextOp++
	op := &createOp{id: m.nextOp, requestID: uuid.NewString(), spec: spec, version: version, runtimeID: runtimeID, started: now,
		known: map[string]bool{}}
	for r := range m.cx.Snap.All() {
		op.known[r.Name] = true
	}
	m.creates = append(m.creates, op)
	ls := &ops.LastSpec{Spec: spec, Version: version}
	m.lastSpec = ls
	if m.opts.Demo || m.opts.StateDir == "" {
		// demo mode: remembered in memory only (lastSpec)
		return m.sendCreate(op, now)
	}
	dir := m.opts.StateDir
	save := func() tea.Msg { // file I/O stays out of Update
		if err := ops.SaveLastSpec(dir, ls); err != nil {
			return lastSpecSaveFailedMsg{err: err}
		}
		return nil
	}
	return tea.Batch(save, m.sendCreate(op, now))
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
	spec := callSpec{what: api.ToolCreateRuntime, svc: m.link.svc, needSvc: true, parent: m.link.life.ctx, cancel: &op.cancel}
	return guard(spec, func(ctx context.Context, svc api.Service) tea.Msg {
		rt, err := svc.CreateRuntime(ctx, req)
		return createDoneMsg{op: id, attempt: attempt, rt: rt, err: err}
	}, func(err error) tea.Msg { return createDoneMsg{op: id, attempt: attempt, err: err} })
}

// onCreateDone takes the answer of a create_runtime: the runtime made, a
// re-send, an outcome unknown (the runtimes are listed again), or why it
// failed. What it needs of the read calls it returns.
func (m *createOps) onCreateDone(msg createDoneMsg, now time.Time) want {
	_, op := m.findCreate(msg.op)
	if op == nil || msg.attempt != op.attempt || op.state != createSending {
		return want{} // cancelled, or superseded by a re-send
	}
	took := state.FormatCountdown(now.Sub(op.started))
	target := op.spec.String() // what was asked for, or the runtime made
	if msg.err == nil {
		target = msg.rt.Name
	} else if op.runtimeID != "" {
		target = "runtimes/" + op.runtimeID
	}
	if msg.err == nil {
		// The same rule as the CLI's: a runtime other than the one asked
		// for is not selected, shown as created or acted on.
		if bad := state.CheckCreated(api.CreateRuntimeRequest{RuntimeID: op.runtimeID}, msg.rt); bad != nil {
			m.dropCreate(op.id)
			m.scr.recordEvent(now, api.ToolCreateRuntime, target, now.Sub(op.sent), bad)
			m.scr.say(now, common.Say{Text: common.ErrLine(bad), Err: true})
			return want{}
		}
	}
	m.scr.recordEvent(now, api.ToolCreateRuntime, target, now.Sub(op.sent), msg.err)
	if msg.err == nil {
		m.dropCreate(op.id)
		// The row shows what the server returned.
		m.cx.Snap.UpdateRuntime(now, msg.rt)
		m.rt.Select(msg.rt.Name)
		m.cx.Focus = common.PanelRuntimes
		m.scr.say(now, common.Say{Text: "✓ created " + msg.rt.ID() + " (" + msg.rt.RuntimeSpec.String() + ") in " + took})
		return want{issued: &msg.rt, sent: op.sent, sessions: msg.rt.Name}
	}
	op.lastErr = msg.err
	// What follows is state's one rule (state.CreateAnswered), shared
	// with the command-line verbs; the dashboard only shows it.
	d := state.CreateAnswered(now, op.attempt, msg.rt, msg.err)
	switch {
	case d.Step == state.CreateRelist:
		// The request reached the server but the reply was lost: a runtime
		// may exist. Re-list; never create again on our own.
		op.state = createUnknown // cleared by onRuntimesListed
		m.scr.say(now, common.Say{Text: "create " + op.spec.String() + ": outcome unknown (connection lost after sending); re-listing runtimes — one may already be using compute units", Err: true})
		return want{relist: true}
	case d.Step == state.CreateResend && d.Wait == 0:
		return want{cmd: m.sendCreate(op, now)} // the identical call: same requestId
	case d.Step == state.CreateResend:
		op.state, op.retryAt = createWaiting, d.At
		return want{}
	case d.Err == nil:
		m.dropCreate(op.id)
		m.scr.say(now, common.Say{Text: "create " + op.spec.String() + " failed: " + common.ErrLine(msg.err), Err: true})
		return want{}
	}
	m.dropCreate(op.id)
	return want{cmd: m.offerAfterCreate(op, d.Err, now)}
}

// onRuntimesListed clears outcome-unknown creates once a list_runtimes
// sent after them answered, pointing at what the list found.
func (m *createOps) onRuntimesListed(now time.Time) {
	for _, op := range slices.Clone(m.creates) {
		if op.state != createUnknown {
			continue
		}
		var listed []api.Runtime
		for r := range m.cx.Snap.All() {
			if !r.Gone() {
				listed = append(listed, r.Runtime)
			}
		}
		target := state.CreateTarget{Spec: op.spec, RuntimeID: op.runtimeID, Known: op.known}
		d := state.CreateRelisted(now, op.attempt, target, op.lastErr, listed, nil)
		m.dropCreate(op.id)
		switch d.Step {
		case state.CreateDone:
			m.scr.say(now, common.Say{Text: "create " + op.spec.String() + ": outcome was unknown; found new runtime " + d.Runtime.ID() + " (not creating again)"})
		case state.CreateResend:
			m.offerResend(op, now) // the dashboard asks before the re-send
		default:
			m.scr.say(now, common.Say{Text: "create " + op.spec.String() + ": outcome unknown and the runtime cannot be told apart in the list; " +
				"look for it before creating again", Err: true})
		}
	}
}

// offerResend asks what to do with a create whose outcome is unknown and
// whose runtime is not listed: Colab may still be creating it, so a new
// create (a new requestId) could make a second runtime, while re-sending
// the identical call (the same requestId) waits for or returns the one
// runtime: Colab creates at most one runtime per requestId.
func (m *createOps) offerResend(op *createOp, now time.Time) {
	m.scr.say(now, common.Say{Text: "create " + op.spec.String() + ": outcome unknown and no new runtime listed yet", Err: true})
	m.scr.openFromAnswer(nil, "the choice to re-send the create of "+op.spec.String(), func(now time.Time) bool {
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
	m.scr.say(now, common.Say{Text: "create " + op.spec.String() + " failed: " + common.ErrLine(ae), Err: true})
	m.scr.openFromAnswer(nil, "what to do after the failed create of "+op.spec.String(), func(now time.Time) bool {
		m.scr.push(m.afterCreateDialog(op, ae, now))
		return true
	})
	return nil
}

// resendCreate re-sends op, a create whose outcome was unknown, with its
// same requestId (the step chosen after offerResend).
func (m *createOps) resendCreate(op *createOp, now time.Time) tea.Cmd {
	op.attempt, op.started = 0, now
	m.creates = append(m.creates, op)
	m.scr.say(now, common.Say{Text: "re-sending the create of " + op.spec.String() + " with the same requestId…"})
	return m.sendCreate(op, now)
}

// rowName is what a create's row shows in the NAME column: the runtime id
// asked for, or "new runtime" (its SPEC cell says what is being created,
// and its status that it is being created).
func (op *createOp) rowName() string {
	if op.runtimeID != "" {
		return op.runtimeID
	}
	return "new runtime"
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
				status += " · attempt " + strconv.Itoa(op.attempt) + "/" + strconv.Itoa(maxCreateAttempts)
			}
		case createWaiting:
			why := "capacity unavailable"
			var ae *api.Error
			if errors.As(op.lastErr, &ae) && ae.Code == api.ResourceExhausted {
				why = "rate limited"
			}
			status = why + ", retrying " + strconv.Itoa(op.attempt+1) + "/" + strconv.Itoa(maxCreateAttempts) + " in " +
				state.FormatCountdown(op.retryAt.Sub(now)) + " · " + m.cx.Keys.Dashboard.Cancel.Help().Key + " cancel"
		case createUnknown:
			status = "outcome unknown · re-listing…"
		}
		out = append(out, common.Creation{Name: op.rowName(), Spec: op.spec.String(), Status: status})
	}
	return out
}

// The last used runtimeSpec, remembered across runs (N re-creates it).

// loadLastSpec reads the remembered spec for an account: none in demo mode
// (the emulator's specs are not the account's, so a demo A100 never becomes
// the real account's quick re-create), nil when there is none to read.
func loadLastSpec(demo bool, dir string) *ops.LastSpec {
	if demo {
		return nil
	}
	ls, err := ops.LoadLastSpec(dir)
	if err != nil {
		return nil
	}
	return ls
}
