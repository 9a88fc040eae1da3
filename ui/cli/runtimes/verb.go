// Package runtimes holds the verbs on runtimes and their sessions: specs,
// create, delete, sessions, session open/close, url and token.
package runtimes

import (
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// verb is kit.Verb with this package's commands as its methods.
type verb struct{ *kit.Verb }

// newVerb is kit.NewVerb for one of this package's commands.
func newVerb(g *kit.Globals, s *kit.Streams, name string) *verb {
	return &verb{kit.NewVerb(g, s, name)}
}
