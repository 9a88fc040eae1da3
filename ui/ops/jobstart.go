package ops

import (
	"bytes"
	"context"
	"errors"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
)

// startJob is StartJob: the script uploaded as spec.File (its directory
// made first when FILE named one), the job's directory written, then the
// launcher run in a session named here, so that execute_code creates it
// and a cut-off call reattaches to the same execution (Exec's rule). The
// session is closed however the launch went (it held only the launcher;
// a close that fails leaves an idle kernel, which is not the job's
// error).
func startJob(ctx context.Context, svc api.Service, jc *jupyter.Client, req JobRequest) (jobs.Spec, error) {
	spec := JobSpec(req, Now())
	if dir := path.Dir(spec.File); dir != spec.Cwd {
		if err := jc.MkdirAll(ctx, dir); err != nil {
			return spec, err
		}
	}
	if _, err := jc.Upload(ctx, spec.File, bytes.NewReader(req.Script), int64(len(req.Script)), nil); err != nil {
		return spec, err
	}
	if err := jobs.Prepare(ctx, jc, spec); err != nil {
		return spec, err
	}
	session := req.Runtime + "/sessions/" + state.NewSessionID()
	res, err := Exec(ctx, svc, api.ExecuteCodeRequest{Session: session, Code: jobs.LauncherCode(spec.ID), ExecutionID: uuid.NewString()}, nil)
	_ = CloseSession(ctx, svc, session)
	if err != nil {
		return spec, err
	}
	if xe := res.ExecutionError; xe != nil {
		return spec, errors.New("the job's launcher raised " + api.OneLine(xe.Line(), 200))
	}
	if _, err := jobs.ParseLaunch(res.Stdout); err != nil {
		return spec, err
	}
	return spec, nil
}

// JobSpec is the spec StartJob writes for req, created at now: a fresh id
// (jobs.NewID of the script's name), run in "content" (/content) as
// `python content/ARGV0 ARGS`, where ARGV0 is req.File as given (with
// slashes) when it is a relative path without "..", else its base name.
func JobSpec(req JobRequest, now time.Time) jobs.Spec {
	argv0 := filepath.ToSlash(req.File)
	rel := argv0 != "" && !filepath.IsAbs(req.File) && !strings.HasPrefix(argv0, "/") && !strings.HasPrefix(argv0, "~")
	for _, seg := range strings.Split(argv0, "/") {
		rel = rel && seg != ".."
	}
	if !rel {
		argv0 = path.Base(argv0)
	}
	args := req.Args
	if args == nil {
		args = []string{}
	}
	return jobs.Spec{ID: jobs.NewID(path.Base(argv0)), Cwd: "content", File: path.Join("content", argv0), Argv0: argv0,
		Args: args, Created: now.UTC()}
}
