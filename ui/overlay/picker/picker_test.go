package picker

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
)

func key(v api.Variant, acc string, sh api.Shape) api.RuntimeSpecKey {
	return api.RuntimeSpecKey{Variant: v, Accelerator: acc, Shape: sh}
}

// specs is list_runtime_specs as the emulator answers it on tier Pro.
var specs = []api.RuntimeSpec{
	{Key: key(api.VariantCPU, api.AcceleratorNone, api.ShapeStandard), Eligible: true},
	{Key: key(api.VariantCPU, api.AcceleratorNone, api.ShapeHighMem), Eligible: true},
	{Key: key(api.VariantGPU, "T4", api.ShapeStandard), Eligible: true},
	{Key: key(api.VariantGPU, "T4", api.ShapeHighMem), Eligible: true},
	{Key: key(api.VariantGPU, "L4", api.ShapeStandard), Eligible: true},
	{Key: key(api.VariantGPU, "A100", api.ShapeStandard), Eligible: true},
	{Key: key(api.VariantGPU, "A100", api.ShapeHighMem), Eligible: true},
	{Key: key(api.VariantGPU, "H100", api.ShapeStandard)},
	{Key: key(api.VariantTPU, "V5E1", api.ShapeStandard), Eligible: true},
}

// harness is the app's stack as far as the picker needs it: it opens
// and closes dialogs and records what else the effects ask for. Its
// keyboard hands keys to the dialog on top, each after the grace period
// on the harness's clock, applying each effect.
type harness struct {
	t       *testing.T
	kb      commontest.Keyboard
	c       *common.Context
	stack   []common.Overlay
	said    []common.Say
	created []common.CreateRuntime
}

func newHarness(t *testing.T, tier api.SubscriptionTier, list []api.RuntimeSpec) *harness {
	h := &harness{t: t, c: commontest.OverlayContext(100, 30, false)}
	h.kb = commontest.Keyboard{Clock: &commontest.Clock{}, Gap: dialog.Grace + time.Millisecond, Route: h.route}
	h.c.Snap.ApplySpecs(h.kb.Now(), list)
	h.c.Snap.Subscription = api.Subscription{Tier: tier}
	h.c.Now = h.kb.Now
	return h
}

func (h *harness) apply(e common.Effect) {
	h.t.Helper()
	switch a := e.(type) {
	case nil:
	case common.Open:
		h.stack = append(h.stack, a.Overlay)
	case common.Answer:
		for i, o := range h.stack {
			if o == a.Dialog {
				h.stack = append(h.stack[:i:i], h.stack[i+1:]...)
				break
			}
		}
		h.apply(a.Then)
	case common.Say:
		h.said = append(h.said, a)
	case common.CreateRuntime:
		h.created = append(h.created, a)
	default:
		h.t.Fatalf("unexpected effect %#v", e)
	}
}

// top is the dialog on top, or nil.
func (h *harness) top() *dialog.Dialog {
	if len(h.stack) == 0 {
		return nil
	}
	return h.stack[len(h.stack)-1].(*dialog.Dialog)
}

// route applies e and returns the overlay that takes the next key: the
// one on top, nil when none is open.
func (h *harness) route(e common.Effect) common.Overlay {
	h.apply(e)
	if len(h.stack) == 0 {
		return nil
	}
	return h.stack[len(h.stack)-1]
}

// press sends keys to the top one by one, each after the grace period.
func (h *harness) press(keys ...string) {
	h.t.Helper()
	h.kb.Effects(h.t, h.route(nil), h.c, keys...)
}

// typeAhead sends keys to the top one by one at the same instant, as
// keys typed ahead of the screen arrive.
func (h *harness) typeAhead(keys ...string) {
	h.t.Helper()
	commontest.Keyboard{Route: h.route}.Effects(h.t, h.route(nil), h.c, keys...)
}

// esc in the create picker goes back one step (answers kept) and cancels
// only from the first step; the hint says which.
func TestPickerEscGoesBackAStep(t *testing.T) {
	h := newHarness(t, api.TierPro, specs)
	h.apply(Open(h.c, api.RuntimeSpecKey{}))
	commontest.MustContain(t, commontest.Box(t, h.top(), h.c, 100), "New runtime: variant", "esc cancel")
	h.press("down", "enter") // GPU
	commontest.MustContain(t, commontest.Box(t, h.top(), h.c, 100), "accelerator (GPU)", "esc back")
	h.press("enter", "enter") // T4, STANDARD
	commontest.MustContain(t, commontest.Box(t, h.top(), h.c, 100), "runtime version", "esc back")
	h.press("esc")
	commontest.MustContain(t, commontest.Box(t, h.top(), h.c, 100), "shape (GPU T4)")
	h.press("esc", "esc")
	commontest.MustContain(t, commontest.Box(t, h.top(), h.c, 100), "New runtime: variant")
	if d := h.top(); d.Items[d.Cursor()].Label != "GPU" {
		t.Fatalf("going back lost the answer: cursor on %q", d.Items[d.Cursor()].Label)
	}
	if len(h.stack) != 1 {
		t.Fatalf("%d dialogs open after going back to the first step", len(h.stack))
	}
	h.press("esc")
	if h.top() != nil || len(h.created) != 0 || len(h.said) != 1 || h.said[0].Text != "new runtime cancelled: nothing created" {
		t.Fatalf("esc on the first step did not just cancel (saying so): %d open, %+v %+v", len(h.stack), h.said, h.created)
	}
	// CPU has one accelerator: that step is skipped, and its shape step
	// does not say NONE; esc from it goes back to the variant.
	h.apply(Open(h.c, api.RuntimeSpecKey{}))
	h.press("enter")
	if title := h.top().Title; title != "New runtime: shape (CPU)" {
		t.Fatalf("CPU shape title %q", title)
	}
	h.press("esc")
	commontest.MustContain(t, commontest.Box(t, h.top(), h.c, 100), "New runtime: variant")
}

// Keys typed ahead, all at the instant the picker opened, count: j
// enter j enter reaches GPU/L4 (one shape: that step is skipped), enter
// the runtime id step; esc esc backs out two steps, answers kept.
func TestPickerTakesKeysTypedAhead(t *testing.T) {
	h := newHarness(t, api.TierPro, specs)
	h.apply(Open(h.c, api.RuntimeSpecKey{}))
	h.typeAhead("j", "enter", "j", "enter", "enter")
	if got, want := h.top().Title, "New runtime "+key(api.VariantGPU, "L4", api.ShapeStandard).String()+": runtime id"; got != want {
		t.Fatalf("after n j enter j enter enter typed ahead: %q, want %q", got, want)
	}
	h.typeAhead("esc", "esc")
	d := h.top()
	if d.Title != "New runtime: accelerator (GPU)" || d.Items[d.Cursor()].Label != "L4" {
		t.Fatalf("after esc esc: %q with the cursor on %q", d.Title, d.Items[d.Cursor()].Label)
	}
	if len(h.said) != 0 {
		t.Fatalf("a key was ignored: %+v", h.said)
	}
}

// Ineligible specs are listed with the tier's note and cannot be chosen.
func TestPickerIneligibleSpecsCannotBeChosen(t *testing.T) {
	h := newHarness(t, api.TierPro, specs)
	h.apply(Open(h.c, api.RuntimeSpecKey{}))
	h.press("down", "enter") // GPU
	commontest.MustContain(t, commontest.Box(t, h.top(), h.c, 100), "T4", "A100", "H100  (not eligible on tier Pro)")
	h.press("down", "down", "down", "down", "down")
	if it := h.top().Items[h.top().Cursor()]; it.Disabled || it.Label != "A100" {
		t.Fatalf("cursor on %q (disabled %v)", it.Label, it.Disabled)
	}
	// No eligible spec at all: the status says so, nothing opens.
	h = newHarness(t, api.TierFree, []api.RuntimeSpec{{Key: key(api.VariantTPU, "V5E1", api.ShapeStandard)}})
	h.apply(Open(h.c, api.RuntimeSpecKey{}))
	if h.top() != nil || len(h.said) != 1 || !h.said[0].Err || !strings.Contains(h.said[0].Text, "no eligible runtime spec") ||
		!strings.Contains(h.said[0].Text, "on tier Free") {
		t.Fatalf("no eligible spec: %d open, %+v", len(h.stack), h.said)
	}
}

// The config file's defaultRuntimeSpec is where the picker starts, so
// Enter, Enter, Enter walks straight to it.
func TestPickerStartsOnDefaultSpec(t *testing.T) {
	h := newHarness(t, api.TierPro, specs)
	h.apply(Open(h.c, key(api.VariantGPU, "A100", api.ShapeHighMem)))
	h.press("enter")
	commontest.MustContain(t, commontest.Box(t, h.top(), h.c, 100), "accelerator (GPU)")
	h.press("enter")
	commontest.MustContain(t, commontest.Box(t, h.top(), h.c, 100), "shape (GPU A100)")
	h.press("enter")
	if title := h.top().Title; title != "New runtime GPU/A100/HIGHMEM: runtime version" {
		t.Fatalf("picked %q, want the default GPU/A100/HIGHMEM", title)
	}
	// An ineligible default is not where the cursor starts.
	h = newHarness(t, api.TierPro, specs)
	h.apply(Open(h.c, key(api.VariantGPU, "H100", api.ShapeStandard)))
	h.press("enter")
	if it := h.top().Items[h.top().Cursor()]; it.Label != "T4" {
		t.Fatalf("cursor on %q, want the first eligible accelerator", it.Label)
	}
}

// The runtime id rules are all listed, and a validation error is wrapped
// under the input at 60 columns, not cut. The last step answers with the
// create of the spec, version and id chosen.
func TestPickerIDRulesAndWrappedError(t *testing.T) {
	h := newHarness(t, api.TierPro, specs)
	h.apply(Open(h.c, api.RuntimeSpecKey{}))
	h.press("down", "enter", "enter", "enter") // GPU, T4, STANDARD
	h.press("2", "0", "2", "5", ".", "1", "0", "enter")
	commontest.MustContain(t, commontest.Box(t, h.top(), h.c, 60), "runtime id")
	commontest.MustContain(t, strings.Join(h.top().Body, " "), "1–63", "starts with a letter", "ends with a letter or digit")
	h.press("a", "b", "-")
	v := commontest.Box(t, h.top(), h.c, 60)
	commontest.MustContain(t, v, "must end with a letter or", "digit")
	if h.top().Problem() == "" {
		t.Fatal("ab- accepted")
	}
	for _, ln := range strings.Split(v, "\n") {
		if strings.Contains(ln, "✕") && strings.Contains(ln, "…") {
			t.Fatalf("validation error cut: %q\n%s", ln, v)
		}
	}
	h.press("enter")
	if len(h.created) != 0 {
		t.Fatal("an invalid runtime id was submitted")
	}
	h.press("1", "enter")
	want := common.CreateRuntime{Spec: key(api.VariantGPU, "T4", api.ShapeStandard), Version: "2025.10", ID: "ab-1"}
	if len(h.created) != 1 || h.created[0] != want || h.top() != nil {
		t.Fatalf("created %+v (%d open), want %+v", h.created, len(h.stack), want)
	}
}

// The version step opened on its own (the next step chosen after a
// failed create) cancels on esc; the id step after it goes back to it.
func TestVersionStepOnItsOwn(t *testing.T) {
	h := newHarness(t, api.TierPro, specs)
	cpu := key(api.VariantCPU, api.AcceleratorNone, api.ShapeStandard)
	h.apply(common.Open{Overlay: Version(h.kb.Now(), cpu, nil)})
	commontest.MustContain(t, commontest.Box(t, h.top(), h.c, 100), "New runtime CPU/STANDARD: runtime version", "empty: latest", "esc cancel")
	h.press("enter")
	commontest.MustContain(t, commontest.Box(t, h.top(), h.c, 100), "runtime id", "empty: Colab chooses the id", "esc back")
	h.press("esc")
	commontest.MustContain(t, commontest.Box(t, h.top(), h.c, 100), "runtime version")
	h.press("esc")
	if h.top() != nil {
		t.Fatal("esc on the version step opened on its own did not cancel")
	}
	h.apply(common.Open{Overlay: Version(h.kb.Now(), cpu, nil)})
	h.press("enter", "enter")
	if want := (common.CreateRuntime{Spec: cpu}); len(h.created) != 1 || h.created[0] != want {
		t.Fatalf("created %+v", h.created)
	}
}
