package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api/jupyter"
	rjobs "github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// stopMargin is how long stop waits past the grace for the status to
// record the end: the supervisor looks for the stop file every second
// and records the end after draining the pipes for at most a second.
const stopMargin = 15 * time.Second

func stopCmd(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "stop")
	var grace time.Duration
	cmd := &cobra.Command{
		Use:   "stop JOB",
		Short: "Stop a job: SIGTERM to its process group, SIGKILL after --grace",
		Long: "stop asks the supervisor of JOB (a job id, or RUNTIME/JOB) to end it: SIGTERM to the job's\n" +
			"whole process group (what the script started too), SIGKILL after --grace if it is still\n" +
			"there. It then waits until the job's status records the end (at most --grace and 15 s more)\n" +
			"and says nothing on success; a job that has already ended is left as it is. jobs then shows\n" +
			"it killed by SIGTERM or SIGKILL (or exited, when the script handled SIGTERM and exited).\n" +
			"Exit codes: 0 once the job ended, 8 when it was lost; colabdash's own failures use the table\n" +
			"below (1: the job had not ended when stop gave up waiting).\n" + kit.ExitCodesHelp,
		Example:           "  colabdash stop train-4kq9zt\n  colabdash stop rt-abc/train-4kq9zt --grace 1m",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeJobs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return v.stop(cmd.Context(), args[0], grace)
		},
	}
	kit.DurationVar(cmd.Flags(), &grace, "grace", rjobs.DefaultGrace, true, "time between SIGTERM and SIGKILL")
	return cmd
}

// stop is `stop ARG`.
func (v *verb) stop(ctx context.Context, arg string, grace time.Duration) error {
	b, err := connect(ctx, v)
	if err != nil {
		return err
	}
	defer b.Close()
	f, err := v.locate(ctx, b, arg)
	if err != nil {
		return err
	}
	if jv := judge(f.rec, now()); jv.ended {
		if jv.lost {
			return &kit.ExitError{Code: ExitLost, Msg: lostMsg(f)}
		}
		return nil
	}
	if err := f.rj.Stop(ctx, f.id, grace); err != nil {
		return b.Classify(err)
	}
	jv, err := v.untilEnded(ctx, b, f, grace+stopMargin, nil)
	switch {
	case errors.Is(err, jupyter.ErrRuntimeGone):
		// Deleted meanwhile (wait --delete, another process): nothing
		// of the job runs any more.
		v.Note(fmt.Sprintf("runtime %s was deleted while job %s was stopping", f.rtID(), f.id))
		return nil
	case err != nil:
		return b.Classify(err)
	case jv.lost:
		return &kit.ExitError{Code: ExitLost, Msg: lostMsg(f)}
	case !jv.ended:
		return &kit.ExitError{Code: kit.ExitFailure, Msg: fmt.Sprintf("job %s has not ended %s after the stop was asked (it is %s); colabdash jobs shows it", f.ref(), grace+stopMargin, jv.word)}
	}
	return nil
}
