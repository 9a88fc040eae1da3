package state

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
)

func TestCreateAnswered(t *testing.T) {
	rt := api.Runtime{Name: "runtimes/r-1", RuntimeSpec: t4}
	for _, tc := range []struct {
		name    string
		err     error
		attempt int
		step    CreateStep
		wait    time.Duration
	}{
		{"answered: done", nil, 1, CreateDone, 0},
		{"deadline: the identical call at once", &api.Error{Code: api.DeadlineExceeded}, 1, CreateResend, 0},
		{"rate limit with RetryInfo", &api.Error{Code: api.ResourceExhausted, RetryDelay: 7 * time.Second}, 2, CreateResend, 7 * time.Second},
		{"rate limit asking for too long", &api.Error{Code: api.ResourceExhausted, RetryDelay: MaxCreateRetryDelay + time.Second}, 1, CreateFailed, 0},
		{"unavailable, first attempt", &api.Error{Code: api.Unavailable}, 1, CreateResend, DefaultCreateRetry},
		{"unavailable, third attempt: doubled twice", &api.Error{Code: api.Unavailable}, 3, CreateResend, 4 * DefaultCreateRetry},
		{"internal server error", &api.Error{Code: api.Internal, HTTPStatus: 500}, 1, CreateResend, DefaultCreateRetry},
		{"last attempt", &api.Error{Code: api.Unavailable}, MaxCreateAttempts, CreateFailed, 0},
		{"deadline on the last attempt", &api.Error{Code: api.DeadlineExceeded}, MaxCreateAttempts, CreateFailed, 0},
		{"quota", &api.Error{Code: api.ResourceExhausted, QuotaFailure: true}, 1, CreateFailed, 0},
		{"no capacity", &api.Error{Code: api.FailedPrecondition}, 1, CreateFailed, 0},
		{"auth", &api.Error{Code: api.PermissionDenied}, 1, CreateFailed, 0},
		{"cancelled", &api.Error{Code: api.Cancelled}, 1, CreateFailed, 0},
		{"outcome unknown: re-list, never blindly", &api.Error{Code: api.Unknown, OutcomeUnknown: true}, 1, CreateRelist, 0},
		{"outcome unknown on the last attempt: still re-list", &api.Error{Code: api.Unknown, OutcomeUnknown: true}, MaxCreateAttempts, CreateRelist, 0},
		{"not an api error", errors.New("boom"), 1, CreateFailed, 0},
	} {
		d := CreateAnswered(t0, tc.attempt, rt, tc.err)
		if d.Step != tc.step || d.Wait != tc.wait || !d.At.Equal(t0.Add(tc.wait)) {
			t.Errorf("%s: %v wait %v at %v, want %v %v", tc.name, d.Step, d.Wait, d.At, tc.step, tc.wait)
		}
		if d.Step == CreateDone && d.Runtime.Name != rt.Name || d.Step != CreateDone && d.Cause != tc.err {
			t.Errorf("%s: runtime %q cause %v", tc.name, d.Runtime.Name, d.Cause)
		}
		if d.AfterLostReply {
			t.Errorf("%s: a first answer is not after a lost reply", tc.name)
		}
	}
}

func TestCreateRelisted(t *testing.T) {
	lost := &api.Error{Code: api.Unknown, OutcomeUnknown: true}
	old := api.Runtime{Name: "runtimes/r-old", RuntimeSpec: t4}
	mine := api.Runtime{Name: "runtimes/r-new", RuntimeSpec: t4}
	other := api.Runtime{Name: "runtimes/r-cpu", RuntimeSpec: cpu}
	byID := api.Runtime{Name: "runtimes/run-1234", RuntimeSpec: t4}
	known := map[string]bool{old.Name: true}
	for _, tc := range []struct {
		name    string
		target  CreateTarget
		listed  []api.Runtime
		listErr error
		attempt int
		step    CreateStep
		found   string
	}{
		{"the id asked for is listed", CreateTarget{Spec: t4, RuntimeID: "run-1234"}, []api.Runtime{old, byID}, nil, 1, CreateDone, byID.Name},
		{"the id asked for is not listed", CreateTarget{Spec: t4, RuntimeID: "run-1234"}, []api.Runtime{old, mine}, nil, 1, CreateResend, ""},
		{"a new runtime of the spec", CreateTarget{Spec: t4, Known: known}, []api.Runtime{old, other, mine}, nil, 1, CreateDone, mine.Name},
		{"several new ones: the first by name", CreateTarget{Spec: t4, Known: known}, []api.Runtime{{Name: "runtimes/r-z", RuntimeSpec: t4}, mine}, nil, 1, CreateDone, mine.Name},
		{"only known runtimes and other specs", CreateTarget{Spec: t4, Known: known}, []api.Runtime{old, other}, nil, 1, CreateResend, ""},
		{"nothing known before, none of the spec", CreateTarget{Spec: t4}, []api.Runtime{other}, nil, 1, CreateResend, ""},
		{"nothing known before, one of the spec: cannot tell", CreateTarget{Spec: t4}, []api.Runtime{old}, nil, 1, CreateUnknown, ""},
		{"not listed, attempts used up", CreateTarget{Spec: t4, Known: known}, []api.Runtime{old}, nil, MaxCreateAttempts, CreateUnknown, ""},
		{"found even on the last attempt", CreateTarget{Spec: t4, Known: known}, []api.Runtime{mine}, nil, MaxCreateAttempts, CreateDone, mine.Name},
		{"the list failed", CreateTarget{Spec: t4, Known: known}, nil, &api.Error{Code: api.Unavailable}, 1, CreateUnknown, ""},
	} {
		d := CreateRelisted(t0, tc.attempt, tc.target, lost, tc.listed, tc.listErr)
		if d.Step != tc.step || d.Runtime.Name != tc.found || d.Wait != 0 || !d.AfterLostReply || d.Err != lost {
			t.Errorf("%s: %v %q wait %v after-lost %v err %v, want %v %q", tc.name, d.Step, d.Runtime.Name, d.Wait, d.AfterLostReply, d.Err, tc.step, tc.found)
		}
	}
}

func TestExecAnswered(t *testing.T) {
	cutOff := &api.Error{Code: api.DeadlineExceeded}
	noReply := &api.Error{Code: api.DeadlineExceeded, Err: context.DeadlineExceeded}
	down := &api.Error{Code: api.Unavailable}
	lost := &api.Error{Code: api.Unknown, OutcomeUnknown: true}
	on := func(attempt, drops int) ExecTries { return ExecTries{Attempt: attempt, Drops: drops, Resumable: true} }
	for _, tc := range []struct {
		name  string
		tries ExecTries
		err   error
		step  ExecStep
		wait  time.Duration
		drops int
	}{
		{"a result", on(1, 0), nil, ExecDone, 0, 0},
		{"the 600 s cut-off: at once, drops reset", on(3, 2), cutOff, ExecReattach, 0, 0},
		{"no reply in time counts as a drop", on(1, 0), noReply, ExecReattach, ExecDropWait, 1},
		{"a dropped connection: backoff", on(1, 0), down, ExecReattach, ExecDropWait, 1},
		{"the third drop in a row: doubled twice", on(3, 2), down, ExecReattach, 4 * ExecDropWait, 3},
		{"a lost reply", on(1, 0), lost, ExecReattach, ExecDropWait, 1},
		{"a server error", on(1, 0), &api.Error{Code: api.Internal, HTTPStatus: 502}, ExecReattach, ExecDropWait, 1},
		{"a rate limit's RetryDelay is honoured", on(1, 0), &api.Error{Code: api.ResourceExhausted, RetryDelay: 9 * time.Second}, ExecReattach, 9 * time.Second, 1},
		{"a RetryDelay too long", on(1, 0), &api.Error{Code: api.ResourceExhausted, RetryDelay: MaxExecRetryDelay + time.Second}, ExecGiveUp, 0, 0},
		{"the fifth drop in a row", ExecTries{Attempt: 5, Drops: 4, Resumable: true}, down, ExecReattach, 16 * ExecDropWait, 5},
		{"one drop too many", on(6, MaxExecDrops), down, ExecGiveUp, 0, MaxExecDrops},
		{"the total is bounded", on(MaxExecAttempts, 0), cutOff, ExecGiveUp, 0, 0},
		{"not resumable", ExecTries{Attempt: 1}, down, ExecGiveUp, 0, 0},
		{"stopped by the user", ExecTries{Attempt: 1, Resumable: true, Stopped: true}, cutOff, ExecGiveUp, 0, 0},
		{"cancelled", on(1, 0), &api.Error{Code: api.Cancelled}, ExecGiveUp, 0, 0},
		{"a refusal", on(1, 0), &api.Error{Code: api.FailedPrecondition}, ExecGiveUp, 0, 0},
		{"not found", on(1, 0), &api.Error{Code: api.NotFound}, ExecGiveUp, 0, 0},
		{"not an api error", on(1, 0), errors.New("boom"), ExecGiveUp, 0, 0},
	} {
		d := ExecAnswered(t0, tc.tries, tc.err)
		if d.Step != tc.step || d.Wait != tc.wait || d.Drops != tc.drops || !d.At.Equal(t0.Add(tc.wait)) {
			t.Errorf("%s: %v wait %v drops %d, want %v %v %d", tc.name, d.Step, d.Wait, d.Drops, tc.step, tc.wait, tc.drops)
		}
	}
	if w := ExecAnswered(t0, ExecTries{Attempt: 1, Drops: MaxExecDrops - 1, Resumable: true}, down).Wait; w > MaxExecDropWait {
		t.Errorf("the last wait %v exceeds %v", w, MaxExecDropWait)
	}
}

func TestStepNames(t *testing.T) {
	for s, want := range map[CreateStep]string{CreateDone: "done", CreateResend: "resend", CreateRelist: "relist", CreateFailed: "failed", CreateUnknown: "unknown", 0: "invalid"} {
		if s.String() != want {
			t.Errorf("%d: %q", s, s.String())
		}
	}
	for s, want := range map[ExecStep]string{ExecDone: "done", ExecReattach: "reattach", ExecGiveUp: "give up", 0: "invalid"} {
		if s.String() != want {
			t.Errorf("%d: %q", s, s.String())
		}
	}
}
