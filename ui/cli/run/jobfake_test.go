package run

// A stand-in for the job operations (ops.StartJob, ops.JobLog,
// jobs.Stop) while the emulator does not run jobs: each job is a real
// `python3 FILE ARGS` on this machine, in a process group of its own,
// stdin /dev/null, its stdout and stderr merged into one log with the
// stderr ranges, as the supervisor on a runtime keeps them. The script is
// uploaded to the emulated runtime as StartJob does, and each poll of the
// log makes one request to the runtime, so a runtime that goes away is
// seen as it would be.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/ops"
)

// fakePoll is how long a fake log's Next waits for news before it asks
// the runtime (as JobLog's interval, shortened for tests).
const fakePoll = 50 * time.Millisecond

// fakeJobs runs jobs on this machine; startErr, when set, is what every
// start returns instead.
type fakeJobs struct {
	t        *testing.T
	mu       sync.Mutex
	jobs     []*fakeJob
	stops    int
	startErr error
	// ended, when set, is the status every job ends with instead of its
	// own (a supervisor that could not start the script).
	ended *jobs.Status
}

// fakeJob is one job: its log, the stderr ranges and, once it ended, its
// status; changed is closed (and replaced) on every change.
type fakeJob struct {
	spec    jobs.Spec
	cmd     *exec.Cmd
	mu      sync.Mutex
	log     []byte
	ranges  []jobs.Range
	status  *jobs.Status
	changed chan struct{}
}

// useFakeJobs makes run's job operations f's for the rest of the test;
// every job still running at its end is killed.
func useFakeJobs(t *testing.T) *fakeJobs {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 to run the jobs with")
	}
	f := &fakeJobs{t: t}
	old := jobOps
	jobOps = jobOperations{start: f.start, log: f.logOf, stop: f.stop}
	t.Cleanup(func() {
		jobOps = old
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, j := range f.jobs {
			_ = syscall.Kill(-j.cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	return f
}

// started is how many jobs started; stopped how many stops were asked.
func (f *fakeJobs) started() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.jobs)
}

func (f *fakeJobs) stopped() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stops
}

// printed returns what the first job has written to its log so far.
func (f *fakeJobs) printed() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.jobs) == 0 {
		return ""
	}
	j := f.jobs[0]
	j.mu.Lock()
	defer j.mu.Unlock()
	return string(j.log)
}

// start uploads the script to the runtime as StartJob does and runs it
// here.
func (f *fakeJobs) start(ctx context.Context, _ api.Service, jc *jupyter.Client, req ops.JobRequest) (jobs.Spec, error) {
	if f.startErr != nil {
		return jobs.Spec{}, f.startErr
	}
	argv0 := path.Base(filepath.ToSlash(req.File))
	f.mu.Lock()
	spec := jobs.Spec{ID: fmt.Sprintf("fake-%d", len(f.jobs)+1), Cwd: "content", File: "content/" + argv0, Argv0: argv0, Args: req.Args}
	f.mu.Unlock()
	if _, err := jc.Upload(ctx, spec.File, strings.NewReader(string(req.Script)), int64(len(req.Script)), nil); err != nil {
		return spec, err
	}
	dir := f.t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, argv0), req.Script, 0o600); err != nil {
		return spec, err
	}
	cmd := exec.Command("python3", append([]string{argv0}, req.Args...)...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "PYTHONUNBUFFERED=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return spec, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return spec, err
	}
	if err := cmd.Start(); err != nil {
		return spec, err
	}
	j := &fakeJob{spec: spec, cmd: cmd, changed: make(chan struct{})}
	f.mu.Lock()
	f.jobs = append(f.jobs, j)
	f.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range []struct {
		r      interface{ Read([]byte) (int, error) }
		stderr bool
	}{{stdout, false}, {stderr, true}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 4096)
			for {
				n, err := p.r.Read(buf)
				if n > 0 {
					j.append(buf[:n], p.stderr)
				}
				if err != nil {
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		err := cmd.Wait()
		st := jobs.Status{Pid: cmd.Process.Pid, Ended: time.Now()}
		var xe *exec.ExitError
		if errors.As(err, &xe) {
			if ws, ok := xe.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				st.ExitCode, st.Signal = -1, int(ws.Signal())
			} else {
				st.ExitCode = xe.ExitCode()
			}
		}
		if f.ended != nil {
			st = *f.ended
		}
		j.mu.Lock()
		j.status = &st
		close(j.changed)
		j.changed = make(chan struct{})
		j.mu.Unlock()
	}()
	return spec, nil
}

// append adds b to the job's log (and its range to stderr's).
func (j *fakeJob) append(b []byte, stderr bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if stderr {
		j.ranges = append(j.ranges, jobs.Range{Off: int64(len(j.log)), Len: int64(len(b))})
	}
	j.log = append(j.log, b...)
	close(j.changed)
	j.changed = make(chan struct{})
}

// ended reports whether the job has ended.
func (j *fakeJob) ended() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.status != nil
}

// job returns job id.
func (f *fakeJobs) job(id string) *fakeJob {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, j := range f.jobs {
		if j.spec.ID == id {
			return j
		}
	}
	return nil
}

// stop sends SIGTERM to the job's process group, as the supervisor does.
func (f *fakeJobs) stop(_ context.Context, _ *jupyter.Client, id string, _ time.Duration) error {
	f.mu.Lock()
	f.stops++
	f.mu.Unlock()
	j := f.job(id)
	if j == nil {
		return errors.New("no such job")
	}
	return syscall.Kill(-j.cmd.Process.Pid, syscall.SIGTERM)
}

// logOf follows job id's log.
func (f *fakeJobs) logOf(jc *jupyter.Client, id string, _ ops.JobLogOptions) ops.LogSource {
	return &fakeSource{j: f.job(id), jc: jc}
}

// fakeSource is a fakeJob's log being followed from off.
type fakeSource struct {
	j   *fakeJob
	jc  *jupyter.Client
	off int64
}

// Next returns what is new in the log (with its stderr ranges), or the
// end once everything was delivered; with nothing new for fakePoll it
// asks the runtime (its error is Next's) and returns an empty chunk.
func (s *fakeSource) Next(ctx context.Context) (ops.LogChunk, error) {
	s.j.mu.Lock()
	changed := s.j.changed
	if int64(len(s.j.log)) > s.off {
		ch := ops.LogChunk{Off: s.off, Data: append([]byte(nil), s.j.log[s.off:]...)}
		for _, r := range s.j.ranges {
			if r.Off+r.Len > s.off {
				ch.Stderr = append(ch.Stderr, r)
			}
		}
		s.off = int64(len(s.j.log))
		s.j.mu.Unlock()
		return ch, nil
	}
	if st := s.j.status; st != nil {
		s.j.mu.Unlock()
		return ops.LogChunk{Off: s.off, Ended: st}, nil
	}
	s.j.mu.Unlock()
	select {
	case <-changed:
		return ops.LogChunk{Off: s.off}, nil
	case <-ctx.Done():
		return ops.LogChunk{}, ctx.Err()
	case <-time.After(fakePoll):
		_, err := s.jc.Stat(ctx, "content")
		return ops.LogChunk{Off: s.off}, err
	}
}

// Close ends nothing: the job goes on.
func (s *fakeSource) Close() error { return nil }
