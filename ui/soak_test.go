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
// and at the end that goroutines stayed flat, that the heap grew in the
// second half of the run by no more than the steady state's own growth
// allows (see heapPerTick), and that nothing leaked (goleak).
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
	var baseG, baseTick, midTick int
	var baseHeap, midHeap uint64
	start := time.Now()
	warm := start.Add(budget / 10)
	tick := 0
	for time.Since(start) < budget || tick < 200 || midTick == 0 { // the heap is sampled in the middle too
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

		switch {
		case baseTick == 0 && time.Now().After(warm) && tick >= 100:
			baseTick = tick
			baseG, baseHeap = goroutinesAndHeap()
		case baseTick != 0 && midTick == 0 && time.Since(start) >= budget/2 && tick >= baseTick+50:
			midTick = tick
			_, midHeap = goroutinesAndHeap()
		}
	}
	endG, endHeap := goroutinesAndHeap()
	perTick := func(from, to uint64, ticks int) float64 { return (float64(to) - float64(from)) / float64(ticks) }
	t.Logf("%d ticks (%v of fake time) in %v: %d runtimes created, %d renewals, %d get_runtime calls; goroutines %d → %d; heap %.2f → %.2f → %.2f MiB at ticks %d, %d, %d (%+.0f, %+.0f B a tick)",
		tick, time.Duration(tick)*time.Second, time.Since(start).Round(time.Millisecond), created, renewals, s.srv.CallCount("get_runtime"),
		baseG, endG, float64(baseHeap)/(1<<20), float64(midHeap)/(1<<20), float64(endHeap)/(1<<20), baseTick, midTick, tick,
		perTick(baseHeap, midHeap, midTick-baseTick), perTick(midHeap, endHeap, tick-midTick))
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
	// The second half, past the warm-up and the first runtimes' creation,
	// is the steady state. Its bound is in ticks, not time: what it keeps
	// follows fake time, so a busy machine (fewer ticks) has less room and
	// needs no more.
	perTickMax := heapPerTick
	if midTick < filledTicks {
		perTickMax = heapPerTickFilling
	}
	if limit := uint64(heapSlack + perTickMax*(tick-midTick)); endHeap > midHeap+limit {
		t.Errorf("heap grew from %d to %d bytes over the last %d ticks (%.0f B a tick), more than %d B a tick and %d B of slack: something is kept per tick",
			midHeap, endHeap, tick-midTick, perTick(midHeap, endHeap, tick-midTick), perTickMax, heapSlack)
	}
}

// The soak's heap bound. In the steady state the heap does grow, slowly:
// the redactor keeps every proxy token it has seen (each renewal adds one,
// with its encoded forms) and the emulator a record of every creation,
// 45-85 B a tick with the soak's churn (measured over 20 s runs, with and
// without -race; 1.1 → 1.9 MiB in 13,000 ticks). A leak of something kept
// per tick is far above heapPerTick: a copy of the runtimes' rows kept on
// every tick (3.6 KiB a tick) fails even the one-second run, a copy of a
// single row (about 580 B a tick) a 20 s run; the old bound, twice the
// start plus 4 MiB, let the latter pass. heapSlack absorbs what one GC
// leaves between two samples (pools, buffers, connections, the runtimes
// still being created in a short run's first half: up to 140 KiB seen).
//
// Before filledTicks of fake time the second half is not yet the steady
// state: what is kept for a bounded time is still filling (the call
// budget's slots, held 61 s after each reply, and the calls paced behind
// them; the monitor's 15-minute histories; the runtimes the churn
// creates), 300-500 B a tick measured in the one-second run. Its bound
// there, heapPerTickFilling, still fails a copy of the rows kept every
// tick.
const (
	heapPerTick        = 128
	heapPerTickFilling = 2 << 10
	heapSlack          = 384 << 10
	filledTicks        = 30 * 60
)

func goroutinesAndHeap() (int, uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return runtime.NumGoroutine(), ms.HeapAlloc
}
