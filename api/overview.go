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
// connection: get_subscription and list_runtimes run concurrently, then
// list_sessions runs for every runtime at once.
//
// It returns the first error of get_subscription or list_runtimes (an
// *Error, or ctx's error); a failing list_sessions does not fail the whole
// overview but is recorded in SessionErrors.
func LoadOverview(ctx context.Context, svc Service) (Overview, error) {
	var (
		ov      Overview
		subErr  error
		listErr error
		wg      sync.WaitGroup
	)
	wg.Add(2)
	go func() { defer wg.Done(); ov.Subscription, subErr = svc.GetSubscription(ctx) }()
	go func() { defer wg.Done(); ov.Runtimes, listErr = svc.ListRuntimes(ctx) }()
	wg.Wait()
	if listErr != nil {
		return ov, listErr
	}
	if subErr != nil {
		return ov, subErr
	}
	ov.Sessions = make(map[string][]Session, len(ov.Runtimes))
	ov.SessionErrors = map[string]error{}
	var mu sync.Mutex
	for _, rt := range ov.Runtimes {
		wg.Add(1)
		go func(name string) {
			defer wg.Done()
			ss, err := svc.ListSessions(ctx, name)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				ov.SessionErrors[name] = err
				return
			}
			ov.Sessions[name] = ss
		}(rt.Name)
	}
	wg.Wait()
	return ov, nil
}
