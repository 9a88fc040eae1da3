package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// stopBound bounds asking a job to stop (jobs.Stop: one small write)
// after a signal or --timeout, before the runtime is deleted.
const stopBound = 30 * time.Second

// maxReportOutput bounds what run --json keeps of a job's stdout and of
// its stderr (1 MiB each; the end is dropped, and the report says so).
const maxReportOutput = 1 << 20

// jobOperations are the job operations run uses: ops.StartJob, ops.JobLog
// and jobs.Stop. The package's tests stand in for them where the
// emulator does not run jobs.
type jobOperations struct {
	start func(ctx context.Context, svc api.Service, jc *jupyter.Client, req ops.JobRequest) (jobs.Spec, error)
	log   func(jc *jupyter.Client, id string, o ops.JobLogOptions) ops.LogSource
	stop  func(ctx context.Context, jc *jupyter.Client, id string, grace time.Duration) error
}

// jobOps are the operations run uses.
var jobOps = jobOperations{start: ops.StartJob, log: ops.JobLog, stop: jobs.Stop}

// startJob uploads the script and starts it as a job on the run's
// runtime (ops.StartJob), saying so on stderr unless detach (detachJob
// says it then, with how to follow it).
func (rs *runState) startJob(jc *jupyter.Client, job *runJob, detach bool) (jobs.Spec, error) {
	v := rs.v
	spec, err := jobOps.start(rs.ctx, rs.conn.Svc, jc, ops.JobRequest{Runtime: rs.rt.Name, File: job.path, Script: []byte(job.code), Args: job.args})
	if err != nil {
		if rs.stoppedBy() != nil {
			if spec.ID != "" { // the launcher may have run: its job is stopped too
				rs.stopJob(jc, spec.ID)
			}
			return spec, rs.stopError("while starting " + job.name)
		}
		if errors.As(err, new(*jupyter.Error)) {
			return spec, kit.FileError(err, nil)
		}
		if errors.As(err, new(*api.Error)) {
			return spec, kit.Classify(err, rs.conn.Creds)
		}
		return spec, &kit.ExitError{Code: kit.ExitFailure, Msg: job.name + " did not start: " + termtext.Line(err.Error())}
	}
	rs.jobID, rs.rep.Job = spec.ID, spec.ID
	if !detach {
		v.Note("running " + termtext.Cut(job.name, 80) + " on " + termtext.Cut(rs.rt.ID(), 63) + " (job " + spec.ID + ")")
	}
	return spec, nil
}

// followJob follows job id's log to its end, as `python FILE` would
// print it: stdout pieces on our stdout, stderr pieces on our stderr, in
// the order written. It returns the job's exit code (128+n when signal n
// ended it). A signal or --timeout stops the job (jobs.Stop) and is the
// error; so is a log that cannot be followed any more.
func (rs *runState) followJob(jc *jupyter.Client, job *runJob, id string) (int, error) {
	v := rs.v
	src := jobOps.log(jc, id, ops.JobLogOptions{Follow: true, Stderr: true})
	defer src.Close()
	w := &jobWriter{rs: rs}
	for {
		ch, err := src.Next(rs.ctx)
		if err == nil {
			w.chunk(ch)
			if ch.Note != "" {
				v.Note(termtext.Line(ch.Note))
			}
			if ch.Ended == nil {
				continue
			}
			return rs.jobEnded(job, *ch.Ended)
		}
		if rs.stoppedBy() != nil {
			rs.stopJob(jc, id)
			return 0, rs.stopError("while " + job.name + " ran")
		}
		var ee *kit.ExitError
		if errors.As(err, new(*jupyter.Error)) {
			ee = kit.FileError(err, nil)
		} else {
			ee = kit.Classify(err, rs.conn.Creds)
		}
		if !rs.owned {
			ee.Msg += " (job " + id + " goes on: " + v.G.CommandOr("colabdash logs "+id+" -f", "logs", id, "-f") + " follows it)"
		}
		return 0, &kit.ExitError{Code: ee.Code, Msg: "following " + termtext.Cut(job.name, 80) + ": " + ee.Msg}
	}
}

// jobEnded is the exit code of a job that ended with st: its own, or
// 128+n after signal n (said on stderr); a job that never started is a
// failure with the supervisor's reason.
func (rs *runState) jobEnded(job *runJob, st jobs.Status) (int, error) {
	switch {
	case st.Error != "":
		return 0, &kit.ExitError{Code: kit.ExitFailure, Msg: termtext.Cut(job.name, 80) + " did not start: " + termtext.Line(st.Error)}
	case st.Signal > 0:
		rs.v.Note(fmt.Sprintf("%s was killed by signal %d", termtext.Cut(job.name, 80), st.Signal))
		return 128 + st.Signal, nil
	}
	return st.ExitCode, nil
}

// stopJob asks job id to stop (its process group: SIGTERM, then SIGKILL
// after the default grace), in a fresh bounded context: the run's own was
// ended by the signal or --timeout.
func (rs *runState) stopJob(jc *jupyter.Client, id string) {
	ctx, cancel := rs.cleanupCtx(stopBound)
	defer cancel()
	if err := jobOps.stop(ctx, jc, id, 0); err != nil {
		rs.v.Note("could not stop job " + id + ": " + kit.FileError(err, rs.conn.Creds).Msg)
		return
	}
	rs.v.Note("stopped job " + id)
}

// jobWriter writes a job's log as it comes: each piece to our stdout or
// stderr by where it came from (sanitized and redacted on a terminal, the
// exact bytes into a pipe or file), or, with --json, into the report.
type jobWriter struct{ rs *runState }

// chunk splits ch.Data by its stderr ranges and writes each piece.
func (w *jobWriter) chunk(ch ops.LogChunk) {
	off := ch.Off
	end := ch.Off + int64(len(ch.Data))
	for _, r := range ch.Stderr {
		lo, hi := max(r.Off, off), min(r.Off+r.Len, end)
		if lo >= hi {
			continue
		}
		w.write(false, ch.Data[off-ch.Off:lo-ch.Off])
		w.write(true, ch.Data[lo-ch.Off:hi-ch.Off])
		off = hi
	}
	w.write(false, ch.Data[off-ch.Off:])
}

// write writes one piece of the job's stdout or stderr.
func (w *jobWriter) write(stderr bool, b []byte) {
	if len(b) == 0 {
		return
	}
	v, rep := w.rs.v, &w.rs.rep
	if v.AsJSON {
		keep := &rep.Stdout
		if stderr {
			keep = &rep.Stderr
		}
		if room := maxReportOutput - len(*keep); room > 0 {
			*keep += string(b[:min(len(b), room)])
		}
		return
	}
	out, tty := v.S.Out, v.S.OutTTY
	if stderr {
		out, tty = v.S.Err, v.S.ErrTTY
	}
	s := string(b)
	if tty {
		s = v.Red().Redact(termtext.Output(s))
	}
	v.Mu.Lock()
	defer v.Mu.Unlock()
	_, _ = io.WriteString(out, s)
}

// detachJob ends a run --detach once its job started: the job is noted
// in the state directory (ops.SaveJobNote, with --delete-when-done's
// intent), its id printed on stdout and how to follow it on stderr. The
// runtime is left to the job: run deletes nothing now. A note that
// cannot be saved is said; with --delete-when-done it fails the run
// (exit 1), since no watcher would know to delete the runtime.
func (rs *runState) detachJob(job *runJob, spec jobs.Spec, o runOptions) error {
	v, g, id := rs.v, rs.v.G, spec.ID
	rs.detached, rs.rep.Detached = true, true
	saved := ops.SaveJobNote(kit.StateDir(), ops.JobNote{ID: id, Runtime: rs.rt.Name, File: job.path, Started: time.Now().UTC(),
		DeleteWhenDone: o.deleteWhenDone})
	if !v.AsJSON {
		v.Mu.Lock()
		fmt.Fprintln(v.S.Out, id)
		v.Mu.Unlock()
	}
	waitArgs := []string{"wait", id}
	if rs.owned && !o.deleteWhenDone {
		waitArgs = append(waitArgs, "--delete")
	}
	v.Note("job " + id + " runs on " + termtext.Cut(rs.rt.ID(), 63) + "; follow it with: " + g.CommandOr("colabdash logs "+id+" -f", "logs", id, "-f") +
		"; wait for its end with: " + g.CommandOr("colabdash wait "+id, waitArgs...))
	rt := termtext.Cut(rs.rt.ID(), 63)
	switch {
	case o.deleteWhenDone:
		v.Note("runtime " + rt + " is deleted when the job ends by whichever colabdash process watches it (the dashboard, wait, jobs --watch); " +
			"while none runs, nothing deletes it and it keeps billing until Colab reclaims it")
	case rs.owned:
		v.Note("runtime " + rt + " stays after the job (a detached run never deletes it): the wait above with --delete deletes it once the job ended")
	}
	if saved != nil {
		msg := "could not note job " + id + " in the state directory: " + saved.Error()
		if o.deleteWhenDone {
			return &kit.ExitError{Code: kit.ExitFailure, Msg: msg + "; nothing will delete runtime " + rt + " when the job ends: " +
				g.CommandOr("colabdash wait "+id+" --delete", "wait", id, "--delete") + " does"}
		}
		v.Note(msg)
	}
	return nil
}
