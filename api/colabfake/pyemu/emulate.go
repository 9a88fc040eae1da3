// Package pyemu is the emulator's stand-in for Python: execute_code's
// code is not run but read statement by statement (Run), so what a
// console or `colabdash run` needs can be tried offline: prints, sleeps,
// loops, exceptions, sys.exit and a driver's set-up (see Run).
package pyemu

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

// Prefix starts every stdout line the emulator writes for code it
// cannot echo, so a user never mistakes emulated output for real output.
const Prefix = "[colabdash emulator] "

// MaxSleep caps the time.sleep of one emulated run (1 h): long enough to
// leave a run going and come back to it.
const MaxSleep = time.Hour

var (
	// a literal: string, number, True/False/None.
	literal = `("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|-?[0-9]+(?:\.[0-9]+)?|True|False|None)`
	// print(<literal or name>, …).
	printStmt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^print\(\s*(.*?)\s*\)$`) })
	// a bare literal as the whole program: its repr becomes result.
	bareLiteral = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(-?[0-9]+(?:\.[0-9]+)?|True|False|None|'(?:[^'\\]|\\.)*')$`)
	})
	// raise Name or raise Name(args).
	raiseStmt = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^raise\s+([A-Za-z_][A-Za-z0-9_.]*)\s*(?:\((.*)\))?$`)
	})
	// time.sleep(N) or sleep(N).
	sleepStmt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:time\.)?sleep\(\s*([0-9]+(?:\.[0-9]+)?)\s*\)$`) })
	// for NAME in range(N):
	forRange = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^for\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\s+range\(\s*([0-9]+)\s*\)\s*:\s*(.*)$`)
	})
	// assert <false>[, message]
	assertFalse = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^assert\s+(?:False|0|None|"")\s*(?:,\s*(.*))?$`) })
	// N / 0
	divZero = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|[^0-9.])-?[0-9]+(?:\.[0-9]+)?\s*(?://|/|%)\s*0+(?:\.0+)?\s*$`)
	})
	// integer arithmetic with + - * and parentheses, which evalInt
	// computes exactly as Python does (arbitrary precision).
	intArith   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9+\-*() ]*[0-9][0-9+\-*() ]*$`) })
	printArith = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^print\(\s*([0-9+\-*() ]+)\s*\)$`) })
	// import …, from … import …, NAME = …, pass
	quiet = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:import\s|from\s.+\simport\s|pass$|[A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*\s*=[^=])`)
	})
)

// stmt is one statement of an emulated program: its 1-based line, its
// text and, for a for-range loop, the loop's variable, count and body.
type stmt struct {
	line  int
	text  string
	loop  string
	times int
	body  []stmt
}

// parseProgram splits code into statements: one per line (";" separates
// more), a for-range loop with its indented body (or the statements after
// its ":" on the same line).
func parseProgram(code string) []stmt {
	lines := strings.Split(code, "\n")
	var parse func(from, indent int) ([]stmt, int)
	parse = func(from, indent int) ([]stmt, int) {
		var out []stmt
		i := from
		for i < len(lines) {
			raw := lines[i]
			text := strings.TrimSpace(stripComment(raw))
			if text == "" {
				i++
				continue
			}
			ind := len(raw) - len(strings.TrimLeft(raw, " \t"))
			if ind < indent {
				break
			}
			i++
			if m := forRange().FindStringSubmatch(text); m != nil {
				n, _ := strconv.Atoi(m[2])
				s := stmt{line: i, text: text, loop: m[1], times: n}
				if m[3] != "" {
					for _, part := range splitStatements(m[3]) {
						s.body = append(s.body, stmt{line: i, text: strings.TrimSpace(part)})
					}
				} else {
					s.body, i = parse(i, ind+1)
				}
				out = append(out, s)
				continue
			}
			for _, part := range splitStatements(text) {
				if part = strings.TrimSpace(part); part != "" {
					out = append(out, stmt{line: i, text: part})
				}
			}
		}
		return out, i
	}
	prog, _ := parse(0, 0)
	return prog
}

// splitStatements splits a line at each ";" outside string literals and
// brackets (print("a;b") is one statement).
func splitStatements(line string) []string {
	var parts []string
	start := 0
	eachOutside(line, 0, func(i int, c byte, depth int) bool {
		if c == ';' && depth == 0 {
			parts = append(parts, line[start:i])
			start = i + 1
		}
		return true
	})
	return append(parts, line[start:])
}

// stripComment drops a line's "# comment" (a '#' outside string
// literals and what follows it).
func stripComment(line string) string {
	end := len(line)
	eachOutside(line, 0, func(i int, c byte, _ int) bool {
		if c == '#' {
			end = i
			return false
		}
		return true
	})
	return line[:end]
}

// emulation is one run of emulated code: what it printed, its result and
// the exception it raised.
type emulation struct {
	stdout strings.Builder
	stderr strings.Builder // print(…, file=sys.stderr), IPython's warnings (sys.go)
	result string
	xerr   *api.ExecuteError
	slept  time.Duration
	// proc is set when the code runs as a script (RunScript): output goes
	// to its writers as it is written, and the script's own statements
	// (sys.argv, __file__, exit codes) are known.
	proc *Process
	// raisedAt is the statement that raised xerr (a script's traceback).
	raisedAt stmt
	// exitCode is a script's status once xerr is its SystemExit.
	exitCode int
}

// write sends s to stdout or stderr: the script's writers as it runs, or
// the run's result.
func (e *emulation) write(stderr bool, s string) {
	if e.proc != nil {
		w := e.proc.Stdout
		if stderr {
			w = e.proc.Stderr
		}
		if w != nil {
			_, _ = io.WriteString(w, s)
		}
		return
	}
	if stderr {
		e.stderr.WriteString(s)
	} else {
		e.stdout.WriteString(s)
	}
}

// Run runs code without running it, statement by statement, so what a
// console needs can be tried: print(<literal>), print(<loop variable>) and
// print(<integer arithmetic>) print (+ - * and parentheses, exactly);
// time.sleep(N) takes N seconds (MaxSleep at most in all), so
// output comes after the time the code says; for i in range(N): repeats
// its body; import, assignments and pass do nothing; a statement that
// fails (raise, assert False, a division by zero) raises there, with what
// was printed before kept; any other statement prints a line saying what
// would run. A program that is one literal or integer arithmetic is its
// result. sys.exit, print(…, file=sys.stderr) and a driver's set-up
// (os.chdir, sys.argv) are execSys's. sleep waits (it returns ctx's error
// when the run was stopped).
func Run(ctx context.Context, code string, sleep func(context.Context, time.Duration) error) (api.ExecuteCodeResult, error) {
	var e emulation
	trimmed := strings.TrimSpace(code)
	if bareLiteral().MatchString(trimmed) {
		return api.ExecuteCodeResult{Result: trimmed}, nil
	}
	if intArith().MatchString(trimmed) {
		if v, ok := evalInt(trimmed); ok {
			return api.ExecuteCodeResult{Result: v}, nil
		}
	}
	err := e.run(ctx, parseProgram(code), map[string]int{}, sleep)
	return api.ExecuteCodeResult{Stdout: e.stdout.String(), Stderr: e.stderr.String(), Result: e.result, ExecutionError: e.xerr}, err
}

func (e *emulation) run(ctx context.Context, prog []stmt, vars map[string]int, sleep func(context.Context, time.Duration) error) error {
	for _, s := range prog {
		if e.xerr != nil {
			return nil
		}
		if s.loop != "" {
			for i := 0; i < s.times && e.xerr == nil; i++ {
				vars[s.loop] = i
				if err := e.run(ctx, s.body, vars, sleep); err != nil {
					return err
				}
			}
			continue
		}
		if err := e.exec(ctx, s, vars, sleep); err != nil {
			return err
		}
		// A loop without sleeps still ends when the run is stopped.
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

func (e *emulation) exec(ctx context.Context, s stmt, vars map[string]int, sleep func(context.Context, time.Duration) error) error {
	t := s.text
	if m := sleepStmt().FindStringSubmatch(t); m != nil {
		secs, _ := strconv.ParseFloat(m[1], 64)
		d := time.Duration(secs * float64(time.Second))
		if e.proc == nil {
			d = min(d, MaxSleep-e.slept) // a script sleeps as long as it says
		}
		e.slept += d
		return sleep(ctx, d)
	}
	if e.proc != nil && e.execScript(s, vars) {
		return nil
	}
	if e.execSys(s, vars) || e.execPrint(s, vars) {
		return nil
	}
	if m := printArith().FindStringSubmatch(t); m != nil {
		if v, ok := evalInt(m[1]); ok {
			e.write(false, v+"\n")
			return nil
		}
	}
	switch m := raiseStmt().FindStringSubmatch(t); {
	case m != nil:
		e.raise(s, m[1], unquote(strings.TrimSpace(m[2])))
	case strings.HasPrefix(t, "raise"):
		e.raise(s, "RuntimeError", "No active exception to reraise")
	case assertFalse().MatchString(t):
		msg := ""
		if m := assertFalse().FindStringSubmatch(t); m[1] != "" {
			msg = unquote(strings.TrimSpace(m[1]))
		}
		e.raise(s, "AssertionError", msg)
	case divZero().MatchString(t):
		e.raise(s, "ZeroDivisionError", "division by zero")
	case quiet().MatchString(t):
	default:
		e.write(false, Prefix+"would run: "+api.OneLine(t, 200)+"\n")
	}
	return nil
}

// splitArgs splits print's arguments at commas outside string literals
// and brackets.
func splitArgs(s string) []string {
	var out []string
	start := 0
	eachOutside(s, 0, func(i int, c byte, depth int) bool {
		if depth == 0 && c == ',' {
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
		return true
	})
	return append(out, strings.TrimSpace(s[start:]))
}

// raise makes the run fail at statement s with exception name(value).
func (e *emulation) raise(s stmt, name, value string) {
	e.raisedAt = s
	if value == "" && name == "RuntimeError" {
		value = "raised by emulated code"
	}
	e.xerr = &api.ExecuteError{Name: name, Value: value, Traceback: []string{
		"\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
		"\x1b[0;31m" + name + "\x1b[0m                                 Traceback (most recent call last)",
		"\x1b[0;32m<ipython-input-1>\x1b[0m in \x1b[0;36m<cell line: " + strconv.Itoa(s.line) + ">\x1b[0;34m()\x1b[0m",
		"\x1b[0;32m----> " + strconv.Itoa(s.line) + " \x1b[0m" + s.text,
		"\x1b[0;31m" + name + "\x1b[0m: " + value + "  " + Prefix + "(emulated)",
	}}
}

// unquote turns a Python string literal into its text; other literals are
// returned as written.
func unquote(lit string) string {
	if len(lit) >= 2 && (lit[0] == '"' || lit[0] == '\'') && lit[len(lit)-1] == lit[0] {
		body := lit[1 : len(lit)-1]
		if lit[0] == '\'' {
			body = strings.ReplaceAll(strings.ReplaceAll(body, `\'`, `'`), `"`, `\"`)
		}
		if s, err := strconv.Unquote(`"` + body + `"`); err == nil {
			return s
		}
		return body
	}
	return lit
}
