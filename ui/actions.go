package ui

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
)

// intentKind says what a dialog is for; the dialog's intent carries the
// target captured when it opened.
type intentKind int

const (
	intentDelete intentKind = iota
	intentCloseSession
	intentOpenSession
	intentPickVariant
	intentPickAccelerator
	intentPickShape
	intentVersion
	intentRuntimeID
	intentQuickCreate
	intentAfterCreate // choices offered after a failed create
	intentExecTarget
)

// intent is a dialog's purpose and captured target.
type intent struct {
	kind    intentKind
	runtime string // "runtimes/{id}"
	session string // "runtimes/{id}/sessions/{sid}"
	spec    api.RuntimeSpecKey
	version string
	vals    []string      // picker steps: the raw value of each item
	next    []afterChoice // intentAfterCreate: what each item does
}

// afterChoice is one next step offered after a failed create.
type afterChoice struct {
	deleteRuntime string             // delete this runtime (confirm first)
	spec          api.RuntimeSpecKey // create with this spec (confirm first)
	resend        *createOp          // re-send this create, same requestId
	close         bool               // just close the dialog
}

// actionState is the dashboard's state for actions. The Model holds it by
// pointer: like Model.pending, it is owned by the Update loop.
type actionState struct {
	dlg      *dialog
	creates  []*createOp
	nextOp   int
	deleting map[string]time.Time // runtime name → when delete_runtime was sent
	closing  map[string]bool      // session name → delete_session in flight
	opening  map[string]bool      // runtime name → create_session in flight
	lastSpec *LastSpec
	revealed string // runtime whose proxy token is shown in the details
	exec     *execPanel
	// lastSession is, per runtime name, the session most recently selected
	// in the sessions panel, opened with o or opened by run code: where e
	// runs when the sessions panel is not focused.
	lastSession map[string]sessionPick
	// closed holds the sessions the user closed: run code never uses them
	// again (execute_code would silently recreate them).
	closed map[string]bool
}

// CreateDebounce: while a create submitted less than this long ago is
// still waiting for its answer, another submission is refused with a
// message. Colab limits create_runtime per minute per user and per
// project, so a burst from the create form (a double Enter, N y N y) must
// not spend the quota (field case 18).
const CreateDebounce = 3 * time.Second

// submitCreate starts a create the user asked for, unless a burst.
func (m *Model) submitCreate(spec api.RuntimeSpecKey, version, runtimeID string, now time.Time) tea.Cmd {
	for _, op := range m.ax.creates {
		if since := now.Sub(op.started); since >= 0 && since < CreateDebounce {
			m.setStatus(now, "a create was sent "+state.FormatAgo(since)+" and is under way; wait a moment "+
				"before the next (Colab limits creates per minute)", true)
			return nil
		}
	}
	return m.startCreate(spec, version, runtimeID, now)
}

// sessionPick is a session chosen for run code and when it was chosen.
type sessionPick struct {
	name string
	at   time.Time
}

// newActionState starts the action state with the remembered last spec
// (nil when none); reading it is the caller's I/O, never Update's.
func newActionState(last *LastSpec) *actionState {
	return &actionState{deleting: map[string]time.Time{}, closing: map[string]bool{}, opening: map[string]bool{},
		lastSession: map[string]sessionPick{}, closed: map[string]bool{}, lastSpec: last}
}

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

// Messages of actions. Each names its target so a late answer lands on the
// right row.
type (
	createDoneMsg struct {
		op      int
		attempt int
		rt      api.Runtime
		err     error
	}
	deleteDoneMsg struct {
		name string
		err  error
	}
	sessionOpenedMsg struct {
		runtime string
		session api.Session
		err     error
	}
	sessionClosedMsg struct {
		name string
		err  error
	}
)

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
	started   time.Time
	// known holds the runtimes listed when the create started: after an
	// unknown outcome, only a runtime not among them can be this one.
	known   map[string]bool
	attempt int
	state   createState
	retryAt time.Time
	lastErr error
	cancel  context.CancelFunc
}

func (m *Model) findCreate(id int) (int, *createOp) {
	for i, op := range m.ax.creates {
		if op.id == id {
			return i, op
		}
	}
	return -1, nil
}

func (m *Model) dropCreate(id int) {
	if i, op := m.findCreate(id); op != nil {
		if op.cancel != nil {
			op.cancel()
		}
		m.ax.creates = append(m.ax.creates[:i], m.ax.creates[i+1:]...)
	}
}

// onActionKey handles the action keys; ok is false when k is none of them.
func (m *Model) onActionKey(k tea.KeyMsg, now time.Time) (cmd tea.Cmd, ok bool) {
	keys := m.keys
	sel := m.snap.Runtime(m.selected)
	live := sel != nil && !sel.Gone()
	noRuntime := "no runtime selected"
	if sel != nil && sel.Gone() {
		noRuntime = m.goneText(sel, now)
	}
	switch {
	case key.Matches(k, keys.NewRuntime):
		m.openPicker(now)
	case key.Matches(k, keys.QuickCreate):
		ls := m.ax.lastSpec
		if ls == nil {
			m.setStatus(now, "no last spec yet: create one with "+keys.NewRuntime.Help().Key, true)
			break
		}
		if len(m.snap.Specs) > 0 {
			if err := state.CheckSpec(m.snap.Specs, ls.Spec, m.snap.Subscription.Tier); err != nil {
				m.setStatus(now, "cannot create like the last one: "+err.Error(), true)
				break
			}
		}
		m.ax.dlg = newDialog(dlgConfirm, now, "Create a runtime like the last one?",
			intent{kind: intentQuickCreate, spec: ls.Spec, version: ls.Version},
			"spec "+ls.Spec.String()+" · version "+orLatest(ls.Version))
	case key.Matches(k, keys.DeleteRuntime):
		if !live {
			m.setStatus(now, noRuntime, true)
			break
		}
		acc := sel.RuntimeSpec.Accelerator
		if acc == "" {
			acc = api.AcceleratorNone
		}
		m.ax.dlg = newDialog(dlgConfirm, now, "Delete runtime "+sel.ID()+"?",
			intent{kind: intentDelete, runtime: sel.Name},
			"Runtime "+sel.Name+" ("+sel.RuntimeSpec.Variant.Short()+", accelerator "+acc+").",
			"This cannot be undone: it removes the runtime's files and its "+strconv.Itoa(len(sel.Sessions))+" session(s).")
	case key.Matches(k, keys.OpenSession):
		if !live {
			m.setStatus(now, noRuntime, true)
			break
		}
		d := newDialog(dlgInput, now, "Open a session on "+sel.ID(), intent{kind: intentOpenSession, runtime: sel.Name},
			"Session id (optional, RFC 1034: "+rfc1034Rules+").")
		d.validate, d.hint = api.ValidateID, "empty: a colabdash-… id is chosen"
		m.ax.dlg = d
	case key.Matches(k, keys.CloseSession):
		s := m.selectedSession()
		if s == "" {
			m.setStatus(now, "no session selected (tab to the sessions panel)", true)
			break
		}
		id := api.LastSegment(s)
		if m.snap.Owned(s) {
			m.ax.dlg = newDialog(dlgConfirm, now, "Close session "+id+"?", intent{kind: intentCloseSession, session: s},
				"Session "+s+" (opened by colabdash).")
		} else {
			d := newDialog(dlgTyped, now, "Close NOTEBOOK session "+id+"?", intent{kind: intentCloseSession, session: s},
				"colabdash did not open this session: it is probably one of your notebooks.",
				"Closing it shuts its kernel down: the notebook's kernel state (variables, imports, running code) will be lost.")
			d.want = "close"
			m.ax.dlg = d
		}
	case key.Matches(k, keys.RenewToken):
		if !live {
			m.setStatus(now, noRuntime, true)
			break
		}
		if c := m.issue(callKey{kind: callRenew, runtime: sel.Name}, now); c != nil {
			m.lastRenew[sel.Name] = now
			m.manualRenew[sel.Name] = true
			m.setStatus(now, "renewing the proxy token of "+sel.ID()+"…", false)
			return c, true
		}
		m.setStatus(now, "a renewal of "+sel.ID()+" is already in flight", false)
	case key.Matches(k, keys.Cancel):
		for _, op := range m.ax.creates {
			if op.state == createWaiting {
				m.dropCreate(op.id)
				m.setStatus(now, "create of "+op.spec.String()+" cancelled", false)
				return nil, true
			}
		}
		m.setStatus(now, "no create is waiting to retry", false)
	case key.Matches(k, keys.RunCode):
		return m.openExec(now), true
	case key.Matches(k, keys.CopyURL), key.Matches(k, keys.CopyToken), key.Matches(k, keys.RevealToken):
		return m.onClipboardKey(k, now), true
	default:
		return nil, false
	}
	return nil, true
}

func orLatest(v string) string {
	if v == "" {
		return "latest"
	}
	return v
}

// selectedSession is the session under the sessions-panel cursor, when
// that panel has the focus.
func (m *Model) selectedSession() string {
	r := m.snap.Runtime(m.selected)
	if m.focus != panelSessions || r == nil || r.Gone() || m.sessCursor >= len(r.Sessions) {
		return ""
	}
	return r.Sessions[m.sessCursor].Name
}

// onDialogKey routes a key to the open dialog and acts on its result.
func (m *Model) onDialogKey(k tea.KeyMsg, now time.Time) tea.Cmd {
	d := m.ax.dlg
	switch d.update(k, now) {
	case resNone:
		return nil
	case resCancel:
		m.ax.dlg = nil
		if d.back != nil && k.Type == tea.KeyEsc {
			// esc in the picker goes back one step, answers kept.
			d.back.opened = now
			m.ax.dlg = d.back
			return nil
		}
		if d.intent.kind == intentDelete {
			m.setStatus(now, "delete cancelled", false)
		}
		return nil
	}
	m.ax.dlg = nil
	it := d.intent
	switch it.kind {
	case intentDelete:
		return m.startDelete(it.runtime, now)
	case intentCloseSession:
		return m.startCloseSession(it.session, now)
	case intentOpenSession:
		return m.startOpenSession(it.runtime, d.input, now)
	case intentPickVariant, intentPickAccelerator, intentPickShape, intentVersion, intentRuntimeID:
		return m.pickerNext(d, now)
	case intentQuickCreate:
		return m.submitCreate(it.spec, it.version, "", now)
	case intentAfterCreate:
		c := it.next[d.cursor]
		switch {
		case c.deleteRuntime != "":
			if r := m.snap.Runtime(c.deleteRuntime); r != nil {
				m.selected, m.rowsDirty = r.Name, true
				return m.actionKeyFor(m.keys.DeleteRuntime, now)
			}
		case c.close:
		case c.resend != nil:
			op := c.resend
			op.attempt, op.started = 0, now
			m.ax.creates = append(m.ax.creates, op)
			m.setStatus(now, "re-sending the create of "+op.spec.String()+" with the same requestId…", false)
			return m.sendCreate(op, now)
		default:
			m.openVersionStep(c.spec, now)
		}
	case intentExecTarget:
		return m.execSubmit(now)
	}
	return nil
}

// actionKeyFor acts as if the first key of b was pressed.
func (m *Model) actionKeyFor(b key.Binding, now time.Time) tea.Cmd {
	ks := b.Keys()
	if len(ks) == 0 {
		return nil
	}
	cmd, _ := m.onActionKey(keyMsgFor(ks[0]), now)
	return cmd
}

func keyMsgFor(s string) tea.KeyMsg {
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// call runs fn as a command with the call timeout and panic recovery.
func (m *Model) call(timeout time.Duration, fn func(ctx context.Context, svc api.Service) tea.Msg, onPanic func(error) tea.Msg) tea.Cmd {
	svc, parent, red := m.svc, m.ctx, m.opts.Redact
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = onPanic(panicError(red, "internal error", r))
			}
		}()
		if svc == nil {
			return onPanic(errors.New("no Colab service configured"))
		}
		ctx, cancel := context.WithTimeout(parent, timeout)
		defer cancel()
		return fn(ctx, svc)
	}
}

// --- delete ---

func (m *Model) startDelete(name string, now time.Time) tea.Cmd {
	if _, busy := m.ax.deleting[name]; busy {
		return nil
	}
	m.ax.deleting[name] = now
	m.setStatus(now, "deleting "+api.LastSegment(name)+"…", false)
	return m.call(m.opts.CallTimeout, func(ctx context.Context, svc api.Service) tea.Msg {
		return deleteDoneMsg{name: name, err: svc.DeleteRuntime(ctx, name)}
	}, func(err error) tea.Msg { return deleteDoneMsg{name: name, err: err} })
}

func (m *Model) onDeleteDone(msg deleteDoneMsg, now time.Time) tea.Cmd {
	delete(m.ax.deleting, msg.name)
	id := api.LastSegment(msg.name)
	if msg.err != nil {
		m.setStatus(now, "delete "+id+" failed: "+errLine(msg.err), true)
		return nil
	}
	m.snap.MarkRuntimeGone(now, msg.name, state.ReasonDeleted)
	delete(m.pending, callKey{kind: callRenew, runtime: msg.name})
	delete(m.pending, callKey{kind: callSessions, runtime: msg.name})
	if m.ax.revealed == msg.name {
		m.ax.revealed = ""
	}
	m.setStatus(now, "✓ deleted "+id, false)
	return tea.Batch(m.refresh(now, false)...)
}

// --- sessions ---

func (m *Model) startOpenSession(runtime, id string, now time.Time) tea.Cmd {
	if id == "" {
		id = state.NewSessionID()
	}
	m.ax.opening[runtime] = true
	m.setStatus(now, "opening session "+id+" on "+api.LastSegment(runtime)+"…", false)
	return m.call(m.opts.CallTimeout, func(ctx context.Context, svc api.Service) tea.Msg {
		s, err := svc.CreateSession(ctx, runtime, id)
		return sessionOpenedMsg{runtime: runtime, session: s, err: err}
	}, func(err error) tea.Msg { return sessionOpenedMsg{runtime: runtime, err: err} })
}

func (m *Model) onSessionOpened(msg sessionOpenedMsg, now time.Time) tea.Cmd {
	delete(m.ax.opening, msg.runtime)
	if msg.err != nil {
		m.setStatus(now, "open session failed: "+errLine(msg.err), true)
		return nil
	}
	m.snap.MarkOwned(msg.session.Name)
	m.pickSession(msg.runtime, msg.session.Name, now)
	m.setStatus(now, "✓ opened session "+msg.session.ID(), false)
	return m.issue(callKey{kind: callSessions, runtime: msg.runtime}, now)
}

func (m *Model) startCloseSession(name string, now time.Time) tea.Cmd {
	m.ax.closing[name] = true
	m.setStatus(now, "closing session "+api.LastSegment(name)+"…", false)
	return m.call(m.opts.CallTimeout, func(ctx context.Context, svc api.Service) tea.Msg {
		return sessionClosedMsg{name: name, err: svc.DeleteSession(ctx, name)}
	}, func(err error) tea.Msg { return sessionClosedMsg{name: name, err: err} })
}

func (m *Model) onSessionClosed(msg sessionClosedMsg, now time.Time) tea.Cmd {
	delete(m.ax.closing, msg.name)
	if msg.err != nil {
		m.setStatus(now, "close session failed: "+errLine(msg.err), true)
		return nil
	}
	m.setStatus(now, "✓ closed session "+api.LastSegment(msg.name), false)
	parent := api.Session{Name: msg.name}.Parent()
	m.ax.closed[msg.name] = true
	if m.ax.lastSession[parent].name == msg.name {
		delete(m.ax.lastSession, parent)
	}
	if p := m.ax.exec; p != nil && p.session == msg.name {
		p.session = ""
	}
	if r := m.snap.Runtime(parent); r != nil {
		kept := r.Sessions[:0:0]
		for _, s := range r.Sessions {
			if s.Name != msg.name {
				kept = append(kept, s)
			}
		}
		m.snap.ApplySessions(now, parent, kept)
		m.sessCursor = clamp(m.sessCursor, 0, len(kept)-1)
	}
	delete(m.pending, callKey{kind: callSessions, runtime: parent})
	return m.issue(callKey{kind: callSessions, runtime: parent}, now)
}

// onActionMsg handles the messages of actions; ok is false for others.
func (m *Model) onActionMsg(msg tea.Msg) (tea.Cmd, bool) {
	now := m.now()
	switch msg := msg.(type) {
	case createDoneMsg:
		return m.onCreateDone(msg, now), true
	case deleteDoneMsg:
		return m.onDeleteDone(msg, now), true
	case sessionOpenedMsg:
		return m.onSessionOpened(msg, now), true
	case sessionClosedMsg:
		return m.onSessionClosed(msg, now), true
	case execDoneMsg:
		return m.onExecDone(msg, now), true
	case lastSpecSaveFailedMsg:
		m.setStatus(now, "could not remember the spec: "+errLine(msg.err), true)
		m.recordEvent(now, "state file", filepath.Join(m.opts.StateDir, LastSpecFile), 0, msg.err)
		return nil, true
	case clipboardMsg:
		if msg.err != nil {
			m.setStatus(now, "copy failed: "+errLine(msg.err), true)
		} else {
			m.setStatus(now, copiedText(msg), false)
		}
		return nil, true
	}
	return nil, false
}

// actionsTick re-sends creates whose retry wait is over.
func (m *Model) actionsTick(now time.Time) []tea.Cmd {
	var cmds []tea.Cmd
	for _, op := range m.ax.creates {
		if op.state == createWaiting && !now.Before(op.retryAt) {
			cmds = append(cmds, m.sendCreate(op, now))
		}
	}
	return cmds
}

// busyText describes a pending action on runtime name for its row ("" when
// none).
func (m Model) busyText(name string, now time.Time) string {
	if t, ok := m.ax.deleting[name]; ok {
		return "deleting… " + state.FormatCountdown(now.Sub(t))
	}
	if m.ax.opening[name] {
		return "opening session…"
	}
	return ""
}

func itoaPlural(n int, word string) string {
	s := strconv.Itoa(n) + " " + word
	if n != 1 {
		s += "s"
	}
	return s
}

// goneText says why an action cannot act on the gone runtime r: "rt-x is
// gone (reclaimed 10s ago)".
func (m *Model) goneText(r *state.Runtime, now time.Time) string {
	word := "reclaimed"
	if r.Deleted() {
		word = "deleted"
	}
	return r.ID() + " is gone (" + word + " " + state.FormatAgo(now.Sub(r.GoneAt)) + ")"
}

// rfc1034Rules are the id rules api.ValidateID enforces, for dialog hints.
const rfc1034Rules = "1–63 lower-case letters, digits and hyphens; starts with a letter; ends with a letter or digit"
