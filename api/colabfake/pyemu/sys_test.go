package pyemu

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A script's sys.exit(n) comes back as IPython reports it (SystemExit
// with str(n) as its value, after what was printed), its stderr prints
// come back as stderr, and a driver's os.chdir / sys.argv set-up prints
// nothing.
func TestEmulateSysExitStderrAndSetup(t *testing.T) {
	nosleep := func(context.Context, time.Duration) error { return nil }
	cases := []struct {
		code, stdout, stderr, value string
		exited                      bool
	}{
		{code: "print('a')\nsys.exit(3)\nprint('never')", stdout: "a\n", value: "3", exited: true},
		{code: "import sys\nsys.exit()", value: "", exited: true},
		{code: "raise SystemExit('bad input')", value: "bad input", exited: true},
		{code: "sys.exit(None)", value: "None", exited: true},
		{code: "print('oops', file=sys.stderr)\nprint('ok')", stdout: "ok\n", stderr: "oops\n"},
		{code: "__import__('os').chdir('/content'); __import__('sys').argv = ['train.py', '--lr', '0.1']"},
		{code: "import os, sys\nos.chdir('/content')\nsys.argv = ['x.py']"},
	}
	for _, c := range cases {
		res, err := Run(context.Background(), c.code, nosleep)
		if err != nil {
			t.Fatalf("%q: %v", c.code, err)
		}
		xe := res.ExecutionError
		if res.Stdout != c.stdout || c.exited != (xe != nil) {
			t.Errorf("%q: stdout %q, error %+v", c.code, res.Stdout, xe)
			continue
		}
		if !c.exited {
			if res.Stderr != c.stderr {
				t.Errorf("%q: stderr %q, want %q", c.code, res.Stderr, c.stderr)
			}
			continue
		}
		if xe.Name != "SystemExit" || xe.Value != c.value || len(xe.Traceback) != 2 ||
			!strings.Contains(xe.Traceback[1], "SystemExit") || !strings.Contains(res.Stderr, "To exit: use 'exit'") {
			t.Errorf("%q: %+v, stderr %q", c.code, xe, res.Stderr)
		}
	}
}
