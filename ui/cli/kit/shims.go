package kit

import (
	"context"
	"time"

	"github.com/colabdash/colabdash/api"
)

// Verb packages do not import each other. run drives create and
// execute_code as the create and exec verbs do; until those two
// operations live in ui/ops (ops.Create, ops.Exec), run reaches the
// verbs' drivers through these hooks, which ui/cli/runtimes and
// ui/cli/exec fill in their init.
//
// SHIM: each hook goes once its operation is in ui/ops and its
// presentation here in kit; nothing else should be added to them.

// CreateHooks are the create verb's driver parts that run shares.
var CreateHooks struct {
	// CreateFailed explains a refused create on stderr, as the
	// dashboard's dialog does, and returns the exit code (5 for a quota, a
	// limit or no capacity; else by class).
	CreateFailed func(v *Verb, ae *api.Error, spec api.RuntimeSpecKey, specs []api.RuntimeSpec, tier api.SubscriptionTier, attempts int, conn *Connection) error
	// WaitListed polls list_runtimes until rt is listed with a connection
	// URL and returns it as listed, as create --wait does.
	WaitListed func(v *Verb, ctx context.Context, conn *Connection, rt api.Runtime, timeout time.Duration) (api.Runtime, error)
}

// ExecHooks are the exec verb's driver parts that run shares.
var ExecHooks struct {
	// RunCode calls execute_code, repeating the identical call while it is
	// cut off or the connection drops.
	RunCode func(v *Verb, ctx context.Context, conn *Connection, req api.ExecuteCodeRequest) (api.ExecuteCodeResult, error)
	// ExecDone prints what the code did and returns the exit code (hint
	// is the line that says how to reattach).
	ExecDone func(v *Verb, res api.ExecuteCodeResult, err error, session, hint string, conn *Connection) error
}

// MaxCode bounds the code exec and run read from a file or stdin (1 MiB).
const MaxCode = 1 << 20
