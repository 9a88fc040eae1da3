package jobs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// fakeJob writes a job's directory straight onto the server's disk with
// the given files (name → content), as a supervisor (or a hostile
// runtime) might have left it, and returns its id.
func (e *env) fakeJob(t *testing.T, id string, files map[string]string) {
	t.Helper()
	dir := filepath.Join(e.root, filepath.FromSlash(Dir(id)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func specJSON(id string, created time.Time) string {
	return `{"id":"` + id + `","cwd":"content","file":"content/x.py","argv0":"x.py","args":[],"created":"` + created.Format(time.RFC3339Nano) + `"}`
}

// Read gives a job's spec and status (none before the supervisor wrote
// one) and status.json's time on the runtime; List gives every job,
// newest first, leaving out what is not a job of ours: a name ValidID
// refuses, a directory without spec.json, a spec naming another job, a
// record too large or not JSON.
func TestReadAndList(t *testing.T) {
	e := newEnv(t, colabfake.Options{})
	ctx := context.Background()
	older := e.prepare(t, "older.py", "print('old')\n")
	j := e.prepare(t, "newer.py", "import time\ntime.sleep(600)\n")

	rec, err := Read(ctx, e.jc, j.spec.ID)
	if err != nil || rec.Status != nil || !rec.Modified.IsZero() || rec.Spec.ID != j.spec.ID || rec.Spec.Argv0 != "newer.py" || rec.Runtime != "runtimes/rt-files" || rec.LogSize != -1 {
		t.Fatalf("Read before the launch: %+v, %v", rec, err)
	}
	e.launch(t, j)
	e.launch(t, older)
	rec, err = Read(ctx, e.jc, j.spec.ID)
	if err != nil || rec.Status == nil || rec.Status.Pid <= 1 || rec.Status.Started.IsZero() || rec.Modified.IsZero() {
		t.Fatalf("Read after the launch: %+v %+v, %v", rec, rec.Status, err)
	}
	if d := time.Since(rec.Modified); d < -time.Minute || d > time.Minute {
		t.Errorf("status.json's time %v is not the runtime's (this machine's) now", rec.Modified)
	}

	now := time.Now().UTC()
	e.fakeJob(t, "Bad_Name", map[string]string{SpecFile: specJSON("Bad_Name", now)})
	e.fakeJob(t, "nospec-aaaaaa", map[string]string{LogFile: "x"})
	e.fakeJob(t, "other-aaaaaa", map[string]string{SpecFile: specJSON("someone-else", now)})
	e.fakeJob(t, "huge-aaaaaa", map[string]string{SpecFile: `{"id":"huge-aaaaaa","x":"` + strings.Repeat("\x01", MaxRecordFile) + `"}`})
	e.fakeJob(t, "garbage-aaaaaa", map[string]string{SpecFile: specJSON("garbage-aaaaaa", now), StatusFile: "not json"})
	e.fakeJob(t, "future-aaaaaa", map[string]string{SpecFile: specJSON("future-aaaaaa", now.Add(time.Hour))})

	for _, id := range []string{"other-aaaaaa", "huge-aaaaaa", "garbage-aaaaaa"} {
		if _, err := Read(ctx, e.jc, id); !errors.Is(err, ErrBadRecord) {
			t.Errorf("Read(%s) = %v, want ErrBadRecord", id, err)
		}
	}
	if _, err := Read(ctx, e.jc, "no-such-job"); !errors.Is(err, jupyter.ErrNotFound) {
		t.Errorf("Read of a missing job = %v, want ErrNotFound", err)
	}
	if _, err := Read(ctx, e.jc, "../../etc"); !errors.Is(err, ErrBadID) {
		t.Errorf("Read of a bad id = %v, want ErrBadID", err)
	}

	list, err := List(ctx, e.jc)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range list {
		ids = append(ids, r.Spec.ID)
	}
	if want := []string{"future-aaaaaa", j.spec.ID, older.spec.ID}; strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("List: %v, want %v (newest first, nothing that is not ours)", ids, want)
	}
}

// A runtime without the jobs directory (the emulator's own tree, which
// has only /content) has no jobs, and no error.
func TestListWithoutJobsDirectory(t *testing.T) {
	e := newEnvOn(t, jupytertest.Emulator, colabfake.Options{})
	list, err := List(context.Background(), e.jc)
	if err != nil || len(list) != 0 {
		t.Errorf("List = %v, %v; want none", list, err)
	}
}
