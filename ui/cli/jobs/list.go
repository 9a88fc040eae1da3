package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	rjobs "github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// JobsReport is `colabdash jobs --json`: every job of the runtimes read,
// newest first on each, and the runtimes that could not be read.
type JobsReport struct {
	kit.Envelope
	Jobs   []JobEntry    `json:"jobs"`
	Unread []UnreadEntry `json:"unread,omitempty"`
}

// UnreadEntry is a runtime whose jobs could not be read, and why.
type UnreadEntry struct {
	Runtime kit.RuntimeName `json:"runtime"`
	Error   string          `json:"error"`
}

// tailForLast is how much of each log's end the table reads for its
// last line (4 KiB).
const tailForLast = 4 << 10

func listCmd(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "jobs")
	var watch bool
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "jobs [RUNTIME]",
		Short: "List the jobs on every runtime (or on RUNTIME)",
		Long: "jobs lists the jobs (run --detach) on each listed runtime, or on RUNTIME: id, runtime,\n" +
			"command, state (starting, running, stopping, exited N, killed by SIGNAL, failed, lost),\n" +
			"started (UTC, month-day hour:minute; --json has the whole time), duration and the last line\n" +
			"of its log; on a terminal the last line, then the command, are cut to fit. A job is lost\n" +
			"when its supervisor stopped writing its status without recording an end.\n" +
			"--watch redraws the table every --interval until ctrl+c, and carries out the\n" +
			"delete-when-done intents run --detach --delete-when-done noted on this machine: once such a\n" +
			"job has ended, its runtime is deleted (after the copies of a wait --download of it are back),\n" +
			"and a line says so. Without a colabdash process\n" +
			"watching, nothing deletes it: it keeps billing until Colab reclaims it.\n" +
			kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example: "  colabdash jobs\n  colabdash jobs rt-abc --json\n  colabdash jobs --watch\n" +
			"  colabdash jobs --jq '.jobs[] | select(.state == \"running\") | .id'",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: v.CompleteRuntimes,
		RunE: func(cmd *cobra.Command, args []string) error {
			if watch && v.AsJSON {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: "--watch draws a table: without it, --json prints one document"}
			}
			arg := ""
			if len(args) == 1 {
				arg = args[0]
			}
			if watch {
				return v.watch(cmd.Context(), arg, every)
			}
			b, err := connect(cmd.Context(), v)
			if err != nil {
				return err
			}
			defer b.Close()
			rep, err := v.collect(cmd.Context(), b, arg)
			if err != nil {
				return err
			}
			return v.show(rep, false)
		},
	}
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "redraw every --interval and delete the runtimes of ended jobs noted --delete-when-done")
	kit.DurationVar(cmd.Flags(), &every, "interval", 5*time.Second, true, "how often --watch reads the jobs")
	v.JSONFlags(cmd, "print one JSON document: {ok, jobs:[{id, runtime, command, state, exitCode, signal, started, ended, seconds, lastLine}], unread}")
	return cmd
}

// collect reads the jobs of the runtime arg names (every listed one for
// ""). A runtime that cannot be read is reported in Unread; the error
// is for a listing that failed, or for RUNTIME itself.
func (v *verb) collect(ctx context.Context, b backend, arg string) (JobsReport, error) {
	rep := JobsReport{Jobs: []JobEntry{}}
	rts, err := b.Runtimes(ctx)
	if err != nil {
		return rep, b.Classify(err)
	}
	if arg != "" {
		rt, err := kit.ResolveRuntime(rts, arg)
		if err != nil {
			return rep, err
		}
		rts = []api.Runtime{rt}
	}
	for _, rt := range rts {
		recs, tails, err := v.read(ctx, b, rt)
		if err != nil {
			if arg != "" {
				return rep, err
			}
			rep.Unread = append(rep.Unread, UnreadEntry{Runtime: kit.NameOf(rt.Name), Error: v.Red().Redact(err.Msg)})
			continue
		}
		t := now()
		for i, rec := range recs {
			e := entry(rec, t)
			e.LastLine = lastLine(tails[i])
			rep.Jobs = append(rep.Jobs, e)
		}
	}
	rep.OK = true
	return rep, nil
}

// read lists runtime rt's jobs and the end of each one's log.
func (v *verb) read(ctx context.Context, b backend, rt api.Runtime) ([]rjobs.Record, [][]byte, *kit.ExitError) {
	rj, err := b.Open(ctx, rt)
	if err != nil {
		if !errors.Is(err, ops.ErrNoConnection) {
			return nil, nil, b.Classify(err)
		}
		return nil, nil, &kit.ExitError{Code: kit.ExitAPI, Msg: fmt.Sprintf("runtime %s has no connectionInfo yet (is it still starting?)", termtext.Cut(rt.ID(), 63))}
	}
	recs, err := rj.List(ctx)
	if err != nil {
		return nil, nil, b.Classify(err)
	}
	tails := make([][]byte, len(recs))
	for i, rec := range recs {
		if rec.Status == nil {
			continue
		}
		tails[i], _ = rj.Tail(ctx, rec.Spec.ID, tailForLast) // the last line is a nicety
	}
	return recs, tails, nil
}

// show prints rep: the table (a line for no jobs), or the document.
func (v *verb) show(rep JobsReport, redraw bool) error {
	if v.AsJSON {
		if len(rep.Unread) > 0 {
			rep.OK = false
			rep.Envelope = kit.Fail(kit.ExitPartial, fmt.Sprintf("%d runtime(s) could not be read (see unread)", len(rep.Unread)))
		}
		if err := v.WriteJSON(rep); err != nil {
			return err
		}
		return unreadErr(rep)
	}
	if redraw && v.S.OutTTY {
		v.Mu.Lock()
		fmt.Fprint(v.S.Out, "\x1b[H\x1b[2J") // our own sequence: home, clear
		v.Mu.Unlock()
	}
	for _, line := range table(rep, v.OutWidth()) {
		v.Say(line)
	}
	if !redraw {
		for _, u := range rep.Unread {
			v.Note(termtext.Cut(api.LastSegment(string(u.Runtime)), 63) + ": " + u.Error)
		}
		return unreadErr(rep)
	}
	return nil
}

// unreadErr is exit code 7 when some runtimes could not be read (the
// lines are out already).
func unreadErr(rep JobsReport) error {
	if len(rep.Unread) == 0 {
		return nil
	}
	return &kit.ExitError{Code: kit.ExitPartial}
}

// table is the jobs table: a header and one line per job, every value
// from the runtime sanitized and cut to its column; with width > 0, the
// last line and then the command are cut so that a line fits, and a
// line that still does not is cut at the edge.
func table(rep JobsReport, width int) []string {
	if len(rep.Jobs) == 0 {
		return []string{"no jobs"}
	}
	rows := [][]string{{"ID", "RUNTIME", "COMMAND", "STATE", "STARTED UTC", "DURATION", "LAST LINE"}}
	for _, e := range rep.Jobs {
		started := "-"
		if e.Started != nil {
			started = e.Started.UTC().Format("01-02 15:04")
		}
		dur := "-"
		if e.Started != nil {
			dur = durationOf(e)
		}
		rows = append(rows, []string{termtext.Cut(e.ID, 40), termtext.Cut(api.LastSegment(string(e.Runtime)), 63),
			termtext.Cut(e.Command, 40), termtext.Cut(stateWord(e), 24), started, dur, termtext.Cut(e.LastLine, 60)})
	}
	// The last line, then the command, give way.
	return kit.Table{GiveWay: []int{6, 2}}.Lines(rows, width)
}

// stateWord is the table's state of e: "exited 3", "killed by SIGTERM".
func stateWord(e JobEntry) string {
	switch {
	case e.ExitCode != nil:
		return fmt.Sprintf("exited %d", *e.ExitCode)
	case e.Signal != nil:
		return "killed by " + signalName(*e.Signal)
	}
	return e.State
}

// durationOf writes e's duration as the table does.
func durationOf(e JobEntry) string {
	return durationText(jobView{started: *e.Started, duration: time.Duration(e.Seconds * float64(time.Second))})
}

// watch is `jobs --watch`: the table every interval, and the
// delete-when-done intents carried out, until ctx ends.
func (v *verb) watch(ctx context.Context, arg string, every time.Duration) error {
	b, err := connect(ctx, v)
	if err != nil {
		return err
	}
	defer b.Close()
	var said []string
	done := map[string]bool{} // the notes carried out: never twice, whatever the notes file says
	held := map[string]bool{} // the notes whose delete a hold postponed (said once)
	tl, running := v.newTeller(), map[string]bool{}
	for round := 0; ; round++ {
		rep, err := v.collect(ctx, b, arg)
		switch {
		case ctx.Err() != nil:
			return &kit.ExitError{Code: kit.ExitInterrupted}
		case err != nil && round == 0:
			return err
		case err != nil:
			// A watch is the cost guard: a failure after the first
			// round (the network, the server) is said, and the next
			// round tries again.
			v.Note(kit.Classify(err, nil).Msg + "; trying again in " + every.String())
		default:
			tl.watchEnds(ctx, rep, running)
			said = append(said, v.carryOut(ctx, b, rep, done, held, tl)...)
			if err := v.show(rep, true); err != nil {
				return err
			}
			for _, line := range said {
				v.Say(line)
			}
		}
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return &kit.ExitError{Code: kit.ExitInterrupted}
		case <-t.C:
		}
	}
}

// carryOut deletes the runtime of each job noted --delete-when-done
// that rep shows ended (unless another colabdash process claimed that
// delete first, or kept the runtime: claimDelete), forgets its note, and
// returns the lines that say so (or why it could not); done holds the
// job ids carried out already. A delete postponed by another process's
// hold of the runtime (a wait --download still copying results back) is
// said once (held holds those job ids) and tried again at the next
// round.
func (v *verb) carryOut(ctx context.Context, b backend, rep JobsReport, done, held map[string]bool, tl *teller) []string {
	notes, err := loadNotes()
	if err != nil {
		return []string{"the job notes could not be read: " + err.Error()}
	}
	var lines []string
	for _, n := range notes {
		if !n.DeleteWhenDone || done[n.ID] {
			continue
		}
		for _, e := range rep.Jobs {
			if e.ID != n.ID || string(e.Runtime) != n.Runtime || !endedState(e.State) {
				continue
			}
			rt := termtext.Cut(api.LastSegment(n.Runtime), 63)
			claim := claimDelete(n, nil)
			if claim == ops.WhenDoneHeld {
				if !held[n.ID] {
					held[n.ID] = true
					lines = append(lines, fmt.Sprintf("job %s ended (%s): waiting for a download by another colabdash before deleting runtime %s, as --delete-when-done asked",
						n.ID, stateWord(e), rt))
				}
				continue
			}
			done[n.ID] = true
			switch claim {
			case ops.WhenDoneTaken: // a dashboard, or another jobs --watch, deletes it
				lines = append(lines, fmt.Sprintf("job %s ended (%s): another colabdash deletes runtime %s, as --delete-when-done asked", n.ID, stateWord(e), rt))
				continue
			case ops.WhenDoneKept:
				lines = append(lines, fmt.Sprintf("job %s ended (%s): runtime %s kept despite --delete-when-done, since a colabdash wait --download did not come back", n.ID, stateWord(e), rt))
				continue
			}
			line, ok := v.deleteFor(ctx, b, n, stateWord(e))
			if ok {
				tl.deleted(ctx, n.Runtime, n.ID, stateWord(e))
			}
			lines = append(lines, line)
		}
	}
	return lines
}

// endedState reports whether a --json state is a job's end.
func endedState(s string) bool {
	switch s {
	case "exited", "killed", "failed", "lost":
		return true
	}
	return false
}

// deleteFor deletes note n's runtime for its ended job (how: its state
// word) and forgets the note; it returns the line that says what was
// done, and whether the runtime was deleted.
func (v *verb) deleteFor(ctx context.Context, b backend, n ops.JobNote, how string) (string, bool) {
	rt := termtext.Cut(api.LastSegment(n.Runtime), 63)
	if err := b.DeleteRuntime(ctx, n.Runtime); err != nil {
		return fmt.Sprintf("could not delete runtime %s after job %s ended (%s): %s", rt, n.ID, how, b.Classify(err).Msg), false
	}
	if err := forgetNote(n.ID); err != nil {
		v.Note("forgetting job " + n.ID + ": " + err.Error())
	}
	return fmt.Sprintf("deleted runtime %s: job %s ended (%s), as --delete-when-done asked", rt, n.ID, how), true
}
