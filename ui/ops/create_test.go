package ops

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state"
)

func newCreate(spec api.RuntimeSpecKey) CreateRequest {
	return CreateRequest{CreateRuntimeRequest: api.CreateRuntimeRequest{Spec: spec, RequestID: uuid.NewString()}}
}

// The cut-off while Colab creates: the identical call goes again at once,
// sent by Create alone (the client sends each once): three sends at the
// emulator, one runtime.
func TestCreateResendsAfterDeadline(t *testing.T) {
	srv, svc, w := startEmu(t, colabfake.Options{})
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolCreateRuntime, Times: 2})
	var events []CreateEvent
	res, err := Create(context.Background(), svc, newCreate(cpu()), CreateOptions{Progress: func(ev CreateEvent) { events = append(events, ev) }})
	if err != nil || res.Runtime.Name == "" || res.Attempts != 3 || res.Found {
		t.Fatalf("Create = %+v, %v", res, err)
	}
	if srv.CreateCalls() != 3 || srv.RuntimesCreated() != 1 || len(w.all()) != 2 || w.all()[0] != 0 {
		t.Fatalf("%d sends, %d created, waits %v; want 3 identical sends, 1 runtime, no wait", srv.CreateCalls(), srv.RuntimesCreated(), w.all())
	}
	if len(events) != 2 || events[0].Kind != CreateResending || events[0].Attempt != 1 || events[0].Err.Code != api.DeadlineExceeded {
		t.Fatalf("events %+v", events)
	}
}

// A rate limit: Create waits what the server asked (RetryInfo) and sends
// the identical call once more.
func TestCreateWaitsOutARateLimit(t *testing.T) {
	srv, svc, w := startEmu(t, colabfake.Options{})
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Code: api.ResourceExhausted, RetryDelay: 7e9})
	res, err := Create(context.Background(), svc, newCreate(cpu()), CreateOptions{})
	if err != nil || res.Attempts != 2 || srv.CreateCalls() != 2 || srv.RuntimesCreated() != 1 {
		t.Fatalf("Create = %+v, %v; %d sends", res, err, srv.CreateCalls())
	}
	if ws := w.all(); len(ws) != 1 || ws[0] != 7e9 {
		t.Fatalf("waits %v, want the server's 7s", ws)
	}
}

// A lost reply after Colab made the runtime: the re-list finds it (a new
// runtime of the spec, or the id asked for) and nothing is sent again.
func TestCreateLostReplyFoundByRelist(t *testing.T) {
	for _, byID := range []bool{false, true} {
		srv, svc, _ := startEmu(t, colabfake.Options{Seed: colabfake.SeedDemo})
		req := newCreate(cpu())
		if byID {
			req.RuntimeID = "run-1a2b3c4d"
		} else {
			req.Known = Known(context.Background(), svc)
		}
		srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime})
		asked := false
		res, err := Create(context.Background(), svc, req, CreateOptions{ConfirmResend: func(state.CreateDecision) bool { asked = true; return true }})
		if err != nil || !res.Found || res.Runtime.Name == "" || asked {
			t.Fatalf("by id %v: Create = %+v, %v (asked %v)", byID, res, err, asked)
		}
		if byID && res.Runtime.ID() != req.RuntimeID {
			t.Fatalf("found %s, want %s", res.Runtime.ID(), req.RuntimeID)
		}
		if srv.CreateCalls() != 1 || srv.RuntimesCreated() != 1 {
			t.Fatalf("by id %v: %d sends, %d created; want the one", byID, srv.CreateCalls(), srv.RuntimesCreated())
		}
	}
}

// A lost reply before Colab saw the create: the re-list does not find
// it; the front end's presentation decides whether the identical request
// goes again (run: yes, one runtime) or the outcome is reported unknown
// (create: nothing more is sent).
func TestCreateLostReplyNotListed(t *testing.T) {
	for _, confirm := range []bool{false, true} {
		srv, svc, _ := startEmu(t, colabfake.Options{})
		srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime, Unprocessed: true})
		var asked []state.CreateDecision
		req := newCreate(cpu())
		req.Known = map[string]bool{}
		res, err := Create(context.Background(), svc, req, CreateOptions{ConfirmResend: func(d state.CreateDecision) bool {
			asked = append(asked, d)
			return confirm
		}})
		if len(asked) != 1 || asked[0].Step != state.CreateResend || !asked[0].AfterLostReply {
			t.Fatalf("confirm %v: asked %+v", confirm, asked)
		}
		var ce *CreateError
		switch {
		case confirm && (err != nil || res.Attempts != 2 || srv.RuntimesCreated() != 1):
			t.Fatalf("re-sent: %+v, %v, %d created", res, err, srv.RuntimesCreated())
		case !confirm && (!errors.As(err, &ce) || ce.Decision.Step != state.CreateUnknown || !ce.Decision.Err.OutcomeUnknown || srv.CreateCalls() != 0):
			t.Fatalf("not re-sent: %v, %d sends", err, srv.CreateCalls())
		}
	}
}

// A refusal no re-send cures ends Create at once with the decision and
// the server's error (FAILED_PRECONDITION, reason kept).
func TestCreateRefused(t *testing.T) {
	srv, svc, w := startEmu(t, colabfake.Options{})
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Reason: api.ReasonTooManyActiveRuntimes})
	_, err := Create(context.Background(), svc, newCreate(cpu()), CreateOptions{})
	var ce *CreateError
	if !errors.As(err, &ce) || ce.Decision.Step != state.CreateFailed || ce.Decision.Err.Reason != api.ReasonTooManyActiveRuntimes ||
		ce.Attempts != 1 || srv.CreateCalls() != 1 || len(w.all()) != 0 || err.Error() != ce.Decision.Err.Error() {
		t.Fatalf("err %v, %d sends, waits %v", err, srv.CreateCalls(), w.all())
	}
}

// Refused every time: Create gives up after state.MaxCreateAttempts sends.
func TestCreateGivesUpAfterMaxAttempts(t *testing.T) {
	srv, svc, w := startEmu(t, colabfake.Options{})
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Code: api.Unavailable, Times: -1})
	_, err := Create(context.Background(), svc, newCreate(cpu()), CreateOptions{})
	var ce *CreateError
	if !errors.As(err, &ce) || ce.Attempts != state.MaxCreateAttempts || srv.CreateCalls() != state.MaxCreateAttempts ||
		len(w.all()) != state.MaxCreateAttempts-1 || w.all()[1] != 2*state.DefaultCreateRetry {
		t.Fatalf("err %v, %d sends, waits %v", err, srv.CreateCalls(), w.all())
	}
}

// A cancelled wait ends Create with the context's error.
func TestCreateCancelledDuringWait(t *testing.T) {
	srv, svc, _ := startEmu(t, colabfake.Options{})
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Code: api.Unavailable})
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Create(ctx, svc, newCreate(cpu()), CreateOptions{Progress: func(ev CreateEvent) {
		if ev.Kind == CreateResending {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || srv.CreateCalls() != 1 {
		t.Fatalf("err %v, %d sends", err, srv.CreateCalls())
	}
}

// WaitListed returns the runtime as listed, with its connection.
func TestWaitListed(t *testing.T) {
	_, svc, _ := startEmu(t, colabfake.Options{Seed: colabfake.SeedDemo})
	rts, err := svc.ListRuntimes(context.Background())
	if err != nil || len(rts) == 0 {
		t.Fatal(rts, err)
	}
	got, err := WaitListed(context.Background(), svc, api.Runtime{Name: rts[0].Name}, nil)
	if err != nil || got.ConnectionInfo == nil || got.ConnectionInfo.URL == "" {
		t.Fatalf("WaitListed = %+v, %v", got, err)
	}
	// Never listed: it polls, saying so, until the context ends.
	ctx, cancel := context.WithCancel(context.Background())
	polls := 0
	_, err = WaitListed(ctx, svc, api.Runtime{Name: "runtimes/absent"}, func(ev CreateEvent) {
		if polls++; polls == 3 {
			cancel()
		}
		if ev.Kind != CreateWaitingListed || ev.Runtime.Name != "runtimes/absent" {
			t.Errorf("event %+v", ev)
		}
	})
	if !errors.Is(err, context.Canceled) || polls != 3 {
		t.Fatalf("err %v after %d polls", err, polls)
	}
}

// LoadSpecs gives what the create form offers: the specs and the tier; a
// failed get_subscription leaves the tier unknown, a failed
// list_runtime_specs is the error.
func TestLoadSpecsGivesSpecsAndTier(t *testing.T) {
	srv, svc := emulator(t, colabfake.Options{})
	srv.SetTier(api.TierPro)
	specs, tier, err := LoadSpecs(context.Background(), svc)
	if err != nil || len(specs) == 0 || tier != api.TierPro {
		t.Fatalf("LoadSpecs = %d specs, tier %q, %v; want the emulator's specs on Pro", len(specs), tier, err)
	}
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultJSONRPCError, Tool: api.ToolGetSubscription, RPCCode: -32603, Message: "boom"})
	if specs, tier, err := LoadSpecs(context.Background(), svc); err != nil || len(specs) == 0 || tier != "" {
		t.Errorf("get_subscription failing: %d specs, tier %q, %v; want the specs and no tier", len(specs), tier, err)
	}
	srv.Inject(colabfake.Fault{Kind: colabfake.FaultJSONRPCError, Tool: api.ToolListRuntimeSpecs, RPCCode: -32603, Message: "boom"})
	if specs, _, err := LoadSpecs(context.Background(), svc); err == nil || specs != nil {
		t.Errorf("list_runtime_specs failing: %d specs, %v; want its error", len(specs), err)
	}
}
