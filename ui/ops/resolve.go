package ops

import (
	"strings"

	"github.com/colabdash/colabdash/api"
)

// ResolveKind says why a runtime argument named no single runtime.
type ResolveKind int

// The ways ResolveRuntime fails.
const (
	// ResolveEmpty: the argument is empty (or only "runtimes/").
	ResolveEmpty ResolveKind = iota + 1
	// ResolveAmbiguous: a prefix of more than one runtime id.
	ResolveAmbiguous
	// ResolveMissing: no listed runtime has that id or prefix.
	ResolveMissing
)

// ResolveError is ResolveRuntime's failure: Arg as given, Kind, and for
// ResolveAmbiguous the runtimes the prefix matches (in listing order).
type ResolveError struct {
	Arg     string
	Kind    ResolveKind
	Matches []api.Runtime
}

// Error reads "empty runtime argument", "… matches 2 runtimes" or "no
// runtime …"; front ends word their own message from the fields.
func (e *ResolveError) Error() string {
	switch e.Kind {
	case ResolveEmpty:
		return "empty runtime argument"
	case ResolveAmbiguous:
		return "runtime argument " + e.Arg + " matches several runtimes"
	}
	return "no runtime " + e.Arg
}

// RuntimeID is a runtime argument as an id: spaces around it and a
// leading "runtimes/" dropped ("runtimes/rt-abc " → "rt-abc").
func RuntimeID(arg string) string {
	return strings.TrimPrefix(strings.TrimSpace(arg), "runtimes/")
}

// ResolveRuntime finds the runtime arg names among rts: its id
// ("rt-abc"), its name ("runtimes/rt-abc") or a prefix of exactly one id.
// An exact id wins over being the prefix of others. The error is a
// *ResolveError.
func ResolveRuntime(rts []api.Runtime, arg string) (api.Runtime, error) {
	id := RuntimeID(arg)
	if id == "" {
		return api.Runtime{}, &ResolveError{Arg: arg, Kind: ResolveEmpty}
	}
	var matches []api.Runtime
	for _, rt := range rts {
		if rt.ID() == id {
			return rt, nil
		}
		if strings.HasPrefix(rt.ID(), id) {
			matches = append(matches, rt)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return api.Runtime{}, &ResolveError{Arg: arg, Kind: ResolveMissing}
	}
	return api.Runtime{}, &ResolveError{Arg: arg, Kind: ResolveAmbiguous, Matches: matches}
}

// LowerCaseMatch is the runtime among rts that arg would name if it were
// written in lower case (runtime ids are lower case, RFC 1034), for a
// "did you mean" hint; ok is false when arg is lower case already or its
// lower case names no single runtime either.
func LowerCaseMatch(rts []api.Runtime, arg string) (rt api.Runtime, ok bool) {
	id := RuntimeID(arg)
	low := strings.ToLower(id)
	if low == id {
		return api.Runtime{}, false
	}
	rt, err := ResolveRuntime(rts, low)
	return rt, err == nil
}
