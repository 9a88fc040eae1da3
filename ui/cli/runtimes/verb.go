// Package runtimes holds the verbs on runtimes and their sessions: specs,
// create, delete, sessions, session open/close, url and token.
package runtimes

import (
	"context"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// verb is kit.Verb with this package's commands as its methods.
type verb struct{ *kit.Verb }

// newVerb is kit.NewVerb for one of this package's commands.
func newVerb(g *kit.Globals, s *kit.Streams, name string) *verb {
	return &verb{kit.NewVerb(g, s, name)}
}

func init() {
	kit.CreateHooks.CreateFailed, kit.CreateHooks.WaitListed = CreateFailed, WaitListed
}

// CreateFailed explains a refused create on stderr, as the dashboard's
// dialog does, and returns the exit code: 5 for a quota, a limit or no
// capacity; else by class. run shares it with create.
func CreateFailed(v *kit.Verb, ae *api.Error, spec api.RuntimeSpecKey, specs []api.RuntimeSpec, tier api.SubscriptionTier, attempts int, conn *kit.Connection) error {
	return (&verb{v}).createFailed(ae, spec, specs, tier, attempts, conn)
}

// WaitListed polls list_runtimes until rt is listed with a connection URL
// (1 s, doubling to 10 s between polls) and returns it as listed, as
// create --wait does.
func WaitListed(v *kit.Verb, ctx context.Context, conn *kit.Connection, rt api.Runtime, timeout time.Duration) (api.Runtime, error) {
	return (&verb{v}).waitListed(ctx, conn, rt, timeout)
}
