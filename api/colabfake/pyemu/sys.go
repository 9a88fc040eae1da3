package pyemu

import (
	"regexp"
	"strconv"
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
	// print(<literals or loop variables>, file=sys.stderr).
	printStderr = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^print\(\s*(.*?)\s*,\s*file\s*=\s*sys\.stderr\s*\)$`)
	})
)

// ipythonExitWarning is what IPython writes on stderr after a cell raised
// SystemExit (InteractiveShell.run_code warns with stacklevel=1).
const ipythonExitWarning = "/usr/local/lib/python3/dist-packages/IPython/core/interactiveshell.py:3553: UserWarning: To exit: use 'exit', 'quit', or Ctrl-D.\n" +
	"  warn(\"To exit: use 'exit', 'quit', or Ctrl-D.\", stacklevel=1)\n"

// execSys runs the statements of this file and reports whether s was one:
// set-up does nothing; print(…, file=sys.stderr) writes to stderr;
// sys.exit(ARG) and raise SystemExit(ARG) end the run with SystemExit as
// IPython reports it: the error's value is str(ARG) ("" for none,
// "None" for None, the text of a string), the traceback is IPython's exception-only form,
// and stderr gets IPython's "To exit" warning.
func (e *emulation) execSys(s stmt, vars map[string]int) bool {
	t := s.text
	if setupStmt().MatchString(t) {
		return true
	}
	if m := printStderr().FindStringSubmatch(t); m != nil && printable(m[1], vars) {
		var parts []string
		for _, a := range splitArgs(m[1]) {
			if v, ok := vars[a]; ok {
				parts = append(parts, strconv.Itoa(v))
			} else {
				parts = append(parts, unquote(a))
			}
		}
		e.stderr.WriteString(strings.Join(parts, " ") + "\n")
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
	e.stderr.WriteString(ipythonExitWarning)
	return true
}
