package colabfake

// Jobs as colabdash's launcher and supervisor run them on a runtime
// (package api/jupyter/jobs), emulated: execute_code's code starting with
// jobwire.LauncherMarker reads the job's spec.json from the runtime's files
// and starts the job in the background, where pyemu runs its script as
// `python FILE ARGS` on the emulator's clock. What the supervisor writes
// is written the same way, into the same files the contents API and
// /files/ serve: status.json at the start, every jobwire.HeartbeatEvery and
// at the end; the log as the script prints; stderr.ranges for what it
// printed on stderr. The stop file is looked for every second of the
// clock (SIGTERM, then SIGKILL after its grace when the script ignores
// SIGTERM). A job ends with its runtime, and with the emulator (nothing
// more is written then: to a client the job is lost).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/pyemu"
	"github.com/colabdash/colabdash/api/jupyter/jobs/jobwire"
)

// How often a waiting job looks at the clock again (real time): often on
// a clock the emulator does not own (Options.Now, a test's fake clock,
// which only moves when the test moves it), and at most this long on the
// real one, so a deleted runtime's jobs end soon after it.
const (
	jobFakeClockPoll = 5 * time.Millisecond
	jobRealClockPoll = 200 * time.Millisecond
)

// jobLauncherMarker starts the launcher's code (jobwire.LauncherMarker).
const jobLauncherMarker = jobwire.LauncherMarker

// Signals a stopped job ends by.
const (
	sigTerm = 15
	sigKill = 9
)

// maxJobFile bounds what the emulator reads of a job's spec.json, stop
// file and script.
const maxJobFile = 4 << 20

var (
	errRuntimeGone = errors.New("the runtime was deleted")
	errJobKilled   = errors.New("the job was killed")
	// a job id in the launcher's code: a run of id characters between
	// quotes or slashes.
	jobIDToken = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[a-z0-9][a-z0-9-]{0,39}`) })
)

// jobTable is the emulator's running jobs.
type jobTable struct {
	mu      sync.Mutex
	running map[string]*emuJob // by runtime name + "/" + job id
	lastPid int
	seeded  []seededJob // the seed's, until New starts them
}

// emuJob is one running job. Its fields below done are the job
// goroutine's own.
type emuJob struct {
	s      *Server
	rt     *runtimeState // the runtime it runs on (a new one of the same name is another)
	rname  string
	spec   jobwire.Spec
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	// caughtUp closes when the job first waits for the clock (or ends):
	// a job started in the past has written what it wrote until now.
	caughtUp chan struct{}

	at         time.Time // the job's time: its start plus the time its script slept
	status     jobwire.Status
	nextBeat   time.Time
	nextPoll   time.Time
	ignoreTerm bool
	killAt     time.Time // SIGKILL after a stop the script ignored
	signal     int       // the signal that ended it
}

// launchJob answers the launcher's execute_code (code starting with
// jobwire.LauncherMarker) on runtime rname: the job whose id the code names
// and whose spec.json is on the runtime starts, and the answer is the
// launcher's one line, jobwire.LaunchLinePrefix and {"pid": N}, or
// {"error": "..."} when no such job is there.
func (s *Server) launchJob(rname, code string) api.ExecuteCodeResult {
	pid, err := s.startJob(rname, launcherJobID(s, rname, code), time.Time{})
	var line string
	if err != nil {
		msg, _ := json.Marshal(err.Error())
		line = fmt.Sprintf(`{"error": %s}`, msg)
	} else {
		line = fmt.Sprintf(`{"pid": %d}`, pid)
	}
	return api.ExecuteCodeResult{Stdout: jobwire.LaunchLinePrefix + line + "\n"}
}

// launcherJobID finds the job the launcher's code starts: the first id
// it names (between quotes or slashes) whose spec.json is on runtime
// rname; "" when there is none.
func launcherJobID(s *Server, rname, code string) string {
	seen := map[string]bool{}
	for _, ix := range jobIDToken().FindAllStringIndex(code, 200) {
		if !jobIDDelim(code, ix[0]-1) || !jobIDDelim(code, ix[1]) {
			continue
		}
		id := code[ix[0]:ix[1]]
		if seen[id] {
			continue
		}
		seen[id] = true
		if _, err := s.proxy.ReadFile(rname, jobwire.Dir(id)+"/"+jobwire.SpecFile, 1); err == nil {
			return id
		}
	}
	return ""
}

// jobIDDelim reports whether code[i] may border a job id in the code.
func jobIDDelim(code string, i int) bool {
	return i >= 0 && i < len(code) && strings.IndexByte(`"'/`, code[i]) >= 0
}

// startJob starts job id on runtime rname as the supervisor would, at
// start (the emulator's now when zero), and returns the supervisor's
// pid. Errors: no spec.json (the launcher's "not found"), one that is not
// a Spec, the job already running.
func (s *Server) startJob(rname, id string, start time.Time) (int, error) {
	j, code, err := s.newJob(rname, id, start)
	if err != nil {
		return 0, err
	}
	s.wg.Add(1)
	go j.run(code)
	return j.status.Pid - 1, nil
}

// newJob reads job id's spec and script and registers the job.
func (s *Server) newJob(rname, id string, start time.Time) (*emuJob, string, error) {
	if id == "" {
		return nil, "", errors.New("no job directory with a spec.json was found")
	}
	raw, err := s.proxy.ReadFile(rname, jobwire.Dir(id)+"/"+jobwire.SpecFile, maxJobFile)
	if err != nil {
		return nil, "", fmt.Errorf("job %s: no spec.json was found", id)
	}
	var spec jobwire.Spec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, "", fmt.Errorf("job %s: spec.json: %v", id, err)
	}
	spec.ID = id
	if start.IsZero() {
		start = s.clock()
	}
	s.mu.Lock()
	rt := s.lookupRuntime(rname)
	s.mu.Unlock()
	if rt == nil {
		return nil, "", errRuntimeGone
	}
	key := rname + "/" + id
	t := &s.jobs
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running[key] != nil {
		return nil, "", fmt.Errorf("job %s is already running", id)
	}
	if t.running == nil {
		t.running, t.lastPid = map[string]*emuJob{}, 4100
	}
	t.lastPid += 2 // the supervisor's pid, then the job's
	j := &emuJob{s: s, rt: rt, rname: rname, spec: spec, done: make(chan struct{}), caughtUp: make(chan struct{}),
		at: start, nextBeat: start.Add(jobwire.HeartbeatEvery), nextPoll: start.Add(time.Second),
		status: jobwire.Status{Pid: t.lastPid, Started: start, Heartbeat: start}}
	j.ctx, j.cancel = context.WithCancel(s.ctx)
	t.running[key] = j
	return j, j.script(), nil
}

// script is the job's script, or a one-line program failing as python
// does when the file cannot be opened.
func (j *emuJob) script() string {
	code, err := j.s.proxy.ReadFile(j.rname, j.spec.File, maxJobFile)
	if err != nil || j.spec.File == "" {
		return fmt.Sprintf("print(%q, file=sys.stderr)\nsys.exit(2)",
			"python3: can't open file '"+j.file()+"': [Errno 2] No such file or directory")
	}
	return string(code)
}

// file is the script's absolute path on the runtime, its __file__.
func (j *emuJob) file() string { return "/" + strings.TrimPrefix(j.spec.File, "/") }

// run runs the job to its end and records it; a job whose runtime went,
// or whose emulator closed, records nothing more.
func (j *emuJob) run(code string) {
	defer j.s.wg.Done()
	defer j.cancel()
	defer close(j.done)
	defer j.markCaughtUp()
	defer j.unregister()
	if j.writeStatus() != nil {
		return
	}
	argv0 := j.spec.Argv0
	if argv0 == "" {
		argv0 = path.Base(j.spec.File)
	}
	exit, err := pyemu.RunScript(j.ctx, code, pyemu.Process{
		File: j.file(), Argv: append([]string{argv0}, j.spec.Args...),
		Stdout: jobStream{j, false}, Stderr: jobStream{j, true},
		Sleep: j.sleep,
		Signal: func(name string, ignored bool) {
			if name == "SIGTERM" {
				j.ignoreTerm = ignored
			}
		},
	})
	switch {
	case errors.Is(err, errJobKilled):
		j.status.ExitCode, j.status.Signal = -1, j.signal
	case err != nil:
		return
	default:
		j.status.ExitCode = exit
	}
	j.status.Ended, j.status.Heartbeat = j.at, j.at
	_ = j.writeStatus()
}

func (j *emuJob) unregister() {
	t := &j.s.jobs
	t.mu.Lock()
	if key := j.rname + "/" + j.spec.ID; t.running[key] == j {
		delete(t.running, key)
	}
	t.mu.Unlock()
}

func (j *emuJob) markCaughtUp() {
	select {
	case <-j.caughtUp:
	default:
		close(j.caughtUp)
	}
}

// sleep is the script's time.sleep(d): the job's time moves d on,
// through every heartbeat and look at the stop file on the way, each
// when the clock reaches it. errJobKilled: a stop ended the job.
func (j *emuJob) sleep(_ context.Context, d time.Duration) error {
	target := j.at.Add(d)
	for {
		next := target
		for _, t := range []time.Time{j.nextBeat, j.nextPoll, j.killAt} {
			if !t.IsZero() && t.Before(next) {
				next = t
			}
		}
		if err := j.waitUntil(next); err != nil {
			return err
		}
		j.at = next
		if !j.at.Before(j.nextPoll) {
			j.nextPoll = j.at.Add(time.Second)
			j.pollStop()
		}
		if !j.killAt.IsZero() && !j.at.Before(j.killAt) {
			j.signal = sigKill
		}
		if j.signal != 0 {
			return errJobKilled
		}
		if !j.at.Before(j.nextBeat) {
			j.nextBeat = j.at.Add(jobwire.HeartbeatEvery)
			j.status.Heartbeat = j.at
			if err := j.writeStatus(); err != nil {
				return err
			}
		}
		if !j.at.Before(target) {
			return nil
		}
	}
}

// pollStop looks for the stop file: the first time it is there the job
// is stopping and gets SIGTERM, which ends it unless its script ignores
// SIGTERM; then SIGKILL comes after the grace the file names (seconds;
// jobwire.DefaultGrace when it names none).
func (j *emuJob) pollStop() {
	if j.status.Stopping {
		return
	}
	b, err := j.s.proxy.ReadFile(j.rname, jobwire.Dir(j.spec.ID)+"/"+jobwire.StopFile, 64)
	if err != nil {
		return
	}
	j.status.Stopping = true
	if !j.ignoreTerm {
		j.signal = sigTerm
		return
	}
	grace := jobwire.DefaultGrace
	if secs, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64); err == nil && secs >= 0 && secs < 1e6 {
		grace = time.Duration(secs * float64(time.Second))
	}
	j.killAt = j.at.Add(grace)
	j.status.Heartbeat = j.at
	_ = j.writeStatus()
}

// waitUntil returns once the emulator's clock reads t: errRuntimeGone
// when the job's runtime is deleted first, the context's error when the
// emulator closes.
func (j *emuJob) waitUntil(t time.Time) error {
	for {
		now := j.s.clock()
		if !now.Before(t) {
			return nil
		}
		if !j.alive() {
			return errRuntimeGone
		}
		j.markCaughtUp()
		d := min(t.Sub(now), jobRealClockPoll)
		if j.s.opts.Now != nil {
			d = min(d, jobFakeClockPoll)
		}
		if err := sleepCtx(j.ctx, d); err != nil {
			return err
		}
	}
}

// alive reports whether the job's runtime is still there.
func (j *emuJob) alive() bool {
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	return j.s.lookupRuntime(j.rname) == j.rt
}

// onRuntime runs fn, which writes the job's files, while the runtime is
// sure to be there (under the emulator's lock, which deleting a runtime
// takes before its files go): a deleted runtime's tree is never made
// again. fn must not take the lock.
func (j *emuJob) onRuntime(fn func() error) error {
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	if j.s.lookupRuntime(j.rname) != j.rt {
		return errRuntimeGone
	}
	return fn()
}

// writeStatus replaces status.json with the job's status, written at the
// job's time. An error ends the job.
func (j *emuJob) writeStatus() error {
	b, _ := json.Marshal(j.status)
	err := j.onRuntime(func() error {
		return j.s.proxy.WriteFile(j.rname, jobwire.Dir(j.spec.ID)+"/"+jobwire.StatusFile, b, j.at)
	})
	if err != nil {
		j.cancel()
	}
	return err
}

// jobStream is the job's stdout or stderr: each write is appended to the
// log, and a stderr one recorded in stderr.ranges, at the job's time.
type jobStream struct {
	j      *emuJob
	stderr bool
}

func (w jobStream) Write(p []byte) (int, error) {
	j := w.j
	dir := jobwire.Dir(j.spec.ID) + "/"
	err := j.onRuntime(func() error {
		off, err := j.s.proxy.AppendFile(j.rname, dir+jobwire.LogFile, p, j.at)
		if err == nil && w.stderr {
			_, err = j.s.proxy.AppendFile(j.rname, dir+jobwire.StderrFile, fmt.Appendf(nil, "%d %d\n", off, len(p)), j.at)
		}
		return err
	})
	if err != nil {
		j.cancel() // the script ends at its next statement, as a process whose disk went
	}
	return len(p), nil
}

// RunningJobs returns the ids of the jobs running on runtime
// ("runtimes/{id}" or the bare id), sorted; a job has ended (and
// recorded its end) once it is not listed.
func (s *Server) RunningJobs(runtime string) []string {
	prefix := api.RuntimeName(runtime) + "/"
	t := &s.jobs
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for key := range t.running {
		if id, ok := strings.CutPrefix(key, prefix); ok {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
