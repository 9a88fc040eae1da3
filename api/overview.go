package api

import (
	"context"
	"sync"
)

// Overview is everything the dashboard shows at a glance: the tier, every
// runtime and the sessions open on each.
//
// Runtimes keeps list_runtimes' order. Sessions maps a runtime name
// ("runtimes/{id}") to its sessions; SessionErrors maps a runtime name to
// the *Error its list_sessions returned (its Sessions entry is then absent).
type Overview struct {
	Subscription  Subscription
	Runtimes      []Runtime
	Sessions      map[string][]Session
	SessionErrors map[string]error
}

// FanOut is the most per-runtime calls (list_sessions, get_runtime) that
// colabdash has in flight at once, in LoadOverview and in the dashboard;
// client.NewTransport keeps as many idle connections to the endpoint, so a
// refresh reuses them instead of dialling anew. 32 covers a typical account
// in one round trip (BenchmarkFullDashboard: 4 in flight took 1.8× the
// round-trip floor with 20 runtimes, 32 took 1.06×).
const FanOut = 32

// LoadOverview fetches an Overview in about two round trips after the
// connection: get_subscription and list_runtimes start together, and
// list_sessions starts for the runtimes as soon as list_runtimes answers
// (without waiting for the tier), FanOut at a time, so 10,000 runtimes
// make 10,000 calls over FanOut connections rather than 10,000 at once.
//
// It returns the first error of list_runtimes or get_subscription (an
// *Error, or ctx's error); a failing list_sessions does not fail the whole
// overview but is recorded in SessionErrors.
func LoadOverview(ctx context.Context, svc Service) (Overview, error) {
	var (
		sub    Subscription
		subErr error
		subWG  sync.WaitGroup
	)
	subWG.Add(1)
	go func() { defer subWG.Done(); sub, subErr = svc.GetSubscription(ctx) }()
	rts, err := svc.ListRuntimes(ctx)
	if err != nil {
		subWG.Wait()
		return Overview{}, err
	}
	sessions := make(map[string][]Session, len(rts))
	sessionErrs := map[string]error{}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		jobs = make(chan string)
	)
	for range min(FanOut, len(rts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range jobs {
				ss, err := svc.ListSessions(ctx, name)
				mu.Lock()
				if err != nil {
					sessionErrs[name] = err
				} else {
					sessions[name] = ss
				}
				mu.Unlock()
			}
		}()
	}
	for _, rt := range rts {
		jobs <- rt.Name
	}
	close(jobs)
	wg.Wait()
	subWG.Wait()
	return Overview{Subscription: sub, Runtimes: rts, Sessions: sessions, SessionErrors: sessionErrs}, subErr
}
