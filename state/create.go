package state

import (
	"fmt"
	"github.com/colabdash/colabdash/api/plural"
	"regexp"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
)

// What the dashboard and the `create` command share about creating a
// runtime: reading a runtimeSpec the user typed, whether the account may
// create it, and what a refusal means in the user's terms. What follows
// each answer to create_runtime is decided in create_policy.go.

// SpecProblem says why a runtimeSpec cannot be created.
type SpecProblem int

// SpecProblem values.
const (
	// SpecNotOffered: list_runtime_specs does not list the spec at all.
	SpecNotOffered SpecProblem = iota + 1
	// SpecIneligible: the spec is listed but the account is not eligible.
	SpecIneligible
)

// SpecError is CheckSpec's refusal: Spec is what was asked for, Tier the
// account's tier, Eligible every spec the account may create (in
// list_runtime_specs order).
type SpecError struct {
	Problem  SpecProblem
	Spec     api.RuntimeSpecKey
	Tier     api.SubscriptionTier
	Eligible []api.RuntimeSpecKey
}

// Error renders one line, e.g. "GPU/A100/STANDARD: not eligible on tier
// Free (eligible: CPU/STANDARD, GPU/T4/STANDARD)".
func (e *SpecError) Error() string {
	var b strings.Builder
	b.WriteString(e.Spec.String())
	if e.Problem == SpecNotOffered {
		b.WriteString(": not a runtime spec Colab offers")
	} else {
		b.WriteString(": " + IneligibleNote(e.Tier))
	}
	if len(e.Eligible) == 0 {
		b.WriteString(" (no spec is eligible on tier " + e.Tier.Label() + ")")
		return b.String()
	}
	names := make([]string, len(e.Eligible))
	for i, k := range e.Eligible {
		names[i] = k.String()
	}
	b.WriteString(" (eligible: " + strings.Join(names, ", ") + ")")
	return b.String()
}

// IneligibleNote is the words shown next to a spec the account may not
// create: "not eligible on tier Pro".
func IneligibleNote(tier api.SubscriptionTier) string {
	return "not eligible on tier " + tier.Label()
}

// EligibleSpecs returns the keys of the eligible specs, in list order.
func EligibleSpecs(specs []api.RuntimeSpec) []api.RuntimeSpecKey {
	var out []api.RuntimeSpecKey
	for _, s := range specs {
		if s.Eligible {
			out = append(out, s.Key)
		}
	}
	return out
}

// FindSpec returns the listed spec whose key is k.
func FindSpec(specs []api.RuntimeSpec, k api.RuntimeSpecKey) (api.RuntimeSpec, bool) {
	for _, s := range specs {
		if s.Key == k {
			return s, true
		}
	}
	return api.RuntimeSpec{}, false
}

// CheckSpec reports whether the account (on tier) may create k according
// to list_runtime_specs: nil, or a *SpecError (not offered, or not
// eligible).
func CheckSpec(specs []api.RuntimeSpec, k api.RuntimeSpecKey, tier api.SubscriptionTier) error {
	s, ok := FindSpec(specs, k)
	switch {
	case !ok:
		return &SpecError{Problem: SpecNotOffered, Spec: k, Tier: tier, Eligible: EligibleSpecs(specs)}
	case !s.Eligible:
		return &SpecError{Problem: SpecIneligible, Spec: k, Tier: tier, Eligible: EligibleSpecs(specs)}
	}
	return nil
}

var specWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z0-9][A-Z0-9_]*$`) })

// ParseSpec reads a runtimeSpec as a person writes it, case-insensitively:
// "GPU/T4/STANDARD", "GPU/T4" (shape STANDARD), "CPU/HIGHMEM", "CPU",
// "CPU/NONE/STANDARD", or with the enum prefixes
// ("VARIANT_GPU/T4/SHAPE_HIGHMEM"), i.e. the form RuntimeSpecKey.String
// prints. Errors say what was expected; whether Colab offers the spec is
// CheckSpec's business.
func ParseSpec(s string) (api.RuntimeSpecKey, error) {
	parts := strings.Split(strings.TrimSpace(s), "/")
	bad := func(why string) (api.RuntimeSpecKey, error) {
		return api.RuntimeSpecKey{}, fmt.Errorf("runtime spec %q: %s (e.g. GPU/T4/STANDARD, CPU/STANDARD, TPU/V6E1/HIGHMEM)", s, why)
	}
	if len(parts) > 3 || parts[0] == "" {
		return bad("want VARIANT/ACCELERATOR/SHAPE")
	}
	variant, acc, shape := parts[0], "", ""
	cpu := strings.EqualFold(strings.TrimPrefix(strings.ToUpper(variant), "VARIANT_"), "CPU")
	if len(parts) == 3 {
		acc, shape = parts[1], parts[2]
	} else if len(parts) == 2 && cpu {
		shape = parts[1]
	} else if len(parts) == 2 {
		acc = parts[1]
	}
	k, err := SpecFromFields(variant, acc, shape)
	if err != nil {
		return bad(err.Error())
	}
	return k, nil
}

// SpecFromFields builds a runtimeSpec from its three fields as a person
// writes them: case-insensitive, with or without the VARIANT_/SHAPE_
// prefix. An empty shape is STANDARD; a CPU's accelerator is NONE (empty
// or NONE given); any other variant needs an accelerator. Values Colab may
// add later (another variant, shape or accelerator) are accepted as
// written, in upper case.
func SpecFromFields(variant, accelerator, shape string) (api.RuntimeSpecKey, error) {
	v := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(variant)), "VARIANT_")
	a := strings.ToUpper(strings.TrimSpace(accelerator))
	sh := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(shape)), "SHAPE_")
	if sh == "" {
		sh = "STANDARD"
	}
	for _, f := range []struct{ name, v string }{{"variant", v}, {"shape", sh}} {
		if !specWord().MatchString(f.v) {
			return api.RuntimeSpecKey{}, fmt.Errorf("%s %q is not a word of letters, digits and _", f.name, f.v)
		}
	}
	if a != "" && !specWord().MatchString(a) {
		return api.RuntimeSpecKey{}, fmt.Errorf("accelerator %q is not a word of letters, digits and _", a)
	}
	if v == "CPU" && a != "" && a != api.AcceleratorNone {
		return api.RuntimeSpecKey{}, fmt.Errorf("a CPU runtime has accelerator NONE, not %s", a)
	}
	if v == "CPU" {
		a = api.AcceleratorNone
	} else if a == "" || a == api.AcceleratorNone {
		return api.RuntimeSpecKey{}, fmt.Errorf("variant %s needs an accelerator (e.g. T4 or A100 for GPU, V6E1 for TPU)", v)
	}
	return api.RuntimeSpecKey{Variant: api.Variant("VARIANT_" + v), Accelerator: a, Shape: api.Shape("SHAPE_" + sh)}, nil
}

// CreateFailureKind classifies a refused create_runtime for the user.
type CreateFailureKind int

// CreateFailureKind values.
const (
	// CreateFailedOther: none of the kinds below; the error says it all.
	CreateFailedOther CreateFailureKind = iota
	// CreateTooManyRuntimes: TOO_MANY_ACTIVE_RUNTIMES; deleting one helps.
	CreateTooManyRuntimes
	// CreateDenylisted: DENYLISTED; nothing the user does here helps.
	CreateDenylisted
	// CreateQuota: a usage quota (QUOTA_EXCEEDED_USAGE_TIME …); CPU
	// runtimes may still be created.
	CreateQuota
	// CreateAcceleratorUnavailable: FAILED_PRECONDITION for an accelerator
	// (no capacity; Colab has no dedicated reason for a stock-out).
	CreateAcceleratorUnavailable
	// CreateGaveUp: RESOURCE_EXHAUSTED (rate limit), UNAVAILABLE or
	// DEADLINE_EXCEEDED after every re-send; nothing was created by them.
	CreateGaveUp
)

// QuotaOrIneligible reports whether the refusal is the account's quota,
// limits or eligibility rather than the network or the server (exit code 5
// of the scriptable verbs).
func (k CreateFailureKind) QuotaOrIneligible() bool {
	return k == CreateTooManyRuntimes || k == CreateDenylisted || k == CreateQuota || k == CreateAcceleratorUnavailable
}

// CreateFailure is what a refused create_runtime means, for any front
// end: a title, the explanation (lines, without the error itself) and
// the eligible specs worth offering instead (in list order).
type CreateFailure struct {
	Kind         CreateFailureKind
	Title        string
	Body         []string
	Alternatives []api.RuntimeSpecKey
}

// ExplainCreateFailure explains err, the final failure of creating spec
// after attempts sends, with the account's listed specs and tier.
func ExplainCreateFailure(err *api.Error, spec api.RuntimeSpecKey, specs []api.RuntimeSpec, tier api.SubscriptionTier, attempts int) CreateFailure {
	f := CreateFailure{Title: "Could not create " + spec.String()}
	if err.Reason == api.ReasonTooManyActiveRuntimes {
		f.Kind, f.Title = CreateTooManyRuntimes, "Too many active runtimes"
		f.Body = []string{"Colab limits how many runtimes run at once; a runtime deleted in the last minutes may still count."}
	} else if err.Reason == api.ReasonDenylisted {
		f.Kind, f.Title = CreateDenylisted, "Account blocked from Colab runtimes (DENYLISTED)"
		f.Body = []string{"Colab refuses runtimes for this account; retrying will not help."}
	} else if err.IsQuota() {
		f.Kind, f.Title = CreateQuota, "Usage limit reached ("+err.Reason+")"
		f.Body = []string{"Your " + tier.Label() + " tier's usage quota is used up for accelerators; it resets later.",
			"You can still create a CPU runtime."}
		for _, s := range specs {
			if s.Key.Variant == api.VariantCPU && s.Eligible {
				f.Alternatives = append(f.Alternatives, s.Key)
			}
		}
	} else if err.Code == api.FailedPrecondition && spec.Accelerator != "" && spec.Accelerator != api.AcceleratorNone {
		f.Kind, f.Title = CreateAcceleratorUnavailable, "Accelerator "+spec.Accelerator+" unavailable"
		f.Body = []string{"Colab has no " + spec.Accelerator + " for you right now. Try another eligible accelerator:"}
		for _, s := range specs {
			if s.Eligible && s.Key.Accelerator != spec.Accelerator && s.Key.Accelerator != api.AcceleratorNone {
				f.Alternatives = append(f.Alternatives, s.Key)
			}
		}
	} else if err.Code == api.ResourceExhausted || err.Code == api.Unavailable || err.Code == api.DeadlineExceeded {
		f.Kind, f.Title = CreateGaveUp, "Create gave up after "+plural.Count(attempts, "attempt")
		f.Body = []string{"Colab kept refusing for now; no runtime was created by these attempts."}
		for _, s := range specs {
			if s.Eligible && s.Key != spec {
				f.Alternatives = append(f.Alternatives, s.Key)
			}
		}
	}
	return f
}

// IsOwnSession reports whether session ("runtimes/r/sessions/s" or a bare
// id) was opened by colabdash, by its sessionId prefix (OwnSessionPrefix).
// Sessions without it are the user's (notebooks); colabdash closes them
// only when told to in so many words.
func IsOwnSession(session string) bool {
	return strings.HasPrefix(api.LastSegment(session), OwnSessionPrefix)
}

// NewSessionID returns a fresh sessionId for a session colabdash opens:
// OwnSessionPrefix and 8 random hex digits ("colabdash-1a2b3c4d"), valid
// under RFC 1034.
func NewSessionID() string { return OwnSessionPrefix + uuid.NewString()[:8] }
