package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/safefile/marker"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// WaitReport is `colabdash wait --json`: the job as it ended, the files
// copied back, the --download paths the runtime did not have, and
// whether the runtime was deleted.
type WaitReport struct {
	kit.Envelope
	Job     *JobEntry        `json:"job,omitempty"`
	Files   []kit.CopiedFile `json:"files"`
	Missing []string         `json:"missing,omitempty"`
	Deleted bool             `json:"deleted"`
}

// waitEvery is how often wait reads the job's status (a variable for
// tests): the supervisor rewrites it every jobs.HeartbeatEvery.
var waitEvery = 5 * time.Second

func waitCmd(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "wait")
	var downloads []string
	var del, force bool
	cmd := &cobra.Command{
		Use:   "wait JOB",
		Short: "Wait for a job to end, copy its results back, delete its runtime if asked",
		Long: "wait blocks until JOB (a job id, or RUNTIME/JOB) has ended, reading its status on the runtime\n" +
			"every few seconds; then copies each --download RUNTIME_PATH[:LOCAL] back (as cp -r: a relative\n" +
			"RUNTIME_PATH is under /content; LOCAL's directory must exist before wait starts), then, with --delete,\n" +
			"or when run --detach --delete-when-done noted it on this machine, deletes the runtime, unless a\n" +
			"download failed or the runtime lacked its path: the runtime is then kept (exit 7 if the job\n" +
			"succeeded), by the dashboards and jobs --watch too. From its start until the copies are back,\n" +
			"--download holds the runtime: a dashboard or jobs --watch carrying out --delete-when-done\n" +
			"waits, and a wait --delete of another process waits too. It exits\n" +
			"with the job's exit status. The job's state is on the runtime: wait started again after it\n" +
			"(or this machine) died picks up where it was. ctrl+c stops waiting and deletes nothing.\n" +
			kit.JSONHelp + "\n" + exitCodesHelp + kit.ExitCodesHelp,
		Example: "  colabdash wait train-4kq9zt\n" +
			"  colabdash wait train-4kq9zt --download outputs/:./ --delete\n" +
			"  colabdash wait rt-abc/train-4kq9zt --json",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeJobs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var dls []kit.Download
			for _, a := range downloads {
				d, err := kit.ParseDownload(a)
				if err != nil {
					return err
				}
				if err := d.CheckLocal(force, "nothing was waited for"); err != nil {
					return err
				}
				dls = append(dls, d)
			}
			return v.wait(cmd.Context(), args[0], dls, del, force)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&downloads, "download", nil, "RUNTIME_PATH[:LOCAL]: copy back once the job ended (repeatable)")
	f.BoolVarP(&force, "force", "f", false, "with --download: replace local files that exist")
	f.BoolVar(&del, "delete", false, "delete the runtime once the job ended and every download came back (no question asked; kept, exit 7, when one did not)")
	v.JSONFlags(cmd, "print one JSON document once the job ended: {ok, job, files, missing, deleted}")
	return cmd
}

// wait is `wait ARG`.
func (v *verb) wait(ctx context.Context, arg string, dls []kit.Download, del, force bool) error {
	rep := WaitReport{Files: []kit.CopiedFile{}}
	err := v.waitFor(ctx, arg, dls, del, force, &rep)
	if v.AsJSON {
		if err != nil {
			var ee *kit.ExitError
			if errors.As(err, &ee) && ee.Msg != "" {
				rep.Envelope = kit.Failure(ee, v.Red())
			} else if rep.Job != nil {
				rep.Envelope = jobEnvelope(rep.Job)
			}
		} else {
			rep.OK = true
		}
		if rep.Job != nil || err == nil {
			if jerr := v.WriteJSON(rep); jerr != nil && err == nil {
				return jerr
			}
		}
	}
	return err
}

func (v *verb) waitFor(ctx context.Context, arg string, dls []kit.Download, del, force bool, rep *WaitReport) error {
	b, err := connect(ctx, v)
	if err != nil {
		return err
	}
	defer b.Close()
	f, err := v.locate(ctx, b, arg)
	if err != nil {
		return err
	}
	hold := v.hold(f, len(dls) > 0)
	defer hold.Release()
	waited := !judge(f.rec, now()).ended
	jv, err := v.untilEnded(ctx, b, f, 0, hold)
	if err != nil {
		return b.Classify(err)
	}
	tl := v.newTeller()
	if waited { // an end this wait saw happen (not one it found)
		tl.tell(ctx, state.JobEnded(f.rec, state.JudgeJob(f.rec, now(), 0), now()))
	}
	e := entry(f.rec, now())
	rep.Job = &e
	stopBeating := hold.KeepBeating(state.HoldBeatEvery, now)
	dlErr, gone := v.downloads(ctx, f, dls, force, rep)
	stopBeating()
	if f.note == nil { // RUNTIME/JOB: the note may still hold an intent
		if n, err := noteOf(f.id); err == nil && n != nil && n.Runtime == f.rt.Name {
			f.note = n
		}
	}
	intent := f.note != nil && f.note.DeleteWhenDone
	if (del || intent) && !gone { // a runtime gone is neither kept nor deleted: dlErr says so
		why := "--delete"
		if !del {
			why = "--delete-when-done"
		}
		if dlErr != nil || len(rep.Missing) > 0 {
			// The results are still only on the runtime: deleting it
			// now would lose them, and so would another colabdash
			// carrying out the note's intent once this hold is gone.
			if intent && ops.KeepWhenDone(stateDir(), f.rt.Name, f.id) {
				_ = forgetNote(f.id)
			}
			if dlErr != nil {
				v.Note(dlErr.Msg)
			}
			kept := &kit.ExitError{Code: kit.ExitPartial, Msg: fmt.Sprintf("job %s ended (%s); runtime %s kept despite %s, since a --download did not come back "+
				"(copy what you need with colabdash cp, then colabdash delete %s)", f.ref(), jv.word, f.rtID(), why, f.rtID())}
			if code := v.jobExit(f, jv, false); code != nil { // the job's own failure is the exit code
				v.Note(kept.Msg)
				return code
			}
			return kept
		}
		if err := v.deleteAfter(ctx, b, f, jv, del, why, tl, rep, hold); err != nil {
			return err
		}
	}
	if code := v.jobExit(f, jv, false); code != nil {
		if dlErr != nil {
			v.Note(dlErr.Msg)
		}
		return code
	}
	if dlErr != nil {
		return dlErr
	}
	if len(rep.Missing) > 0 {
		// A path asked for and not copied: a script must not go on as
		// if its results had come back.
		ee := kit.MissingError(rep.Missing)
		ee.Msg = fmt.Sprintf("job %s ended (%s), but %s", f.ref(), jv.word, ee.Msg)
		return ee
	}
	return nil
}

// hold holds job f's runtime when wait will download from it (dl): from
// before the job ends until the downloads are back, a dashboard or jobs
// --watch carrying out the job's --delete-when-done waits (ops.HoldRuntime);
// nil without dl. A hold that cannot be taken is a warning.
func (v *verb) hold(f *found, dl bool) *ops.RuntimeHold {
	if !dl {
		return nil
	}
	h, err := ops.HoldRuntime(stateDir(), f.rt.Name, now())
	if err != nil && !errors.Is(err, marker.ErrNoState) {
		v.Note("warning: other colabdash processes cannot be told to keep runtime " + f.rtID() + " until the downloads are back (" +
			termtext.Line(err.Error()) + "): one carrying out --delete-when-done may delete it first")
	}
	return h
}

// untilEnded reads job f's status every waitEvery (every second when
// limit > 0: stop), dating hold at each poll (ops.RuntimeHold.Beat),
// until it has ended
// (or, with limit > 0, until limit passed: then the last view and no
// error). Its errors are the reads' (unclassified), or an *kit.ExitError
// when ctx ended. A read that fails for the network is tried again at the next
// poll, for as long as a followed log would.
func (v *verb) untilEnded(ctx context.Context, b backend, f *found, limit time.Duration, hold *ops.RuntimeHold) (jobView, error) {
	start := now()
	every := waitEvery
	if limit > 0 {
		every = min(every, time.Second)
	}
	var failing time.Time
	for {
		jv := judge(f.rec, now())
		if jv.ended || limit > 0 && now().Sub(start) >= limit {
			return jv, nil
		}
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return jv, &kit.ExitError{Code: kit.ExitInterrupted, Msg: fmt.Sprintf("stopped waiting; job %s is %s (wait again to pick up)", f.ref(), jv.word)}
		case <-t.C:
		}
		_ = hold.Beat(now()) // a failure is retried at the next poll
		rec, err := f.rj.Read(ctx, f.id)
		if err != nil {
			ee := b.Classify(err)
			if ee.Code != kit.ExitAPI || errors.Is(err, jupyter.ErrRuntimeGone) {
				return jv, err
			}
			if failing.IsZero() {
				failing = now()
				v.Note("reading the job's status failed (" + ee.Msg + "); retrying")
			} else if now().Sub(failing) > 10*time.Minute {
				return jv, err
			}
			continue
		}
		failing = time.Time{}
		f.rec = rec
	}
}

// downloads copies each --download back; a path the runtime does not
// have is warned about and listed in rep.Missing (wait then exits 7); the
// first other failure is returned after every download was tried, gone
// true when one found the runtime deleted.
func (v *verb) downloads(ctx context.Context, f *found, dls []kit.Download, force bool, rep *WaitReport) (first *kit.ExitError, gone bool) {
	for _, d := range dls {
		err := f.rj.Download(ctx, d.Remote, d.Local, d.Dir, force,
			func(msg string) { v.Note("warning: " + msg) },
			func(c kit.CopiedFile) {
				rep.Files = append(rep.Files, c)
				if !v.AsJSON && v.S.ErrTTY {
					v.Note(fmt.Sprintf("%s → %s", termtext.Line(jupyter.DisplayName(c.Src)), termtext.Line(c.Dst)))
				}
			})
		if err == nil {
			continue
		}
		if kit.RemoteMissing(err) {
			rep.Missing = append(rep.Missing, d.Remote)
			v.Note("warning: --download " + termtext.Cut(d.Remote, 200) + ": not on the runtime")
			continue
		}
		gone = gone || errors.Is(err, jupyter.ErrRuntimeGone)
		ee := kit.FileError(err, nil)
		msg := "--download " + termtext.Cut(d.Remote, 200) + ": " + api.OneLine(ee.Msg, 0)
		if first == nil {
			first = &kit.ExitError{Code: ee.Code, Msg: msg}
		} else {
			v.Note(msg)
		}
	}
	return first, gone
}

// deleteAfter deletes job f's runtime after its end (jv), as --delete
// (del) or its note's --delete-when-done (why names which) asked, once
// no other colabdash holds the runtime (a wait --download of its own
// still copying: this wait waits, its own hold aside). The delete is
// claimed among the colabdash processes sharing the state directory:
// one another process claimed first (a dashboard, jobs --watch) is left
// to it, and a runtime another wait kept (its download did not come
// back) is kept.
func (v *verb) deleteAfter(ctx context.Context, b backend, f *found, jv jobView, del bool, why string, tl *teller, rep *WaitReport, hold *ops.RuntimeHold) error {
	claim, err := v.claimUnheld(ctx, f, jv, hold)
	if err != nil {
		return err
	}
	switch claim {
	case ops.WhenDoneTaken:
		if !v.AsJSON {
			v.Note(fmt.Sprintf("job %s ended (%s): another colabdash deletes runtime %s, as --delete-when-done asked", f.id, jv.word, f.rtID()))
		}
		return nil
	case ops.WhenDoneKept:
		kept := fmt.Sprintf("job %s ended (%s); runtime %s kept despite %s, since another colabdash wait's --download did not come back "+
			"(colabdash delete %s once what it needs is copied)", f.ref(), jv.word, f.rtID(), why, f.rtID())
		if del {
			return &kit.ExitError{Code: kit.ExitPartial, Msg: kept}
		}
		if !v.AsJSON {
			v.Note(kept)
		}
		return nil
	}
	if err := b.DeleteRuntime(ctx, f.rt.Name); err != nil {
		ee := b.Classify(err)
		return &kit.ExitError{Code: ee.Code, Msg: fmt.Sprintf("job %s ended (%s), but its runtime could not be deleted: %s", f.ref(), jv.word, ee.Msg)}
	}
	rep.Deleted = true
	_ = forgetNote(f.id)
	if !del {
		tl.deleted(ctx, f.rt.Name, f.id, jv.word)
	}
	if !v.AsJSON {
		v.Note(fmt.Sprintf("deleted runtime %s: job %s ended (%s), as %s asked", f.rtID(), f.id, jv.word, why))
	}
	return nil
}

// claimUnheld claims the delete of job f's runtime (claimDelete), asking
// again every waitEvery while another colabdash holds the runtime (said
// once), its own hold dated meanwhile. ctrl+c (ctx) stops it: an
// *kit.ExitError, nothing deleted.
func (v *verb) claimUnheld(ctx context.Context, f *found, jv jobView, hold *ops.RuntimeHold) (ops.WhenDoneClaim, error) {
	n := ops.JobNote{ID: f.id, Runtime: f.rt.Name}
	for said := false; ; said = true {
		claim := claimDelete(n, hold)
		if claim != ops.WhenDoneHeld {
			return claim, nil
		}
		if !said && !v.AsJSON {
			v.Note(fmt.Sprintf("job %s ended (%s): waiting for a download by another colabdash before deleting runtime %s", f.id, jv.word, f.rtID()))
		}
		t := time.NewTimer(waitEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return claim, &kit.ExitError{Code: kit.ExitInterrupted, Msg: fmt.Sprintf("stopped waiting; runtime %s not deleted (job %s ended: %s)", f.rtID(), f.id, jv.word)}
		case <-t.C:
		}
		_ = hold.Beat(now())
	}
}
