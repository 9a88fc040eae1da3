package kit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// How create and run show a create_runtime that was refused, and the wait
// for a created runtime to be listed: the presentation both verbs share.

// CreateFailed explains a refused create as one line and, where one
// helps, one line of fix (the spec or command to try), as the returned
// error: its Msg is also --json's error.message. The exit code is 5 for a
// quota, a limit or no capacity; else by class. The server's own words go
// to the log.
func (v *Verb) CreateFailed(ae *api.Error, spec api.RuntimeSpecKey, specs []api.RuntimeSpec, tier api.SubscriptionTier, attempts int, conn *Connection) error {
	f := state.ExplainCreateFailure(ae, spec, specs, tier, attempts)
	if f.Kind == state.CreateFailedOther {
		return Classify(ae, conn.Creds)
	}
	if v.G.Logs.Log != nil {
		v.G.Logs.Log.Warn("create_runtime refused", "error", ae.Error())
	}
	msg := f.Title
	if ae.Reason != "" && !strings.Contains(msg, ae.Reason) {
		msg += " (" + ae.Reason + ")"
	}
	if len(f.Body) > 0 {
		msg += ": " + firstSentence(f.Body[0])
	}
	var fix []string
	if f.Kind == state.CreateTooManyRuntimes {
		fix = append(fix, "delete one ("+v.G.CommandOr("colabdash status", "status")+" lists them; "+
			v.G.CommandOr("colabdash delete RUNTIME", "delete", "RUNTIME")+"), or wait and create again")
	}
	var tries []string
	for _, k := range f.Alternatives {
		if arg, ok := SpecArg(k); ok {
			if line, ok := v.G.CommandLine("create", "--spec", arg); ok {
				tries = append(tries, line)
			}
		}
	}
	if len(tries) > 0 {
		fix = append(fix, "try: "+strings.Join(tries, " or "))
	}
	code := ExitAPI
	if f.Kind.QuotaOrIneligible() || QuotaOrIneligible(ae) {
		code = ExitQuota
	}
	return &ExitError{Code: code, Msg: termtext.Cut(msg, 300), Fix: strings.Join(fix, "; ")}
}

// firstSentence is s up to its first ". " (with the full stop), or s.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
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
