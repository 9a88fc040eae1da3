package colabfake

// The runtime tools (get_subscription, list_runtime_specs,
// list_runtimes, get_runtime, delete_runtime, create_runtime) and the
// spec catalog they offer.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/google/uuid"
)

// catalogEntry is one runtime spec the emulator offers and the lowest tier
// that is eligible for it.
type catalogEntry struct {
	key     api.RuntimeSpecKey
	minTier int // 0 Free, 1 Pro, 2 Pro+
}

func spec(v api.Variant, acc string, sh api.Shape) api.RuntimeSpecKey {
	return api.RuntimeSpecKey{Variant: v, Accelerator: acc, Shape: sh}
}

// catalog is the full spec list of list_runtime_specs, in the order the
// emulator returns it. Free: CPU and T4; Pro adds HIGHMEM, L4, A100 and TPU;
// Pro+ adds everything else (H100, G4, V6E1 HIGHMEM).
var catalog = []catalogEntry{
	{spec(api.VariantCPU, api.AcceleratorNone, api.ShapeStandard), 0},
	{spec(api.VariantCPU, api.AcceleratorNone, api.ShapeHighMem), 1},
	{spec(api.VariantGPU, "T4", api.ShapeStandard), 0},
	{spec(api.VariantGPU, "T4", api.ShapeHighMem), 1},
	{spec(api.VariantGPU, "L4", api.ShapeStandard), 1},
	{spec(api.VariantGPU, "L4", api.ShapeHighMem), 1},
	{spec(api.VariantGPU, "A100", api.ShapeStandard), 1},
	{spec(api.VariantGPU, "A100", api.ShapeHighMem), 1},
	{spec(api.VariantGPU, "G4", api.ShapeStandard), 2},
	{spec(api.VariantGPU, "H100", api.ShapeStandard), 2},
	{spec(api.VariantGPU, "H100", api.ShapeHighMem), 2},
	{spec(api.VariantTPU, "V5E1", api.ShapeStandard), 1},
	{spec(api.VariantTPU, "V6E1", api.ShapeStandard), 1},
	{spec(api.VariantTPU, "V6E1", api.ShapeHighMem), 2},
}

// tierRank orders tiers for eligibility; an unknown or unspecified tier is
// treated as Free.
func tierRank(t api.SubscriptionTier) int {
	switch t {
	case api.TierPro:
		return 1
	case api.TierProPlus:
		return 2
	}
	return 0
}

// lookupSpec returns the catalog entry for key, or ok=false when the
// emulator does not offer that spec at all.
func lookupSpec(key api.RuntimeSpecKey) (catalogEntry, bool) {
	for _, e := range catalog {
		if e.key == key {
			return e, true
		}
	}
	return catalogEntry{}, false
}

func (s *Server) getSubscription(ctx context.Context, _ emptyIn, _ bool) (any, *gErr) {
	return api.Subscription{Name: "subscription", Tier: s.Tier()}, nil
}

func (s *Server) listRuntimeSpecs(ctx context.Context, _ emptyIn, _ bool) (any, *gErr) {
	rank := tierRank(s.Tier())
	out := struct {
		RuntimeSpecs []api.RuntimeSpec `json:"runtimeSpecs,omitempty"`
	}{}
	for _, e := range catalog {
		out.RuntimeSpecs = append(out.RuntimeSpecs, api.RuntimeSpec{Key: e.key, Eligible: e.minTier <= rank})
	}
	if s.opts.Seed == SeedHostile {
		out.RuntimeSpecs = append(out.RuntimeSpecs, hostileSpecs...)
	}
	return out, nil
}

func (s *Server) listRuntimes(ctx context.Context, _ emptyIn, _ bool) (any, *gErr) {
	return struct {
		Runtimes []api.Runtime `json:"runtimes,omitempty"`
	}{Runtimes: s.Runtimes()}, nil
}

// parseRuntimeName checks "runtimes/{id}".
func parseRuntimeName(field, name string) *gErr {
	parts := strings.Split(name, "/")
	if len(parts) != 2 || parts[0] != "runtimes" || parts[1] == "" {
		return newErr(api.InvalidArgument, "%s %q is not a runtime name (want runtimes/{runtime_id})", field, name)
	}
	return nil
}

// parseSessionName splits "runtimes/{r}/sessions/{s}" into the runtime
// name and the session id.
func parseSessionName(field, name string) (runtime, id string, e *gErr) {
	parts := strings.Split(name, "/")
	if len(parts) != 4 || parts[0] != "runtimes" || parts[1] == "" || parts[2] != "sessions" || parts[3] == "" {
		return "", "", newErr(api.InvalidArgument, "%s %q is not a session name (want runtimes/{runtime_id}/sessions/{session_id})", field, name)
	}
	return parts[0] + "/" + parts[1], parts[3], nil
}

func (s *Server) getRuntime(ctx context.Context, in nameIn, _ bool) (any, *gErr) {
	if e := parseRuntimeName("name", in.Name); e != nil {
		return nil, e
	}
	now := s.clock()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.lookupRuntime(in.Name)
	if r == nil {
		return nil, newErr(api.NotFound, "Runtime %s not found.", in.Name)
	}
	s.issueToken(r, now)
	return snapshot(r), nil
}

func (s *Server) deleteRuntime(ctx context.Context, in deleteRuntimeIn, _ bool) (any, *gErr) {
	if e := parseRuntimeName("name", in.Name); e != nil {
		return nil, e
	}
	if !s.Reclaim(in.Name) && !in.AllowMissing {
		return nil, newErr(api.NotFound, "Runtime %s not found.", in.Name)
	}
	return struct{}{}, nil
}

// --- create_runtime ---

// createRuntime answers create_runtime: the request is checked, then
// either joins the creation already under way for its requestId or
// starts one (admitCreation), which builds the runtime in the background
// (build); the reply waits for it (awaitCreation). deadline: answer
// DEADLINE_EXCEEDED at once and let the creation go on.
func (s *Server) createRuntime(ctx context.Context, in createRuntimeIn, deadline bool) (any, *gErr) {
	key, entry, gerr := checkCreateRequest(in)
	if gerr != nil {
		return nil, gerr
	}
	fp, _ := json.Marshal(struct {
		R  runtimeIn
		ID string
	}{in.Runtime, in.RuntimeID})
	now := s.clock()
	s.mu.Lock()
	c, started, gerr := s.admitCreation(in, key, entry, string(fp), now)
	s.mu.Unlock()
	if gerr != nil {
		return nil, gerr
	}
	if started {
		rt := api.Runtime{Name: c.name, RuntimeSpec: key, Version: in.Runtime.Version}
		s.wg.Add(1)
		go s.build(c, rt)
	}
	return s.awaitCreation(ctx, c, deadline)
}

// checkCreateRequest checks what create_runtime's arguments say on their
// own (a complete spec the emulator offers, a UUID4 requestId, a valid
// runtimeId) and returns the spec and its catalog entry, or the
// INVALID_ARGUMENT that refuses them.
func checkCreateRequest(in createRuntimeIn) (api.RuntimeSpecKey, catalogEntry, *gErr) {
	key := api.RuntimeSpecKey{Variant: api.Variant(in.Runtime.RuntimeSpec.Variant),
		Accelerator: in.Runtime.RuntimeSpec.Accelerator, Shape: api.Shape(in.Runtime.RuntimeSpec.Shape)}
	if key.Variant == "" || key.Accelerator == "" || key.Shape == "" {
		return key, catalogEntry{}, newErr(api.InvalidArgument, "runtime.runtimeSpec needs variant, accelerator and shape")
	}
	if in.RequestID != "" {
		u, err := uuid.Parse(in.RequestID)
		if err != nil || u.Version() != 4 || len(in.RequestID) != 36 {
			return key, catalogEntry{}, newErr(api.InvalidArgument, "requestId %q must be in UUID4 format", in.RequestID)
		}
	}
	if in.RuntimeID != "" {
		if err := api.ValidateID(in.RuntimeID); err != nil {
			return key, catalogEntry{}, newErr(api.InvalidArgument, "runtimeId: %s", err.(*api.Error).Message)
		}
	}
	entry, known := lookupSpec(key)
	if !known {
		return key, catalogEntry{}, newErr(api.InvalidArgument, "unknown runtime spec %s; see list_runtime_specs", key)
	}
	return key, entry, nil
}

// admitCreation decides, with s.mu held, what a checked create_runtime
// request (fingerprint fp) gets: the creation already under way for its
// requestId (started false; a different request under the same requestId
// is refused), or a new creation (started true) whose runtime id is
// reserved and whose start counts in the per-minute quota. Otherwise it
// returns the error that refuses the request.
func (s *Server) admitCreation(in createRuntimeIn, key api.RuntimeSpecKey, entry catalogEntry, fp string, now time.Time) (c *creation, started bool, gerr *gErr) {
	if in.RequestID != "" {
		if c := s.creations[in.RequestID]; c != nil {
			if c.fingerprint != fp {
				return nil, false, newErr(api.InvalidArgument, "requestId %s was already used for a different request", in.RequestID)
			}
			return c, false, nil
		}
	}
	if gerr := s.creationQuota(now); gerr != nil {
		return nil, false, gerr
	}
	id := in.RuntimeID
	if gerr := s.refuseCreation(id, key, entry); gerr != nil {
		return nil, false, gerr
	}
	if id == "" {
		id = randomRuntimeID()
	}
	c = &creation{fingerprint: fp, done: make(chan struct{}), name: api.RuntimeName(id)}
	if in.RequestID != "" {
		s.creations[in.RequestID] = c
	}
	s.pending[id] = true
	s.createTimes = append(s.createTimes, now)
	return c, true, nil
}

// creationQuota applies Options.CreatesPerMinute (with s.mu held): it
// forgets the creations started over a minute before now and refuses a
// new one with RESOURCE_EXHAUSTED, and a RetryInfo of when the oldest
// leaves the window (at least 1 s), when the limit is reached.
func (s *Server) creationQuota(now time.Time) *gErr {
	limit := s.opts.CreatesPerMinute
	if limit <= 0 {
		return nil
	}
	cut := now.Add(-time.Minute)
	kept := s.createTimes[:0]
	for _, t := range s.createTimes {
		if t.After(cut) {
			kept = append(kept, t)
		}
	}
	s.createTimes = kept
	if len(kept) < limit {
		return nil
	}
	delay := max(kept[0].Add(time.Minute).Sub(now).Round(time.Second), time.Second)
	return &gErr{code: api.ResourceExhausted, retryDelay: delay,
		msg: fmt.Sprintf("Quota exceeded for quota metric 'Runtime creations' and limit 'Runtime creations per minute per user' (%d).", limit)}
}

// refuseCreation returns the failed operation (with s.mu held) of a
// creation the account may not start: the asked-for runtime id (id, ""
// for none) exists or is being created, the tier is not eligible for the
// spec, or Options.RuntimeLimit runtimes are active.
func (s *Server) refuseCreation(id string, key api.RuntimeSpecKey, entry catalogEntry) *gErr {
	var e *gErr
	switch limit := s.opts.RuntimeLimit; {
	case id != "" && (s.lookupRuntime(api.RuntimeName(id)) != nil || s.pending[id]):
		e = newErr(api.AlreadyExists, "Runtime runtimes/%s already exists.", id)
	case entry.minTier > tierRank(s.tier):
		e = newErr(api.FailedPrecondition, "The %s subscription is not eligible for runtime spec %s.", s.tier.Label(), key)
	case limit > 0 && len(s.runtimes)+len(s.pending) >= limit:
		e = newErr(api.FailedPrecondition, "Too many active runtimes (limit %d). Delete a runtime or reuse one.", limit)
		e.reason = api.ReasonTooManyActiveRuntimes
	default:
		return nil
	}
	e.operation = true
	return e
}

// build brings the runtime rt of creation c up after Options.CreateDelay
// and Options.CreateHold, then closes c.done; when the emulator shuts
// down first, c ends UNAVAILABLE. It runs on its own goroutine, counted
// in s.wg.
func (s *Server) build(c *creation, rt api.Runtime) {
	defer s.wg.Done()
	defer close(c.done)
	err := sleepCtx(s.ctx, s.opts.CreateDelay)
	if hold := s.opts.CreateHold; err == nil && hold != nil {
		select {
		case <-hold:
		case <-s.ctx.Done():
			err = s.ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, rt.ID())
	if err != nil {
		c.err = newErr(api.Unavailable, "The Colab emulator shut down while creating %s.", rt.Name)
		return
	}
	r := &runtimeState{rt: rt}
	s.issueToken(r, s.now())
	s.addRuntimeState(r)
	s.created++
	c.rt = snapshot(r)
}

// awaitCreation waits for c and returns the runtime (its current state
// when it still exists), or DEADLINE_EXCEEDED when Options.CreateDeadline
// passes first.
func (s *Server) awaitCreation(ctx context.Context, c *creation, deadline bool) (any, *gErr) {
	if deadline {
		return nil, nil // the caller answers DEADLINE_EXCEEDED; creation goes on
	}
	var timeout <-chan time.Time
	if d := s.opts.CreateDeadline; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-c.done:
	case <-timeout:
		return nil, newErr(api.DeadlineExceeded, "The runtime %s is still being created; repeat the identical call to wait for it.", c.name)
	case <-ctx.Done():
		return nil, newErr(api.Cancelled, "The request was cancelled; the runtime is still being created.")
	}
	if c.err != nil {
		return nil, c.err
	}
	rt := c.rt
	s.mu.Lock()
	if r := s.lookupRuntime(c.name); r != nil {
		rt = snapshot(r)
	}
	s.mu.Unlock()
	if s.opts.OperationResults {
		b, _ := json.Marshal(rt)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		m["@type"] = "type.googleapis.com/google.colab.v1beta.Runtime"
		resp, _ := json.Marshal(m)
		return api.Operation{Name: "operations/" + uuid.NewString(), Done: true, Response: resp}, nil
	}
	return rt, nil
}
