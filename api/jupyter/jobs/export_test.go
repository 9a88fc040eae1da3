package jobs

import (
	"context"
	"syscall"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// The external tests (package jobs_test, which may import state: the
// judgement of a record) reach the test bed through these.

// EnvForTest is newEnv's test bed.
type EnvForTest struct{ e *env }

// JobForTest is a job started on it.
type JobForTest struct {
	e *env
	j *job
}

// NewEnvForTest is newEnv with the emulator's default options.
func NewEnvForTest(t *testing.T) *EnvForTest { return &EnvForTest{newEnv(t, colabfake.Options{})} }

// Start starts script as a job (prepare and launch).
func (x *EnvForTest) Start(t *testing.T, name, script string) *JobForTest {
	t.Helper()
	return &JobForTest{x.e, x.e.start(t, name, script)}
}

// Read is Read of the job through the proxy, failing the test on error.
func (x *JobForTest) Read(t *testing.T) Record {
	t.Helper()
	rec, err := Read(context.Background(), x.e.jc, x.j.spec.ID)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return rec
}

// KillSupervisor kills the job's supervisor with SIGKILL and waits for its
// end (the job itself keeps running, an orphan, until the cleanup).
func (x *JobForTest) KillSupervisor(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(x.j.sup, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the supervisor's end", func() bool { return !alive(x.j.sup) })
}
