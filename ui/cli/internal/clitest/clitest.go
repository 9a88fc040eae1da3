// Package clitest is what the tests that run the real colabdash binary
// share, across the packages that hold them: the binary built once per
// test process, files and environments kept below a test's own home, and
// waiting for a started command to show or end.
package clitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// WaitTimeout is how long a test waits for what the program shows (a
// screen, a line, an exit) before it fails: long enough for a busy
// two-core machine running the race detector.
const WaitTimeout = 30 * time.Second

// built is colabdash built once per test process; initialEnv is the
// environment before any test isolated HOME (the real HOME, so the build
// cache is warm).
var (
	buildMu    sync.Mutex
	built      string
	initialEnv = os.Environ()
)

// Binary returns the path of colabdash built from this module (without
// the race detector: it is the program a user runs), building it on the
// first call; the test fails when the build does. RemoveBinary removes it.
func Binary(t testing.TB) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if built != "" {
		return built
	}
	dir, err := os.MkdirTemp("", "colabdash-bin")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "colabdash")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/colabdash/colabdash")
	cmd.Env = initialEnv
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	built = bin
	return bin
}

// InitialEnv is the environment as it was when the tests started, before
// any test isolated HOME: what a build should run with.
func InitialEnv() []string { return append([]string(nil), initialEnv...) }

// RemoveBinary removes the binary Binary built, if any: call it from
// TestMain after the tests ran.
func RemoveBinary() {
	buildMu.Lock()
	defer buildMu.Unlock()
	if built != "" {
		os.RemoveAll(filepath.Dir(built))
		built = ""
	}
}

// NeedBinary skips t under -short (it builds and runs the real binary),
// else returns Binary's path.
func NeedBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	return Binary(t)
}

// WriteFile writes content at path (its directories made 0700, the file
// 0600) and returns path; the test fails when it cannot.
func WriteFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// HomeEnv is the environment of a program that keeps to home: HOME, and
// the state and config directories below it, then extra.
func HomeEnv(home string, extra ...string) []string {
	return append([]string{"HOME=" + home, "XDG_STATE_HOME=" + home + "/state", "XDG_CONFIG_HOME=" + home + "/config"}, extra...)
}

// WaitExit waits for the started cmd (signalled or ending) and returns its
// exit code. It fails the test when cmd runs on past WaitTimeout (killing
// it) or a signal killed it outright (it has no exit code); detail, when
// given, says more in the failure (the command's stderr so far).
func WaitExit(t *testing.T, what string, cmd *exec.Cmd, detail ...func() string) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(WaitTimeout):
		cmd.Process.Kill()
		<-done
		more := ""
		for _, d := range detail {
			more += " " + d()
		}
		t.Fatalf("%s: still running %v after the signal%s", what, WaitTimeout, more)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		t.Fatalf("%s: killed by %v instead of exiting", what, ws.Signal())
	}
	return ws.ExitStatus()
}

// WaitReady polls ok every 10 ms until it holds (the running cmd showed
// what the test waits for); when it does not within WaitTimeout it kills
// cmd and fails the test saying what() never happened.
func WaitReady(t *testing.T, cmd *exec.Cmd, what func() string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(WaitTimeout); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("%s", what())
		}
	}
}
