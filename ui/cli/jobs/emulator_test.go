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
	rjobs "github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
	"github.com/colabdash/colabdash/ui/ops"
)

const demoRT = "runtimes/rt-t4demo7k2p"

// writeJob writes job id's directory on the emulator's demo runtime as
// a supervisor that ran it would have left it: spec, status and log.
func writeJob(t *testing.T, e *kittest.Env, id string, st rjobs.Status, log string) {
	t.Helper()
	ctx := context.Background()
	conn, err := kit.Connect(ctx, *e.Globals())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	jc, _, err := ops.OpenJupyter(ctx, conn.Svc, demoRT, ops.JupyterOptions{})
	if err != nil {
		t.Fatal(err)
	}
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
