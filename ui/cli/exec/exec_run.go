package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext"
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
	if o.session != "" {
		if _, _, ok := kit.SplitSessionArg(args[0]); ok || strings.Contains(o.session, "/") {
			return &kit.ExitError{Code: kit.ExitUsage, Msg: "give the session once: TARGET RUNTIME with --session ID, or TARGET RUNTIME/ID"}
		}
		args = append([]string{args[0] + "/" + o.session}, args[1:]...)
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
	// asks (or detaches), so the calls must not die with the process's
	// context.
	var sigs <-chan os.Signal
	if v.S.Interrupts != nil {
		ch, stop := v.S.Interrupts()
		defer stop()
		sigs = ch
	}
	v.S.Signals.Own() // a ctrl+c answered "keep waiting" does not end the run
	base := context.WithoutCancel(cmd.Context())
	prep, cancelPrep := context.WithCancel(client.ListToolsEarly(base)) // its schema calls follow: tools/list goes alongside the first call
	defer cancelPrep()
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		select {
		case sig := <-sigs:
			v.S.Signals.Record(sig)
			cancelPrep() // ctrl+c before the code was sent: just stop
		case <-prep.Done():
		}
	}()
	conn, err := v.Connect(base)
	if err != nil {
		return err
	}
	// detached: the command leaves a run going server-side. Closing the
	// MCP session then is not waited for: the server may hold its DELETE
	// until the abandoned call has noticed it was cancelled, and go-sdk
	// waits up to 5 s for it, so ctrl+c, d took 5 s to detach.
	detached := false
	defer func() {
		if detached {
			go conn.Close()
			return
		}
		conn.Close()
	}()
	session, err := v.execTarget(prep, conn, args[0], o)
	interrupted := prep.Err() != nil
	cancelPrep()
	<-watching // from here on the signals are the loop's below
	switch {
	case interrupted:
		return &kit.ExitError{Code: kit.ExitInterrupted, Msg: "interrupted before the code was sent"}
	case err != nil:
		return err
	}
	if o.rm && !state.IsOwnSession(session) {
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "--rm closes only a session colabdash opened (colabdash-…); " + kit.SessionRef(session) + " is probably a notebook's: leave --rm out"}
	}

	req := api.ExecuteCodeRequest{Session: session, Code: code, ExecutionID: o.executionID}
	if req.ExecutionID == "" {
		req.ExecutionID = uuid.NewString()
	}
	hint := reattachHint(v.G, session, req.ExecutionID, src)
	if v.S.ErrTTY {
		v.Note("running on " + kit.SessionRef(session) + " (executionId " + req.ExecutionID + "); ctrl+c interrupts the kernel, twice stops or detaches")
	}

	type outcome struct {
		res api.ExecuteCodeResult
		err error
	}
	done := make(chan outcome, 1)
	callCtx, cancelCall := context.WithCancel(base)
	defer cancelCall()
	go func() {
		res, err := v.runCode(callCtx, conn, req)
		done <- outcome{res, err}
	}()
	// abandon stops waiting for the call and returns err once the call has
	// noticed (nothing writes to stderr behind our back afterwards).
	abandon := func(err error) error {
		cancelCall()
		<-done
		return err
	}
	// detach abandons the call and leaves the run going: nothing more to
	// wait for.
	detach := func(err error) error {
		detached = true
		err = abandon(err)
		// Its own line: the error's line ends with the command that
		// reattaches, to paste.
		v.Note("the session stays open; " + v.G.CloseSessionHint(session))
		return err
	}
	// finished prints the outcome and, with --rm, closes the session.
	finished := func(res api.ExecuteCodeResult, err error) error {
		out := v.execDone(res, err, session, hint, conn)
		if !o.rm || err != nil && kit.AsAPIError(err) != nil && kit.AsAPIError(err).Reattachable() {
			return out
		}
		ctx, cancel := context.WithTimeout(base, 30*time.Second)
		defer cancel()
		if derr := conn.Svc.DeleteSession(ctx, session); derr != nil {
			v.Note("--rm: could not close session " + kit.SessionRef(session) + ": " + kit.Classify(derr, conn.Creds).Msg + "; " + v.G.CloseSessionHint(session))
			if out == nil {
				return &kit.ExitError{Code: kit.ExitAPI, Msg: ""}
			}
			return out
		}
		if v.S.ErrTTY {
			v.Note("closed session " + kit.SessionRef(session) + " (--rm)")
		}
		var ee *kit.ExitError
		if errors.As(out, &ee) && ee.Code == kit.ExitInterrupted {
			// execDone said the session keeps its state: --rm has just closed it.
			ee.Msg = "interrupted: the code raised KeyboardInterrupt; session " + kit.SessionRef(session) + " closed (--rm)"
		}
		return out
	}
	interruptDone := make(chan error, 1)
	var deadline <-chan time.Time
	if o.timeout > 0 {
		t := time.NewTimer(o.timeout)
		defer t.Stop()
		deadline = t.C
	}
	for {
		select {
		case r := <-done:
			return finished(r.res, r.err)
		case <-deadline:
			return detach(&kit.ExitError{Code: kit.ExitTimeout, Msg: fmt.Sprintf("gave up waiting after --timeout %s; %s", o.timeout, hint)})
		case err := <-interruptDone:
			if err != nil {
				v.Note("could not interrupt the kernel: " + kit.Classify(err, conn.Creds).Msg + "; ctrl+c again to stop or detach")
			} else {
				v.Note("interrupted the kernel; waiting for the code to stop (ctrl+c again to stop or detach)")
			}
			continue
		case sig := <-sigs:
			v.S.Signals.Record(sig)
			// SIGTERM (kill) and SIGHUP (the terminal is gone) detach at
			// once.
			if sig != os.Interrupt {
				return detach(&kit.ExitError{Code: kit.ExitInterrupted, Msg: "detached; " + hint})
			}
			// The first ctrl+c interrupts the kernel, as jupyter console
			// does: KeyboardInterrupt in the code, the session's state kept.
			if !v.interrupted {
				v.interrupted = true
				v.Note("ctrl+c: interrupting the kernel (KeyboardInterrupt in the code; ctrl+c again to stop or detach)")
				go func() {
					_, err := v.interruptKernel(base, conn, session)
					interruptDone <- err
				}()
				continue
			}
		}
		if !v.CanPrompt() {
			return detach(&kit.ExitError{Code: kit.ExitInterrupted, Msg: "detached; " + hint})
		}
		answer := make(chan string, 1)
		q := "\nStop the code (s: closes session " + kit.SessionRef(session) + ", its state is lost) or detach (d: it keeps running)? "
		// On a terminal one key answers (raw mode, restored on every
		// path); where raw mode cannot be had, a line does.
		kp := v.openKeyPrompt()
		endAsk := func() {
			if kp != nil && kp.close() {
				v.Mu.Lock()
				fmt.Fprintln(v.S.Err)
				v.Mu.Unlock()
			}
		}
		defer endAsk() // a panic too leaves the terminal as it was
		switch {
		case kp == nil:
			go func() {
				a, _, _ := v.Ask(base, q+"Type s or d, then Enter (anything else: keep waiting): ")
				answer <- a
			}()
		default:
			// The question first, while line ends still return the
			// carriage; then raw mode.
			v.Mu.Lock()
			fmt.Fprint(v.S.Err, termtext.Block(v.Red().Redact(q+"Press s or d (any other key: keep waiting) ")))
			v.Mu.Unlock()
			if kp.raw() != nil {
				kp = nil
				v.Mu.Lock()
				fmt.Fprint(v.S.Err, "then Enter: ")
				v.Mu.Unlock()
				go func() {
					a, _ := v.ReadLine(base)
					answer <- strings.TrimSpace(a)
				}()
				break
			}
			go func() {
				b, err := kp.read()
				if kp.close() {
					echo := ""
					if err == nil && b > ' ' && b < 0x7f {
						echo = string(rune(b))
					}
					v.Mu.Lock()
					fmt.Fprintln(v.S.Err, echo)
					v.Mu.Unlock()
				}
				if err != nil {
					return
				}
				if b == 0x03 { // ctrl+c in raw mode: a second ctrl+c
					answer <- "ctrl+c"
					return
				}
				answer <- string(rune(b))
			}()
		}
		select {
		case r := <-done:
			endAsk()
			return finished(r.res, r.err)
		case <-deadline:
			endAsk()
			return detach(&kit.ExitError{Code: kit.ExitTimeout, Msg: fmt.Sprintf("gave up waiting after --timeout %s; %s", o.timeout, hint)})
		case sig := <-sigs: // another ctrl+c (or SIGTERM): leave at once
			v.S.Signals.Record(sig)
			endAsk()
			return detach(&kit.ExitError{Code: kit.ExitInterrupted, Msg: "detached; " + hint})
		case a := <-answer:
			switch strings.ToLower(a) {
			case "s":
				abandon(nil)
				ctx, cancel := context.WithTimeout(base, 30*time.Second)
				defer cancel()
				if err := conn.Svc.DeleteSession(ctx, session); err != nil {
					return &kit.ExitError{Code: kit.ExitAPI, Msg: "could not stop the code: delete_session: " + kit.Classify(err, conn.Creds).Msg + "; " + hint}
				}
				return &kit.ExitError{Code: kit.ExitInterrupted, Msg: "stopped: closed session " + kit.SessionRef(session)}
			case "d", "ctrl+c":
				return detach(&kit.ExitError{Code: kit.ExitInterrupted, Msg: "detached; " + hint})
			}
			v.Note("still waiting")
		}
	}
}

// execTarget resolves TARGET to the session to run in: a session must be
// open; a runtime gets a new session of colabdash's, announced on stderr.
func (v *verb) execTarget(ctx context.Context, conn *kit.Connection, target string, o execOptions) (string, error) {
	if r, sid, ok := kit.SplitSessionArg(target); ok {
		rt, err := kit.FindRuntime(ctx, conn, r)
		if err != nil {
			return "", err
		}
		name := rt.Name + "/sessions/" + sid
		if err := v.CheckListed(ctx, conn, map[string][]api.Session{}, rt, name); err != nil {
			return "", err
		}
		return name, nil
	}
	if o.executionID != "" {
		return "", &kit.ExitError{Code: kit.ExitUsage, Msg: "--execution-id needs the session the execution runs in as TARGET (RUNTIME/SESSION)"}
	}
	rt, err := kit.FindRuntime(ctx, conn, target)
	if err != nil {
		return "", err
	}
	se, err := conn.Svc.CreateSession(ctx, rt.Name, state.NewSessionID())
	if err != nil {
		return "", kit.Classify(err, conn.Creds)
	}
	ref := kit.SessionRef(se.Name)
	if o.rm {
		v.Note("opened session " + ref + " (closed afterwards: --rm)")
	} else {
		v.Note("opened session " + ref + "; it stays open after exec (reuse it with --session " + api.LastSegment(se.Name) + "; --rm closes it afterwards); " + v.G.CloseSessionHint(se.Name))
	}
	return se.Name, nil
}

// runCode calls execute_code, repeating the identical call (same session,
// executionId and code) while it is cut off or the connection drops.
func (v *verb) runCode(ctx context.Context, conn *kit.Connection, req api.ExecuteCodeRequest) (api.ExecuteCodeResult, error) {
	drops := 0
	for {
		res, err := conn.Svc.ExecuteCode(ctx, req)
		ae := kit.AsAPIError(err)
		if err == nil || ctx.Err() != nil || ae == nil || !ae.Reattachable() {
			return res, err
		}
		wait := time.Duration(0)
		if ae.Code == api.Unavailable {
			if drops++; drops > MaxDrops {
				return res, err
			}
			wait = DropWait << (drops - 1)
		} else {
			drops = 0
		}
		if v.S.ErrTTY {
			v.Note("reattaching to the running code (" + string(ae.Code) + "; same executionId)")
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// execDone prints what the code did and returns the exit code: 0, or 1
// when the code raised.
func (v *verb) execDone(res api.ExecuteCodeResult, err error, session, hint string, conn *kit.Connection) error {
	if err != nil {
		ee := kit.Classify(err, conn.Creds)
		if ae := kit.AsAPIError(err); ae != nil && ae.Reattachable() {
			ee.Msg += "; " + hint
		}
		return ee
	}
	if res.Session == "" {
		res.Session = session
	}
	if v.AsJSON {
		rep := Report{Envelope: kit.Envelope{OK: res.ExecutionError == nil}, Session: res.Session, ExecutionID: res.ExecutionID, ExecutionCount: res.ExecutionCount,
			Stdout: res.Stdout, Stderr: res.Stderr, Result: res.Result, ExecutionError: res.ExecutionError,
			OutputTruncated: res.OutputTruncated, RichOutputs: res.RichOutputs}
		if xe := res.ExecutionError; xe != nil {
			rep.Envelope = kit.Fail(v.raisedCode(xe), v.Red().Redact(api.OneLine("the code raised "+xe.Name+": "+xe.Value, 300)))
		}
		if rep.RichOutputs == nil {
			rep.RichOutputs = []api.RichOutput{}
		}
		if err := v.WriteJSON(rep); err != nil {
			return err
		}
	} else {
		out := res.Stdout
		if res.Result != "" {
			if out != "" && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			out += res.Result + "\n"
		}
		v.program(v.S.Out, v.S.OutTTY, out)
		v.program(v.S.Err, v.S.ErrTTY, res.Stderr)
		if res.OutputTruncated {
			v.Note("the server truncated the output (the end is kept)")
		}
		for _, ro := range res.RichOutputs {
			what := strings.Join(ro.MimeTypes, ", ")
			if ro.FilePath != "" {
				v.Note(fmt.Sprintf("rich output %d (%s) is on the runtime at %s", ro.Index, termtext.Cut(what, 80), termtext.Line(ro.FilePath)))
			} else {
				v.Note(fmt.Sprintf("rich output %d (%s) was dropped by the server", ro.Index, termtext.Cut(what, 80)))
			}
		}
	}
	xe := res.ExecutionError
	if xe == nil {
		return nil
	}
	if !v.AsJSON {
		tb := make([]string, 0, len(xe.Traceback)+1)
		for _, frame := range xe.Traceback {
			tb = append(tb, strings.TrimRight(termtext.Output(frame), "\n"))
		}
		if len(tb) == 0 {
			tb = append(tb, termtext.Line(xe.Name+": "+xe.Value))
		}
		v.Mu.Lock()
		fmt.Fprintln(v.S.Err, v.Red().Redact(strings.Join(tb, "\n")))
		v.Mu.Unlock()
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

// program writes the code's own output to w: the exact bytes into a pipe
// or file; on a terminal sanitized and redacted like any server text.
func (v *verb) program(w io.Writer, tty bool, s string) {
	if s == "" {
		return
	}
	if tty {
		s = v.Red().Redact(termtext.Output(s))
	}
	v.Mu.Lock()
	defer v.Mu.Unlock()
	io.WriteString(w, s)
}
