package ops

import (
	"context"
	"errors"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
)

// CreateRequest is one runtime to create: the call (its RequestID must be
// set, and stays the same on every re-send) and, when known, the names of
// the runtimes listed before it was sent (Known), so that after a lost
// reply a new runtime of its spec can be recognised as this one.
type CreateRequest struct {
	api.CreateRuntimeRequest
	Known map[string]bool
}

// CreateEventKind says what a CreateEvent reports.
type CreateEventKind int

// CreateEventKind values.
const (
	// CreateResending: the identical call goes again after Wait (Err is
	// why; Attempt the send that failed).
	CreateResending CreateEventKind = iota + 1
	// CreateRelisting: the reply to Attempt was lost (Err); the runtimes
	// are being listed before anything is sent again.
	CreateRelisting
	// CreateFoundListed: the re-list found the runtime (Runtime).
	CreateFoundListed
	// CreateWaitingListed: the runtime (Runtime) exists and WaitListed
	// polls until it is listed with a connection.
	CreateWaitingListed
)

// CreateEvent is the progress of Create and WaitListed, for the caller to
// show (the drivers write nothing). Decision is the decider's answer the
// event follows (zero for CreateWaitingListed).
type CreateEvent struct {
	Kind     CreateEventKind
	Attempt  int
	Wait     time.Duration
	Err      *api.Error
	Runtime  api.Runtime
	Decision state.CreateDecision
}

// CreateOptions are a front end's presentation choices for Create.
//
// Progress, when set, is called with each CreateEvent (it must not block
// for long). ConfirmResend is asked when a lost reply was followed by a
// re-list that did not find the runtime, and the rule allows the
// identical request again: true sends it (`run`), false or nil ends
// Create with a *CreateError of step state.CreateUnknown (`create`, which
// prints the command that re-sends it).
type CreateOptions struct {
	Progress      func(CreateEvent)
	ConfirmResend func(state.CreateDecision) bool
}

// CreateError is how Create ends without a runtime: Decision is the last
// decision (state.CreateFailed, or state.CreateUnknown after a lost
// reply), Attempts the sends made. Unwrap gives the create's last error.
type CreateError struct {
	Decision state.CreateDecision
	Attempts int
}

// Error is the last failure's line.
func (e *CreateError) Error() string {
	if e.Decision.Cause != nil {
		return e.Decision.Cause.Error()
	}
	return "create_runtime: outcome unknown"
}

// Unwrap returns the create's last failure.
func (e *CreateError) Unwrap() error { return e.Decision.Cause }

// CreateResult is a created runtime: Runtime as create_runtime (or the
// re-list) returned it, Attempts the sends made, Found true when a re-list
// after a lost reply found it (nothing was sent again).
type CreateResult struct {
	Runtime  api.Runtime
	Attempts int
	Found    bool
}

// Create sends req's create_runtime and follows state's one rule for
// every answer (state.CreateAnswered, state.CreateRelisted) until a
// runtime exists or the rule gives up. Waits end with ctx. Errors: a
// *CreateError (its Decision says why), or ctx's error when ctx ended
// during a wait.
func Create(ctx context.Context, svc api.Service, req CreateRequest, o CreateOptions) (CreateResult, error) {
	target := state.CreateTarget{Spec: req.Spec, RuntimeID: req.RuntimeID, Known: req.Known}
	for attempt := 1; ; attempt++ {
		rt, err := svc.CreateRuntime(ctx, req.CreateRuntimeRequest)
		d := state.CreateAnswered(Now(), attempt, rt, err)
		if d.Step == state.CreateRelist {
			o.progress(CreateEvent{Kind: CreateRelisting, Attempt: attempt, Err: d.Err, Decision: d})
			listed, lerr := svc.ListRuntimes(ctx)
			d = state.CreateRelisted(Now(), attempt, target, err, listed, lerr)
			if d.Step == state.CreateResend && (o.ConfirmResend == nil || !o.ConfirmResend(d)) {
				d.Step = state.CreateUnknown
			}
		}
		switch d.Step {
		case state.CreateDone:
			if d.AfterLostReply {
				o.progress(CreateEvent{Kind: CreateFoundListed, Attempt: attempt, Runtime: d.Runtime, Decision: d})
			}
			return CreateResult{Runtime: d.Runtime, Attempts: attempt, Found: d.AfterLostReply}, nil
		case state.CreateResend:
			o.progress(CreateEvent{Kind: CreateResending, Attempt: attempt, Wait: d.Wait, Err: d.Err, Decision: d})
			if err := Sleep(ctx, d.Wait); err != nil {
				return CreateResult{Attempts: attempt}, err
			}
		default:
			return CreateResult{Attempts: attempt}, &CreateError{Decision: d, Attempts: attempt}
		}
	}
}

func (o CreateOptions) progress(ev CreateEvent) {
	if o.Progress != nil {
		o.Progress(ev)
	}
}

// Known returns the names of the runtimes listed now, for
// CreateRequest.Known; nil when the list fails (a lost reply then cannot
// be told apart from another runtime of the same spec).
func Known(ctx context.Context, svc api.Service) map[string]bool {
	rts, err := svc.ListRuntimes(ctx)
	if err != nil {
		return nil
	}
	known := make(map[string]bool, len(rts))
	for _, r := range rts {
		known[r.Name] = true
	}
	return known
}

// WaitListDelay is WaitListed's first wait between polls, doubled to at
// most MaxWaitListDelay.
const (
	WaitListDelay    = time.Second
	MaxWaitListDelay = 10 * time.Second
)

// WaitListed polls list_runtimes until rt is listed with a connection URL
// and returns it as listed (WaitListDelay, doubling to MaxWaitListDelay,
// between polls; a CreateWaitingListed event before each wait). A list
// failure the client gave up on that is not passing ends it; ctx's end
// returns ctx's error.
func WaitListed(ctx context.Context, svc api.Service, rt api.Runtime, progress func(CreateEvent)) (api.Runtime, error) {
	delay := WaitListDelay
	for {
		rts, err := svc.ListRuntimes(ctx)
		if err == nil {
			for _, r := range rts {
				if r.Name == rt.Name && r.ConnectionInfo != nil && r.ConnectionInfo.URL != "" {
					return r, nil
				}
			}
		} else if ae := (*api.Error)(nil); (!errors.As(err, &ae) || !ae.Retryable()) && ctx.Err() == nil {
			return api.Runtime{}, err
		}
		if progress != nil {
			progress(CreateEvent{Kind: CreateWaitingListed, Runtime: rt})
		}
		if err := Sleep(ctx, delay); err != nil {
			return api.Runtime{}, err
		}
		delay = min(2*delay, MaxWaitListDelay)
	}
}
