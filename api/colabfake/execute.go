package colabfake

import (
	"context"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
)

// EmulatedPrefix starts every stdout line the emulator writes for code it
// cannot echo, so a user never mistakes emulated output for real output.
const EmulatedPrefix = "[colabdash emulator] "

var (
	// print(<literal>) with a string, number, True/False/None literal.
	printLiteral = regexp.MustCompile(`^print\(\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|-?[0-9]+(?:\.[0-9]+)?|True|False|None)\s*\)$`)
	// a bare literal as the whole program: its repr becomes result.
	bareLiteral = regexp.MustCompile(`^(-?[0-9]+(?:\.[0-9]+)?|True|False|None|'(?:[^'\\]|\\.)*')$`)
	// integer arithmetic with + - * and parentheses, which Go's constant
	// arithmetic computes exactly as Python does (arbitrary precision).
	intArith   = regexp.MustCompile(`^[0-9+\-*() ]*[0-9][0-9+\-*() ]*$`)
	printArith = regexp.MustCompile(`^print\(\s*([0-9+\-*() ]+)\s*\)$`)
	// raise Name or raise Name(args).
	raiseStmt = regexp.MustCompile(`(?m)^\s*raise\s+([A-Za-z_][A-Za-z0-9_.]*)\s*(?:\((.*)\))?\s*$`)
)

// emulate returns what running code would show, without running it:
// print(<literal>) echoes the literal, print(<integer arithmetic>) prints
// its value, a bare literal or integer arithmetic becomes result, code
// containing "raise" gets an executionError, anything else a stdout line
// saying what would run.
func emulate(code string) (stdout, result string, xerr *api.ExecuteError) {
	trimmed := strings.TrimSpace(code)
	if strings.Contains(code, "raise") {
		name, value := "RuntimeError", "raised by emulated code"
		if m := raiseStmt.FindStringSubmatch(code); m != nil {
			name = m[1]
			value = unquote(strings.TrimSpace(m[2]))
		}
		return "", "", &api.ExecuteError{Name: name, Value: value, Traceback: []string{
			"\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
			"\x1b[0;31m" + name + "\x1b[0m                                 Traceback (most recent call last)",
			"\x1b[0;32m<ipython-input-1>\x1b[0m in \x1b[0;36m<cell line: 0>\x1b[0;34m()\x1b[0m",
			"\x1b[0;31m" + name + "\x1b[0m: " + value + "  " + EmulatedPrefix + "(emulated)",
		}}
	}
	if m := printLiteral.FindStringSubmatch(trimmed); m != nil {
		return unquote(m[1]) + "\n", "", nil
	}
	if m := printArith.FindStringSubmatch(trimmed); m != nil {
		if v, ok := evalInt(m[1]); ok {
			return v + "\n", "", nil
		}
	}
	if bareLiteral.MatchString(trimmed) {
		return "", trimmed, nil
	}
	if intArith.MatchString(trimmed) {
		if v, ok := evalInt(trimmed); ok {
			return "", v, nil
		}
	}
	return EmulatedPrefix + "would run: " + api.OneLine(code, 200) + "\n", "", nil
}

// evalInt evaluates integer arithmetic (+ - * and parentheses) exactly.
func evalInt(expr string) (string, bool) {
	tv, err := types.Eval(token.NewFileSet(), nil, token.NoPos, expr)
	if err != nil || tv.Value == nil || tv.Value.Kind() != constant.Int {
		return "", false
	}
	return tv.Value.ExactString(), true
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

func (s *Server) executeCode(ctx context.Context, in executeCodeIn, deadline bool) (any, *gErr) {
	if (in.Session == "") == (in.Runtime == "") {
		return nil, newErr(api.InvalidArgument, "set exactly one of session and runtime")
	}
	var rname, sname string
	if in.Runtime != "" {
		if e := parseRuntimeName("runtime", in.Runtime); e != nil {
			return nil, e
		}
		rname, sname = in.Runtime, in.Runtime+"/sessions/"+uuid.NewString()
	} else {
		r, id, e := parseSessionName("session", in.Session)
		if e != nil {
			return nil, e
		}
		if err := api.ValidateID(id); err != nil && uuid.Validate(id) != nil {
			return nil, newErr(api.InvalidArgument, "session: %s", err.(*api.Error).Message)
		}
		rname, sname = r, in.Session
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, r := s.findRuntime(rname)
	if r == nil {
		return nil, newErr(api.NotFound, "Runtime %s not found.", rname)
	}
	ss := r.findSession(sname)
	if ss == nil {
		ss = &sessionState{name: sname, execs: map[string]*execRecord{}}
		r.sessions = append(r.sessions, ss)
	}
	if in.ExecutionID != "" && in.Session != "" {
		if rec := ss.execs[in.ExecutionID]; rec != nil && !rec.returned {
			// Reattach: the code already started; hand back its result.
			if !deadline {
				rec.returned = true
			}
			return rec.result, nil
		}
	}
	ss.count++
	stdout, result, xerr := emulate(in.Code)
	res := api.ExecuteCodeResult{ExecutionID: in.ExecutionID, Session: sname, ExecutionCount: ss.count,
		Stdout: stdout, Result: result, ExecutionError: xerr}
	if s.opts.Seed == SeedHostile {
		hostileExec(&res)
	}
	if in.ExecutionID != "" && in.Session != "" {
		ss.execs[in.ExecutionID] = &execRecord{result: res, returned: !deadline}
	}
	return res, nil
}
