// Package exec holds `colabdash exec`: Python code run on a runtime's
// kernel, with reattach (ops.Exec), detach and stop.
package exec

import (
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
