package kit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// --- runtime and session arguments ---

// ResolveRuntime finds the runtime arg names among the listed runtimes:
// "rt-abc", "runtimes/rt-abc", or a prefix of exactly one runtime id.
// Errors (exit code 2) name the live runtimes, or the ones a prefix
// matches.
func ResolveRuntime(rts []api.Runtime, arg string) (api.Runtime, error) {
	rt, _, err := LookupRuntime(rts, arg)
	if err != nil {
		return api.Runtime{}, err
	}
	return rt, nil
}

// LookupRuntime is ResolveRuntime telling apart an argument that matches
// no runtime (missing true) from an ambiguous or empty one. The matching
// is ui/ops' (ops.ResolveRuntime); this is its wording.
func LookupRuntime(rts []api.Runtime, arg string) (rt api.Runtime, missing bool, err *ExitError) {
	rt, rerr := ops.ResolveRuntime(rts, arg)
	var re *ops.ResolveError
	if !errors.As(rerr, &re) {
		return rt, false, nil
	}
	switch re.Kind {
	case ops.ResolveEmpty:
		return api.Runtime{}, false, &ExitError{Code: ExitUsage, Msg: "empty runtime argument"}
	case ops.ResolveAmbiguous:
		return api.Runtime{}, false, &ExitError{Code: ExitUsage, Msg: fmt.Sprintf("%q matches %d runtimes (%s): give more of the id",
			termtext.Cut(arg, 80), len(re.Matches), runtimeIDs(re.Matches))}
	}
	return api.Runtime{}, true, MissingRuntime(arg, rts, rts, 0)
}

// MissingRuntime is the error for arg, which names none of all: it lists
// rts as the live runtimes ("no runtime "rt-zz" (live: rt-a, rt-b)"), or
// as the other live ones when the command already targets some (delete
// does not offer the runtimes it deletes: rts is all without them). An id
// or prefix written in upper case gets the lower-case id it would match
// among all, even one the command targets already: runtime ids are lower
// case (RFC 1034).
func MissingRuntime(arg string, all, rts []api.Runtime, targeted int) *ExitError {
	live := "no runtimes are live"
	if targeted > 0 {
		live = "no other runtimes are live"
	}
	if len(rts) > 0 {
		live = "live: " + runtimeIDs(rts)
		if targeted > 0 {
			live = "other live runtimes: " + runtimeIDs(rts)
		}
	}
	if rt, ok := ops.LowerCaseMatch(all, arg); ok {
		live = "runtime ids are lower case: did you mean " + termtext.Cut(rt.ID(), 63) + "?"
		if !slices.ContainsFunc(rts, func(r api.Runtime) bool { return r.Name == rt.Name }) {
			live += " It is named in this command already"
		}
	}
	return &ExitError{Code: ExitNotFound, Msg: fmt.Sprintf("no runtime %q (%s)", termtext.Cut(arg, 80), live)}
}

// runtimeIDs lists runtime ids for a message, sanitized, at most 10.
func runtimeIDs(rts []api.Runtime) string {
	ids := make([]string, 0, len(rts))
	for i, rt := range rts {
		if i == 10 {
			ids = append(ids, fmt.Sprintf("and %d more", len(rts)-10))
			break
		}
		ids = append(ids, termtext.Cut(rt.ID(), 63))
	}
	return strings.Join(ids, ", ")
}

// SplitSessionArg splits a session argument, "runtimes/R/sessions/S",
// "R/sessions/S" or "R/S", into its runtime argument R (which
// resolveRuntime reads) and session id S; ok is false for an argument
// that names no session (a runtime).
func SplitSessionArg(arg string) (runtime, session string, ok bool) {
	a := strings.TrimPrefix(strings.TrimSpace(arg), "runtimes/")
	if r, s, found := strings.Cut(a, "/sessions/"); found {
		return r, s, r != "" && s != "" && !strings.Contains(s, "/")
	}
	r, s, found := strings.Cut(a, "/")
	return r, s, found && r != "" && s != "" && !strings.Contains(s, "/")
}

// SessionRef is how a session is written as a verb argument, "R/S",
// ready for the terminal: each id through termtext and cut to the 63
// characters RFC 1034 allows (a valid id is never cut).
func SessionRef(name string) string {
	s := api.Session{Name: name}
	return termtext.Cut(api.LastSegment(s.Parent()), 63) + "/" + termtext.Cut(s.ID(), 63)
}

// ListRuntimes lists the runtimes; the error is classified.
func ListRuntimes(ctx context.Context, conn *Connection) ([]api.Runtime, error) {
	rts, err := conn.Svc.ListRuntimes(ctx)
	if err != nil {
		return nil, Classify(err, conn.Creds)
	}
	return rts, nil
}

// ConnectRuntime connects and resolves arg (rt-abc, runtimes/rt-abc or a
// unique prefix) to one runtime. The caller closes the connection; on
// error there is none to close. Errors are *ExitError, as FindRuntime's.
func (v *Verb) ConnectRuntime(ctx context.Context, arg string) (*Connection, api.Runtime, error) {
	conn, err := v.Connect(ctx)
	if err != nil {
		return nil, api.Runtime{}, err
	}
	rt, err := FindRuntime(ctx, conn, arg)
	if err != nil {
		conn.Close()
		return nil, api.Runtime{}, err
	}
	return conn, rt, nil
}

// FindRuntime lists the runtimes and resolves arg among them.
func FindRuntime(ctx context.Context, conn *Connection, arg string) (api.Runtime, error) {
	rts, err := ListRuntimes(ctx, conn)
	if err != nil {
		return api.Runtime{}, err
	}
	return ResolveRuntime(rts, arg)
}

// CheckListed reports (exit code 6) when session name is not open on rt,
// listing rt's sessions once per runtime into listed (session close and
// exec check a session argument with it).
func (v *Verb) CheckListed(ctx context.Context, conn *Connection, listed map[string][]api.Session, rt api.Runtime, name string) error {
	ss, ok := listed[rt.Name]
	if !ok {
		var err error
		if ss, err = conn.Svc.ListSessions(ctx, rt.Name); err != nil {
			return Classify(err, conn.Creds)
		}
		listed[rt.Name] = ss
	}
	if slices.ContainsFunc(ss, func(s api.Session) bool { return s.Name == name }) {
		return nil
	}
	lists := "colabdash sessions lists them; " + UnusualID("the runtime", rt.ID())
	if line := v.G.RuntimeCommand(rt.ID(), "sessions"); line != "" {
		lists = line + " lists them"
	}
	return &ExitError{Code: ExitNotFound, Msg: fmt.Sprintf("no session %s open (%s)", SessionRef(name), lists)}
}

// --- outcomes of verbs with several targets ---

// Outcomes collects the result of each target of delete or session close
// and gives the exit code: 0 when every target succeeded, 7 (ExitPartial) when some did
// and some did not, else the first failure's own code.
type Outcomes struct {
	ok    int
	first *ExitError
}

// Succeed records a target that succeeded.
func (o *Outcomes) Succeed() { o.ok++ }

// Fail records a target that failed with e (the first failure's code is kept).
func (o *Outcomes) Fail(e *ExitError) {
	if o.first == nil {
		o.first = e
	}
}

// First is the first failure recorded (nil: none failed).
func (o *Outcomes) First() *ExitError { return o.first }

// Err is the verb's final result; the per-target lines are already out.
func (o *Outcomes) Err() error {
	switch {
	case o.first == nil:
		return nil
	case o.ok > 0:
		return &ExitError{Code: ExitPartial, Msg: ""}
	}
	return &ExitError{Code: o.first.Code, Msg: ""}
}

// QuotaOrIneligible reports whether an API failure is the account's quota
// or limits rather than the network or the server (exit code 5).
func QuotaOrIneligible(ae *api.Error) bool {
	return ae.IsQuota() || ae.Code == api.ResourceExhausted ||
		ae.Reason == api.ReasonTooManyActiveRuntimes || ae.Reason == api.ReasonDenylisted
}

// AsAPIError returns err's *api.Error, or nil.
func AsAPIError(err error) *api.Error {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}
