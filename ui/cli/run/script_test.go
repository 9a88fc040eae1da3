package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// The set-up run before a script gives it /content and sys.argv as
// python would: FILE then ARGS, each a Python literal whatever it holds.
func TestRunScriptSetup(t *testing.T) {
	got := scriptSetup("train.py", []string{"--lr", "0.1", "it's \"quoted\"\n", "é"})
	want := `__import__('os').chdir('/content'); __import__('sys').argv = ["train.py", "--lr", "0.1", "it's \"quoted\"\n", "\u00e9"]`
	if got != want {
		t.Errorf("setup:\n got %s\nwant %s", got, want)
	}
}

// A script's exit code is python's: 1 and the traceback for an
// exception, n for sys.exit(n), 1 and the message for sys.exit("…"),
// without IPython's SystemExit warning; --json says so with the code.
func TestRunScriptExitCodes(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	r := e.Run(Command, "--spec", "CPU", script(t, "print(1)\nraise ValueError('nope')\n"))
	if r.Code != 1 || r.Out != "1\n" || !strings.Contains(r.Err, "ValueError: nope") {
		t.Errorf("exception: exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	r = e.Run(Command, "--spec", "CPU", "--json", script(t, "import sys\nprint('bye')\nsys.exit(3)\n"))
	var rep Report
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || r.Code != 3 || rep.OK || rep.ExitCode != 3 || rep.Stdout != "bye\n" ||
		rep.Error == nil || rep.Error.Message != "job.py exited 3" || strings.Contains(rep.Stderr, "To exit") || rep.ExecutionError != nil {
		t.Errorf("sys.exit(3) --json: %v, exit %d, %q", err, r.Code, r.Out)
	}
	r = e.Run(Command, "--spec", "CPU", script(t, "sys.exit('bad input')\n"))
	if r.Code != 1 || !strings.Contains(r.Err, "bad input\n") || strings.Contains(r.Err, "SystemExit") {
		t.Errorf("sys.exit('bad input'): exit %d, stderr %q", r.Code, r.Err)
	}
	r = e.Run(Command, "--spec", "CPU", script(t, "sys.exit(0)\n"))
	if r.Code != 0 {
		t.Errorf("sys.exit(0): exit %d, stderr %q", r.Code, r.Err)
	}
	left(t, e)
}

// A run on a runtime that does not exist, or whose state directory
// cannot hold its record, creates nothing.
func TestRunCreatesNothingWhenItCannot(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
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

// Every mistake in the command line or FILE is a usage error (exit 2)
// that says what is wrong, before anything is created.
func TestRunUsageErrors(t *testing.T) {
	e := kittest.New(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	py := write("job.py", "print(1)\n")
	nb := write("nb.ipynb", `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}`)
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "link.ipynb")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--reap", py}, "run --reap takes no FILE"},
		{[]string{"--yes", "--spec", "CPU", py}, "--yes goes with --reap"},
		{[]string{"--spec", "CPU"}, "run needs the FILE to run"},
		{[]string{"--spec", "CPU", "--", py}, "run needs the FILE to run"},
		{[]string{"--spec", "CPU", py, "extra"}, "run takes one FILE; put the script's arguments after --"},
		{[]string{"--spec", "CPU", py, "extra", "--", "x"}, "run takes one FILE"},
		{[]string{py}, "give exactly one of --spec SPEC"},
		{[]string{"--spec", "CPU", "--runtime", "rt-a", py}, "give exactly one of --spec SPEC"},
		{[]string{"--runtime", "rt-a", "--keep", py}, "--keep needs --spec"},
		{[]string{"--spec", "CPU", filepath.Join(dir, "none.py")}, "FILE: "},
		{[]string{"--spec", "CPU", write("empty.py", " \n\t\n")}, "FILE is empty: nothing to run"},
		{[]string{"--spec", "CPU", "--notebook-out", filepath.Join(dir, "o.ipynb"), py}, "--notebook-out is for notebooks (.ipynb)"},
		{[]string{"--spec", "CPU", write("bad.ipynb", "{")}, "bad.ipynb: not a notebook (JSON)"},
		{[]string{"--spec", "CPU", write("v3.ipynb", `{"nbformat": 3, "cells": []}`)}, "not an nbformat 4 notebook"},
		{[]string{"--spec", "CPU", write("cells.ipynb", `{"nbformat": 4, "cells": {}}`)}, "cells.ipynb: its cells: "},
		{[]string{"--spec", "CPU", filepath.Join(dir, "none.ipynb")}, "FILE: "},
		{[]string{"--spec", "CPU", nb, "--", "x"}, "a notebook takes no arguments after --"},
		{[]string{"--spec", "CPU", "--notebook-out", filepath.Join(dir, "link.ipynb"), nb}, "is a symlink or a directory; name a file"},
		{[]string{"--spec", "CPU", "--notebook-out", dir, nb}, "is a symlink or a directory; name a file"},
		{[]string{"--spec", "CPU", "--notebook-out", filepath.Join(dir, "no", "o.ipynb"), nb}, "its directory does not exist"},
		{[]string{"--spec", "CPU", "--upload", filepath.Join(dir, "none.csv"), py}, "--upload " + filepath.Join(dir, "none.csv") + ": "},
		{[]string{"--spec", "CPU", "--download", ":here", py}, "no RUNTIME_PATH"},
		// A --download that would replace a local file is refused before
		// anything is created (after the run the runtime may be gone).
		{[]string{"--spec", "CPU", "--download", "job.py:" + dir, py}, "--download job.py:" + dir + ": " + py + " exists and would be replaced after the run; nothing started (--force replaces local files)"},
		{[]string{"--spec", "CPU", "--download", "out/x:" + py, py}, py + " exists and would be replaced"},
		{[]string{"--spec", "NOT/A/SPEC/AT/ALL", py}, ""},
	} {
		r := e.Run(Command, c.args...)
		if r.Code != kit.ExitUsage || !strings.Contains(r.Err, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, r.Code, r.Err, c.want)
		}
	}
	if e.Srv.RuntimesCreated() != 0 {
		t.Errorf("%d runtime(s) created", e.Srv.RuntimesCreated())
	}
}

// --download's RUNTIME_PATH[:LOCAL]: relative under /content, LOCAL the
// current directory by default, a directory when it is one or ends in /.
func TestParseDownload(t *testing.T) {
	dir := t.TempDir()
	for in, want := range map[string]runDownload{
		"model.pt":                   {remote: "/content/model.pt", local: ".", dir: true},
		"/tmp/x.bin:" + dir:          {remote: "/tmp/x.bin", local: dir, dir: true},
		"out/m.pt:" + dir + "/m2.pt": {remote: "/content/out/m.pt", local: dir + "/m2.pt"},
		"out/m.pt:" + dir + "/new/":  {remote: "/content/out/m.pt", local: dir + "/new/", dir: true},
		// ".." is resolved as every verb resolves it, never above /.
		"out/../../etc/x:" + dir: {remote: "/etc/x", local: dir, dir: true},
		"../../../x:" + dir:      {remote: "/x", local: dir, dir: true},
	} {
		if got, err := parseDownload(in); err != nil || got != want {
			t.Errorf("parseDownload(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
}
