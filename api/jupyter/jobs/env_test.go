package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// TestMain stops the shared real Jupyter server (if one was started)
// after the tests.
func TestMain(m *testing.M) { jupytertest.Main(m) }

// env is a runtime whose proxy (the emulator's) fronts the real
// jupyter-server, a client to it, and the server's root on this machine,
// where a test plays the kernel: it runs LauncherCode with python in
// ROOT/content/<test>, as a kernel started there would.
type env struct {
	*jupytertest.Env
	jc   *jupyter.Client
	root string
	// expiredToken is a proxy token a test let expire (for its proxy
	// hook).
	expiredToken atomic.Value
}

func newEnv(t *testing.T, o colabfake.Options) *env {
	t.Helper()
	return newEnvOn(t, jupytertest.Jupyter, o)
}

// newEnvOn is newEnv with the backend be (root is "" for the emulator's
// own tree).
func newEnvOn(t *testing.T, be jupytertest.Backend, o colabfake.Options) *env {
	t.Helper()
	e := &env{Env: jupytertest.NewEnv(t, be, o)}
	if be == jupytertest.Jupyter {
		e.root = jupytertest.JupyterRoot()
	}
	jc, err := jupyter.New(jupyter.Options{Runtime: e.Rt.Name, Info: e.Info(), Now: e.Clk.Now, Redactor: e.Red,
		RetryDelay: 10 * time.Millisecond, Renew: e.Renew})
	if err != nil {
		t.Fatal(err)
	}
	e.jc = jc
	return e
}

// deadline bounds every wait for what the runtime shows: generous, for
// a busy 2-core machine.
const deadline = 60 * time.Second

// job is a job a test started.
type job struct {
	spec   Spec
	sup    int    // the supervisor's pid
	dir    string // its directory on this machine
	script string // the script's path on this machine
}

// prepare uploads script as the test directory's name, writes the job's
// directory (Prepare) and returns the job, not yet launched.
func (e *env) prepare(t *testing.T, name, script string, args ...string) *job {
	t.Helper()
	ctx := context.Background()
	remote := e.P(name)
	if _, err := e.jc.Upload(ctx, remote, strings.NewReader(script), int64(len(script)), nil); err != nil {
		t.Fatal(err)
	}
	spec := Spec{ID: NewID(name), Cwd: e.Dir, File: remote, Argv0: name, Args: args, Created: time.Now().UTC()}
	if err := Prepare(ctx, e.jc, spec); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	j := &job{spec: spec, dir: filepath.Join(e.root, filepath.FromSlash(Dir(spec.ID))), script: filepath.Join(e.root, filepath.FromSlash(remote))}
	t.Cleanup(func() { j.cleanup() })
	return j
}

// launch runs the launcher as a kernel would (python -c, in the test's
// directory) and waits for it; it returns the supervisor's pid.
func (e *env) launch(t *testing.T, j *job) {
	t.Helper()
	cmd := exec.Command(jupytertest.JupyterPython(), "-c", LauncherCode(j.spec.ID))
	cmd.Dir = filepath.Join(e.root, filepath.FromSlash(e.Dir))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("launcher: %v\n%s", err, out)
	}
	if j.sup, err = ParseLaunch(string(out)); err != nil {
		t.Fatalf("ParseLaunch(%q): %v", out, err)
	}
}

// start is prepare then launch.
func (e *env) start(t *testing.T, name, script string, args ...string) *job {
	t.Helper()
	j := e.prepare(t, name, script, args...)
	e.launch(t, j)
	return j
}

// status reads status.json from disk (nil before there is one).
func (j *job) status(t *testing.T) *Status {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(j.dir, StatusFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		t.Fatal(err)
	}
	var st Status
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("status.json %q: %v", b, err)
	}
	return &st
}

// waitFor polls cond until it holds, failing after deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("no %s within %s", what, deadline)
		}
		time.Sleep(20 * time.Millisecond) // a poll of the file, not a wait for a guess
	}
}

// waitEnded waits for the supervisor to record the job's end.
func (j *job) waitEnded(t *testing.T) *Status {
	t.Helper()
	var st *Status
	waitFor(t, "recorded end of job "+j.spec.ID, func() bool {
		st = j.status(t)
		return st != nil && !st.Ended.IsZero()
	})
	return st
}

// alive reports whether pid is a live process (a zombie is not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// "PID (COMM) S ...": the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// ours reports whether pid is alive and its command line names mark
// (so a cleanup never signals a pid the system reused).
func ours(pid int, mark string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err == nil && alive(pid) && bytes.Contains(b, []byte(mark))
}

// cleanup kills what the job left running (its process group, its
// supervisor) and removes its directory.
func (j *job) cleanup() {
	if b, err := os.ReadFile(filepath.Join(j.dir, StatusFile)); err == nil {
		var st Status
		if json.Unmarshal(b, &st) == nil && st.Pid > 1 && ours(st.Pid, filepath.Base(j.script)) {
			_ = syscall.Kill(-st.Pid, syscall.SIGKILL)
		}
	}
	if j.sup > 1 && ours(j.sup, j.dir) {
		_ = syscall.Kill(j.sup, syscall.SIGKILL)
	}
	_ = os.RemoveAll(j.dir)
}
