package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// run is `colabdash run FILE`: everything that can be checked is checked
// before the runtime is created; the runtime is deleted however the run
// ends (cleanup); the exit code is the script's.
func (v *verb) run(cmd *cobra.Command, args []string, o runOptions) error {
	job, dls, err := loadJob(cmd, args, o)
	if err != nil {
		return err
	}
	if o.detach && v.demo() {
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "--detach needs a runtime that outlives this command: the --demo emulator's runtimes end with it (run colabdash emulator and point --endpoint at it)"}
	}
	var spec api.RuntimeSpecKey
	if o.spec != "" {
		if spec, err = state.ParseSpec(o.spec); err != nil {
			return &kit.ExitError{Code: kit.ExitUsage, Msg: err.Error()}
		}
	}
	start := time.Now()
	rs := v.startRun(cmd.Context(), o.timeout)
	defer rs.finish()
	rs.rep.File = job.path
	code, runErr := rs.do(job, spec, o)
	if rs.conn != nil {
		defer rs.conn.Close()
		runErr = rs.afterRun(dls, o.keep, code, runErr)
	}
	var ee *kit.ExitError
	if runErr != nil {
		ee = kit.Classify(runErr, nil)
		code = ee.Code
	}
	rs.rep.ExitCode, rs.rep.OK, rs.rep.Seconds = code, code == 0, time.Since(start).Seconds()
	if ee != nil {
		rs.rep.Envelope = kit.Failure(ee, v.Red())
	} else if code != 0 && rs.rep.FailedCell > 0 {
		rs.rep.Envelope = kit.Fail(kit.ExitFailure, fmt.Sprintf("cell %d raised", rs.rep.FailedCell))
	} else if code != 0 {
		// The script's own exit code, not the table's: its word is "failed".
		rs.rep.Envelope = kit.Fail(kit.ExitFailure, fmt.Sprintf("%s exited %d", termtext.Cut(job.name, 80), code))
	}
	if v.AsJSON {
		if jerr := v.WriteJSON(rs.rep); jerr != nil && code == 0 {
			return jerr
		}
	}
	if ee != nil {
		return ee
	}
	if code != 0 {
		return &kit.ExitError{Code: code, Msg: ""}
	}
	return nil
}

// do connects, offers to delete what unfinished runs left, gets the
// runtime (creating it with --spec) and uploads; then it starts a script
// as a job and follows it to its end (--detach: notes it and returns), or
// runs a notebook's cells in a session. It returns the script's (or the
// notebook's) exit code, or the error that stopped it.
func (rs *runState) do(job *runJob, spec api.RuntimeSpecKey, o runOptions) (int, error) {
	v := rs.v
	conn, err := v.Connect(rs.ctx)
	if err != nil {
		return 0, rs.orStopped(err, "while connecting; nothing was created")
	}
	rs.conn = conn
	if _, _, err := v.reapLeftovers(rs.ctx, conn, true); err != nil && rs.stoppedBy() != nil {
		return 0, rs.stopError("while checking the runtimes killed runs left; nothing was created")
	}
	if o.spec != "" {
		if err := rs.create(spec, job.name); err != nil {
			return 0, err
		}
	} else {
		rt, err := kit.FindRuntime(rs.ctx, conn, o.runtime)
		if err != nil {
			return 0, rs.orStopped(err, "")
		}
		rs.rt = rt
		rs.rep.Runtime = kit.NameOf(rt.Name)
	}
	if job.nb != nil {
		return rs.doNotebook(job, o)
	}
	jc, err := rs.client()
	if err != nil {
		return 0, rs.orStopped(err, "while reaching the runtime's files")
	}
	if len(o.uploads) > 0 {
		if err := rs.uploads(jc, o.uploads); err != nil {
			return 0, rs.orStopped(err, "while uploading")
		}
	}
	started, err := rs.startJob(jc, job, o.detach)
	if err != nil {
		return 0, err
	}
	if o.detach {
		return 0, rs.detachJob(job, started, o)
	}
	return rs.followJob(jc, job, started.ID)
}

// doNotebook opens the run's session, uploads and runs the notebook's
// cells in it.
func (rs *runState) doNotebook(job *runJob, o runOptions) (int, error) {
	if err := rs.ensureSession(); err != nil {
		return 0, err
	}
	if len(o.uploads) > 0 {
		jc, err := rs.client()
		if err == nil {
			err = rs.uploads(jc, o.uploads)
		}
		if err != nil {
			return 0, rs.orStopped(err, "while uploading")
		}
	}
	rs.v.Note("running " + termtext.Cut(job.name, 80) + " on " + termtext.Cut(rs.rt.ID(), 63) + " (session " + kit.SessionRef(rs.session) + ")")
	return rs.runNotebook(job)
}

// ensureSession opens the run's session on its runtime when it has none
// yet (a notebook's cells run in it; a download's link check asks in it).
func (rs *runState) ensureSession() error {
	if rs.session != "" {
		return nil
	}
	se, err := rs.conn.Svc.CreateSession(rs.ctx, rs.rt.Name, state.NewSessionID())
	if err != nil {
		return rs.orStopped(kit.Classify(err, rs.conn.Creds), "while opening a session")
	}
	rs.session, rs.rep.Session = se.Name, se.Name
	return nil
}

// client is the run's Jupyter client on its runtime, made once (files).
func (rs *runState) client() (*jupyter.Client, error) {
	if rs.jc != nil {
		return rs.jc, nil
	}
	jc, err := rs.files(rs.ctx)
	if err != nil {
		return nil, err
	}
	rs.jc = jc
	return jc, nil
}

// files is a Jupyter client on the run's runtime, opened as the file
// verbs' openRuntime opens one (ops.OpenListed), on this run's connection.
func (rs *runState) files(ctx context.Context) (*jupyter.Client, error) {
	conn := rs.conn
	jc, rt, err := ops.OpenListed(ctx, conn.Svc, rs.rt, ops.JupyterOptions{Redactor: rs.v.G.Logs.Red, Logger: rs.v.G.Logs.Log})
	if errors.Is(err, ops.ErrNoConnection) {
		return nil, &kit.ExitError{Code: kit.ExitAPI, Msg: "runtime " + termtext.Cut(rt.ID(), 63) + " has no connectionInfo yet"}
	}
	if errors.As(err, new(*jupyter.Error)) {
		return nil, kit.FileError(err, nil)
	}
	if err != nil {
		return nil, kit.Classify(err, conn.Creds)
	}
	return jc, nil
}

// copyOptions report each file copied on stderr (stdout is the
// program's) and into the summary.
func (rs *runState) copyOptions(remoteDst bool) jupyter.CopyOptions {
	v := rs.v
	return jupyter.CopyOptions{Recursive: true,
		OnFile: func(r jupyter.FileResult) {
			if remoteDst {
				r.Dst = kit.AbsRemoteArg(r.Dst)
			} else {
				r.Src = kit.AbsRemoteArg(r.Src)
			}
			rs.rep.Files = append(rs.rep.Files, kit.CopiedFile{Src: r.Src, Dst: r.Dst, Bytes: r.Bytes, Seconds: r.Duration.Seconds()})
			v.Note(fmt.Sprintf("%s → %s (%s)", termtext.Line(jupyter.DisplayName(r.Src)), termtext.Line(jupyter.DisplayName(r.Dst)), state.FormatBytes(r.Bytes)))
		},
		Warn: func(msg string) { v.Note("warning: " + msg) },
		// A --download of a directory skips the links below it, as cp -r
		// down does, asking in the run's own session.
		Links: func(ctx context.Context, remote string) (jupyter.Links, error) {
			if err := rs.ensureSession(); err != nil {
				return jupyter.Links{}, err
			}
			return ops.ListLinks(ctx, rs.conn.Svc, rs.session, remote)
		}}
}

// uploads copies each --upload into /content (a directory into
// /content/NAME, by cp's rule).
func (rs *runState) uploads(jc *jupyter.Client, paths []string) error {
	for _, p := range paths {
		local := filepath.Clean(kit.ExpandHome(p))
		if _, err := os.Stat(local); err != nil {
			return &kit.ExitError{Code: kit.ExitUsage, Msg: "--upload " + termtext.Cut(p, 200) + ": " + err.Error()}
		}
		// Into /content, a directory under its own name (merged into
		// /content/NAME when that exists), as cp -r DIR RUNTIME: does.
		dst, dir := "content/", true
		if err := jc.UploadPath(rs.ctx, local, dst, dir, rs.copyOptions(true)); err != nil {
			return kit.FileError(err, nil)
		}
	}
	return nil
}

// afterRun brings the downloads back (unless a signal or --timeout
// stopped the run) and deletes or keeps the runtime (cleanup: kept with
// keep, unless --timeout ended the run, and when a download did not come
// back, as its results may be there alone). It returns the run's error:
// runErr, else a download's failure after a run that exited 0 (code), the
// stop's, or a failed delete's; a failure that is not the exit code is
// said.
func (rs *runState) afterRun(dls []runDownload, keep bool, code int, runErr error) error {
	v := rs.v
	if rs.stoppedBy() == nil {
		derr := rs.downloads(dls)
		if derr == nil && len(rs.rep.Missing) > 0 {
			derr = kit.MissingError(rs.rep.Missing)
		}
		if derr != nil {
			rs.keptFor = "a --download did not come back"
		}
		if derr != nil && runErr == nil && code == 0 {
			runErr = derr
		} else if derr != nil { // the run's own failure is the exit code; the download's is said
			v.Note(derr.Msg)
		}
	} else if len(dls) > 0 {
		v.Note("downloads skipped: the run was stopped")
	}
	if rs.stoppedBy() != nil && runErr == nil {
		runErr = rs.stopError("after the run")
	}
	if cerr := rs.cleanup(keep && !errors.Is(rs.stoppedBy(), errRunTimeout) || rs.keptFor != ""); cerr != nil {
		v.Note(cerr.Error())
		if runErr == nil && code == 0 {
			runErr = &kit.ExitError{Code: kit.ExitAPI, Msg: ""}
		}
	}
	return runErr
}

// downloads copies each --download back. A path the runtime does not have
// is listed in the report's Missing (the caller fails with kit.MissingError,
// which names it); the first other failure is returned (the file
// verbs' exit code for it), after every download was tried.
func (rs *runState) downloads(dls []runDownload) *kit.ExitError {
	if len(dls) == 0 || rs.rt.Name == "" {
		return nil
	}
	v := rs.v
	jc, err := rs.client()
	if err != nil {
		ee := kit.Classify(err, rs.conn.Creds)
		return &kit.ExitError{Code: ee.Code, Msg: "downloads skipped: " + ee.Msg}
	}
	var first *kit.ExitError
	for _, d := range dls {
		opts := rs.copyOptions(false)
		opts.Overwrite = d.force // without it, checked before the run and refused again here
		err := jc.DownloadPath(rs.ctx, d.Remote, d.Local, d.Dir, opts)
		if err == nil {
			continue
		}
		fe := kit.FileError(err, nil)
		if kit.RemoteMissing(err) {
			rs.rep.Missing = append(rs.rep.Missing, d.Remote) // said once, by kit.MissingError
			continue
		}
		msg := "--download " + termtext.Cut(d.Remote, 200) + ": " + fe.Msg
		if first == nil {
			first = &kit.ExitError{Code: fe.Code, Msg: msg}
		} else {
			v.Note(msg)
		}
	}
	return first
}

// runCode runs req in the run's session with ops.Exec (state's one
// reattach rule); on a terminal each reattach is said on stderr.
func (rs *runState) runCode(req api.ExecuteCodeRequest) (api.ExecuteCodeResult, error) {
	v := rs.v
	return ops.Exec(rs.ctx, rs.conn.Svc, req, func(ev ops.ExecEvent) {
		if v.S.ErrTTY && ev.Err != nil {
			v.Note("reattaching to the running code (" + string(ev.Err.Code) + "; same executionId)")
		}
	})
}
