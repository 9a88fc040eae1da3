package run

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
	"github.com/colabdash/colabdash/ui/ops"
)

// A job's log is written as python would have: each stderr piece on our
// stderr and the rest on stdout, in the order the job wrote them (one
// shared buffer here, as one terminal would show both), whether a range
// lies inside a chunk, straddles two chunks or began in an earlier one.
func TestRunWritesTheLogByStream(t *testing.T) {
	var both, out, errb bytes.Buffer
	mark := func(w *bytes.Buffer, tag string) *tagged { return &tagged{w: w, both: &both, tag: tag} }
	g := &kit.Globals{Logs: kit.Logs{Red: &api.Redactor{}}}
	v := newVerb(g, &kit.Streams{Out: mark(&out, "O"), Err: mark(&errb, "E")}, "run")
	w := &jobWriter{rs: &runState{v: v}}
	// log: "a1\n" (out) "E1\n" (err) "a2\n" (out) "E2E3\n" (err, across chunks) "a3\n"
	w.chunk(ops.LogChunk{Off: 0, Data: []byte("a1\nE1\na2\nE2"), Stderr: []jobs.Range{{Off: 3, Len: 3}, {Off: 9, Len: 5}}})
	w.chunk(ops.LogChunk{Off: 11, Data: []byte("E3\na3\n"), Stderr: []jobs.Range{{Off: 9, Len: 5}}})
	w.chunk(ops.LogChunk{Off: 17})
	if out.String() != "a1\na2\na3\n" || errb.String() != "E1\nE2E3\n" || both.String() != "O:a1\n|E:E1\n|O:a2\n|E:E2|E:E3\n|O:a3\n|" {
		t.Errorf("stdout %q, stderr %q, in order %q", out.String(), errb.String(), both.String())
	}
	// Ranges are the server's word: out of order, negative, past the
	// chunk or overflowing, they lose no byte and never panic.
	out.Reset()
	errb.Reset()
	w.chunk(ops.LogChunk{Off: 100, Data: []byte("xyzw"), Stderr: []jobs.Range{{Off: 102, Len: 1}, {Off: 100, Len: 1}, {Off: 101, Len: -5},
		{Off: 103, Len: 1 << 62}, {Off: 1 << 62, Len: 1 << 62}, {Off: -3, Len: 2}}})
	if out.String()+errb.String() != "xyzw" || errb.String() != "zw" {
		t.Errorf("bad ranges: stdout %q, stderr %q", out.String(), errb.String())
	}
}

// tagged writes to w and, tagged, to both: which stream got what, in
// order.
type tagged struct {
	w, both *bytes.Buffer
	tag     string
}

func (t *tagged) Write(b []byte) (int, error) {
	t.both.WriteString(t.tag + ":" + string(b) + "|")
	return t.w.Write(b)
}

// run --detach prints the job's id on stdout and returns while the job
// goes on: the runtime --spec created stays (its run record gone, since
// nothing was left unknowingly), the job is noted in the state directory
// and stderr says how to follow it, pasteably, and nothing more.
func TestRunDetachReturnsWhileTheJobGoesOn(t *testing.T) {
	e := kittest.Empty(t)
	f := useFakeJobs(t)
	job := script(t, "import time\nprint('up')\ntime.sleep(600)\n")
	r := e.Run(Command, "--spec", "CPU", "--detach", job)
	rts := e.Srv.Runtimes()
	if r.Code != 0 || r.Out != "fake-1\n" || len(rts) != 1 || records(t) != 0 {
		t.Fatalf("exit %d, %d runtime(s), %d record(s), stdout %q, stderr %q", r.Code, len(rts), records(t), r.Out, r.Err)
	}
	if j := f.job("fake-1"); j == nil || j.ended() {
		t.Fatal("the job is not running after run --detach returned")
	}
	for _, want := range []string{"job fake-1 runs on " + rts[0].ID() + "; follow it with: colabdash logs fake-1 -f",
		"; wait for its end with: colabdash wait fake-1 --delete", "runtime " + rts[0].ID() + " stays after the job (a detached run never deletes it)"} {
		if !strings.Contains(r.Err, want) {
			t.Errorf("stderr lacks %q: %q", want, r.Err)
		}
	}
	if strings.Contains(r.Err, "deleted runtime") || strings.Contains(r.Err, "running job.py") || f.stopped() != 0 {
		t.Errorf("%d stop(s); stderr %q", f.stopped(), r.Err)
	}
	notes, err := ops.JobNotes(kit.StateDir())
	if err != nil || len(notes) != 1 || notes[0].ID != "fake-1" || notes[0].Runtime != rts[0].Name || notes[0].File != job || notes[0].DeleteWhenDone {
		t.Errorf("notes %+v, %v", notes, err)
	}
}

// run --detach --delete-when-done notes the intent and says that nothing
// deletes the runtime while no colabdash runs; --json says the job's id
// and that it was detached.
func TestRunDetachDeleteWhenDone(t *testing.T) {
	e := kittest.Empty(t)
	useFakeJobs(t)
	myRuntime(t, e)
	job := script(t, "import time\ntime.sleep(600)\n")
	r := e.Run(Command, "--runtime", "rt-mine", "--detach", "--delete-when-done", "--json", job)
	var rep Report
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || r.Code != 0 || !rep.OK || rep.Job != "fake-1" || !rep.Detached || rep.Deleted {
		t.Fatalf("%v: exit %d, stdout %q, stderr %q", err, r.Code, r.Out, r.Err)
	}
	if !strings.Contains(r.Err, "is deleted when the job ends by whichever colabdash process watches it") ||
		!strings.Contains(r.Err, "while none runs, nothing deletes it and it keeps billing until Colab reclaims it") {
		t.Errorf("stderr %q", r.Err)
	}
	if notes, err := ops.JobNotes(kit.StateDir()); err != nil || len(notes) != 1 || !notes[0].DeleteWhenDone || notes[0].ID != "fake-1" || notes[0].Runtime != "runtimes/rt-mine" {
		t.Errorf("notes %+v, %v", notes, err)
	}
	if len(e.Srv.Runtimes()) != 1 {
		t.Errorf("the runtime went: %v", e.Srv.Runtimes())
	}
}

// A detached job whose note cannot be written (the state directory is a
// file) is said; with --delete-when-done no watcher would know to delete
// the runtime, so the run fails (exit 1) naming the command that does.
// The job runs on either way.
func TestRunDetachWithoutItsNote(t *testing.T) {
	e := kittest.Empty(t)
	f := useFakeJobs(t)
	myRuntime(t, e)
	state := filepath.Join(t.TempDir(), "state")
	if err := os.WriteFile(state, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", state)
	job := script(t, "import time\ntime.sleep(600)\n")
	r := e.Run(Command, "--runtime", "rt-mine", "--detach", job)
	if r.Code != 0 || r.Out != "fake-1\n" || !strings.Contains(r.Err, "could not note job fake-1 in the state directory: ") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	r = e.Run(Command, "--runtime", "rt-mine", "--detach", "--delete-when-done", job)
	if r.Code != kit.ExitFailure || r.Out != "fake-2\n" || !strings.Contains(r.Err, "; nothing will delete runtime rt-mine when the job ends: colabdash wait fake-2 --delete") {
		t.Errorf("--delete-when-done: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if f.started() != 2 || f.job("fake-2").ended() {
		t.Errorf("%d job(s) started; the second ended: %v", f.started(), f.job("fake-2").ended())
	}
}

// On the emulator, which runs jobs as the launcher and supervisor would:
// run --detach uploads the script, starts it through one launcher call in
// a session it closes, and returns while the job goes on, its spec on the
// runtime saying what runs.
func TestRunDetachOnTheEmulator(t *testing.T) {
	e := kittest.Empty(t)
	r := e.Run(Command, "--spec", "CPU", "--detach", script(t, "import time\nprint('up')\ntime.sleep(600)\n"), "--", "a")
	rts := e.Srv.Runtimes()
	id := strings.TrimSuffix(r.Out, "\n")
	if r.Code != 0 || !strings.HasPrefix(id, "job-") || len(rts) != 1 || len(e.Srv.Sessions(rts[0].Name)) != 0 {
		t.Fatalf("exit %d, %d runtime(s), stdout %q, stderr %q", r.Code, len(rts), r.Out, r.Err)
	}
	conn, err := kit.Connect(context.Background(), *e.Globals())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	jc, _, err := ops.OpenJupyter(context.Background(), conn.Svc, rts[0].Name, ops.JupyterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := jobs.Read(context.Background(), jc, id)
	if err != nil || rec.Spec.File != "content/job.py" || rec.Spec.Argv0 != "job.py" || len(rec.Spec.Args) != 1 || rec.Spec.Args[0] != "a" ||
		rec.Status != nil && !rec.Status.Ended.IsZero() {
		t.Errorf("the job on the runtime: %+v, %v", rec, err)
	}
}
