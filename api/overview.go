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

// LoadOverview fetches an Overview in about two round trips after the
// connection: get_subscription and list_runtimes start together, and
// list_sessions starts for every runtime at once as soon as list_runtimes
// answers (without waiting for the tier).
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
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for _, rt := range rts {
		wg.Add(1)
		go func(name string) {
			defer wg.Done()
			ss, err := svc.ListSessions(ctx, name)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				sessionErrs[name] = err
				return
			}
			sessions[name] = ss
		}(rt.Name)
	}
	wg.Wait()
	subWG.Wait()
	return Overview{Subscription: sub, Runtimes: rts, Sessions: sessions, SessionErrors: sessionErrs}, subErr
}
