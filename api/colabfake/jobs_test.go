package colabfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake/runtimeproxy"
	"github.com/colabdash/colabdash/api/jupyter/jobs/jobwire"
)

// jobEnv is an emulator on the fake clock with one runtime for jobs.
type jobEnv struct {
	s   *Server
	cs  *mcp.ClientSession
	clk *Clock
	rt  api.Runtime
	dir string // the emulator's file store
}

func newJobEnv(t *testing.T) *jobEnv {
	t.Helper()
	dir := t.TempDir()
	s, cs, clk := startConnect(t, Options{FilesDir: dir})
	rt := mustAdd(t, s, api.Runtime{Name: "runtimes/rt-jobs", ConnectionInfo: &api.ConnectionInfo{}})
	return &jobEnv{s: s, cs: cs, clk: clk, rt: rt, dir: dir}
}

// proxyDo sends method path (below the runtime's URL) with the proxy
// token, header hdr and body, and returns the status and body.
func proxyDo(t *testing.T, rt api.Runtime, method, path string, hdr map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, rt.ConnectionInfo.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(runtimeproxy.TokenHeader, rt.ConnectionInfo.Token)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// put writes a text file through the contents API, as a client does,
// with its directories.
func (e *jobEnv) put(t *testing.T, p, content string) {
	t.Helper()
	segs := strings.Split(p, "/")
	for i := 1; i < len(segs); i++ {
		if st, b := proxyDo(t, e.rt, http.MethodPut, "api/contents/"+strings.Join(segs[:i], "/"), nil, `{"type":"directory"}`); st >= 300 {
			t.Fatalf("PUT directory %s: HTTP %d %s", strings.Join(segs[:i], "/"), st, b)
		}
	}
	body, _ := json.Marshal(map[string]string{"type": "file", "format": "text", "content": content})
	if st, b := proxyDo(t, e.rt, http.MethodPut, "api/contents/"+p, nil, string(body)); st >= 300 {
		t.Fatalf("PUT %s: HTTP %d %s", p, st, b)
	}
}

// prepare uploads script as content/NAME and writes job id's spec.json.
func (e *jobEnv) prepare(t *testing.T, id, name, script string, args ...string) {
	t.Helper()
	e.put(t, "content/"+name, script)
	spec, _ := json.Marshal(jobwire.Spec{ID: id, Cwd: "content", File: "content/" + name, Argv0: name, Args: append([]string{}, args...), Created: e.clk.Now()})
	e.put(t, jobwire.Dir(id)+"/"+jobwire.SpecFile, string(spec))
}

// launcherFor is launcher code for job id as the emulator must read it:
// the marker first, the id in a string literal.
func launcherFor(id string) string {
	return jobwire.LauncherMarker + "\nimport os, subprocess, sys\nJOB_ID = " + strconv.Quote(id) +
		"\n# walks up from the working directory to var/colabdash/jobs/JOB_ID/spec.json\n"
}

// launch runs the launcher for job id through execute_code and returns
// its stdout.
func (e *jobEnv) launch(t *testing.T, id string) string {
	t.Helper()
	var res api.ExecuteCodeResult
	decode(t, call(t, e.cs, "execute_code", map[string]any{"runtime": e.rt.Name, "code": launcherFor(id)}), &res)
	return res.Stdout
}

// mustLaunch launches job id and checks the launcher's line.
func (e *jobEnv) mustLaunch(t *testing.T, id string) {
	t.Helper()
	out := e.launch(t, id)
	if !regexp.MustCompile(`^colabdash-job \{"pid": [1-9][0-9]*\}\n$`).MatchString(out) {
		t.Fatalf("the launcher printed %q, want one line with the pid", out)
	}
}

// logFrom reads the job's log from byte off through /files/ with Range:
// the new bytes, "" when the server answers 416 (nothing new).
func (e *jobEnv) logFrom(t *testing.T, id string, off int) string {
	t.Helper()
	st, body := proxyDo(t, e.rt, http.MethodGet, "files/"+jobwire.Dir(id)+"/"+jobwire.LogFile, map[string]string{"Range": fmt.Sprintf("bytes=%d-", off)}, "")
	switch {
	case st == http.StatusRequestedRangeNotSatisfiable:
		return ""
	case st == http.StatusNotFound:
		return ""
	case st != http.StatusPartialContent:
		t.Fatalf("GET log from %d: HTTP %d %q", off, st, body)
	}
	return body
}

// file reads a file of the job's directory through /files/ ("" when
// there is none).
func (e *jobEnv) file(t *testing.T, id, name string) string {
	t.Helper()
	st, body := proxyDo(t, e.rt, http.MethodGet, "files/"+jobwire.Dir(id)+"/"+name, nil, "")
	if st != http.StatusOK {
		return ""
	}
	return body
}

func (e *jobEnv) status(t *testing.T, id string) *jobwire.Status {
	t.Helper()
	b := e.file(t, id, jobwire.StatusFile)
	if b == "" {
		return nil
	}
	var st jobwire.Status
	if err := json.Unmarshal([]byte(b), &st); err != nil {
		t.Fatalf("status.json %q: %v", b, err)
	}
	return &st
}

// waitLog waits until the log from off is want, and checks no more came.
func (e *jobEnv) waitLog(t *testing.T, id string, off int, want string) int {
	t.Helper()
	var got string
	waitFor(t, fmt.Sprintf("log from %d to read %q", off, want), func() bool {
		got = e.logFrom(t, id, off)
		return len(got) >= len(want)
	})
	if got != want {
		t.Fatalf("log from %d: %q, want %q", off, got, want)
	}
	return off + len(want)
}

func (e *jobEnv) waitEnded(t *testing.T, id string) *jobwire.Status {
	t.Helper()
	var st *jobwire.Status
	waitFor(t, "job "+id+" to record its end", func() bool {
		st = e.status(t, id)
		return st != nil && !st.Ended.IsZero()
	})
	return st
}

// A launched job's log grows one line at a time as the emulator's clock
// reaches each of its script's sleeps, readable with Range through
// /files/ (416 when nothing is new); its status.json says it runs (pid,
// start), is rewritten at each heartbeat with the clock's time as
// last_modified, and records sys.exit(3) as exit 3 when it ends.
func TestJobLogGrowsWithTheClock(t *testing.T) {
	e := newJobEnv(t)
	e.prepare(t, "count-abc123", "count.py",
		"import sys, time\nprint('start', sys.argv[1])\nfor i in range(3):\n    time.sleep(2)\n    print(f\"line {i}\")\nsys.exit(3)\nprint('never')\n", "--fast")
	e.mustLaunch(t, "count-abc123")
	off := e.waitLog(t, "count-abc123", 0, "start --fast\n")
	st := e.status(t, "count-abc123")
	if st == nil || st.Pid <= 0 || !st.Started.Equal(t0) || !st.Ended.IsZero() || !st.Heartbeat.Equal(t0) {
		t.Fatalf("status of a job just started: %+v", st)
	}
	if got := e.s.RunningJobs("rt-jobs"); !slices.Equal(got, []string{"count-abc123"}) {
		t.Fatalf("running jobs %q", got)
	}
	// The clock has not moved: nothing more is written.
	if more := e.logFrom(t, "count-abc123", off); more != "" {
		t.Fatalf("the log grew before the clock moved: %q", more)
	}
	e.clk.Advance(2 * time.Second)
	off = e.waitLog(t, "count-abc123", off, "line 0\n")
	e.clk.Advance(2 * time.Second)
	off = e.waitLog(t, "count-abc123", off, "line 1\n")
	// The heartbeat at 5 s rewrites status.json, whose last_modified is
	// the emulator's clock.
	e.clk.Advance(time.Second)
	waitFor(t, "the heartbeat at 5 s", func() bool {
		st := e.status(t, "count-abc123")
		return st != nil && st.Heartbeat.Equal(t0.Add(5*time.Second))
	})
	_, model := proxyDo(t, e.rt, http.MethodGet, "api/contents/"+jobwire.Dir("count-abc123")+"/"+jobwire.StatusFile+"?content=0", nil, "")
	if !strings.Contains(model, `"last_modified":"2026-11-29T18:00:05.000000Z"`) {
		t.Fatalf("status.json's model after the heartbeat: %s", model)
	}
	if more := e.logFrom(t, "count-abc123", off); more != "" {
		t.Fatalf("the log grew before the script's sleep ended: %q", more)
	}
	e.clk.Advance(time.Second)
	e.waitLog(t, "count-abc123", off, "line 2\n")
	st = e.waitEnded(t, "count-abc123")
	if st.ExitCode != 3 || st.Signal != 0 || !st.Ended.Equal(t0.Add(6*time.Second)) {
		t.Fatalf("ended: %+v, want exit 3 at 6 s", st)
	}
	if got := e.logFrom(t, "count-abc123", 0); got != "start --fast\nline 0\nline 1\nline 2\n" {
		t.Fatalf("the whole log: %q", got)
	}
	if r := e.file(t, "count-abc123", jobwire.StderrFile); r != "" {
		t.Fatalf("stderr.ranges of a job that wrote nothing on stderr: %q", r)
	}
	waitFor(t, "the job to leave the running list", func() bool { return len(e.s.RunningJobs(e.rt.Name)) == 0 })
}

// An uncaught exception's traceback goes to the log as stderr, its place
// recorded in stderr.ranges, and the job exits 1; a job whose script is
// not there exits 2 with python's message.
func TestJobExceptionInStderrRanges(t *testing.T) {
	e := newJobEnv(t)
	e.prepare(t, "boom-abc123", "boom.py", "print('loading')\nprint('warn', file=sys.stderr)\nraise ValueError('bad shape')\n")
	e.mustLaunch(t, "boom-abc123")
	st := e.waitEnded(t, "boom-abc123")
	if st.ExitCode != 1 || st.Signal != 0 {
		t.Fatalf("ended: %+v, want exit 1", st)
	}
	tb := "Traceback (most recent call last):\n  File \"/content/boom.py\", line 3, in <module>\n    raise ValueError('bad shape')\nValueError: bad shape\n"
	log := e.logFrom(t, "boom-abc123", 0)
	if log != "loading\nwarn\n"+tb {
		t.Fatalf("log %q", log)
	}
	want := fmt.Sprintf("8 5\n13 %d\n", len(tb))
	if r := e.file(t, "boom-abc123", jobwire.StderrFile); r != want {
		t.Fatalf("stderr.ranges %q, want %q", r, want)
	}

	spec, _ := json.Marshal(jobwire.Spec{ID: "gone-abc123", Cwd: "content", File: "content/gone.py", Argv0: "gone.py", Args: []string{}})
	e.put(t, jobwire.Dir("gone-abc123")+"/"+jobwire.SpecFile, string(spec))
	e.mustLaunch(t, "gone-abc123")
	if st := e.waitEnded(t, "gone-abc123"); st.ExitCode != 2 {
		t.Fatalf("a missing script: %+v", st)
	}
	if log := e.logFrom(t, "gone-abc123", 0); log != "python3: can't open file '/content/gone.py': [Errno 2] No such file or directory\n" {
		t.Fatalf("a missing script's log: %q", log)
	}
}

// The launcher answers an error line when the job has no spec.json, and
// starts nothing; launching a running job again starts no second one.
func TestJobLaunchErrors(t *testing.T) {
	e := newJobEnv(t)
	out := e.launch(t, "nothing-abc123")
	if !strings.HasPrefix(out, `colabdash-job {"error": "`) || strings.Count(out, "\n") != 1 || len(e.s.RunningJobs(e.rt.Name)) != 0 {
		t.Fatalf("launching a job without spec.json printed %q; running %q", out, e.s.RunningJobs(e.rt.Name))
	}
	e.put(t, jobwire.Dir("bad-abc123")+"/"+jobwire.SpecFile, "{not json")
	if out := e.launch(t, "bad-abc123"); !strings.Contains(out, `"error": "job bad-abc123: spec.json`) {
		t.Fatalf("a bad spec.json: %q", out)
	}
	e.prepare(t, "sleepy-abc123", "sleepy.py", "time.sleep(600)\n")
	e.mustLaunch(t, "sleepy-abc123")
	if out := e.launch(t, "sleepy-abc123"); !strings.Contains(out, "already running") {
		t.Fatalf("launching a running job again: %q", out)
	}
}

// A stop file ends a job with SIGTERM at the supervisor's next look (once
// a second of the clock): signal 15, no exit code; a script that ignores
// SIGTERM runs on until the grace the stop file names, then SIGKILL.
func TestJobStopFile(t *testing.T) {
	e := newJobEnv(t)
	loop := "for i in range(100):\n    print(i)\n    time.sleep(1)\n"
	e.prepare(t, "loop-abc123", "loop.py", loop)
	e.mustLaunch(t, "loop-abc123")
	e.waitLog(t, "loop-abc123", 0, "0\n")
	e.put(t, jobwire.Dir("loop-abc123")+"/"+jobwire.StopFile, "10")
	e.clk.Advance(time.Second)
	st := e.waitEnded(t, "loop-abc123")
	if st.Signal != 15 || st.ExitCode != -1 || !st.Stopping || !st.Ended.Equal(t0.Add(time.Second)) {
		t.Fatalf("stopped: %+v, want signal 15 at 1 s", st)
	}

	e.prepare(t, "stubborn-abc123", "stubborn.py", "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"+loop)
	e.mustLaunch(t, "stubborn-abc123")
	off := e.waitLog(t, "stubborn-abc123", 0, "0\n")
	e.put(t, jobwire.Dir("stubborn-abc123")+"/"+jobwire.StopFile, "3")
	e.clk.Advance(time.Second)
	off = e.waitLog(t, "stubborn-abc123", off, "1\n")
	if st := e.status(t, "stubborn-abc123"); st == nil || !st.Stopping || !st.Ended.IsZero() {
		t.Fatalf("a job ignoring SIGTERM after the stop: %+v, want stopping and running", st)
	}
	e.clk.Advance(3 * time.Second)
	st = e.waitEnded(t, "stubborn-abc123")
	if st.Signal != 9 || st.ExitCode != -1 || !st.Ended.Equal(t0.Add(5*time.Second)) {
		t.Fatalf("killed: %+v, want signal 9 at 5 s (the stop seen at 2 s, grace 3 s)", st)
	}
	if got := e.logFrom(t, "stubborn-abc123", 0); got != "0\n1\n2\n3\n" {
		t.Fatalf("the killed job's log %q", got)
	}
}

// Deleting the runtime ends its jobs: they leave the running list without
// the clock moving, and nothing of the runtime's file tree comes back.
func TestDeletingTheRuntimeEndsItsJobs(t *testing.T) {
	e := newJobEnv(t)
	e.prepare(t, "long-abc123", "long.py", "for i in range(1000):\n    print(i)\n    time.sleep(1)\n")
	e.mustLaunch(t, "long-abc123")
	e.waitLog(t, "long-abc123", 0, "0\n")
	if res := call(t, e.cs, "delete_runtime", map[string]any{"name": e.rt.Name}); res.IsError {
		t.Fatalf("delete_runtime: %s", text(res))
	}
	waitFor(t, "the deleted runtime's job to end", func() bool { return len(e.s.RunningJobs(e.rt.Name)) == 0 })
	e.clk.Advance(time.Minute)
	if _, err := os.Stat(filepath.Join(e.dir, "rt-jobs")); !os.IsNotExist(err) {
		t.Fatalf("the deleted runtime's files: %v, want none", err)
	}
}

// The demo seed has jobs to show on its T4 runtime: an evaluation that
// exited 0 long ago and a training run that started 90 s before the
// emulator, whose log already holds its first 22 epochs and a progress
// bar drawn with \r on stderr, and which goes on with the clock.
func TestDemoSeedJobs(t *testing.T) {
	s, _, clk := start(t, Options{Seed: SeedDemo})
	e := &jobEnv{s: s, clk: clk, rt: runtimeByID(t, s, DemoJobsRuntime)}
	st, listing := proxyDo(t, e.rt, http.MethodGet, "api/contents/"+jobwire.Root, nil, "")
	if st != http.StatusOK || !strings.Contains(listing, `"name":"`+DemoRunningJob+`"`) || !strings.Contains(listing, `"name":"`+DemoFinishedJob+`"`) {
		t.Fatalf("the demo runtime's jobs directory: HTTP %d %s", st, listing)
	}
	if st, _ := proxyDo(t, e.rt, http.MethodGet, "api/contents/content/sample_data/README.md", nil, ""); st != http.StatusOK {
		t.Fatalf("the demo runtime's sample files: HTTP %d", st)
	}
	done := e.status(t, DemoFinishedJob)
	if done == nil || done.ExitCode != 0 || done.Signal != 0 || !done.Ended.Equal(t0.Add(-23*time.Minute)) {
		t.Fatalf("the finished demo job: %+v", done)
	}
	if log := e.logFrom(t, DemoFinishedJob, 0); !strings.HasSuffix(log, "part 4/4: accuracy 0.9415\naccuracy 0.9415\n") {
		t.Fatalf("the finished demo job's log: %q", log)
	}
	run := e.status(t, DemoRunningJob)
	if run == nil || !run.Ended.IsZero() || !run.Started.Equal(t0.Add(-90*time.Second)) || !slices.Equal(s.RunningJobs(DemoJobsRuntime), []string{DemoRunningJob}) {
		t.Fatalf("the running demo job: %+v", run)
	}
	log := e.logFrom(t, DemoRunningJob, 0)
	if !strings.HasPrefix(log, "training resnet18 on /content/data: 300 epochs\n\repoch 1: 10%|#         | 1/10") ||
		strings.Count(log, "\n") != 23 || !strings.HasSuffix(log, "\repoch 22/300 loss 0.9360 acc 0.5315\n\repoch 23: 10%|#         | 1/10\repoch 23: 20%|##        | 2/10\repoch 23: 30%|###       | 3/10\repoch 23: 40%|####      | 4/10\repoch 23: 50%|#####     | 5/10\repoch 23: 60%|######    | 6/10") {
		t.Fatalf("the running demo job's log: %q", log)
	}
	if r := e.file(t, DemoRunningJob, jobwire.StderrFile); !strings.HasPrefix(r, "47 ") {
		t.Fatalf("the running demo job's stderr.ranges: %q", r)
	}
	clk.Advance(2 * time.Second)
	e.waitLog(t, DemoRunningJob, len(log), "\repoch 23: 70%|#######   | 7/10\repoch 23: 80%|########  | 8/10\repoch 23: 90%|######### | 9/10\repoch 23: 100%|##########| 10/10\repoch 23/300 loss 0.9330 acc 0.5330\n\repoch 24: 10%|#         | 1/10")
}
