package pyemu

// A program run as a script, `python FILE ARGS`, rather than in a
// kernel: its output is written as it goes, and it ends with an exit
// status as a process does.

import (
	"context"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/colabdash/colabdash/api"
)

var (
	// sys.exit(ARG), exit(ARG), quit(ARG), raise SystemExit[(ARG)].
	scriptExit = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:(?:sys\.exit|exit|quit)\s*\(\s*(.*?)\s*\)|raise\s+SystemExit(?:\s*\(\s*(.*?)\s*\))?)$`)
	})
	// input(PROMPT) anywhere in a statement.
	inputCall = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[^A-Za-z0-9_.])input\(\s*(.*?)\s*\)`) })
	// signal.signal(signal.SIGTERM, signal.SIG_IGN) and SIG_DFL.
	signalStmt = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:signal\.)?signal\(\s*(?:signal\.)?(SIG[A-Z0-9]+)\s*,\s*(?:signal\.)?(SIG_IGN|SIG_DFL)\s*\)$`)
	})
)

// Process is a script's process for RunScript.
type Process struct {
	// File is the script's path, its __file__ ("/content/train.py");
	// Argv is its sys.argv, argv[0] first.
	File string
	Argv []string
	// Stdout and Stderr receive each piece of output when the script
	// writes it (one Write per print); nil discards it.
	Stdout, Stderr io.Writer
	// Sleep waits d on the process's clock; an error from it ends the
	// run at once (the process was killed). Nil: sleeps take no time.
	Sleep func(context.Context, time.Duration) error
	// Signal, when set, is told that the script set signal name's
	// disposition ("SIGTERM"): ignored (signal.SIG_IGN) or the default
	// (signal.SIG_DFL).
	Signal func(name string, ignored bool)
}

// RunScript runs code as `python FILE ARGS` runs a script, emulating what
// Run does (without its MaxSleep cap) and, besides, __file__, sys.argv,
// sys.argv[N], sys.argv[1:] and len(sys.argv) in a print, as the
// process's. It returns the exit status: 0 at the end of the code;
// sys.exit(N), exit(N), quit(N) and raise SystemExit(N) end with N & 0xff
// (none or None: 0; another value is written to stderr and ends with 1);
// an uncaught exception writes Python's traceback to stderr and ends with
// 1; input() writes its prompt and raises EOFError at once (stdin is
// /dev/null). err is Sleep's or ctx's error when the run was stopped
// (the status is then -1).
func RunScript(ctx context.Context, code string, p Process) (int, error) {
	e := emulation{proc: &p}
	sleep := p.Sleep
	if sleep == nil {
		sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	}
	if err := e.run(ctx, parseProgram(code), map[string]int{}, sleep); err != nil {
		return -1, err
	}
	switch {
	case e.xerr == nil:
		return 0, nil
	case e.xerr.Name == "SystemExit":
		return e.exitCode, nil
	}
	e.write(true, e.traceback())
	return 1, nil
}

// traceback is Python's report of the uncaught exception e.xerr raised at
// e.raisedAt.
func (e *emulation) traceback() string {
	last := e.xerr.Name
	if e.xerr.Value != "" {
		last += ": " + e.xerr.Value
	}
	return "Traceback (most recent call last):\n" +
		"  File \"" + e.proc.File + "\", line " + strconv.Itoa(e.raisedAt.line) + ", in <module>\n" +
		"    " + e.raisedAt.text + "\n" +
		last + "\n"
}

// execScript runs a script's own statements (an exit, input(), a signal
// disposition) and reports whether s was one.
func (e *emulation) execScript(s stmt, vars map[string]int) bool {
	t := s.text
	if m := scriptExit().FindStringSubmatch(t); m != nil {
		e.exit(m[1]+m[2], vars)
		return true
	}
	if m := signalStmt().FindStringSubmatch(t); m != nil {
		if e.proc.Signal != nil {
			e.proc.Signal(m[1], m[2] == "SIG_IGN")
		}
		return true
	}
	if m := inputCall().FindStringSubmatch(t); m != nil {
		if m[1] != "" {
			if v, err := e.value(m[1], vars); err == nil {
				e.write(false, v)
			}
		}
		e.raise(s, "EOFError", "EOF when reading a line")
		return true
	}
	return false
}

// exit ends the script with SystemExit(arg) as Python's exit does.
func (e *emulation) exit(arg string, vars map[string]int) {
	code, shown := 0, ""
	switch v, err := e.value(arg, vars); {
	case arg == "" || arg == "None":
	case err == nil && !stringLiteral().MatchString(arg) && !fString().MatchString(arg):
		n, perr := strconv.ParseInt(v, 10, 64)
		switch {
		case v == "True":
			code = 1
		case v == "False":
		case perr == nil:
			code = int(n & 0xff)
		default:
			code, shown = 1, v
		}
	case err == nil:
		code, shown = 1, v
	default:
		code, shown = 1, api.OneLine(arg, 200)
	}
	if shown != "" {
		e.write(true, shown+"\n")
	}
	e.exitCode = code
	e.xerr = &api.ExecuteError{Name: "SystemExit", Value: strings.TrimSpace(arg)}
}
