package ops

import (
	"context"
	"sync"

	"github.com/colabdash/colabdash/api"
)

// LoadSpecs calls list_runtime_specs and get_subscription together (the
// create form, create and run all need both). A failed get_subscription
// leaves the tier unknown (""); a failed list_runtime_specs is the error,
// as the API gave it.
func LoadSpecs(ctx context.Context, svc api.Service) ([]api.RuntimeSpec, api.SubscriptionTier, error) {
	var (
		wg  sync.WaitGroup
		sub api.Subscription
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		sub, _ = svc.GetSubscription(ctx)
	}()
	specs, err := svc.ListRuntimeSpecs(ctx)
	wg.Wait()
	if err != nil {
		return nil, "", err
	}
	return specs, sub.Tier, nil
}
