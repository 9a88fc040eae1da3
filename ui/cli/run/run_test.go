package run

// A run from start to end: the runtime it creates (a lost create reply,
// a refused spec, a cut-off reattached), the set-up before the script and
// the script's exit code, --upload and --download, and the runtime
// deleted or kept at the end.

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// script writes a Python script for a run and returns its path.
func script(t *testing.T, code string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "job.py")
	if err := os.WriteFile(p, []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// left fails when the emulator still lists a runtime or a run record is
// left in the state directory.
func left(t *testing.T, e *kittest.Env) {
	t.Helper()
	if rts := e.Srv.Runtimes(); len(rts) != 0 {
		t.Errorf("%d runtime(s) left: %s", len(rts), rts[0].Name)
	}
	if recs, _ := os.ReadDir(filepath.Join(os.Getenv("XDG_STATE_HOME"), "colabdash", RunRecordDir)); len(recs) != 0 {
		t.Errorf("%d run record(s) left", len(recs))
	}
}

// A run creates its runtime, runs the script, brings its output back and
// deletes the runtime.
func TestRunCreatesRunsAndDeletes(t *testing.T) {
	useFakeJobs(t)
	e := kittest.Empty(t)
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != 0 || r.Out != "hello\n" || !strings.Contains(r.Err, "creating runtime run-") || !strings.Contains(r.Err, "deleted runtime run-") ||
		!strings.Contains(r.Err, "running job.py on run-") || !strings.Contains(r.Err, "(job fake-1)") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	left(t, e)
}

// A create reply lost after Colab made the runtime: run lists the
// runtimes, finds its own (by the id it asked for) and goes on, sending
// nothing again; the runtime is deleted at the end.
func TestRunLostCreateReplyFoundByRelist(t *testing.T) {
	useFakeJobs(t)
	e := kittest.Empty(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != 0 || r.Out != "hello\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if e.Srv.CreateCalls() != 1 || e.Srv.RuntimesCreated() != 1 {
		t.Fatalf("%d sends, %d created; want the one", e.Srv.CreateCalls(), e.Srv.RuntimesCreated())
	}
	left(t, e)
}

// A create reply lost before Colab saw it: the re-list does not find the
// runtime, and run re-sends the identical request by itself (its
// presentation of the rule); one runtime, deleted at the end.
func TestRunLostCreateReplyNotListedResends(t *testing.T) {
	useFakeJobs(t)
	e := kittest.Empty(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultReset, Tool: api.ToolCreateRuntime, Unprocessed: true})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != 0 || r.Out != "hello\n" || strings.Contains(r.Err, "outcome unknown") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	if e.Srv.RuntimesCreated() != 1 {
		t.Fatalf("%d created", e.Srv.RuntimesCreated())
	}
	left(t, e)
}

// A cell's execute_code cut off twice: run reattaches, one send per
// answer at the emulator, and the cell's output is its own; on a
// terminal each reattach is said.
func TestRunReattachesAfterTheCutOff(t *testing.T) {
	e := kittest.Empty(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultDeadline, Tool: api.ToolExecuteCode, Times: 2})
	nb := writeNB(t, "nb.ipynb", "print('hello')")
	r := e.RunTerm(kittest.Term{ErrTTY: true}, Command, "--spec", "CPU", nb)
	if n := e.Srv.CallCount(api.ToolExecuteCode); r.Code != 0 || n != 3 {
		t.Fatalf("exit %d, stderr %q, %d sends", r.Code, r.Err, n)
	}
	if n := strings.Count(r.Err, "reattaching to the running code (DEADLINE_EXCEEDED; same executionId)"); n != 2 {
		t.Errorf("%d reattaches said, want 2: %q", n, r.Err)
	}
	if b, err := os.ReadFile(strings.TrimSuffix(nb, ".ipynb") + ".out.ipynb"); err != nil || !strings.Contains(string(b), `"hello\n"`) {
		t.Errorf("the executed notebook (%v):\n%s", err, b)
	}
	left(t, e)
}

// Colab refuses the create: exit 5 with the reason; nothing to delete and
// no record left.
func TestRunCreateRefused(t *testing.T) {
	useFakeJobs(t)
	e := kittest.Empty(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultOperationError, Tool: api.ToolCreateRuntime, Reason: api.ReasonTooManyActiveRuntimes})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != kit.ExitQuota || r.Out != "" || !strings.Contains(r.Err, "Too many active runtimes") || strings.Contains(r.Err, "deleted runtime") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	left(t, e)
}

// A spec the account cannot have is refused before anything is created:
// one Colab does not offer is a usage error (exit 2), one above the tier
// a quota error (exit 5); specs that cannot be listed create nothing
// either. Nothing is left.
func TestRunRefusesASpecBeforeCreating(t *testing.T) {
	useFakeJobs(t)
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty, Tier: api.TierFree})
	for _, c := range []struct {
		spec string
		code int
		want string
	}{
		{"GPU/V100", kit.ExitUsage, "GPU/V100"},
		{"GPU/H100", kit.ExitQuota, "GPU/H100"},
	} {
		r := e.Run(Command, "--spec", c.spec, script(t, "print('hello')\n"))
		if r.Code != c.code || !strings.Contains(r.Err, c.want) {
			t.Errorf("--spec %s: exit %d (want %d), stderr %q", c.spec, r.Code, c.code, r.Err)
		}
	}
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: api.ToolListRuntimeSpecs,
		Text: colabfake.GoogleErrorText(api.PermissionDenied, "not allowed", "", 0)})
	if r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n")); r.Code != kit.ExitCredential || !strings.Contains(r.Err, "not allowed") {
		t.Errorf("specs not listed: exit %d, stderr %q", r.Code, r.Err)
	}
	if n := e.Srv.CreateCalls(); n != 0 {
		t.Errorf("%d create(s) sent", n)
	}
	left(t, e)
}

// A runtime created but not seen listed (the listing fails) is not used:
// the run fails with the listing's error and deletes the runtime.
func TestRunCreatedButNotListed(t *testing.T) {
	useFakeJobs(t)
	e := kittest.Empty(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: api.ToolListRuntimes, Times: -1,
		Text: colabfake.GoogleErrorText(api.PermissionDenied, "not allowed", "", 0)})
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code == 0 || r.Out != "" || !strings.Contains(r.Err, "not allowed") || !strings.Contains(r.Err, "deleted runtime run-") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	left(t, e)
}

// A job that does not start (the launch refused, or the supervisor
// could not run the script) fails the run (exit 1, saying why) and the
// runtime is deleted.
func TestRunJobThatDoesNotStart(t *testing.T) {
	e := kittest.Empty(t)
	f := useFakeJobs(t)
	f.startErr = errors.New("python3 not found")
	r := e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != kit.ExitFailure || r.Out != "" || !strings.Contains(r.Err, "job.py did not start: python3 not found") || !strings.Contains(r.Err, "deleted runtime run-") {
		t.Errorf("launch refused: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	f.startErr, f.ended = nil, &jobs.Status{ExitCode: -1, Error: "cannot exec: Permission denied"}
	r = e.Run(Command, "--spec", "CPU", script(t, "print('hello')\n"))
	if r.Code != kit.ExitFailure || !strings.Contains(r.Err, "job.py did not start: cannot exec: Permission denied") {
		t.Errorf("supervisor's error: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	left(t, e)
}

// A script's exit code is python's: 1 and the traceback for an
// exception, n for sys.exit(n), exit(n) and quit(n) (nothing after them
// runs), 1 and the message for sys.exit("…"), 128+n when signal n killed
// it (said); its stdout and stderr are ours, apart; --json says so with
// the code.
func TestRunScriptExitCodes(t *testing.T) {
	e := kittest.Empty(t)
	useFakeJobs(t)
	r := e.Run(Command, "--spec", "CPU", script(t, "print(1)\nraise ValueError('nope')\n"))
	if r.Code != 1 || r.Out != "1\n" || !strings.Contains(r.Err, "Traceback (most recent call last)") || !strings.Contains(r.Err, "ValueError: nope") {
		t.Errorf("exception: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	r = e.Run(Command, "--spec", "CPU", "--json", script(t, "import sys\nprint('bye')\nprint('oops', file=sys.stderr)\nsys.exit(3)\n"))
	var rep Report
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || r.Code != 3 || rep.OK || rep.ExitCode != 3 || rep.Stdout != "bye\n" || rep.Stderr != "oops\n" ||
		rep.Error == nil || rep.Error.Message != "job.py exited 3" || rep.Job == "" || rep.Detached {
		t.Errorf("sys.exit(3) --json: %v, exit %d, %q", err, r.Code, r.Out)
	}
	for code, src := range map[int]string{4: "print('a')\nexit(4)\nprint('after')\n", 5: "print('a')\nquit(5)\nprint('after')\n"} {
		if r := e.Run(Command, "--spec", "CPU", script(t, src)); r.Code != code || r.Out != "a\n" {
			t.Errorf("%q: exit %d (want %d), stdout %q", src, r.Code, code, r.Out)
		}
	}
	r = e.Run(Command, "--spec", "CPU", script(t, "import sys\nsys.exit('bad input')\n"))
	if r.Code != 1 || !strings.Contains(r.Err, "bad input\n") || strings.Contains(r.Err, "SystemExit") {
		t.Errorf("sys.exit('bad input'): exit %d, stderr %q", r.Code, r.Err)
	}
	r = e.Run(Command, "--spec", "CPU", script(t, "import sys\nsys.exit(0)\n"))
	if r.Code != 0 {
		t.Errorf("sys.exit(0): exit %d, stderr %q", r.Code, r.Err)
	}
	r = e.Run(Command, "--spec", "CPU", script(t, "import os\nprint('dying')\nos.kill(os.getpid(), 9)\n"))
	if r.Code != 128+9 || r.Out != "dying\n" || !strings.Contains(r.Err, "job.py was killed by signal 9") {
		t.Errorf("killed by SIGKILL: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	left(t, e)
}

// A run on a runtime that does not exist, or whose state directory
// cannot hold its record, creates nothing.
func TestRunCreatesNothingWhenItCannot(t *testing.T) {
	useFakeJobs(t)
	e := kittest.Empty(t)
	r := e.Run(Command, "--runtime", "rt-nope", script(t, "print(1)\n"))
	if r.Code != kit.ExitNotFound {
		t.Errorf("unknown --runtime: exit %d, stderr %q", r.Code, r.Err)
	}
	state := filepath.Join(t.TempDir(), "state")
	if err := os.WriteFile(state, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", state) // a file, not a directory
	r = e.Run(Command, "--spec", "CPU", script(t, "print(1)\n"))
	if r.Code != kit.ExitFailure || !strings.Contains(r.Err, "cannot record the run in the state directory, so nothing was created") {
		t.Errorf("no state directory: exit %d, stderr %q", r.Code, r.Err)
	}
	if e.Srv.RuntimesCreated() != 0 || e.Srv.CreateCalls() != 0 {
		t.Errorf("%d create(s) sent", e.Srv.CreateCalls())
	}
}

// myRuntime adds the runtime rt-mine, with a connection, to the emulator:
// a runtime the run is given (--runtime rt-mine), never its own.
func myRuntime(t *testing.T, e *kittest.Env) {
	t.Helper()
	if _, err := e.Srv.AddRuntime(api.Runtime{Name: "runtimes/rt-mine", ConnectionInfo: &api.ConnectionInfo{}}); err != nil {
		t.Fatal(err)
	}
}

// payloadFile writes data.txt ("payload\n", 8 bytes) in a new directory
// and returns both paths: a file to --upload.
func payloadFile(t *testing.T) (dir, data string) {
	t.Helper()
	dir = t.TempDir()
	data = filepath.Join(dir, "data.txt")
	if err := os.WriteFile(data, []byte("payload\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, data
}

// On an existing runtime: --upload goes to /content, --download comes
// back after the run (a path the runtime lacks is said once, listed
// as missing and makes a run that succeeded exit 7: a script must not
// take its results for back), each file said on stderr and listed in
// --json; the runtime stays and the run's session is closed.
func TestRunUploadsAndDownloads(t *testing.T) {
	useFakeJobs(t)
	e := kittest.Empty(t)
	myRuntime(t, e)
	dir, data := payloadFile(t)
	back := filepath.Join(dir, "back")
	if err := os.Mkdir(back, 0o700); err != nil {
		t.Fatal(err)
	}
	r := e.Run(Command, "--runtime", "rt-mine", "--json", "--upload", data, "--download", "data.txt:"+back+"/",
		"--download", "missing.txt:"+back+"/", script(t, "print('hello')\n"))
	var rep Report
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || r.Code != kit.ExitPartial || rep.OK || rep.ExitCode != kit.ExitPartial {
		t.Fatalf("%v: exit %d, stdout %q, stderr %q", err, r.Code, r.Out, r.Err)
	}
	if b, err := os.ReadFile(filepath.Join(back, "data.txt")); err != nil || string(b) != "payload\n" {
		t.Errorf("the download: %q, %v", b, err)
	}
	if len(rep.Files) != 2 || rep.Files[0].Dst != "rt-mine:/content/data.txt" || rep.Files[1].Src != "rt-mine:/content/data.txt" || rep.Files[1].Bytes != 8 {
		t.Errorf("files %+v", rep.Files)
	}
	if len(rep.Missing) != 1 || rep.Missing[0] != "/content/missing.txt" || !strings.Contains(r.Err, "--download /content/missing.txt: not on the runtime, nothing copied") || strings.Count(r.Err, "missing.txt") != 1 {
		t.Errorf("missing %v, stderr %q", rep.Missing, r.Err)
	}
	if rep.Created || rep.Deleted || rep.Stdout != "hello\n" || len(e.Srv.Runtimes()) != 1 || len(e.Srv.Sessions("runtimes/rt-mine")) != 0 {
		t.Errorf("created %v, deleted %v, stdout %q, %d runtime(s), sessions %v", rep.Created, rep.Deleted, rep.Stdout, len(e.Srv.Runtimes()), e.Srv.Sessions("runtimes/rt-mine"))
	}
}

// A runtime --spec created is kept when a --download does not come back
// (a path mistyped, results written elsewhere): deleting it would lose
// the only copy. The run exits 7 and says how to copy and delete.
func TestRunKeepsItsRuntimeWhenADownloadIsMissing(t *testing.T) {
	useFakeJobs(t)
	e := kittest.Empty(t)
	r := e.Run(Command, "--spec", "CPU", "--download", "outputs/", script(t, "print('hello')\n"))
	if r.Code != kit.ExitPartial || len(e.Srv.Runtimes()) != 1 || e.Srv.CallCount("delete_runtime") != 0 {
		t.Fatalf("exit %d, %d runtime(s), %d delete_runtime; stderr %q", r.Code, len(e.Srv.Runtimes()), e.Srv.CallCount("delete_runtime"), r.Err)
	}
	for _, want := range []string{"--download /content/outputs: not on the runtime", "kept runtime", "a --download did not come back", "colabdash cp -r", "colabdash delete"} {
		if !strings.Contains(r.Err, want) {
			t.Errorf("stderr %q lacks %q", r.Err, want)
		}
	}
}

// --keep keeps the runtime --spec created and says how to reach it; its
// record goes (nothing is left behind unknowingly).
func TestRunKeep(t *testing.T) {
	useFakeJobs(t)
	e := kittest.Empty(t)
	r := e.Run(Command, "--spec", "CPU", "--keep", script(t, "print('hello')\n"))
	rts := e.Srv.Runtimes()
	if r.Code != 0 || len(rts) != 1 || records(t) != 0 {
		t.Fatalf("exit %d, %d runtime(s), %d record(s); stderr %q", r.Code, len(rts), records(t), r.Err)
	}
	id := rts[0].ID()
	if !strings.Contains(r.Err, "kept runtime "+id+" (--keep): colabdash ls "+id+":/content ") || !strings.Contains(r.Err, " runs more; colabdash delete "+id) {
		t.Errorf("stderr %q", r.Err)
	}
}

// A runtime the run created and cannot delete: the run says it may be
// left running and how to delete it, exits 4 and keeps its record for
// run --reap.
func TestRunDeleteFails(t *testing.T) {
	useFakeJobs(t)
	e := kittest.Empty(t)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: api.ToolDeleteRuntime, Times: -1,
		Text: colabfake.GoogleErrorText(api.PermissionDenied, "not allowed", "", 0)})
	r := e.Run(Command, "--spec", "CPU", "--json", script(t, "print('hello')\n"))
	rts := e.Srv.Runtimes()
	if r.Code != kit.ExitAPI || len(rts) != 1 || records(t) != 1 {
		t.Fatalf("exit %d, %d runtime(s), %d record(s); stderr %q", r.Code, len(rts), records(t), r.Err)
	}
	id := rts[0].ID()
	if !strings.Contains(r.Err, "runtime "+id+" may be left running (permission denied: not allowed") || !strings.Contains(r.Err, "colabdash delete "+id+" --yes --ignore-missing") ||
		!strings.Contains(r.Err, "or colabdash run --reap") {
		t.Errorf("stderr %q", r.Err)
	}
	var rep Report
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || rep.OK || rep.ExitCode != kit.ExitAPI || rep.Deleted || !rep.Created {
		t.Errorf("%v: --json %q", err, r.Out)
	}
	// The record says the runtime was made: once Colab no longer lists
	// it, the next reap forgets the record at once (a record of a create
	// that never answered would be kept for a while).
	e.Srv.ClearFaults()
	if !e.Srv.Reclaim(rts[0].Name) {
		t.Fatal("no runtime to reclaim")
	}
	if r := e.Run(Command, "--reap", "--yes"); r.Code != 0 || records(t) != 0 {
		t.Errorf("after the runtime went: exit %d, %d record(s), stderr %q", r.Code, records(t), r.Err)
	}
}

// A --download that fails (here, the runtime refuses to serve the file)
// is the run's failure when the script succeeded: its exit code and
// message; a second failure is said too. When the script failed, its exit
// code stays and the download's failure is still said.
func TestRunDownloadFails(t *testing.T) {
	useFakeJobs(t)
	e := kittest.Empty(t)
	myRuntime(t, e)
	dir, data := payloadFile(t)
	e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, PathPrefix: "files/content/data.txt", Status: http.StatusForbidden,
		ContentType: "application/json", Body: `{"message": "Permission denied: content/data.txt"}`, Times: -1})
	for _, c := range []struct {
		name, code string
		exit       int
	}{
		{"script ok", "print('hello')\n", kit.ExitFailure},
		{"script exits 3", "import sys\nsys.exit(3)\n", 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.Run(Command, "--runtime", "rt-mine", "--upload", data, "--download", "data.txt:"+filepath.Join(dir, "a.txt"),
				"--download", "data.txt:"+filepath.Join(dir, "b.txt"), script(t, c.code))
			if r.Code != c.exit || strings.Count(r.Err, "--download /content/data.txt: ") != 2 {
				t.Errorf("exit %d (want %d), stderr %q", r.Code, c.exit, r.Err)
			}
		})
	}
}

// On an existing runtime, the notebook's session that cannot be closed at
// the end is said; the run's result stands (exit 0).
func TestRunSessionCloseFails(t *testing.T) {
	e := kittest.Empty(t)
	myRuntime(t, e)
	e.Srv.Inject(colabfake.Fault{Kind: colabfake.FaultToolError, Tool: api.ToolDeleteSession,
		Text: colabfake.GoogleErrorText(api.PermissionDenied, "not allowed", "", 0)})
	r := e.Run(Command, "--runtime", "rt-mine", writeNB(t, "nb.ipynb", "print('hello')"))
	if r.Code != 0 || !strings.Contains(r.Err, "could not close session rt-mine/") || !strings.Contains(r.Err, "not allowed") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
}

// A script on a runtime without a connection yet fails before anything
// runs (exit 4, saying so): its job is started through the runtime's
// files. A notebook needs none unless it uploads.
func TestRunWithoutConnection(t *testing.T) {
	e := kittest.Empty(t)
	f := useFakeJobs(t)
	if _, err := e.Srv.AddRuntime(api.Runtime{Name: "runtimes/rt-mine"}); err != nil {
		t.Fatal(err)
	}
	r := e.Run(Command, "--runtime", "rt-mine", script(t, "print('hello')\n"))
	if r.Code != kit.ExitAPI || r.Out != "" || !strings.Contains(r.Err, "runtime rt-mine has no connectionInfo yet") || f.started() != 0 {
		t.Errorf("script: exit %d, stdout %q, stderr %q, %d job(s)", r.Code, r.Out, r.Err, f.started())
	}
	if r := e.Run(Command, "--runtime", "rt-mine", writeNB(t, "nb.ipynb", "print('hello')")); r.Code != 0 {
		t.Errorf("notebook: exit %d, stderr %q", r.Code, r.Err)
	}
	r = e.Run(Command, "--runtime", "rt-mine", "--upload", script(t, "x = 1\n"), writeNB(t, "nb.ipynb", "print('hello')"))
	if r.Code != kit.ExitAPI || !strings.Contains(r.Err, "runtime rt-mine has no connectionInfo yet") {
		t.Errorf("notebook --upload: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
}

// An --upload of a directory goes to /content/NAME; what it cannot copy
// (a hidden name) is a warning on stderr, and the run goes on.
func TestRunUploadWarns(t *testing.T) {
	useFakeJobs(t)
	e := kittest.Empty(t)
	myRuntime(t, e)
	dir, _ := payloadFile(t)
	if err := os.WriteFile(filepath.Join(dir, ".hidden"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.Run(Command, "--runtime", "rt-mine", "--upload", dir, script(t, "print('hello')\n"))
	if r.Code != 0 || r.Out != "hello\n" || !strings.Contains(r.Err, "warning: skipped 1 hidden ") ||
		!strings.Contains(r.Err, "rt-mine:/content/"+filepath.Base(dir)+"/data.txt") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
}
