// Package exec holds `colabdash exec`: Python code run on a runtime's
// kernel, with reattach, detach and stop; run uses its RunCode and
// ExecDone through kit.ExecHooks.
package exec

import (
	"context"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// verb is kit.Verb with this package's commands as its methods.
type verb struct {
	*kit.Verb
	// interrupted: exec sent the kernel an interrupt (the first
	// ctrl+c), so a KeyboardInterrupt the code raises ends the command
	// as interrupted (130) rather than as failed (1).
	interrupted bool
}

// newVerb is kit.NewVerb for one of this package's commands.
func newVerb(g *kit.Globals, s *kit.Streams, name string) *verb {
	return &verb{Verb: kit.NewVerb(g, s, name)}
}

func init() {
	kit.ExecHooks.RunCode, kit.ExecHooks.ExecDone = RunCode, ExecDone
}

// RunCode calls execute_code, repeating the identical call (same session,
// executionId and code) while it is cut off or the connection drops. run
// runs its script and its notebook's cells with it (through
// kit.ExecHooks).
func RunCode(v *kit.Verb, ctx context.Context, conn *kit.Connection, req api.ExecuteCodeRequest) (api.ExecuteCodeResult, error) {
	return (&verb{Verb: v}).runCode(ctx, conn, req)
}

// ExecDone prints what the code did and returns the exit code: 0, or 1
// when the code raised (hint is the line that says how to reattach).
func ExecDone(v *kit.Verb, res api.ExecuteCodeResult, err error, session, hint string, conn *kit.Connection) error {
	return (&verb{Verb: v}).execDone(res, err, session, hint, conn)
}
