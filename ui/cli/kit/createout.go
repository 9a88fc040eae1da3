package kit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// How create and run show a create_runtime that was refused, and the wait
// for a created runtime to be listed: the presentation both verbs share.

// CreateFailed explains a refused create on stderr, as the dashboard's
// dialog does, and returns the exit code: 5 for a quota, a limit or no
// capacity; else by class.
func (v *Verb) CreateFailed(ae *api.Error, spec api.RuntimeSpecKey, specs []api.RuntimeSpec, tier api.SubscriptionTier, attempts int, conn *Connection) error {
	f := state.ExplainCreateFailure(ae, spec, specs, tier, attempts)
	if f.Kind == state.CreateFailedOther {
		return Classify(ae, conn.Creds)
	}
	v.Note(f.Title + ": " + termtext.Cut(ae.Error(), 200))
	for _, line := range f.Body {
		v.Note(line)
	}
	if f.Kind == state.CreateTooManyRuntimes {
		v.Note("delete one (" + v.G.CommandOr("colabdash status", "status") + " lists them; " +
			v.G.CommandOr("colabdash delete RUNTIME", "delete", "RUNTIME") + "), or wait and create again")
	}
	for _, k := range f.Alternatives {
		if arg, ok := SpecArg(k); ok {
			if line, ok := v.G.CommandLine("create", "--spec", arg); ok {
				v.Note("try: " + line)
				continue
			}
		}
		v.Note("try the runtimeSpec " + termtext.Cut(k.String(), 60) + " (unusual: no command to paste is printed)")
	}
	code := ExitAPI
	if f.Kind.QuotaOrIneligible() || QuotaOrIneligible(ae) {
		code = ExitQuota
	}
	return &ExitError{Code: code, Msg: ""}
}

// WaitListed polls list_runtimes until rt is listed with a connection URL
// (ops.WaitListed) and returns it as listed; on a terminal each wait says
// so on stderr.
func (v *Verb) WaitListed(ctx context.Context, conn *Connection, rt api.Runtime, timeout time.Duration) (api.Runtime, error) {
	listed, err := ops.WaitListed(ctx, conn.Svc, rt, func(ops.CreateEvent) {
		if v.S.ErrTTY {
			v.Note("waiting for " + termtext.Cut(rt.ID(), 63) + " to be listed with a connection…")
		}
	})
	switch {
	case err == nil:
		return listed, nil
	case ctx.Err() == nil:
		return api.Runtime{}, Classify(err, conn.Creds)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		status := v.G.CommandOr("colabdash status", "status")
		return api.Runtime{}, &ExitError{Code: ExitTimeout, Msg: fmt.Sprintf("%s was created but is not listed with a connection after --timeout %s; "+
			"%s shows it when it is", termtext.Cut(rt.ID(), 63), timeout, status)}
	}
	return api.Runtime{}, &ExitError{Code: ExitInterrupted, Msg: "interrupted while waiting for " + termtext.Cut(rt.ID(), 63) + " (it was created)"}
}

// SpecArg is runtimeSpec k written for --spec ("GPU/T4/STANDARD"); ok is
// false when that text would not parse back to k (an accelerator from a
// server holding a "/", say), so no command may be built from it.
func SpecArg(k api.RuntimeSpecKey) (string, bool) {
	s := k.String()
	back, err := state.ParseSpec(s)
	return s, err == nil && back == k
}
