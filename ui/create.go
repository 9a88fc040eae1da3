package ui

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/state"
)

// --- the picker: variant → accelerator → shape → version → runtime id ---

// specChoices returns the distinct values of field among specs matching
// keep, in list_runtime_specs order, each enabled when any matching spec
// with that value is eligible.
func specChoices(specs []api.RuntimeSpec, keep func(api.RuntimeSpecKey) bool, field func(api.RuntimeSpecKey) string) (vals []string, eligible []bool) {
	for _, s := range specs {
		if !keep(s.Key) {
			continue
		}
		v := field(s.Key)
		if i := slices.Index(vals, v); i >= 0 {
			eligible[i] = eligible[i] || s.Eligible
			continue
		}
		vals = append(vals, v)
		eligible = append(eligible, s.Eligible)
	}
	return vals, eligible
}

func (m *Model) openPicker(now time.Time) {
	if len(m.snap.Specs) == 0 {
		msg := "no runtime specs yet (list_runtime_specs has not answered)"
		if err := m.snap.SpecsFresh.Err; err != nil {
			msg = "cannot list runtime specs: " + errLine(err)
		}
		m.setStatus(now, msg, true)
		return
	}
	m.pickStep(intentPickVariant, api.RuntimeSpecKey{}, now)
}

// pickStep opens the choice dialog of step kind for the partial spec, or
// skips it when it has one choice.
func (m *Model) pickStep(kind intentKind, partial api.RuntimeSpecKey, now time.Time) {
	var keep func(api.RuntimeSpecKey) bool
	var field func(api.RuntimeSpecKey) string
	var title string
	switch kind {
	case intentPickVariant:
		keep = func(api.RuntimeSpecKey) bool { return true }
		field = func(k api.RuntimeSpecKey) string { return string(k.Variant) }
		title = "New runtime: variant"
	case intentPickAccelerator:
		keep = func(k api.RuntimeSpecKey) bool { return k.Variant == partial.Variant }
		field = func(k api.RuntimeSpecKey) string { return k.Accelerator }
		title = "New runtime: accelerator (" + partial.Variant.Short() + ")"
	default:
		keep = func(k api.RuntimeSpecKey) bool {
			return k.Variant == partial.Variant && k.Accelerator == partial.Accelerator
		}
		field = func(k api.RuntimeSpecKey) string { return string(k.Shape) }
		title = "New runtime: shape (" + partial.Variant.Short()
		if a := partial.Accelerator; a != "" && a != api.AcceleratorNone {
			title += " " + a // a CPU has no accelerator to name
		}
		title += ")"
	}
	vals, elig := specChoices(m.snap.Specs, keep, field)
	enabled := 0
	for _, e := range elig {
		if e {
			enabled++
		}
	}
	if enabled == 0 {
		m.setStatus(now, "no eligible runtime spec for "+partial.String()+" on tier "+m.snap.Subscription.Tier.Label(), true)
		return
	}
	if len(vals) == 1 {
		m.pickerNext(&dialog{kind: dlgChoice, intent: intent{kind: kind, spec: partial, vals: vals}}, now)
		return
	}
	d := newDialog(dlgChoice, now, title, intent{kind: kind, spec: partial})
	for i, v := range vals {
		label := v
		switch kind {
		case intentPickVariant:
			label = api.Variant(v).Short()
		case intentPickShape:
			label = api.Shape(v).Short()
		}
		it := choiceItem{label: label, disabled: !elig[i]}
		if it.disabled {
			it.note = "(" + state.IneligibleNote(m.snap.Subscription.Tier) + ")"
		}
		d.items = append(d.items, it)
	}
	d.cursor = d.next(-1, 1)
	if i := slices.Index(vals, field(m.opts.DefaultSpec)); i >= 0 && !d.items[i].disabled {
		d.cursor = i
	}
	d.intent.vals = vals
	m.ax.dlg = d
}

// pickerNext moves the picker past the step d answered. The step it opens
// remembers the last step shown (d, or d's own back when d was a skipped
// one-choice step), so esc goes back to it.
func (m *Model) pickerNext(d *dialog, now time.Time) tea.Cmd {
	prev := d
	if d.title == "" { // a step skipped for having one choice
		prev = d.back
	}
	cmd := m.pickerStep(d, now)
	if nd := m.ax.dlg; nd != nil && nd != d && nd.back == nil && isPickerStep(nd.intent.kind) {
		nd.back = prev
	}
	return cmd
}

func isPickerStep(k intentKind) bool {
	switch k {
	case intentPickVariant, intentPickAccelerator, intentPickShape, intentVersion, intentRuntimeID:
		return true
	}
	return false
}

func (m *Model) pickerStep(d *dialog, now time.Time) tea.Cmd {
	it := d.intent
	spec := it.spec
	if d.kind == dlgChoice && d.cursor < len(it.vals) {
		v := it.vals[d.cursor]
		switch it.kind {
		case intentPickVariant:
			spec.Variant = api.Variant(v)
		case intentPickAccelerator:
			spec.Accelerator = v
		case intentPickShape:
			spec.Shape = api.Shape(v)
		}
	}
	switch it.kind {
	case intentPickVariant:
		m.pickStep(intentPickAccelerator, spec, now)
	case intentPickAccelerator:
		m.pickStep(intentPickShape, spec, now)
	case intentPickShape:
		m.openVersionStep(spec, now)
	case intentVersion:
		nd := newDialog(dlgInput, now, "New runtime "+spec.String()+": runtime id",
			intent{kind: intentRuntimeID, spec: spec, version: d.input},
			"Runtime id (optional, RFC 1034: "+rfc1034Rules+").")
		nd.validate, nd.hint = api.ValidateID, "empty: Colab chooses the id"
		m.ax.dlg = nd
	case intentRuntimeID:
		return m.submitCreate(spec, it.version, d.input, now)
	}
	return nil
}

func (m *Model) openVersionStep(spec api.RuntimeSpecKey, now time.Time) {
	d := newDialog(dlgInput, now, "New runtime "+spec.String()+": runtime version",
		intent{kind: intentVersion, spec: spec}, "Runtime image version (optional, e.g. 2025.10).")
	d.hint = "empty: latest"
	m.ax.dlg = d
}

// --- the create flow ---

// startCreate sends create_runtime for a new operation with a fresh UUID4
// requestId, remembers the spec as the last used one, and shows the new
// row at once.
func (m *Model) startCreate(spec api.RuntimeSpecKey, version, runtimeID string, now time.Time) tea.Cmd {
	m.ax.nextOp++
	op := &createOp{id: m.ax.nextOp, requestID: uuid.NewString(), spec: spec, version: version, runtimeID: runtimeID, started: now,
		known: map[string]bool{}}
	for r := range m.snap.All() {
		op.known[r.Name] = true
	}
	m.ax.creates = append(m.ax.creates, op)
	ls := &LastSpec{Spec: spec, Version: version}
	m.ax.lastSpec = ls
	if m.opts.Demo || m.opts.StateDir == "" {
		// demo mode: remembered in memory only (newActionState)
		return m.sendCreate(op, now)
	}
	dir := m.opts.StateDir
	save := func() tea.Msg { // file I/O stays out of Update
		if err := SaveLastSpec(dir, ls); err != nil {
			return lastSpecSaveFailedMsg{err: err}
		}
		return nil
	}
	return tea.Batch(save, m.sendCreate(op, now))
}

// lastSpecSaveFailedMsg reports that the last used spec could not be
// written to the state directory.
type lastSpecSaveFailedMsg struct{ err error }

// sendCreate (re-)sends op's identical create_runtime call.
func (m *Model) sendCreate(op *createOp, now time.Time) tea.Cmd {
	op.attempt++
	op.state = createSending
	ctx, cancel := context.WithCancel(m.ctx)
	op.cancel = cancel
	req := api.CreateRuntimeRequest{Spec: op.spec, Version: op.version, RuntimeID: op.runtimeID, RequestID: op.requestID}
	id, attempt, svc := op.id, op.attempt, m.svc
	return func() (msg tea.Msg) {
		defer cancel()
		defer func() {
			if r := recover(); r != nil {
				msg = createDoneMsg{op: id, attempt: attempt, err: errors.New("internal error in create_runtime")}
			}
		}()
		if svc == nil {
			return createDoneMsg{op: id, attempt: attempt, err: errors.New("no Colab service configured")}
		}
		rt, err := svc.CreateRuntime(ctx, req)
		return createDoneMsg{op: id, attempt: attempt, rt: rt, err: err}
	}
}

func (m *Model) onCreateDone(msg createDoneMsg, now time.Time) tea.Cmd {
	_, op := m.findCreate(msg.op)
	if op == nil || msg.attempt != op.attempt || op.state != createSending {
		return nil // cancelled, or superseded by a re-send
	}
	took := state.FormatCountdown(now.Sub(op.started))
	if msg.err == nil {
		m.dropCreate(op.id)
		// The row shows what the server returned.
		m.snap.UpdateRuntime(now, msg.rt)
		m.selected, m.rowsDirty, m.focus = msg.rt.Name, true, panelRuntimes
		m.setStatus(now, "✓ created "+msg.rt.ID()+" ("+msg.rt.RuntimeSpec.String()+") in "+took, false)
		return m.issue(callKey{kind: callSessions, runtime: msg.rt.Name}, now)
	}
	op.lastErr = msg.err
	var ae *api.Error
	if !errors.As(msg.err, &ae) {
		m.dropCreate(op.id)
		m.setStatus(now, "create "+op.spec.String()+" failed: "+errLine(msg.err), true)
		return nil
	}
	switch {
	case ae.OutcomeUnknown:
		// The request reached the server but the reply was lost: a runtime
		// may exist. Re-list; never create again on our own.
		op.state = createUnknown // cleared by onRuntimesListed
		m.setStatus(now, "create "+op.spec.String()+": outcome unknown (connection lost after sending); re-listing runtimes — one may already be using compute units", true)
		delete(m.pending, callKey{kind: callRuntimes})
		return tea.Batch(m.refresh(now, false)...)
	}
	if resend, wait := state.CreateRetry(ae, op.attempt); resend {
		if wait == 0 {
			return m.sendCreate(op, now) // the identical call: same requestId
		}
		op.state, op.retryAt = createWaiting, now.Add(wait)
		return nil
	}
	m.dropCreate(op.id)
	return m.offerAfterCreate(op, ae, now)
}

// onRuntimesListed clears outcome-unknown creates once a list_runtimes
// sent after them answered, pointing at what the list found.
func (m *Model) onRuntimesListed(now time.Time) {
	for _, op := range slices.Clone(m.ax.creates) {
		if op.state != createUnknown {
			continue
		}
		var found []string
		for r := range m.snap.All() {
			match := r.RuntimeSpec == op.spec && !op.known[r.Name]
			if op.runtimeID != "" {
				match = r.ID() == op.runtimeID
			}
			if !r.Gone() && match {
				found = append(found, r.ID())
			}
		}
		slices.Sort(found)
		m.dropCreate(op.id)
		if len(found) > 0 {
			m.setStatus(now, "create "+op.spec.String()+": outcome was unknown; found new runtime "+found[0]+" (not creating again)", false)
		} else {
			m.offerResend(op, now)
		}
	}
}

// offerResend asks what to do with a create whose outcome is unknown and
// whose runtime is not listed: Colab may still be creating it, so a new
// create (a new requestId) could make a second runtime, while re-sending
// the identical call (the same requestId) waits for or returns the one
// runtime (colab-api.md §1.5).
func (m *Model) offerResend(op *createOp, now time.Time) {
	msg := "create " + op.spec.String() + ": outcome unknown and no new runtime listed yet"
	if m.ax.dlg != nil { // never replace what the user is answering
		m.setStatus(now, msg+"; press r to re-list before creating again", true)
		return
	}
	d := newDialog(dlgChoice, now, "Create "+op.spec.String()+": outcome unknown", intent{kind: intentAfterCreate},
		"The connection was lost after the request was sent, and the runtime is not listed yet:",
		"Colab may still be creating it (and using compute units).")
	d.items = []choiceItem{
		{label: "re-send the identical request (same requestId: Colab returns the one runtime, never a second)"},
		{label: "leave it (r re-lists; a runtime may still appear)"},
	}
	d.intent.next = []afterChoice{{resend: op}, {close: true}}
	m.ax.dlg = d
}

// offerAfterCreate shows why a create failed and the next steps
// (state.ExplainCreateFailure, shared with `colabdash create`).
func (m *Model) offerAfterCreate(op *createOp, ae *api.Error, now time.Time) tea.Cmd {
	f := state.ExplainCreateFailure(ae, op.spec, m.snap.Specs, m.snap.Subscription.Tier, op.attempt)
	body := append([]string{api.OneLine(ae.Error(), 200)}, f.Body...)
	it := intent{kind: intentAfterCreate}
	var items []choiceItem
	if f.Kind == state.CreateTooManyRuntimes {
		body = append(body, "Delete one of them (you will confirm), or wait and create again.")
		for _, r := range m.rows {
			if r.Gone() {
				continue
			}
			items = append(items, choiceItem{label: "delete " + r.ID() + " (" + r.Spec() + ")"})
			it.next = append(it.next, afterChoice{deleteRuntime: r.Name})
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
		items = append(items, choiceItem{label: label})
		it.next = append(it.next, afterChoice{spec: k})
	}
	m.setStatus(now, "create "+op.spec.String()+" failed: "+errLine(ae), true)
	if len(items) == 0 {
		items = []choiceItem{{label: "close"}}
		it.next = []afterChoice{{close: true}}
	}
	d := newDialog(dlgChoice, now, f.Title, it, body...)
	d.items = items
	d.cursor = d.next(-1, 1)
	m.ax.dlg = d
	return nil
}

// createRows renders the in-progress creates for the top of the table.
func (m Model) createRows(now time.Time, c columns) []string {
	var out []string
	for _, op := range m.ax.creates {
		// The same columns as a runtime row: marker "+", the requested
		// runtime id (or what is being created), spec, version.
		var b strings.Builder
		rowStart(&b, false, '+')
		name := op.runtimeID
		if name == "" {
			name = "creating " + op.spec.String()
		}
		// The status follows the spec, so it is not cut at 100 columns.
		b.WriteString(fit(name, c.name) + " " + fit(op.spec.String(), c.spec) + " ")
		line := b.String()
		switch op.state {
		case createSending:
			line += "creating… " + state.FormatCountdown(now.Sub(op.started))
			if op.attempt > 1 {
				line += " · attempt " + strconv.Itoa(op.attempt) + "/" + strconv.Itoa(MaxCreateAttempts)
			}
		case createWaiting:
			why := "capacity unavailable"
			var ae *api.Error
			if errors.As(op.lastErr, &ae) && ae.Code == api.ResourceExhausted {
				why = "rate limited"
			}
			line += why + ", retrying " + strconv.Itoa(op.attempt+1) + "/" + strconv.Itoa(MaxCreateAttempts) + " in " +
				state.FormatCountdown(op.retryAt.Sub(now)) + " · " + m.keys.Cancel.Help().Key + " cancel"
		case createUnknown:
			line += "outcome unknown · re-listing…"
		}
		out = append(out, m.st.warn.Render(line))
	}
	return out
}

// --- the last used spec, remembered across runs ---

// LastSpec is the runtimeSpec and version of the last runtime the user
// created, stored as JSON in LastSpecFile under the state directory. It
// holds no secret.
type LastSpec struct {
	Spec    api.RuntimeSpecKey `json:"runtimeSpec"`
	Version string             `json:"version,omitempty"`
}

// LastSpecFile is the file name of the last used spec in the state
// directory.
const LastSpecFile = "last-spec.json"

// DefaultStateDir returns $XDG_STATE_HOME/colabdash, or
// ~/.local/state/colabdash when XDG_STATE_HOME is unset or not absolute
// (XDG Base Directory spec). It returns "" when neither can be found.
func DefaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "colabdash")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "colabdash")
}

// LoadLastSpec reads dir/last-spec.json the bounded way (safefile: a
// regular file of at most safefile.MaxStateFile bytes, read in bounded
// time). It returns an error when dir is empty, the file is missing, is
// not a regular file (a FIFO, a device, also behind a symlink) or too
// large, or it is not a valid spec.
func LoadLastSpec(dir string) (*LastSpec, error) {
	if dir == "" {
		return nil, errors.New("no state directory")
	}
	b, err := safefile.Read(filepath.Join(dir, LastSpecFile), safefile.MaxStateFile, 0)
	if err != nil {
		return nil, err
	}
	var ls LastSpec
	if err := json.Unmarshal(b, &ls); err != nil {
		return nil, err
	}
	if ls.Spec.Variant == "" {
		return nil, errors.New(LastSpecFile + ": no variant")
	}
	return &ls, nil
}

// SaveLastSpec writes ls to dir/last-spec.json (directory 0700, file 0600,
// written to a temporary file and renamed). An empty dir stores nothing.
func SaveLastSpec(dir string, ls *LastSpec) error {
	if dir == "" {
		return nil
	}
	b, err := json.MarshalIndent(ls, "", "  ")
	if err != nil {
		return err
	}
	return WriteStateFile(dir, LastSpecFile, append(b, '\n'))
}

// WriteStateFile writes b to dir/name in the state directory (directory
// 0700, file 0600) through a temporary file and a rename, so a reader
// never sees half of it. It holds no secret by contract: never pass one.
func WriteStateFile(dir, name string, b []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}
