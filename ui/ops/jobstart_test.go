package ops

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

// A job's spec runs the script where StartJob uploads it, under
// /content: FILE as the user gave it when it is a relative path without
// "..", its base name otherwise; argv[0] says the same, as python FILE
// would; the id is a job id made from the script's name.
func TestJobSpecPlacesTheScript(t *testing.T) {
	now := time.Date(2026, 12, 7, 5, 0, 0, 0, time.FixedZone("x", 3600))
	for file, want := range map[string]string{
		"train.py":           "train.py",
		"./train.py":         "./train.py",
		"src/train.py":       "src/train.py",
		"/home/u/train.py":   "train.py",
		"../train.py":        "train.py",
		"src/../../train.py": "train.py",
		"~/train.py":         "train.py",
	} {
		spec := JobSpec(JobRequest{Runtime: "runtimes/rt-a", File: file, Args: []string{"--lr", "0.1"}}, now)
		if spec.Argv0 != want || spec.File != "content/"+strings.TrimPrefix(want, "./") || spec.Cwd != "content" ||
			len(spec.Args) != 2 || !spec.Created.Equal(now) || spec.Created.Location().String() != "UTC" {
			t.Errorf("%q: %+v", file, spec)
		}
		if err := jobs.ValidID(spec.ID); err != nil || !strings.HasPrefix(spec.ID, "train-") {
			t.Errorf("%q: id %q (%v)", file, spec.ID, err)
		}
	}
	if spec := JobSpec(JobRequest{File: "x.py"}, now); spec.Args == nil {
		t.Error("no arguments are null in spec.json, not []")
	}
}

// recorder is an api.Service that notes the execute_code requests and
// the sessions closed.
type recorder struct {
	api.Service
	mu     sync.Mutex
	execs  []api.ExecuteCodeRequest
	closed []string
}

func (r *recorder) ExecuteCode(ctx context.Context, req api.ExecuteCodeRequest) (api.ExecuteCodeResult, error) {
	r.mu.Lock()
	r.execs = append(r.execs, req)
	r.mu.Unlock()
	return r.Service.ExecuteCode(ctx, req)
}

func (r *recorder) DeleteSession(ctx context.Context, name string) error {
	r.mu.Lock()
	r.closed = append(r.closed, name)
	r.mu.Unlock()
	return r.Service.DeleteSession(ctx, name)
}

// StartJob puts the script where its spec says (a directory FILE names
// made first) and the job's directory beside it (the emulator's launcher
// finds it and starts the job), runs the launcher once
// in a session of its own named by StartJob (resumable: it has an
// executionId) and closes that session; the launcher's refusal or
// exception is StartJob's error, the session closed all the same.
func TestStartJobUploadsLaunchesAndCloses(t *testing.T) {
	srv, svc := emulator(t, colabfake.Options{})
	rt := firstRuntime(t, srv)
	rec := &recorder{Service: svc}
	ctx := context.Background()
	jc, _, err := OpenJupyter(ctx, svc, rt.Name, JupyterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := StartJob(ctx, rec, jc, JobRequest{Runtime: rt.Name, File: "src/train.py", Script: []byte("print(1)\n"), Args: []string{"a"}})
	if err != nil || spec.File != "content/src/train.py" || spec.Argv0 != "src/train.py" {
		t.Fatalf("StartJob: %+v, %v", spec, err)
	}
	if m, err := jc.Stat(ctx, "content/src/train.py"); err != nil || m.Size != 9 {
		t.Errorf("the script on the runtime: %+v, %v", m, err)
	}
	if rec, err := jobs.Read(ctx, jc, spec.ID); err != nil || rec.Spec.File != spec.File || len(rec.Spec.Args) != 1 {
		t.Errorf("the job on the runtime: %+v, %v", rec, err)
	}
	if len(rec.execs) != 1 || len(rec.closed) != 1 || rec.execs[0].Session != rec.closed[0] || rec.execs[0].ExecutionID == "" ||
		!strings.HasPrefix(rec.execs[0].Session, rt.Name+"/sessions/") || !strings.HasPrefix(rec.execs[0].Code, jobs.LauncherMarker) {
		t.Errorf("execute_code %+v, closed %v", rec.execs, rec.closed)
	}
	for _, c := range []struct{ out, want string }{
		{`{"stdout": "colabdash-job {\"error\": \"no python here\"}\n"}`, "no python here"},
		{`{"executionError": {"name": "OSError", "value": "fork failed"}}`, "the job's launcher raised OSError: fork failed"},
	} {
		rec.execs, rec.closed = nil, nil
		srv.Inject(colabfake.Fault{Kind: colabfake.FaultOutput, Tool: api.ToolExecuteCode, Output: json.RawMessage(c.out)})
		_, err := StartJob(ctx, rec, jc, JobRequest{Runtime: rt.Name, File: "train.py", Script: []byte("print(1)\n")})
		if err == nil || !strings.Contains(err.Error(), c.want) || len(rec.closed) != 1 {
			t.Errorf("%s: %v (want %q), closed %v", c.out, err, c.want, rec.closed)
		}
	}
}
