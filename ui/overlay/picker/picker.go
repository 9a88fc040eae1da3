// Package picker is the create picker: variant → accelerator → shape →
// version → runtime id, one dialog (package dialog) per step, from the
// runtime specs and tier in the Context's snapshot. A step with one
// choice is skipped; esc goes back a step with the answers kept (each
// step's Back is the step shown before it). The last step answers with
// common.CreateRuntime: the app submits the create.
package picker

import (
	"slices"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
)

// IDRules are the id rules api.ValidateID enforces, for dialog hints.
const IDRules = "1–63 lower-case letters, digits and hyphens; starts with a letter; ends with a letter or digit"

// step is one of the picker's choice steps.
type step int

const (
	stepVariant step = iota
	stepAccelerator
	stepShape
)

// Open starts the picker over the specs of c.Snap (the caller has made
// sure there are some): the effect opens its first step (common.Open), or
// says that no spec is eligible on the tier (common.Say). def, the
// config's defaultRuntimeSpec (zero: none), is where each step's cursor
// starts when it is eligible.
func Open(c *common.Context, def api.RuntimeSpecKey) common.Effect {
	return choose(c, stepVariant, api.RuntimeSpecKey{}, def, nil)
}

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

// choose opens the choice dialog of step st for the partial spec, or
// skips it when it has one choice; back is the step shown before it.
func choose(c *common.Context, st step, partial, def api.RuntimeSpecKey, back *dialog.Dialog) common.Effect {
	var keep func(api.RuntimeSpecKey) bool
	var field func(api.RuntimeSpecKey) string
	var title string
	switch st {
	case stepVariant:
		keep = func(api.RuntimeSpecKey) bool { return true }
		field = func(k api.RuntimeSpecKey) string { return string(k.Variant) }
		title = "New runtime: variant"
	case stepAccelerator:
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
	tier := c.Snap.Subscription.Tier
	vals, elig := specChoices(c.Snap.Specs, keep, field)
	if !slices.Contains(elig, true) {
		return common.Say{Text: "no eligible runtime spec for " + partial.String() + " on tier " + tier.Label(), Err: true}
	}
	if len(vals) == 1 {
		return next(c, st, with(partial, st, vals[0]), def, back)
	}
	items := make([]dialog.Item, len(vals))
	for i, v := range vals {
		label := v
		switch st {
		case stepVariant:
			label = api.Variant(v).Short()
		case stepShape:
			label = api.Shape(v).Short()
		}
		items[i] = dialog.Item{Label: label, Disabled: !elig[i]}
		if items[i].Disabled {
			items[i].Note = "(" + state.IneligibleNote(tier) + ")"
		}
	}
	d := dialog.NewChoice(c.Now(), title, items, slices.Index(vals, field(def)))
	d.Back = back
	d.OnAnswer = func(c *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return cancelled
		}
		return next(c, st, with(partial, st, vals[r.Choice]), def, d)
	}
	return common.Open{Overlay: d}
}

// cancelled is what esc on the picker's first step (or a step opened on
// its own) says.
var cancelled = common.Say{Text: "new runtime cancelled: nothing created"}

// with returns spec with step st's field set to v.
func with(spec api.RuntimeSpecKey, st step, v string) api.RuntimeSpecKey {
	switch st {
	case stepVariant:
		spec.Variant = api.Variant(v)
	case stepAccelerator:
		spec.Accelerator = v
	default:
		spec.Shape = api.Shape(v)
	}
	return spec
}

// next opens the step after st for spec; back is the last step shown.
func next(c *common.Context, st step, spec, def api.RuntimeSpecKey, back *dialog.Dialog) common.Effect {
	switch st {
	case stepVariant:
		return choose(c, stepAccelerator, spec, def, back)
	case stepAccelerator:
		return choose(c, stepShape, spec, def, back)
	}
	return common.Open{Overlay: Version(c.Now(), spec, back)}
}

// Version is the picker's version step for spec, opened at now (its
// answer opens the runtime id step); back is the step esc returns to (nil:
// esc cancels, as when the next step chosen after a failed create opens
// it on its own).
func Version(now time.Time, spec api.RuntimeSpecKey, back *dialog.Dialog) *dialog.Dialog {
	d := dialog.New(dialog.Input, now, "New runtime "+spec.String()+": runtime version",
		"Runtime image version (optional, e.g. 2025.10).")
	d.Hint, d.Back = "empty: latest", back
	d.OnAnswer = func(c *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return cancelled
		}
		return common.Open{Overlay: runtimeID(c.Now(), spec, r.Input, d)}
	}
	return d
}

// runtimeID is the last step: the runtime id (optional, validated), then
// the create of spec with version.
func runtimeID(now time.Time, spec api.RuntimeSpecKey, version string, back *dialog.Dialog) *dialog.Dialog {
	d := dialog.New(dialog.Input, now, "New runtime "+spec.String()+": runtime id",
		"Runtime id (optional, RFC 1034: "+IDRules+").")
	d.Validate, d.Hint, d.Back = api.ValidateID, "empty: Colab chooses the id", back
	d.OnAnswer = func(_ *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return cancelled
		}
		return common.CreateRuntime{Spec: spec, Version: version, ID: r.Input}
	}
	return d
}
