package jobs

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter/internal/jupytertest"
)

// split reads job id's whole log and stderr.ranges through the proxy and
// returns what came from stdout and from stderr.
func (e *env) split(t *testing.T, id string) (stdout, stderr []byte) {
	t.Helper()
	ctx := context.Background()
	log, size, err := ReadLog(ctx, e.jc, id, 0, 1<<20)
	if err != nil {
		t.Fatalf("ReadLog: %v", err)
	}
	if size != int64(len(log)) && !(len(log) == 0 && size == -1) { // an empty log: 416, no size
		t.Errorf("ReadLog said the log has %d bytes, and brought %d", size, len(log))
	}
	ranges, next, err := ReadStderrRanges(ctx, e.jc, id, 0)
	if err != nil {
		t.Fatalf("ReadStderrRanges: %v", err)
	}
	if more, _, err := ReadStderrRanges(ctx, e.jc, id, next); err != nil || len(more) != 0 {
		t.Errorf("stderr.ranges after its end (%d): %v, %v", next, more, err)
	}
	at := int64(0)
	for _, r := range ranges {
		if r.Off < at || r.Off+r.Len > int64(len(log)) {
			t.Fatalf("stderr range %+v out of order or past the log's %d bytes", r, len(log))
		}
		stdout = append(stdout, log[at:r.Off]...)
		stderr = append(stderr, log[r.Off:r.Off+r.Len]...)
		at = r.Off + r.Len
	}
	return append(stdout, log[at:]...), stderr
}

// A job runs its script as `python FILE ARGS` run in the same directory
// with stdin closed: the same __file__ and sys.argv, exit(n) and quit(n)
// ending it with n (no line after them runs), an exception exiting 1
// with its traceback on stderr, input() failing at once; what each stream
// printed is in the log, stderr's pieces named by stderr.ranges.
func TestJobRunsLikePython(t *testing.T) {
	e := newEnv(t, colabfake.Options{})
	args := []string{"a b", "--x=1", "", "ü"}
	for _, c := range []struct{ name, script string }{
		{"exit", "import sys\nprint('file', __file__)\nprint('argv', sys.argv)\nprint('to stderr', file=sys.stderr)\nexit(3)\nprint('after exit')\n"},
		{"quit", "print('before')\nquit(4)\nprint('after quit')\n"},
		{"exception", "print('before')\ndef f():\n    raise ValueError('boom')\nf()\n"},
		{"input", "print('asking')\nname = input('name? ')\nprint('got', name)\n"},
		{"message", "import sys\nsys.exit('fatal: no data')\n"},
		{"quiet", "pass\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := e.start(t, c.name+".py", c.script, args...)
			st := j.waitEnded(t)
			stdout, stderr := e.split(t, j.spec.ID)

			py := exec.Command(jupytertest.JupyterPython(), append([]string{c.name + ".py"}, args...)...)
			py.Dir = filepath.Dir(j.script)
			var wantOut, wantErr bytes.Buffer
			py.Stdout, py.Stderr = &wantOut, &wantErr
			code := 0
			if err := py.Run(); err != nil {
				var xe *exec.ExitError
				if !errors.As(err, &xe) {
					t.Fatal(err)
				}
				code = xe.ExitCode()
			}
			if st.ExitCode != code || st.Signal != 0 || st.Error != "" {
				t.Errorf("status %+v, want exit code %d as python gave", st, code)
			}
			if !bytes.Equal(stdout, wantOut.Bytes()) {
				t.Errorf("stdout:\n got %q\nwant %q", stdout, wantOut.Bytes())
			}
			if !bytes.Equal(stderr, wantErr.Bytes()) {
				t.Errorf("stderr:\n got %q\nwant %q", stderr, wantErr.Bytes())
			}
		})
	}
	// What the cases above compare holds what the issue names.
	t.Run("sanity", func(t *testing.T) {
		j := e.start(t, "argv.py", "import sys\nprint(__file__)\nprint(sys.argv)\nexit(3)\n", "x")
		st := j.waitEnded(t)
		out, _ := e.split(t, j.spec.ID)
		if want := j.script + "\n['argv.py', 'x']\n"; string(out) != want || st.ExitCode != 3 {
			t.Errorf("exit %d, output %q; want 3 and %q", st.ExitCode, out, want)
		}
		j = e.start(t, "input.py", "input()\n")
		st = j.waitEnded(t)
		_, errOut := e.split(t, j.spec.ID)
		if st.ExitCode != 1 || !strings.Contains(string(errOut), "EOFError: EOF when reading a line") {
			t.Errorf("input(): exit %d, stderr %q", st.ExitCode, errOut)
		}
	})
}

// A script whose name starts with "-" runs as that file, not as an
// option of python's ("-c.py" would be read as -c with the code ".py").
func TestJobNamedLikeAnOptionRunsAsAFile(t *testing.T) {
	e := newEnv(t, colabfake.Options{})
	j := e.start(t, "-c.py", "print('ran as a file', __file__)\n")
	if st := j.waitEnded(t); st.ExitCode != 0 || st.Error != "" {
		t.Fatalf("status %+v", st)
	}
	if stdout, _ := e.split(t, j.spec.ID); !strings.HasPrefix(string(stdout), "ran as a file ") || !strings.HasSuffix(string(stdout), "/-c.py\n") {
		t.Fatalf("stdout %q", stdout)
	}
}
