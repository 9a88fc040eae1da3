// Package jobs holds the verbs on jobs, the processes `run --detach`
// starts on a runtime (api/jupyter/jobs): jobs (the table, --watch),
// logs (print or follow a job's log), wait (until a job ends, then
// collect and delete) and stop. A job's state lives on its runtime, so
// each verb picks up wherever another colabdash process left off; the
// local job notes (ops.JobNotes) only say which runtime a job is on and
// whether its runtime is to be deleted once it ends.
package jobs

import (
	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/ui/cli/kit"
)

// verb is kit.Verb with this package's commands as its methods.
type verb struct{ *kit.Verb }

// newVerb is kit.NewVerb for one of this package's commands.
func newVerb(g *kit.Globals, s *kit.Streams, name string) *verb {
	return &verb{kit.NewVerb(g, s, name)}
}

// Commands are jobs, logs, wait and stop.
func Commands(g *kit.Globals, s *kit.Streams) []*cobra.Command {
	return []*cobra.Command{listCmd(g, s), logsCmd(g, s), waitCmd(g, s), stopCmd(g, s)}
}

// ExitLost is the exit code of logs -f, wait and stop when the job was
// lost: its supervisor stopped writing its status without recording an
// end, so the job has no exit status to pass on.
const ExitLost = kit.ExitLost

// exitCodesHelp ends the Long help of the verbs that pass a job's exit
// status on: the job's own codes, then the table every command shares.
const exitCodesHelp = "Exit codes: the job's own exit status once it ended (128 + the signal's number when a signal\n" +
	"killed it, as a shell reports it; 1 when it could not start), 8 when the job was lost (its\n" +
	"supervisor stopped without recording an end); colabdash's own failures use the table below.\n"
