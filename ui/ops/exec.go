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

// CloseTimeout bounds closing a session (delete_session) after a run: 30 s.
const CloseTimeout = 30 * time.Second

// CloseSession closes Colab session name (delete_session), the end of a
// run whose session was opened for it alone. It is not cut short by ctx's
// cancellation (the ctrl+c that ended the run must not leave the session
// and its kernel behind) but is bounded by CloseTimeout. It returns the
// API's error unclassified.
func CloseSession(ctx context.Context, svc api.Service, name string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CloseTimeout)
	defer cancel()
	return svc.DeleteSession(ctx, name)
}
