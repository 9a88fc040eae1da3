package clitest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/colabfake/realjupyter"
)

// RealServer is the real binary run against the emulator whose runtimes
// front a real jupyter-server (real kernels, real processes), with an
// environment of its own below a temporary home (no t.Setenv: tests
// using it may run in parallel).
type RealServer struct {
	T *testing.T
	// Bin is the binary's path; Srv the emulator (empty seed); Jup the
	// jupyter-server behind its runtime proxy.
	Bin string
	Srv *colabfake.Server
	Jup *realjupyter.Server
	// Env is the programs' whole environment; Flags the emulator's
	// --endpoint and --access-token-file, for any verb.
	Env   []string
	Flags []string
}

// StartRealServer starts the jupyter-server (the test skips or fails as
// realjupyter.Require says when there is none) and the emulator in front
// of it, both stopped when t ends, and builds the binary (skipped under
// -short).
func StartRealServer(t *testing.T) *RealServer {
	t.Helper()
	bin := NeedBinary(t)
	jup := realjupyter.Require(t, realjupyter.Options{Kernels: true})
	srv, endpoint := colabfaketest.Start(t, colabfake.Options{Seed: colabfake.SeedEmpty, JupyterUpstream: jup.URL})
	home := t.TempDir()
	tok := WriteFile(t, filepath.Join(home, "token.txt"), "ya29.realServer0AccessToken4k\n")
	env := []string{"PATH=" + os.Getenv("PATH"), "NO_COLOR=1", "GOOGLE_APPLICATION_CREDENTIALS=", "CLOUDSDK_CONFIG=" + home + "/gcloud"}
	env = append(env, HomeEnv(home, "XDG_CACHE_HOME="+home+"/cache")...)
	return &RealServer{T: t, Bin: bin, Srv: srv, Jup: jup, Env: env,
		Flags: []string{"--endpoint", endpoint, "--access-token-file", tok}}
}

// Command is the binary with verb, the emulator's flags and args, in
// e's environment, not started.
func (e *RealServer) Command(verb string, args ...string) *exec.Cmd {
	cmd := exec.Command(e.Bin, append(append([]string{verb}, e.Flags...), args...)...)
	cmd.Env = e.Env
	return cmd
}

// Run runs the binary (as Command) to its end: exit code, stdout, stderr.
// The test fails when it cannot be started.
func (e *RealServer) Run(verb string, args ...string) (int, string, string) {
	e.T.Helper()
	var out, errb bytes.Buffer
	cmd := e.Command(verb, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		e.T.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}
