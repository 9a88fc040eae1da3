// Package files holds the verbs on a runtime's Jupyter server: ls, cp,
// rm (with the trash), forward and shell.
package files

import "github.com/colabdash/colabdash/ui/cli/kit"

// verb is kit.Verb with this package's commands as its methods.
type verb struct{ *kit.Verb }

// newVerb is kit.NewVerb for one of this package's commands.
func newVerb(g *kit.Globals, s *kit.Streams, name string) *verb {
	return &verb{kit.NewVerb(g, s, name)}
}
