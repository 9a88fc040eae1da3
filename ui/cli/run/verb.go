// Package run holds `colabdash run`: a script or notebook run on a new
// (or given) runtime, its files brought back, the runtime deleted, and
// the run records that find runtimes a killed run left (run --reap).
package run

import "github.com/colabdash/colabdash/ui/cli/kit"

// verb is kit.Verb with this package's commands as its methods.
type verb struct{ *kit.Verb }

// newVerb is kit.NewVerb for one of this package's commands.
func newVerb(g *kit.Globals, s *kit.Streams, name string) *verb {
	return &verb{kit.NewVerb(g, s, name)}
}
