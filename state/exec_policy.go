package state

import (
	"context"
	"errors"
	"time"

	"github.com/colabdash/colabdash/api"
)

// The one rule for what follows an answer to execute_code sent to a
// session with an executionId, shared by the dashboard's event handlers
// and the command-line drivers (ui/ops).
//
// Colab's guarantee it rests on: the identical call (same session,
// executionId and code) reattaches to the code if it started, and returns
// its output once it ends; otherwise it runs the code. The call is cut off
// after 600 s with DEADLINE_EXCEEDED while the code runs on.
//
// So a cut-off is reattached at once and is no failure; a dropped
// connection, a lost reply or a passing server failure is reattached
// after a backoff (ExecDropWait doubled, at most MaxExecDropWait), at most
// MaxExecDrops times in a row; and no execution is followed for more than
// MaxExecAttempts sends in all.

// MaxExecDrops is how many sends in a row may fail with something other
// than the 600 s cut-off (UNAVAILABLE, a lost reply, INTERNAL, a rate
// limit) before the run is given up: with the waits below, about half a
// minute of outage is ridden out.
const MaxExecDrops = 5

// ExecDropWait is the wait before reattaching after the first such
// failure, doubled for each further one in a row, at most
// MaxExecDropWait; a longer RetryDelay from the server is honoured up to
// MaxExecRetryDelay.
const (
	ExecDropWait      = time.Second
	MaxExecDropWait   = 30 * time.Second
	MaxExecRetryDelay = 5 * time.Minute
)

// MaxExecAttempts bounds the sends of one execution, the first included:
// 144 cut-offs of 600 s are 24 hours, the longest a Colab runtime lives.
const MaxExecAttempts = 144

// ExecStep is what follows one answer to execute_code.
type ExecStep int

// ExecStep values.
const (
	// ExecDone: the call answered with the result.
	ExecDone ExecStep = iota + 1
	// ExecReattach: send the identical call again after
	// ExecDecision.Wait (0: at once).
	ExecReattach
	// ExecGiveUp: stop following the run; the error is the answer. The
	// code may still be running (the same executionId reattaches later).
	ExecGiveUp
)

// String names the step: "done", "reattach", "give up".
func (s ExecStep) String() string {
	switch s {
	case ExecDone:
		return "done"
	case ExecReattach:
		return "reattach"
	case ExecGiveUp:
		return "give up"
	}
	return "invalid"
}

// ExecTries is where one execution stands: Attempt sends made (the one
// just answered included), Drops failures other than the cut-off in a
// row before it; Resumable is true when the call has a session target
// and an executionId (otherwise nothing may be repeated); Stopped is true
// once the user asked to stop the code.
type ExecTries struct {
	Attempt, Drops int
	Resumable      bool
	Stopped        bool
}

// ExecDecision is ExecAnswered's answer: the step, when a reattach goes
// (Wait, and At = now + Wait), and Drops, the failures in a row to carry
// into the next ExecTries.
type ExecDecision struct {
	Step  ExecStep
	Wait  time.Duration
	At    time.Time
	Drops int
}

// ExecAnswered decides what follows the answer err (nil: a result) to the
// send t.Attempt of one execution, at now:
//   - nil: ExecDone;
//   - not resumable, stopped, cancelled, not an *api.Error, or
//     MaxExecAttempts sends made: ExecGiveUp;
//   - DEADLINE_EXCEEDED from the server (the 600 s cut-off): ExecReattach
//     at once, the drops reset;
//   - UNAVAILABLE, a lost reply (OutcomeUnknown, or no reply in time:
//     DEADLINE_EXCEEDED wrapping context.DeadlineExceeded),
//     INTERNAL, HTTP 5xx, RESOURCE_EXHAUSTED: ExecReattach after
//     ExecDropWait << drops (at most MaxExecDropWait, at least the
//     server's RetryDelay), unless that is the MaxExecDrops+1-th in a row
//     or the RetryDelay exceeds MaxExecRetryDelay: ExecGiveUp;
//   - anything else (FAILED_PRECONDITION, NOT_FOUND, auth…): ExecGiveUp.
func ExecAnswered(now time.Time, t ExecTries, err error) ExecDecision {
	d := ExecDecision{Step: ExecGiveUp, At: now, Drops: t.Drops}
	if err == nil {
		d.Step = ExecDone
		return d
	}
	var ae *api.Error
	if !errors.As(err, &ae) || !t.Resumable || t.Stopped || ae.Code == api.Cancelled || t.Attempt >= MaxExecAttempts {
		return d
	}
	if ae.Code == api.DeadlineExceeded && !ae.OutcomeUnknown && !errors.Is(ae.Err, context.DeadlineExceeded) {
		d.Step, d.Drops = ExecReattach, 0
		return d
	}
	transient := ae.OutcomeUnknown || ae.Code == api.Unavailable || ae.Code == api.DeadlineExceeded || ae.Retryable()
	if !transient || t.Drops >= MaxExecDrops || ae.RetryDelay > MaxExecRetryDelay {
		return d
	}
	d.Step, d.Drops = ExecReattach, t.Drops+1
	d.Wait = min(ExecDropWait<<t.Drops, MaxExecDropWait)
	d.Wait = max(d.Wait, ae.RetryDelay)
	d.At = now.Add(d.Wait)
	return d
}
