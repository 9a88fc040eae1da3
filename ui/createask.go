package ui

// The create's questions: the picker (n), the re-create of the last spec
// (N), the choice after an outcome unknown, the next steps after a failed
// create, and cancelling a create waiting to retry.

import (
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/overlay/picker"
)

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

// openPicker opens the create picker (ui/overlay/picker) over the runtime
// specs listed, starting on the configured default spec; without specs the
// status line says why.
func (m *createOps) openPicker() common.Effect {
	if len(m.cx.Snap.Specs) == 0 {
		msg := "no runtime specs yet (list_runtime_specs has not answered)"
		if err := m.cx.Snap.SpecsFresh.Err; err != nil {
			msg = "cannot list runtime specs: " + common.ErrLine(err)
		}
		return common.Say{Text: msg, Err: true}
	}
	return picker.Open(m.cx, m.opts.DefaultSpec)
}

// quickCreate is N: the question whether to create a runtime like the
// last one (or, before any, of the config's defaultRuntimeSpec: a T4 in
// two keys from the first create once the config names it), or why it
// cannot.
func (m *createOps) quickCreate(now time.Time) common.Effect {
	title, spec, version, from := "Create a runtime like the last one?", api.RuntimeSpecKey{}, "", "like the last one"
	if ls := m.lastSpec; ls != nil {
		spec, version = ls.Spec, ls.Version
	} else if m.opts.DefaultSpec.Variant != "" {
		title, spec, from = "Create a runtime of your default spec?", m.opts.DefaultSpec, "your defaultRuntimeSpec"
	} else {
		return common.Say{Text: "no last spec yet: create one with " + m.cx.Keys.Dashboard.NewRuntime.Help().Key, Err: true}
	}
	if len(m.cx.Snap.Specs) > 0 {
		if err := state.CheckSpec(m.cx.Snap.Specs, spec, m.cx.Snap.Subscription.Tier); err != nil {
			return common.Say{Text: "cannot create " + from + ": " + err.Error(), Err: true}
		}
	}
	body := "spec " + spec.String() + " · version " + orLatest(version)
	if m.lastSpec == nil {
		body += " (your config's defaultRuntimeSpec, until you have created one)"
	}
	d := dialog.New(dialog.Confirm, now, title, body)
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "create cancelled: nothing created"}
		}
		return common.CreateRuntime{Spec: spec, Version: version}
	}
	return common.Open{Overlay: d}
}

// cancelWaiting cancels the first create waiting to retry, and says so.
func (m *createOps) cancelWaiting() common.Effect {
	for _, op := range m.creates {
		if op.state == createWaiting {
			m.dropCreate(op.id)
			return common.Say{Text: "create of " + op.spec.String() + " cancelled"}
		}
	}
	return common.Say{Text: "no create is waiting to retry"}
}
