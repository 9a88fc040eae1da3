package jobs

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
)

// SupervisorSource is supervise.py, the supervisor Prepare writes into a
// job's directory: standard-library Python 3.8 or later, run as
// `python supervise.py JOBDIR ROOT` by LauncherCode. It runs the spec's
// `python FILE ARGS` in a session and process group of its own with
// stdin on /dev/null and PYTHONUNBUFFERED=1, appends every piece of its
// output to log as it arrives (and an "OFFSET LENGTH" line to
// stderr.ranges for stderr's), replaces status.json atomically at the
// start, every HeartbeatEvery and at the end, looks for the stop file
// every second (SIGTERM to the job's process group, SIGKILL once the
// grace the file names has passed), ignores SIGHUP and passes SIGTERM and
// SIGINT on to the job's group.
//
//go:embed supervise.py
var SupervisorSource string

// Prepare writes job spec's directory: spec.json and supervise.py
// (MkdirAll first). The spec must have a ValidID id and contents paths
// (Cwd, File) that stay below the Jupyter root; Argv0 must be set.
// Errors: ErrBadID, a *jupyter.Error of kind ErrServer for a spec that
// is not runnable, else the Jupyter client's (*jupyter.Error).
func Prepare(ctx context.Context, jc *jupyter.Client, spec Spec) error {
	if err := ValidID(spec.ID); err != nil {
		return err
	}
	if err := checkSpec(spec); err != nil {
		return &jupyter.Error{Op: "prepare job", Runtime: jc.Runtime(), Path: Dir(spec.ID), Kind: jupyter.ErrServer, Message: err.Error()}
	}
	dir := Dir(spec.ID)
	if err := jc.MkdirAll(ctx, dir); err != nil {
		return err
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{SpecFile, b}, {SupervisorFile, []byte(SupervisorSource)}} {
		if _, err := jc.Upload(ctx, dir+"/"+f.name, bytes.NewReader(f.data), int64(len(f.data)), nil); err != nil {
			return err
		}
	}
	return nil
}

// checkSpec says why spec cannot run: a contents path that is absolute,
// not clean or climbs out of the root, or no Argv0.
func checkSpec(spec Spec) error {
	for _, p := range []struct{ what, v string }{{"cwd", spec.Cwd}, {"file", spec.File}} {
		if p.v == "" || strings.HasPrefix(p.v, "/") || path.Clean(p.v) != p.v || p.v == ".." || strings.HasPrefix(p.v, "../") {
			return fmt.Errorf("the job's %s %q is not a clean path below the runtime's root", p.what, p.v)
		}
	}
	if spec.Argv0 == "" {
		return errors.New("the job has no argv0")
	}
	return nil
}

// launcherTemplate is LauncherCode's Python: %s is the job id as a
// Python string literal. It runs inside a kernel, so it keeps its names
// in one function it deletes afterwards, and leaves nothing running in
// the kernel: the starter process it waits for (a few milliseconds)
// starts the supervisor in a new session and exits at once, so the
// supervisor is nobody's child in the kernel's tree (a double fork
// without forking the kernel, whose threads make os.fork unsafe).
const launcherTemplate = LauncherMarker + `
def _colabdash_start_job(job_id):
    import json, os, subprocess, sys, time
    rel = os.path.join("var", "colabdash", "jobs", job_id)
    here = start = os.getcwd()
    while not os.path.isfile(os.path.join(here, rel, "spec.json")):
        up = os.path.dirname(here)
        if up == here:
            return {"error": "no job directory %%s above %%s" %% (rel, start)}
        here = up
    root, jobdir = here, os.path.join(here, rel)
    starter = ("import subprocess, sys\n"
               "p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,"
               " stderr=subprocess.DEVNULL, close_fds=True, start_new_session=True)\n"
               "print(p.pid)\n")
    argv = [sys.executable, "-c", starter, sys.executable, os.path.join(jobdir, "supervise.py"), jobdir, root]
    try:
        done = subprocess.run(argv, cwd=jobdir, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, close_fds=True, timeout=60)
        pid = int(done.stdout.decode("ascii", "replace").strip())
    except Exception as e:
        return {"error": "cannot start the supervisor: %%s: %%s" %% (type(e).__name__, e)}
    # The supervisor records a job it could not start in status.json at
    # once: say so now rather than leave it to the first look.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(os.path.join(jobdir, "status.json"), "rb") as f:
                status = json.loads(f.read(65536))
        except (OSError, ValueError):
            time.sleep(0.05)
            continue
        if isinstance(status, dict) and status.get("error"):
            return {"error": str(status["error"])}
        break
    return {"pid": pid}
print("` + LaunchLinePrefix + `" + __import__("json").dumps(_colabdash_start_job(%s)), flush=True)
del _colabdash_start_job
`

// LauncherCode is the Python that execute_code runs to start job id
// (after Prepare): it finds the job's directory on disk, starts the
// supervisor in a session of its own (double fork: nothing of the kernel
// holds it) and prints one line, LaunchLinePrefix + JSON {"pid": N} or
// {"error": "..."}.
//
// The job's directory is found by walking up from the kernel's working
// directory until DIR/var/colabdash/jobs/ID/spec.json exists; DIR is
// then the Jupyter root the spec's paths are relative to. On Colab the
// kernel runs in /content and Jupyter's root is /, so DIR is /; with a
// jupyter-server whose root is ROOT and whose kernels start in
// ROOT/content, DIR is ROOT. The launcher waits (at most 10 s) for the
// supervisor's first status.json so that a job that could not start is
// reported in its line. An id that fails ValidID gives code that only
// prints an error line.
func LauncherCode(id string) string {
	if ValidID(id) != nil {
		return LauncherMarker + "\nprint('" + LaunchLinePrefix + `{"error": "not a job id"}')` + "\n"
	}
	return fmt.Sprintf(launcherTemplate, "'"+id+"'")
}

// maxLaunchError bounds the launcher's error text kept in ParseLaunch's
// error, in characters.
const maxLaunchError = 300

// ParseLaunch reads the launcher's stdout: the supervisor's pid, or an
// error saying why the job did not start (its text one line, at most 300
// characters: the runtime wrote it). Output without the launcher's line
// is an error too.
func ParseLaunch(stdout string) (int, error) {
	for _, line := range strings.Split(stdout, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), LaunchLinePrefix)
		if !ok {
			continue
		}
		var v struct {
			Pid   *int64  `json:"pid"`
			Error *string `json:"error"`
		}
		if err := json.Unmarshal([]byte(rest), &v); err != nil {
			return 0, errors.New("the job launcher's answer is not the expected JSON")
		}
		switch {
		case v.Error != nil:
			return 0, errors.New("the job did not start: " + api.OneLine(*v.Error, maxLaunchError))
		case v.Pid == nil || *v.Pid <= 1 || *v.Pid > 1<<31:
			return 0, errors.New("the job launcher's answer has no valid pid")
		}
		return int(*v.Pid), nil
	}
	return 0, errors.New("the job launcher printed no " + strings.TrimSpace(LaunchLinePrefix) + " line: the job did not start")
}
