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

func (s *Server) createRuntime(ctx context.Context, in createRuntimeIn, deadline bool) (any, *gErr) {
	key := api.RuntimeSpecKey{Variant: api.Variant(in.Runtime.RuntimeSpec.Variant),
		Accelerator: in.Runtime.RuntimeSpec.Accelerator, Shape: api.Shape(in.Runtime.RuntimeSpec.Shape)}
	if key.Variant == "" || key.Accelerator == "" || key.Shape == "" {
		return nil, newErr(api.InvalidArgument, "runtime.runtimeSpec needs variant, accelerator and shape")
	}
	if in.RequestID != "" {
		u, err := uuid.Parse(in.RequestID)
		if err != nil || u.Version() != 4 || len(in.RequestID) != 36 {
			return nil, newErr(api.InvalidArgument, "requestId %q must be in UUID4 format", in.RequestID)
		}
	}
	if in.RuntimeID != "" {
		if err := api.ValidateID(in.RuntimeID); err != nil {
			return nil, newErr(api.InvalidArgument, "runtimeId: %s", err.(*api.Error).Message)
		}
	}
	entry, known := lookupSpec(key)
	if !known {
		return nil, newErr(api.InvalidArgument, "unknown runtime spec %s; see list_runtime_specs", key)
	}
	fp, _ := json.Marshal(struct {
		R  runtimeIn
		ID string
	}{in.Runtime, in.RuntimeID})

	now := s.clock()
	s.mu.Lock()
	if in.RequestID != "" {
		if c := s.creations[in.RequestID]; c != nil {
			s.mu.Unlock()
			if c.fingerprint != string(fp) {
				return nil, newErr(api.InvalidArgument, "requestId %s was already used for a different request", in.RequestID)
			}
			return s.awaitCreation(ctx, c, deadline)
		}
	}
	// Per-minute rate quota: creations started within the last minute.
	if limit := s.opts.CreatesPerMinute; limit > 0 {
		cut := now.Add(-time.Minute)
		kept := s.createTimes[:0]
		for _, t := range s.createTimes {
			if t.After(cut) {
				kept = append(kept, t)
			}
		}
		s.createTimes = kept
		if len(kept) >= limit {
			delay := kept[0].Add(time.Minute).Sub(now).Round(time.Second)
			if delay < time.Second {
				delay = time.Second
			}
			s.mu.Unlock()
			return nil, &gErr{code: api.ResourceExhausted, retryDelay: delay,
				msg: fmt.Sprintf("Quota exceeded for quota metric 'Runtime creations' and limit 'Runtime creations per minute per user' (%d).", limit)}
		}
	}
	id := in.RuntimeID
	if id != "" {
		if r := s.lookupRuntime(api.RuntimeName(id)); r != nil || s.pending[id] {
			s.mu.Unlock()
			e := newErr(api.AlreadyExists, "Runtime runtimes/%s already exists.", id)
			e.operation = true
			return nil, e
		}
	}
	if entry.minTier > tierRank(s.tier) {
		tier := s.tier.Label()
		s.mu.Unlock()
		e := newErr(api.FailedPrecondition, "The %s subscription is not eligible for runtime spec %s.", tier, key)
		e.operation = true
		return nil, e
	}
	if limit := s.opts.RuntimeLimit; limit > 0 && len(s.runtimes)+len(s.pending) >= limit {
		s.mu.Unlock()
		e := newErr(api.FailedPrecondition, "Too many active runtimes (limit %d). Delete a runtime or reuse one.", limit)
		e.reason = api.ReasonTooManyActiveRuntimes
		e.operation = true
		return nil, e
	}
	if id == "" {
		id = randomRuntimeID()
	}
	c := &creation{fingerprint: string(fp), done: make(chan struct{}), name: api.RuntimeName(id)}
	if in.RequestID != "" {
		s.creations[in.RequestID] = c
	}
	s.pending[id] = true
	s.createTimes = append(s.createTimes, now)
	s.mu.Unlock()

	rt := api.Runtime{Name: api.RuntimeName(id), RuntimeSpec: key, Version: in.Runtime.Version}
	s.wg.Add(1)
	go func() {
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
		delete(s.pending, id)
		if err != nil {
			c.err = newErr(api.Unavailable, "The Colab emulator shut down while creating %s.", rt.Name)
			return
		}
		r := &runtimeState{rt: rt}
		s.issueToken(r, s.now())
		s.addRuntimeState(r)
		s.created++
		c.rt = snapshot(r)
	}()
	return s.awaitCreation(ctx, c, deadline)
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
