package state

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
)

// The one rule for what follows an answer to create_runtime, shared by the
// dashboard's event handlers and the command-line drivers (ui/ops). A
// front end chooses how to present each decision, never the decision.
//
// Colab's guarantees it rests on: a create_runtime re-sent with the same
// requestId waits for, or returns, the one runtime the first send made
// (never a second); DEADLINE_EXCEEDED means the runtime is still being
// created; RESOURCE_EXHAUSTED is a rate limit (nothing was created);
// FAILED_PRECONDITION and quotas are refusals no re-send cures.
//
// A reply lost after the request was sent (api.Error.OutcomeUnknown) is
// never answered by a blind re-send: the runtimes are listed first, and
// the runtime asked for (by its runtime id, else a new runtime of its spec
// that was not listed before the create) is taken when it is there. Only
// when it is not listed may the identical request be sent again.

// MaxCreateAttempts bounds the sends of one create_runtime (the first one
// included), whatever made them: refusals worth another try and lost
// replies alike.
const MaxCreateAttempts = 5

// DefaultCreateRetry is the wait before re-sending a create refused with
// RESOURCE_EXHAUSTED (no RetryInfo), UNAVAILABLE or another passing server
// failure, doubled per attempt (10 s, 20 s, 40 s, 80 s).
const DefaultCreateRetry = 10 * time.Second

// MaxCreateRetryDelay: a server's RetryInfo asking for a longer wait than
// this is not waited for; the create fails (the user may try later).
const MaxCreateRetryDelay = 5 * time.Minute

// CreateStep is what follows one answer to create_runtime.
type CreateStep int

// CreateStep values.
const (
	// CreateDone: the runtime exists (CreateDecision.Runtime).
	CreateDone CreateStep = iota + 1
	// CreateResend: send the identical call (same requestId) again after
	// CreateDecision.Wait (0: at once).
	CreateResend
	// CreateRelist: the reply was lost after sending; list the runtimes
	// and decide with CreateRelisted before anything is sent again.
	CreateRelist
	// CreateFailed: Colab refused, or the call could not be made;
	// CreateDecision.Err (explained by ExplainCreateFailure) or Cause.
	CreateFailed
	// CreateUnknown: the reply was lost and the re-list could not settle
	// whether the runtime exists (the list failed, or the runtime cannot be
	// told apart), or the attempts are used up: nothing more is sent by
	// itself. The same requestId may still be sent by the user.
	CreateUnknown
)

// String names the step as the tests and logs do: "done", "resend",
// "relist", "failed", "unknown".
func (s CreateStep) String() string {
	switch s {
	case CreateDone:
		return "done"
	case CreateResend:
		return "resend"
	case CreateRelist:
		return "relist"
	case CreateFailed:
		return "failed"
	case CreateUnknown:
		return "unknown"
	}
	return "invalid"
}

// CreateDecision is a create decider's answer. Wait and At (now + Wait)
// say when a CreateResend goes; Runtime is the runtime of CreateDone;
// Err is the create's last failure as an *api.Error (nil when it was
// another error: Cause holds it); AfterLostReply is true when the
// decision follows a lost reply and a re-list (the re-send a front end
// may want confirmed).
type CreateDecision struct {
	Step           CreateStep
	Wait           time.Duration
	At             time.Time
	Runtime        api.Runtime
	Err            *api.Error
	Cause          error
	AfterLostReply bool
}

// CreateAnswered decides what follows attempt (1 for the first send) of
// one create_runtime, answered at now with rt or err:
//   - nil: CreateDone with rt;
//   - a lost reply (OutcomeUnknown): CreateRelist;
//   - MaxCreateAttempts sends made, a cancelled call, a quota, or a
//     refusal no re-send cures (FAILED_PRECONDITION, auth, a bad
//     argument, anything not an *api.Error): CreateFailed;
//   - DEADLINE_EXCEEDED (still being created): CreateResend at once;
//   - RESOURCE_EXHAUSTED, UNAVAILABLE, INTERNAL or HTTP 5xx: CreateResend
//     after the server's RetryDelay, else DefaultCreateRetry doubled per
//     attempt; a RetryDelay over MaxCreateRetryDelay fails instead.
func CreateAnswered(now time.Time, attempt int, rt api.Runtime, err error) CreateDecision {
	if err == nil {
		return CreateDecision{Step: CreateDone, Runtime: rt, At: now}
	}
	var ae *api.Error
	if !errors.As(err, &ae) {
		return CreateDecision{Step: CreateFailed, Cause: err, At: now}
	}
	d := CreateDecision{Step: CreateFailed, Err: ae, Cause: err, At: now}
	if ae.OutcomeUnknown {
		d.Step = CreateRelist
		return d
	}
	if attempt >= MaxCreateAttempts || ae.Code == api.Cancelled {
		return d
	}
	if ae.Code == api.DeadlineExceeded {
		d.Step = CreateResend
		return d
	}
	if !ae.Retryable() || ae.RetryDelay > MaxCreateRetryDelay {
		return d
	}
	d.Step, d.Wait = CreateResend, ae.RetryDelay
	if d.Wait <= 0 {
		d.Wait = DefaultCreateRetry << (attempt - 1)
	}
	d.At = now.Add(d.Wait)
	return d
}

// CreateTarget is what one create asked for, to recognise its runtime in
// a list: Spec, the RuntimeID asked for ("" when Colab picks one), and
// Known, the names of the runtimes listed before the create was sent (nil
// when that list is not known).
type CreateTarget struct {
	Spec      api.RuntimeSpecKey
	RuntimeID string
	Known     map[string]bool
}

// CreateRelisted decides, at now, what follows the list_runtimes sent
// because the reply to attempt of t's create was lost (lost is that
// error): listed is what the list returned (runtimes gone from the
// dashboard's view left out), listErr its failure.
//   - the list failed: CreateUnknown;
//   - t's runtime is listed: CreateDone with it (nothing is sent again).
//     With a RuntimeID that is the runtime of that id; without one, a
//     runtime of t.Spec not in t.Known (the first by name when several);
//   - no RuntimeID and no Known, while runtimes of t.Spec are listed: they
//     cannot be told apart from ours: CreateUnknown;
//   - not listed: CreateResend of the identical request at once (Colab
//     may still be creating it; the same requestId returns it), unless
//     MaxCreateAttempts sends were made (CreateUnknown).
//
// Every decision has AfterLostReply set.
func CreateRelisted(now time.Time, attempt int, t CreateTarget, lost error, listed []api.Runtime, listErr error) CreateDecision {
	d := CreateDecision{Step: CreateUnknown, Cause: lost, At: now, AfterLostReply: true}
	errors.As(lost, &d.Err)
	if listErr != nil {
		return d
	}
	var found []api.Runtime
	ambiguous := false
	for _, r := range listed {
		switch {
		case t.RuntimeID != "":
			if r.ID() == t.RuntimeID {
				found = append(found, r)
			}
		case r.RuntimeSpec != t.Spec:
		case t.Known == nil:
			ambiguous = true
		case !t.Known[r.Name]:
			found = append(found, r)
		}
	}
	if len(found) > 0 {
		slices.SortFunc(found, func(a, b api.Runtime) int { return strings.Compare(a.Name, b.Name) })
		d.Step, d.Runtime = CreateDone, found[0]
		return d
	}
	if ambiguous || attempt >= MaxCreateAttempts {
		return d
	}
	d.Step = CreateResend
	return d
}
