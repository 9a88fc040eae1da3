package pyemu

import (
	"regexp"
	"strings"
	"sync"

	"github.com/colabdash/colabdash/api"
)

// What a driver such as `colabdash run` sends besides the user's code, and
// how IPython treats a script's sys.exit: emulated so a run's exit code,
// stderr and set-up can be tried offline.

var (
	// sys.exit(ARG), sys.exit(), raise SystemExit(ARG), raise SystemExit.
	sysExitStmt = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:sys\.exit|raise\s+SystemExit)\s*(?:\(\s*(.*?)\s*\))?$`)
	})
	// Set-up that changes only the process: os.chdir(…), sys.argv = […],
	// also through __import__('os') / __import__('sys').
	setupStmt = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:__import__\(\s*['"](?:os|sys)['"]\s*\)|os|sys)\.(?:chdir\s*\(.*\)|argv\s*=.*)$`)
	})
)

// ipythonExitWarning is what IPython writes on stderr after a cell raised
// SystemExit (InteractiveShell.run_code warns with stacklevel=1).
const ipythonExitWarning = "/usr/local/lib/python3/dist-packages/IPython/core/interactiveshell.py:3553: UserWarning: To exit: use 'exit', 'quit', or Ctrl-D.\n" +
	"  warn(\"To exit: use 'exit', 'quit', or Ctrl-D.\", stacklevel=1)\n"

// execSys runs the statements of this file and reports whether s was one:
// set-up does nothing; sys.exit(ARG) and raise SystemExit(ARG) end the run with SystemExit as
// IPython reports it: the error's value is str(ARG) ("" for none,
// "None" for None, the text of a string), the traceback is IPython's exception-only form,
// and stderr gets IPython's "To exit" warning.
func (e *emulation) execSys(s stmt, vars map[string]int) bool {
	t := s.text
	if setupStmt().MatchString(t) {
		return true
	}
	m := sysExitStmt().FindStringSubmatch(t)
	if m == nil {
		return false
	}
	value := strings.TrimSpace(m[1])
	if value != "" && (value[0] == '"' || value[0] == '\'') {
		value = unquote(value)
	}
	e.xerr = &api.ExecuteError{Name: "SystemExit", Value: value, Traceback: []string{
		"An exception has occurred, use %tb to see the full traceback.\n",
		"\x1b[0;31mSystemExit\x1b[0m\x1b[0;31m:\x1b[0m " + value + "\n",
	}}
	e.write(true, ipythonExitWarning)
	return true
}
