package ui

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
)

var soakFor = flag.Duration("soak", 0, "run TestSoak for this long (real time); 0 runs a one-second smoke version")

// TestSoak runs the dashboard model against the emulator through the real
// client, one tick per fake second, with 60 s proxy tokens while runtimes
// are created, reclaimed and deleted, for -soak of real time (.ci/run: 60 s;
// plain go test: one second; skipped with -short). It checks after every
// tick that:
//   - every live runtime's countdown on screen is exactly its current
//     token's expireTime minus now (the renewal result was applied);
//   - no live runtime's token ever expires (no renewal missed) and a token
//     is renewed only inside the expiring threshold, once (none doubled);
//   - runtimes the dashboard did not delete are never deleted;
//
// and at the end that goroutines and heap stayed flat and nothing leaked
// (goleak).
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test")
	}
	budget := *soakFor
	if budget <= 0 {
		budget = time.Second
	}
	// Registered first, so it runs after the stack's own cleanup.
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })

	const (
		ttl       = 60 * time.Second
		threshold = 10 * time.Second
	)
	s := newStack(t, stackOpts{
		emu: colabfake.Options{TokenTTL: ttl, Tier: api.TierProPlus},
		ui:  Options{ExpiringThreshold: threshold, RefreshInterval: config.MinRefreshInterval, GoneRetention: 30 * time.Second},
	})
	for i := 0; i < 3; i++ {
		s.addRuntime(t, fmt.Sprintf("r-seed%d", i), stackCPU)
	}
	s.start()

	ctx := context.Background()
	seen := map[string]time.Time{} // runtime → expireTime the model holds
	deletedByUs := map[string]bool{}
	renewals, created, vanished := 0, 0, 0
	var baseG int
	var baseHeap uint64
	start := time.Now()
	warm := start.Add(budget / 10)
	tick := 0
	for time.Since(start) < budget || tick < 200 {
		tick++
		s.tick(time.Second)
		now := s.clk.Now()

		// Churn: create, reclaim and delete on fake-time schedules.
		live := s.srv.Runtimes()
		switch {
		case tick%37 == 0 && len(live) < 8:
			if _, err := s.cli.CreateRuntime(ctx, api.CreateRuntimeRequest{Spec: stackT4}); err != nil {
				t.Fatalf("tick %d: create: %v", tick, err)
			}
			created++
		case tick%97 == 0 && len(live) > 1:
			s.srv.Reclaim(live[tick%len(live)].Name)
			vanished++
		case tick%131 == 0 && len(live) > 1:
			name := live[(tick/131)%len(live)].Name
			if err := s.cli.DeleteRuntime(ctx, name); err != nil {
				t.Fatalf("tick %d: delete %s: %v", tick, name, err)
			}
			deletedByUs[name] = true
			vanished++
		}

		// The model against the server's truth, after the tick's calls.
		truth := map[string]api.Runtime{}
		for _, rt := range s.srv.Runtimes() {
			truth[rt.Name] = rt
		}
		view := s.view()
		snap := s.m.Snapshot()
		for r := range snap.All() {
			if r.Gone() {
				delete(seen, r.Name)
				continue
			}
			rt, ok := truth[r.Name]
			if !ok {
				continue // reclaimed or deleted since the last list: the next refresh marks it
			}
			exp := r.ExpireTime()
			st, rem := r.Token(now, threshold)
			if st == state.TokenExpired {
				t.Fatalf("tick %d: %s's token expired %v ago: renewal missed", tick, r.Name, -rem)
			}
			if prev, ok := seen[r.Name]; ok && !prev.Equal(exp) {
				renewals++
				if left := prev.Sub(now); left > threshold || left <= 0 {
					t.Fatalf("tick %d: %s renewed with %v left (threshold %v): doubled or late", tick, r.Name, left, threshold)
				}
			}
			seen[r.Name] = exp
			if !exp.Equal(rt.ExpireTime()) {
				t.Fatalf("tick %d: %s: model expireTime %v, server %v", tick, r.Name, exp, rt.ExpireTime())
			}
			want := state.FormatCountdown(rt.ExpireTime().Sub(now))
			id := r.ID()
			found := false
			for _, line := range strings.Split(view, "\n") {
				if strings.Contains(line, id+" ") && strings.Contains(line, want+" ") {
					found = true
				}
			}
			if !found && strings.Contains(view, id+" ") {
				t.Fatalf("tick %d: %s's row does not show %s:\n%s", tick, id, want, view)
			}
		}
		for name := range truth {
			if deletedByUs[name] {
				t.Fatalf("tick %d: %s came back after delete", tick, name)
			}
		}

		if baseG == 0 && time.Now().After(warm) && tick >= 100 {
			baseG, baseHeap = goroutinesAndHeap()
		}
	}
	endG, endHeap := goroutinesAndHeap()
	t.Logf("%d ticks (%v of fake time) in %v: %d runtimes created, %d renewals, %d get_runtime calls; goroutines %d → %d, heap %.1f → %.1f MiB",
		tick, time.Duration(tick)*time.Second, time.Since(start).Round(time.Millisecond), created, renewals, s.srv.CallCount("get_runtime"),
		baseG, endG, float64(baseHeap)/(1<<20), float64(endHeap)/(1<<20))
	if renewals == 0 || created == 0 {
		t.Fatalf("the soak exercised nothing: %d renewals, %d creations", renewals, created)
	}
	// Every get_runtime is a renewal the model applied, except one per
	// runtime that vanished while its renewal was due (NOT_FOUND).
	if calls := s.srv.CallCount("get_runtime"); calls > renewals+vanished {
		t.Errorf("%d get_runtime calls for %d renewals and %d vanished runtimes: doubled renewals", calls, renewals, vanished)
	}
	if endG > baseG+8 {
		t.Errorf("goroutines grew from %d to %d", baseG, endG)
	}
	if endHeap > baseHeap*2+4<<20 {
		t.Errorf("heap grew from %d to %d bytes", baseHeap, endHeap)
	}
}

func goroutinesAndHeap() (int, uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return runtime.NumGoroutine(), ms.HeapAlloc
}
