package ops

import (
	"context"
	"errors"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
)

// ExecEvent is a reattach Exec is about to make, for the caller to show:
// Attempt is the send that failed with Err, Wait the wait before the
// identical call goes again (0 after the server's 600 s cut-off).
type ExecEvent struct {
	Attempt int
	Wait    time.Duration
	Err     *api.Error
}

// Exec runs req (a session target; an empty ExecutionID gets a UUID from
// the client on the first send, so callers that may reattach set it) and
// follows state's one rule for every answer (state.ExecAnswered): the
// identical call reattaches after the 600 s cut-off, a dropped connection
// or a lost reply, within the rule's bounds. progress, when set, hears
// each reattach. It returns the result, or the last error when the rule
// gave up, or ctx's error when ctx ended during a wait.
func Exec(ctx context.Context, svc api.Service, req api.ExecuteCodeRequest, progress func(ExecEvent)) (api.ExecuteCodeResult, error) {
	tries := state.ExecTries{Resumable: req.Session != "" && req.ExecutionID != ""}
	for {
		tries.Attempt++
		res, err := svc.ExecuteCode(ctx, req)
		d := state.ExecAnswered(Now(), tries, err)
		if d.Step != state.ExecReattach || ctx.Err() != nil {
			return res, err
		}
		tries.Drops = d.Drops
		if progress != nil {
			ev := ExecEvent{Attempt: tries.Attempt, Wait: d.Wait}
			errors.As(err, &ev.Err)
			progress(ev)
		}
		if err := Sleep(ctx, d.Wait); err != nil {
			return res, err
		}
	}
}
