package state

import (
	"testing"

	"github.com/colabdash/colabdash/api"
)

// SystemExit's value is read as python reads it: none or None is
// success, an integer is the status masked as a process's, anything else
// is 1 with the value printed.
func TestSystemExitStatus(t *testing.T) {
	for in, want := range map[string]int{"": 0, "None": 0, " 3 ": 3, "256": 0, "257": 1, "-1": 255, "oops": 1} {
		if got, _ := SystemExitStatus(in); got != want {
			t.Errorf("SystemExitStatus(%q) = %d, want %d", in, got, want)
		}
	}
	if _, msg := SystemExitStatus("oops"); msg != "oops" {
		t.Errorf("message %q", msg)
	}
}

// A SystemExit result loses its error and IPython's warning; another
// error is left alone.
func TestExitAsPython(t *testing.T) {
	res := api.ExecuteCodeResult{Stdout: "hi\n", Stderr: "/x/interactiveshell.py:3553: UserWarning: To exit: use 'exit', 'quit', or Ctrl-D.\n  warn(\"To exit: use 'exit', 'quit', or Ctrl-D.\", stacklevel=1)\n",
		ExecutionError: &api.ExecuteError{Name: "SystemExit", Value: "bye"}}
	out, code, exited := ExitAsPython(res)
	if !exited || code != 1 || out.ExecutionError != nil || out.Stderr != "bye\n" || out.Stdout != "hi\n" {
		t.Errorf("SystemExit('bye'): %+v code %d exited %v", out, code, exited)
	}
	other := api.ExecuteCodeResult{ExecutionError: &api.ExecuteError{Name: "ValueError", Value: "3"}}
	if out, _, exited := ExitAsPython(other); exited || out.ExecutionError == nil {
		t.Errorf("ValueError read as an exit: %+v", out)
	}
}
