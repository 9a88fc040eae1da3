package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	rjobs "github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
	"github.com/colabdash/colabdash/ui/ops"
)

const demoRT = "runtimes/rt-t4demo7k2p"

// demoJupyter is a Jupyter client on the emulator's demo runtime, over
// a connection closed when the test ends.
func demoJupyter(t *testing.T, e *kittest.Env) *jupyter.Client {
	t.Helper()
	ctx := context.Background()
	conn, err := kit.Connect(ctx, *e.Globals())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	jc, _, err := ops.OpenJupyter(ctx, conn.Svc, demoRT, ops.JupyterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return jc
}

// writeJob writes job id's directory on the emulator's demo runtime as
// a supervisor that ran it would have left it: spec, status and log.
func writeJob(t *testing.T, e *kittest.Env, id string, st rjobs.Status, log string) {
	t.Helper()
	ctx := context.Background()
	jc := demoJupyter(t, e)
	dir := rjobs.Dir(id)
	if err := jc.MkdirAll(ctx, dir); err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(rjobs.Spec{ID: id, Cwd: "content", File: "content/train.py", Argv0: "train.py", Args: []string{"--epochs", "3"}, Created: time.Now()})
	status, _ := json.Marshal(st)
	for name, data := range map[string][]byte{rjobs.SpecFile: spec, rjobs.StatusFile: status, rjobs.LogFile: []byte(log)} {
		if _, err := jc.Upload(ctx, dir+"/"+name, bytes.NewReader(data), int64(len(data)), nil); err != nil {
			t.Fatal(err)
		}
	}
}

// Through the real operations (get_runtime, the runtime proxy, the jobs
// directory read by api/jupyter/jobs) against the emulator: jobs lists
// the job, logs -f prints its log and exits with its status, wait
// --delete deletes its runtime, which the emulator then no longer lists.
func TestVerbsAgainstTheEmulator(t *testing.T) {
	e := kittest.Demo(t)
	// No job notes on this machine: the runtime is found by looking.
	oldLoad, oldForget := loadNotes, forgetNote
	t.Cleanup(func() { loadNotes, forgetNote = oldLoad, oldForget })
	loadNotes = func() ([]ops.JobNote, error) { return nil, nil }
	forgetNote = func(string) error { return nil }
	started := time.Now().Add(-time.Minute).UTC()
	writeJob(t, e, "train-4kq9zt", rjobs.Status{Pid: 42, Started: started, Ended: started.Add(30 * time.Second), ExitCode: 5, Heartbeat: started}, "epoch 1\nepoch 2\nsaved\n")

	r := e.Run(listCmd, "--json")
	var rep JobsReport
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || r.Code != 0 {
		t.Fatalf("jobs: exit %d %q %q", r.Code, r.Out, r.Err)
	}
	i := slices.IndexFunc(rep.Jobs, func(j JobEntry) bool { return j.ID == "train-4kq9zt" })
	if i < 0 || rep.Jobs[i].State != "exited" || *rep.Jobs[i].ExitCode != 5 || rep.Jobs[i].LastLine != "saved" ||
		rep.Jobs[i].Command != "python train.py --epochs 3" || rep.Jobs[i].Runtime != demoRT {
		t.Fatalf("jobs: %+v", rep.Jobs)
	}

	r = e.Run(logsCmd, "train-4kq9zt", "-f")
	if r.Code != 5 || r.Out != "epoch 1\nepoch 2\nsaved\n" {
		t.Fatalf("logs -f: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	r = e.Run(logsCmd, "rt-t4demo7k2p/train-4kq9zt", "--tail", "1")
	if r.Code != 0 || r.Out != "saved\n" {
		t.Fatalf("logs --tail 1: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}

	r = e.Run(waitCmd, "train-4kq9zt", "--delete")
	if r.Code != 5 || !strings.Contains(r.Err, "deleted runtime rt-t4demo7k2p") {
		t.Fatalf("wait --delete: exit %d, stderr %q", r.Code, r.Err)
	}
	if slices.ContainsFunc(e.Srv.Runtimes(), func(rt api.Runtime) bool { return rt.Name == demoRT }) {
		t.Fatal("the runtime is still listed after wait --delete")
	}
}

// jobs reads every runtime with the proxy token it is listed with while
// that token is good: no runtime's token is replaced (a dashboard beside
// `jobs --watch` keeps its own), only one within 5 minutes of its
// expireTime or past it is renewed (get_runtime).
func TestJobsKeepsTheListedTokensThatAreGood(t *testing.T) {
	e := kittest.Demo(t)
	oldLoad := loadNotes
	t.Cleanup(func() { loadNotes = oldLoad })
	loadNotes = func() ([]ops.JobNote, error) { return nil, nil }
	before := map[string]api.ConnectionInfo{}
	for _, rt := range e.Srv.Runtimes() {
		before[rt.Name] = *rt.ConnectionInfo
	}
	if r := e.Run(listCmd, "--json"); r.Code != 0 {
		t.Fatalf("jobs: exit %d %q %q", r.Code, r.Out, r.Err)
	}
	renewed := 0
	for _, rt := range e.Srv.Runtimes() {
		was := before[rt.Name]
		good := time.Until(was.ExpireTime) > 6*time.Minute
		switch {
		case good && rt.ConnectionInfo.Token != was.Token:
			t.Errorf("jobs replaced the proxy token of %s, which had %s left", rt.ID(), time.Until(was.ExpireTime).Round(time.Minute))
		case !good && rt.ConnectionInfo.Token != was.Token:
			renewed++
		}
	}
	if n := e.Srv.CallCount(api.ToolGetRuntime); n != renewed {
		t.Errorf("jobs called get_runtime %d times, for %d tokens near or past their expiry", n, renewed)
	}
}

// Against the emulator's running demo job: wait blocks while it runs;
// stop ends it (SIGTERM to its group), quietly; wait then returns with
// the job's status (128 + the signal) and only then deletes the runtime.
func TestStopEndsARunningJobThatWaitSees(t *testing.T) {
	e := kittest.Demo(t)
	oldLoad, oldForget, oldWait := loadNotes, forgetNote, waitEvery
	t.Cleanup(func() { loadNotes, forgetNote, waitEvery = oldLoad, oldForget, oldWait })
	loadNotes = func() ([]ops.JobNote, error) { return nil, nil }
	forgetNote = func(string) error { return nil }
	waitEvery = 500 * time.Millisecond
	const job = "rt-t4demo7k2p/train-demo01"

	waited := make(chan kittest.Result, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { waited <- e.RunTerm(kittest.Term{Ctx: ctx}, waitCmd, job, "--delete", "--json") }()

	// Two processes renewing a runtime's token may each see a refusal
	// of an expiring one, and retry; and wait may delete the runtime
	// before stop read the end. stop may say those, and says nothing
	// else.
	r := e.Run(stopCmd, job, "--grace", "2s")
	if r.Code != 0 {
		cancel() // the job may run on: wait would too
	}
	w := <-waited // before any verdict: the wait must not outlive the test
	said := strings.Count(r.Err, "retrying\n") + strings.Count(r.Err, "was deleted while job train-demo01 was stopping\n")
	if r.Code != 0 || r.Out != "" || strings.Count(r.Err, "\n") != said {
		t.Fatalf("stop: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	var rep WaitReport
	if err := json.Unmarshal([]byte(w.Out), &rep); err != nil || w.Code != 128+15 && w.Code != 128+9 {
		t.Fatalf("wait: exit %d, %q, %q", w.Code, w.Out, w.Err)
	}
	if !rep.Deleted || rep.Job.State != "killed" {
		t.Fatalf("wait: %+v", rep)
	}
	if slices.ContainsFunc(e.Srv.Runtimes(), func(rt api.Runtime) bool { return rt.Name == demoRT }) {
		t.Fatal("the runtime is still listed after wait --delete")
	}
}

// logs -f of the emulator's demo job, stopped: its whole log from the
// first line, and the exit status a shell gives a process SIGTERM
// killed; --tail 1 then prints only its last line.
func TestLogsFollowOfAStoppedJobExitsWithItsSignal(t *testing.T) {
	e := kittest.Demo(t)
	oldLoad := loadNotes
	t.Cleanup(func() { loadNotes = oldLoad })
	loadNotes = func() ([]ops.JobNote, error) { return nil, nil }
	const job = "rt-t4demo7k2p/train-demo01"
	if r := e.Run(stopCmd, job, "--grace", "2s"); r.Code != 0 {
		t.Fatalf("stop: exit %d %q", r.Code, r.Err)
	}
	r := e.Run(logsCmd, job, "-f")
	if r.Code != 128+15 && r.Code != 128+9 {
		t.Fatalf("logs -f: exit %d, stderr %q", r.Code, r.Err)
	}
	if !strings.HasPrefix(r.Out, "training resnet18") || strings.Count(r.Out, "epoch 2/300") != 1 {
		t.Fatalf("logs -f printed %.300q", r.Out)
	}
	last := e.Run(logsCmd, job, "--tail", "1")
	lines := strings.Split(strings.TrimRight(r.Out, "\n"), "\n")
	if last.Code != 0 || strings.TrimRight(last.Out, "\n") != lines[len(lines)-1] {
		t.Fatalf("--tail 1: %q, the log ends %q", last.Out, lines[len(lines)-1])
	}
}
