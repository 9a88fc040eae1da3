package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

// reattachHint is exec's line for a run it leaves going (detached, cut
// off, --timeout): the command that reattaches to execution executionID
// in session, or runs the code if it never started, with the same code
// given again (src), and the global flags. With ids unfit for pasting it
// names the executionId and says why no command follows.
func reattachHint(g *kit.Globals, session, executionID string, src codeSource) string {
	const lead = "the code may still be running; "
	ref, ok := kit.SessionArg(session)
	if !ok {
		return lead + "executionId " + executionID + "; " + kit.UnusualSession(session)
	}
	words, stdin := src.again()
	line, ok := g.CommandLine(append([]string{"exec", ref, "--execution-id", executionID}, words...)...)
	if !ok {
		// -f FILE with an unprintable name: the code again on stdin.
		stdin = true
		if line, ok = g.CommandLine("exec", ref, "--execution-id", executionID, "-"); !ok {
			return lead + "executionId " + executionID
		}
	}
	how := "to reattach (or run it if it never started): "
	if stdin {
		how = "to reattach (or run it if it never started), give the same code on stdin to: "
	}
	return lead + how + line
}

func (v *verb) exec(cmd *cobra.Command, args []string, o execOptions) error {
	args, err := o.sessionInTarget(args)
	if err != nil {
		return err
	}
	if o.keep && o.rm {
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "--keep and --rm disagree: give one (closing is the default)"}
	}
	code, src, err := v.readCode(cmd.Context(), args, o)
	if err != nil {
		return err
	}
	if o.executionID != "" {
		if _, err := uuid.Parse(o.executionID); err != nil {
			return &kit.ExitError{Code: kit.ExitUsage, Msg: "--execution-id must be the UUID an earlier exec printed"}
		}
	}
	// ctrl+c is this command's own business from here on: the first one
	// interrupts the kernel (or stops before the code was sent), so the
	// calls must not die with the process's context.
	x := &execRun{v: v, o: o, base: context.WithoutCancel(cmd.Context())}
	if v.S.Interrupts != nil {
		ch, stop := v.S.Interrupts()
		defer stop()
		x.sigs = ch
	}
	v.S.Signals.Own() // a ctrl+c answered "keep waiting" does not end the run
	conn, err := v.Connect(x.base)
	if err != nil {
		return err
	}
	x.conn = conn
	defer x.closeConn()
	if err := x.resolve(args[0]); err != nil {
		return err
	}
	req := api.ExecuteCodeRequest{Session: x.session, Code: code, ExecutionID: o.executionID}
	if req.ExecutionID == "" {
		req.ExecutionID = uuid.NewString()
	}
	if !x.closes { // a closed session has nothing to reattach to
		x.hint = reattachHint(v.G, x.session, req.ExecutionID, src)
	}
	v.noteRunning(x, req)
	x.start(req)
	defer x.cancelCall()
	return x.follow()
}

// noteRunning says on a terminal where the code runs and what ctrl+c
// does.
func (v *verb) noteRunning(x *execRun, req api.ExecuteCodeRequest) {
	if !v.S.ErrTTY {
		return
	}
	twice := "twice stops or detaches"
	if x.closes {
		twice = "twice stops it"
	}
	v.Note("running on " + kit.SessionRef(x.session) + " (executionId " + req.ExecutionID + "); ctrl+c interrupts the kernel, " + twice)
}

// sessionInTarget folds --session ID into TARGET (RUNTIME/ID), refusing
// a session given twice.
func (o execOptions) sessionInTarget(args []string) ([]string, error) {
	if o.session == "" {
		return args, nil
	}
	if _, _, ok := kit.SplitSessionArg(args[0]); ok || strings.Contains(o.session, "/") {
		return nil, &kit.ExitError{Code: kit.ExitUsage, Msg: "give the session once: TARGET RUNTIME with --session ID, or TARGET RUNTIME/ID"}
	}
	return append([]string{args[0] + "/" + o.session}, args[1:]...), nil
}

// execTarget resolves TARGET to the session to run in: a session must be
// open; a runtime gets a new session of colabdash's (opened is true),
// announced on stderr only with --keep (it outlives exec).
func (v *verb) execTarget(ctx context.Context, conn *kit.Connection, target string, o execOptions) (session string, opened bool, err error) {
	if r, sid, ok := kit.SplitSessionArg(target); ok {
		rt, err := kit.FindRuntime(ctx, conn, r)
		if err != nil {
			return "", false, err
		}
		name := rt.Name + "/sessions/" + sid
		if err := v.CheckListed(ctx, conn, map[string][]api.Session{}, rt, name); err != nil {
			return "", false, err
		}
		return name, false, nil
	}
	if o.executionID != "" {
		return "", false, &kit.ExitError{Code: kit.ExitUsage, Msg: "--execution-id needs the session the execution runs in as TARGET (RUNTIME/SESSION)"}
	}
	rt, err := kit.FindRuntime(ctx, conn, target)
	if err != nil {
		return "", false, err
	}
	se, err := conn.Svc.CreateSession(ctx, rt.Name, state.NewSessionID())
	if err != nil {
		return "", false, kit.Classify(err, conn.Creds)
	}
	if o.keep {
		reuse := "" // an id that fails the paste rule is not offered (CloseSessionHint says why)
		if sid := api.LastSegment(se.Name); kit.PasteID(sid) {
			reuse = "reuse it with --session " + sid + "; "
		}
		v.Note("opened session " + kit.SessionRef(se.Name) + "; it stays open after exec (--keep): " + reuse + v.G.CloseSessionHint(se.Name))
	}
	return se.Name, true, nil
}

// runCode runs req with ops.Exec, which follows state's one reattach rule
// (same session, executionId and code); on a terminal each reattach is
// said on stderr.
func (v *verb) runCode(ctx context.Context, conn *kit.Connection, req api.ExecuteCodeRequest) (api.ExecuteCodeResult, error) {
	return ops.Exec(ctx, conn.Svc, req, func(ev ops.ExecEvent) {
		if v.S.ErrTTY && ev.Err != nil {
			v.Note("reattaching to the running code (" + string(ev.Err.Code) + "; same executionId)")
		}
	})
}

// execDone prints what the code did and returns the exit code: 0; the
// status of sys.exit(n) or raise SystemExit(n) as python gives it
// (state.ExitAsPython, the rule run follows too); or 1 when the code
// raised.
func (v *verb) execDone(res api.ExecuteCodeResult, err error, session, hint string, conn *kit.Connection) error {
	if err != nil {
		ee := kit.Classify(err, conn.Creds)
		if mayBeRunning(err) && hint != "" {
			ee.Msg += "; " + hint
		}
		return ee
	}
	if res.Session == "" {
		res.Session = session
	}
	res, exitCode, _ := state.ExitAsPython(res)
	if v.AsJSON {
		rep := Report{Envelope: kit.Envelope{OK: res.ExecutionError == nil && exitCode == 0}, Session: res.Session, ExecutionID: res.ExecutionID, ExecutionCount: int(res.ExecutionCount),
			Stdout: res.Stdout, Stderr: res.Stderr, Result: res.Result, ExecutionError: res.ExecutionError,
			OutputTruncated: res.OutputTruncated, RichOutputs: res.RichOutputs}
		if xe := res.ExecutionError; xe != nil {
			rep.Envelope = kit.Fail(v.raisedCode(xe), v.Red().Redact(api.OneLine("the code raised "+xe.Line(), 300)))
		} else if exitCode != 0 {
			rep.Envelope = kit.Fail(kit.ExitFailure, fmt.Sprintf("the code exited %d", exitCode))
		}
		if rep.RichOutputs == nil {
			rep.RichOutputs = []api.RichOutput{}
		}
		if err := v.WriteJSON(rep); err != nil {
			return err
		}
	} else {
		v.PrintExecOutput(res)
	}
	xe := res.ExecutionError
	if xe == nil && exitCode != 0 {
		return &kit.ExitError{Code: exitCode, Msg: ""}
	}
	if xe == nil {
		return nil
	}
	if code := v.raisedCode(xe); code == kit.ExitInterrupted {
		return &kit.ExitError{Code: code, Msg: "interrupted: the code raised KeyboardInterrupt; session " + kit.SessionRef(session) + " keeps its state"}
	}
	return &kit.ExitError{Code: kit.ExitFailure, Msg: ""}
}

// raisedCode is the exit code of code that raised xe: 130 for the
// KeyboardInterrupt exec's kernel interrupt caused (ctrl+c), else 1.
func (v *verb) raisedCode(xe *api.ExecuteError) int {
	if v.interrupted && xe.Name == KeyboardInterrupt {
		return kit.ExitInterrupted
	}
	return kit.ExitFailure
}
