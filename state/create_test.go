package state

import (
	"errors"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
)

func TestParseSpec(t *testing.T) {
	a100hm := api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "A100", Shape: api.ShapeHighMem}
	cpuHM := api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeHighMem}
	for _, tc := range []struct {
		in   string
		want api.RuntimeSpecKey
	}{
		{"GPU/T4/STANDARD", t4},
		{"gpu/t4", t4},
		{" GPU/T4/standard ", t4},
		{"VARIANT_GPU/A100/SHAPE_HIGHMEM", a100hm},
		{"CPU", cpu},
		{"cpu/standard", cpu},
		{"CPU/NONE/STANDARD", cpu},
		{"CPU/HIGHMEM", cpuHM},
		{"TPU/V6E1/HIGHMEM", tpu},
		// A variant Colab may add later is kept as written.
		{"QPU/Q1", api.RuntimeSpecKey{Variant: "VARIANT_QPU", Accelerator: "Q1", Shape: api.ShapeStandard}},
	} {
		got, err := ParseSpec(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		// What String prints reads back as the same key.
		if back, err := ParseSpec(got.String()); err != nil || back != got {
			t.Errorf("ParseSpec(%q) = %+v, %v; not %+v", got.String(), back, err, got)
		}
	}
	for in, why := range map[string]string{
		"":                 "want VARIANT",
		"GPU":              "needs an accelerator",
		"GPU/NONE":         "needs an accelerator",
		"CPU/T4/STANDARD":  "accelerator NONE, not T4",
		"GPU/T4/STANDARD/": "want VARIANT",
		"GPU/T-4":          `accelerator "T-4"`,
		"GPU/T4/\x1b[2J":   "shape",
	} {
		_, err := ParseSpec(in)
		if err == nil || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "e.g. GPU/T4/STANDARD") {
			t.Errorf("ParseSpec(%q): error %v, want one mentioning %q and an example", in, err, why)
		}
	}
}

func TestCheckSpec(t *testing.T) {
	specs := []api.RuntimeSpec{{Key: cpu, Eligible: true}, {Key: t4, Eligible: true}, {Key: tpu}}
	if err := CheckSpec(specs, t4, api.TierFree); err != nil {
		t.Fatalf("eligible spec refused: %v", err)
	}
	var se *SpecError
	err := CheckSpec(specs, tpu, api.TierFree)
	if !errors.As(err, &se) || se.Problem != SpecIneligible ||
		err.Error() != "TPU/V6E1/HIGHMEM: not eligible on tier Free (eligible: CPU/STANDARD, GPU/T4/STANDARD)" {
		t.Errorf("ineligible: %v", err)
	}
	a100 := api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "A100", Shape: api.ShapeStandard}
	if err := CheckSpec(specs, a100, api.TierPro); !errors.As(err, &se) || se.Problem != SpecNotOffered ||
		!strings.Contains(err.Error(), "not a runtime spec Colab offers") {
		t.Errorf("not offered: %v", err)
	}
	if err := CheckSpec([]api.RuntimeSpec{{Key: t4}}, t4, api.TierFree); err == nil || !strings.Contains(err.Error(), "no spec is eligible on tier Free") {
		t.Errorf("nothing eligible: %v", err)
	}
}

func TestExplainCreateFailure(t *testing.T) {
	a100 := api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "A100", Shape: api.ShapeStandard}
	specs := []api.RuntimeSpec{{Key: cpu, Eligible: true}, {Key: t4, Eligible: true}, {Key: a100, Eligible: true}, {Key: tpu}}
	for _, tc := range []struct {
		name  string
		err   *api.Error
		kind  CreateFailureKind
		title string
		alts  []api.RuntimeSpecKey
		quota bool
	}{
		{"too many", &api.Error{Code: api.FailedPrecondition, Reason: api.ReasonTooManyActiveRuntimes}, CreateTooManyRuntimes, "Too many active runtimes", nil, true},
		{"denylisted", &api.Error{Code: api.FailedPrecondition, Reason: api.ReasonDenylisted}, CreateDenylisted, "Account blocked from Colab runtimes (DENYLISTED)", nil, true},
		{"usage quota", &api.Error{Code: api.FailedPrecondition, Reason: api.ReasonQuotaExceededUsageTime}, CreateQuota, "Usage limit reached (QUOTA_EXCEEDED_USAGE_TIME)", []api.RuntimeSpecKey{cpu}, true},
		{"stock-out", &api.Error{Code: api.FailedPrecondition}, CreateAcceleratorUnavailable, "Accelerator T4 unavailable", []api.RuntimeSpecKey{a100}, true},
		{"rate limited to the end", &api.Error{Code: api.ResourceExhausted}, CreateGaveUp, "Create gave up after 5 attempts", []api.RuntimeSpecKey{cpu, a100}, false},
		{"internal", &api.Error{Code: api.Internal}, CreateFailedOther, "Could not create GPU/T4/STANDARD", nil, false},
	} {
		f := ExplainCreateFailure(tc.err, t4, specs, api.TierPro, MaxCreateAttempts)
		if f.Kind != tc.kind || f.Title != tc.title || len(f.Alternatives) != len(tc.alts) || f.Kind.QuotaOrIneligible() != tc.quota {
			t.Errorf("%s: %+v", tc.name, f)
			continue
		}
		for i := range tc.alts {
			if f.Alternatives[i] != tc.alts[i] {
				t.Errorf("%s: alternatives %v, want %v", tc.name, f.Alternatives, tc.alts)
			}
		}
		if tc.kind != CreateFailedOther && len(f.Body) == 0 {
			t.Errorf("%s: no explanation", tc.name)
		}
	}
}

// One attempt reads "1 attempt", not "1 attempts".
func TestExplainCreateFailureOneAttempt(t *testing.T) {
	f := ExplainCreateFailure(&api.Error{Code: api.Unavailable}, t4, nil, api.TierPro, 1)
	if f.Kind != CreateGaveUp || f.Title != "Create gave up after 1 attempt" {
		t.Fatalf("%v %q", f.Kind, f.Title)
	}
}

func TestOwnSessionIDs(t *testing.T) {
	id := NewSessionID()
	if err := api.ValidateID(id); err != nil || !IsOwnSession("runtimes/r/sessions/"+id) || !IsOwnSession(id) {
		t.Fatalf("NewSessionID() = %q: %v", id, err)
	}
	if id == NewSessionID() {
		t.Fatal("two session ids alike")
	}
	if IsOwnSession("runtimes/r/sessions/notebook-1") || IsOwnSession("runtimes/colabdash-r/sessions/x") {
		t.Fatal("a notebook session counted as colabdash's")
	}
}
