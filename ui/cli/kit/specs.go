package kit

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/ops"
)

// LoadSpecs calls list_runtime_specs and get_subscription together
// (ops.LoadSpecs); the error is classified.
func LoadSpecs(ctx context.Context, conn *Connection) ([]api.RuntimeSpec, api.SubscriptionTier, error) {
	specs, tier, err := ops.LoadSpecs(ctx, conn.Svc)
	if err != nil {
		return nil, "", Classify(err, conn.Creds)
	}
	return specs, tier, nil
}

// CompleteSpecs completes --spec with the runtimeSpecs the account is
// eligible for, under the completion time limit (cobra's flag completion
// function; create and run).
func (v *Verb) CompleteSpecs(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	specs, _ := Completing(v, cmd, func(ctx context.Context, conn *Connection) ([]api.RuntimeSpec, error) {
		return conn.Svc.ListRuntimeSpecs(ctx)
	})
	for _, sp := range specs {
		if sp.Eligible && strings.HasPrefix(strings.ToLower(sp.Key.String()), strings.ToLower(toComplete)) {
			out = append(out, sp.Key.String())
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
