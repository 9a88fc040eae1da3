package api

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// overviewFake answers the three list tools; every other method is unused.
type overviewFake struct {
	Service
	runtimes    []Runtime
	listErr     error
	subErr      error
	sessionErrs map[string]error
}

func (f overviewFake) GetSubscription(context.Context) (Subscription, error) {
	return Subscription{Tier: TierPro}, f.subErr
}
func (f overviewFake) ListRuntimes(context.Context) ([]Runtime, error) { return f.runtimes, f.listErr }
func (f overviewFake) ListSessions(_ context.Context, parent string) ([]Session, error) {
	if err := f.sessionErrs[parent]; err != nil {
		return nil, err
	}
	return []Session{{Name: parent + "/sessions/s1"}}, nil
}

func TestLoadOverview(t *testing.T) {
	down := &Error{Code: Unavailable, Message: "down"}
	rts := []Runtime{{Name: "runtimes/a"}, {Name: "runtimes/b"}}

	ov, err := LoadOverview(context.Background(), overviewFake{runtimes: rts, sessionErrs: map[string]error{"runtimes/b": down}})
	if err != nil || ov.Subscription.Tier != TierPro || len(ov.Runtimes) != 2 {
		t.Fatalf("overview %+v, err %v", ov, err)
	}
	if len(ov.Sessions["runtimes/a"]) != 1 || !errors.Is(ov.SessionErrors["runtimes/b"], down) || ov.Sessions["runtimes/b"] != nil {
		t.Errorf("a failing list_sessions must be recorded for its runtime only: %+v", ov)
	}

	if _, err := LoadOverview(context.Background(), overviewFake{listErr: down}); !errors.Is(err, down) {
		t.Errorf("list_runtimes failure: got %v", err)
	}
	if ov, err := LoadOverview(context.Background(), overviewFake{runtimes: rts, subErr: down}); !errors.Is(err, down) || len(ov.Runtimes) != 2 {
		t.Errorf("get_subscription failure: got %v with %d runtimes", err, len(ov.Runtimes))
	}
}

// countingFake records the most list_sessions calls in flight at once.
type countingFake struct {
	overviewFake
	mu           chan struct{}
	inFlight     *int
	peak         *int
	release      chan struct{}
	releaseAfter int
	calls        *int
}

func (f countingFake) ListSessions(ctx context.Context, parent string) ([]Session, error) {
	f.mu <- struct{}{}
	*f.inFlight++
	*f.calls++
	*f.peak = max(*f.peak, *f.inFlight)
	if *f.calls == f.releaseAfter {
		close(f.release)
	}
	<-f.mu
	<-f.release // every call waits until FanOut of them are in flight
	f.mu <- struct{}{}
	*f.inFlight--
	<-f.mu
	return f.overviewFake.ListSessions(ctx, parent)
}

// 1,000 runtimes: list_sessions runs FanOut at a time, never more, and
// every runtime's sessions arrive.
func TestLoadOverviewBoundsFanOut(t *testing.T) {
	rts := make([]Runtime, 1000)
	for i := range rts {
		rts[i] = Runtime{Name: fmt.Sprintf("runtimes/r-%04d", i)}
	}
	var inFlight, peak, calls int
	f := countingFake{overviewFake: overviewFake{runtimes: rts}, mu: make(chan struct{}, 1),
		inFlight: &inFlight, peak: &peak, calls: &calls, release: make(chan struct{}), releaseAfter: FanOut}
	ov, err := LoadOverview(context.Background(), f)
	if err != nil || len(ov.Sessions) != len(rts) {
		t.Fatalf("err %v, sessions of %d runtimes, want %d", err, len(ov.Sessions), len(rts))
	}
	if peak != FanOut {
		t.Errorf("%d list_sessions in flight at most, want %d", peak, FanOut)
	}
}
