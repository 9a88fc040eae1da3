package state

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/colabdash/colabdash/api"
)

// SystemExitName is the exception name the kernel reports (ename) for code
// that called sys.exit or raised SystemExit.
const SystemExitName = "SystemExit"

// ipythonExitWarning matches IPython's stderr warning after SystemExit,
// which a script run by python never prints.
var ipythonExitWarning = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^.*UserWarning: To exit: use 'exit', 'quit', or Ctrl-D\.\n(?:\s+warn\(.*\n)?`)
})

// SystemExitStatus is the exit status python gives a SystemExit whose
// str() the kernel reported as value (its evalue): 0 for no argument or
// None; an integer n masked to 0–255 as a process's status is; any other
// value 1, with message the text python prints on stderr.
func SystemExitStatus(value string) (code int, message string) {
	v := strings.TrimSpace(value)
	if v == "" || v == "None" {
		return 0, ""
	}
	if n, err := strconv.Atoi(v); err == nil {
		return n & 0xff, ""
	}
	return 1, value
}

// ExitAsPython reads res as python running the code as a program would:
// when the code ended with SystemExit, the error is dropped, IPython's "To
// exit" warning is cut from stderr, a non-integer value is written to
// stderr, and code is the process status (SystemExitStatus); exited is
// true. Any other result comes back unchanged with exited false.
func ExitAsPython(res api.ExecuteCodeResult) (out api.ExecuteCodeResult, code int, exited bool) {
	xe := res.ExecutionError
	if xe == nil || xe.Name != SystemExitName {
		return res, 0, false
	}
	code, message := SystemExitStatus(xe.Value)
	res.ExecutionError = nil
	res.Stderr = ipythonExitWarning().ReplaceAllString(res.Stderr, "")
	if message != "" {
		res.Stderr += message + "\n"
	}
	return res, code, true
}
