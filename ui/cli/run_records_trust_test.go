package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	runcmd "github.com/colabdash/colabdash/ui/cli/run"
	"github.com/colabdash/colabdash/ui/ops"
)

// plantRecord writes, as another local user could, a record of an
// unfinished run naming runtime on e's endpoint and profile, in the state
// directory's runs directory (mode: its permissions).
func plantRecord(t *testing.T, e *verbEnv, runtime string) string {
	t.Helper()
	return writeJSON(t, filepath.Join(ops.StateDir(), runcmd.RunRecordDir, "00000000-0000-4000-8000-000000000001.json"),
		map[string]any{"requestId": "00000000-0000-4000-8000-000000000001", "runtime": runtime, "created": true,
			"runtimeSpec": "CPU/STANDARD", "endpoint": e.flags[1], "profile": "default", "file": "planted.py", "pid": 1,
			"started": time.Now().Add(-time.Hour)})
}

// victimEnv is an emulator with one runtime a planted record names.
func victimEnv(t *testing.T) (*verbEnv, api.Runtime) {
	t.Helper()
	e := emptyVerbEnv(t)
	rt, err := e.srv.AddRuntime(api.Runtime{Name: "precious", RuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU}, ConnectionInfo: &api.ConnectionInfo{}})
	if err != nil {
		t.Fatal(err)
	}
	return e, rt
}

// A state, config or cache directory others may write to is refused before
// anything is read there, with one line naming it and the fix (exit 2),
// as ssh refuses such a ~/.ssh: a record planted in it deletes nothing.
func TestWritableStateConfigOrCacheDirIsRefused(t *testing.T) {
	e, rt := victimEnv(t)
	plantRecord(t, e, rt.Name)
	state := ops.StateDir()
	if err := os.Chmod(state, 0o777); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.runRun("--reap", "--yes")
	if code != 2 || !strings.Contains(errs, "state directory "+state+" is writable by others (mode 0777)") ||
		!strings.Contains(errs, "chmod go-w "+state) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("run --reap --yes in a writable state directory: exit %d, stderr %q", code, errs)
	}
	if len(e.srv.Runtimes()) != 1 {
		t.Errorf("the planted record's runtime was deleted")
	}
	if code, _, errs := e.run("status"); code != 2 || !strings.Contains(errs, "state directory "+state) {
		t.Errorf("status: exit %d, stderr %q", code, errs)
	}
	if err := os.Chmod(state, 0o700); err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(state, runcmd.RunRecordDir)
	if err := os.Chmod(runs, 0o757); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := e.runRun("--reap", "--yes"); code != 2 || !strings.Contains(errs, "run record directory "+runs+" is writable by others") ||
		len(e.srv.Runtimes()) != 1 {
		t.Errorf("writable runs directory: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := e.run("status"); code != 2 || !strings.Contains(errs, "run record directory "+runs+" is writable by others") {
		t.Errorf("status with a writable runs directory: exit %d, stderr %q", code, errs)
	}
	if err := os.Chmod(runs, 0o700); err != nil {
		t.Fatal(err)
	}

	// The config and cache directories, each alone writable by others.
	for _, c := range []struct {
		what, dir string
		mode      os.FileMode
	}{
		{"config directory", filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "colabdash"), 0o770},
		{"cache directory", filepath.Join(os.Getenv("XDG_CACHE_HOME"), "colabdash"), 0o777},
	} {
		if err := os.MkdirAll(c.dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(c.dir, c.mode); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%s %s is writable by others (mode %04o)", c.what, c.dir, c.mode)
		if code, _, errs := e.run("status"); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("writable %s: exit %d, stderr %q", c.what, code, errs)
		}
		if err := os.Chmod(c.dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

// A state directory, or a record, another user owns is not trusted:
// the directory is refused; the record is not read (its runtime stays).
func TestForeignStateDirOrRecordIsNotTrusted(t *testing.T) {
	needRoot(t, "giving a file to another user")
	const nobody = 65534
	e, rt := victimEnv(t)
	rec := plantRecord(t, e, rt.Name)
	if err := os.Chown(rec, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.runRun("--reap", "--yes")
	if code != 0 || len(e.srv.Runtimes()) != 1 || strings.Contains(errs, "deleted") {
		t.Errorf("a record another user owns: exit %d, stderr %q, %d runtime(s) left", code, errs, len(e.srv.Runtimes()))
	}
	state := ops.StateDir()
	if err := os.Chown(state, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	code, _, errs = e.runRun("--reap", "--yes")
	if code != 2 || !strings.Contains(errs, "state directory "+state+" belongs to another user (uid 65534)") || len(e.srv.Runtimes()) != 1 {
		t.Errorf("a state directory another user owns: exit %d, stderr %q", code, errs)
	}
}

// run --reap names each runtime and asks (only y deletes); without a
// terminal it needs --yes (exit 2, one line, nothing deleted).
func TestReapAsksOrNeedsYes(t *testing.T) {
	e, rt := victimEnv(t)
	plantRecord(t, e, rt.Name)
	code, _, errs := e.runRun("--reap")
	if code != 2 || !strings.Contains(errs, "pass --yes") || strings.Count(strings.TrimSpace(errs), "\n") != 0 || len(e.srv.Runtimes()) != 1 {
		t.Errorf("run --reap without a terminal: exit %d, stderr %q, %d runtime(s)", code, errs, len(e.srv.Runtimes()))
	}
	args := append(append([]string{"run"}, e.flags...), "--reap")
	code, _, errs = e.runTerm(term{in: "n\n", inTTY: true, errTTY: true}, args...)
	if code != 0 || !strings.Contains(errs, "runtime precious (CPU") || !strings.Contains(errs, "Delete it? Type y") || len(e.srv.Runtimes()) != 1 {
		t.Errorf("run --reap answered n: exit %d, stderr %q", code, errs)
	}
	code, _, errs = e.runTerm(term{in: "y\n", inTTY: true, errTTY: true}, args...)
	if code != 0 || !strings.Contains(errs, "deleted precious, left by an unfinished run") || len(e.srv.Runtimes()) != 0 {
		t.Errorf("run --reap answered y: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := e.runRun("--yes", "x.py"); code != 2 || !strings.Contains(errs, "--yes goes with --reap") {
		t.Errorf("--yes without --reap: exit %d, stderr %q", code, errs)
	}
}
