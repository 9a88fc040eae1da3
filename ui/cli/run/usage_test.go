package run

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// Every mistake in the command line or FILE is a usage error (exit 2)
// that says what is wrong, before anything is created.
func TestRunUsageErrors(t *testing.T) {
	e := kittest.Empty(t)
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
		{[]string{"--spec", "CPU", "--download", "job.py:" + dir, py}, "--download job.py:" + dir + ": " + py + " exists and would be replaced; nothing started (--force replaces local files)"},
		// So is one whose directory to copy into does not exist.
		{[]string{"--spec", "CPU", "--download", "out/:" + filepath.Join(dir, "results") + "/", py}, "no directory " + filepath.Join(dir, "results") + "/ here to copy into; nothing started (create it first: mkdir -p"},
		{[]string{"--spec", "CPU", "--download", "out/x:" + py, py}, py + " exists and would be replaced"},
		{[]string{"--spec", "NOT/A/SPEC/AT/ALL", py}, ""},
		{[]string{"--spec", "CPU", "--delete-when-done", py}, "--delete-when-done goes with --detach"},
		{[]string{"--spec", "CPU", "--detach", "--download", "out.txt", py}, "--download is not for --detach: fetch the files once the job ended with colabdash wait JOB --download PATH"},
		{[]string{"--spec", "CPU", "--detach", "--timeout", "1m", py}, "--timeout is not for --detach: stop the job with colabdash stop JOB"},
		{[]string{"--spec", "CPU", "--detach", "--keep", py}, "--keep is not for --detach: a detached run never deletes the runtime"},
		{[]string{"--spec", "CPU", "--detach", nb}, "--detach is for scripts"},
		{[]string{"--spec", "CPU", "--output", filepath.Join(dir, "o.ipynb"), "--notebook-out", filepath.Join(dir, "p.ipynb"), nb}, "--output is the old name of --notebook-out: give --notebook-out only"},
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

// The script's arguments are what follows --, and only those; a script
// given them runs.
func TestRunScriptArguments(t *testing.T) {
	py := script(t, "print('hello')\n")
	for _, c := range []struct {
		line []string
		want []string
	}{
		{[]string{py, "--", "--epochs", "3"}, []string{"--epochs", "3"}},
		{[]string{py}, nil},
	} {
		cmd := &cobra.Command{}
		if err := cmd.Flags().Parse(c.line); err != nil {
			t.Fatal(err)
		}
		job, _, err := loadJob(cmd, cmd.Flags().Args(), runOptions{spec: "CPU"})
		if err != nil || job.name != "job.py" || !slices.Equal(job.args, c.want) {
			t.Errorf("%q: %+v, %v; want the arguments %q", c.line, job, err, c.want)
		}
	}
	e := kittest.Empty(t)
	useFakeJobs(t)
	py = script(t, "import sys\nprint(sys.argv)\n")
	if r := e.Run(Command, "--spec", "CPU", py, "--", "--epochs", "3"); r.Code != 0 || r.Out != "['job.py', '--epochs', '3']\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.Code, r.Out, r.Err)
	}
	left(t, e)
}
