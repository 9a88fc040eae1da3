package ui

import (
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
)

// The create picker: variant → accelerator → shape → version → runtime id,
// one dialog per step (a step with one choice is skipped); esc goes back a
// step with the answers kept.

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
	if len(m.cx.Snap.Specs) == 0 {
		msg := "no runtime specs yet (list_runtime_specs has not answered)"
		if err := m.cx.Snap.SpecsFresh.Err; err != nil {
			msg = "cannot list runtime specs: " + common.ErrLine(err)
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
	vals, elig := specChoices(m.cx.Snap.Specs, keep, field)
	enabled := 0
	for _, e := range elig {
		if e {
			enabled++
		}
	}
	if enabled == 0 {
		m.setStatus(now, "no eligible runtime spec for "+partial.String()+" on tier "+m.cx.Snap.Subscription.Tier.Label(), true)
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
			it.note = "(" + state.IneligibleNote(m.cx.Snap.Subscription.Tier) + ")"
		}
		d.items = append(d.items, it)
	}
	d.cursor = d.next(-1, 1)
	if i := slices.Index(vals, field(m.opts.DefaultSpec)); i >= 0 && !d.items[i].disabled {
		d.cursor = i
	}
	d.intent.vals = vals
	m.push(d)
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
	if nd, ok := m.top().(*dialog); ok && nd != d && nd.back == nil && isPickerStep(nd.intent.kind) {
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
			intent{kind: intentRuntimeID, spec: spec, version: d.input()},
			"Runtime id (optional, RFC 1034: "+rfc1034Rules+").")
		nd.validate, nd.hint = api.ValidateID, "empty: Colab chooses the id"
		m.push(nd)
	case intentRuntimeID:
		return m.submitCreate(spec, it.version, d.input(), now)
	}
	return nil
}

func (m *Model) openVersionStep(spec api.RuntimeSpecKey, now time.Time) {
	d := newDialog(dlgInput, now, "New runtime "+spec.String()+": runtime version",
		intent{kind: intentVersion, spec: spec}, "Runtime image version (optional, e.g. 2025.10).")
	d.hint = "empty: latest"
	m.push(d)
}
