package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/client"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// execRun is one exec from the resolved session on: the call in flight,
// the signals, --timeout, and how the command leaves (finished, stopped
// or detached).
type execRun struct {
	v    *verb
	o    execOptions
	conn *kit.Connection
	// base is the command's context without its cancellation: ctrl+c is
	// exec's own business.
	base    context.Context
	sigs    <-chan os.Signal
	session string
	// target is the TARGET argument; guessed: session is a new session of
	// the runtime TARGET names as a full id, not looked up in a listing
	// (retarget reads TARGET as a prefix when no runtime has that id).
	target  string
	guessed bool
	req     api.ExecuteCodeRequest // the call in flight
	// closes: exec closes the session when it ends, on every path (a
	// session it opened and was not told to --keep, or --rm).
	closes bool
	hint   string // how to reattach, for every line that leaves a run going ("" when closes)

	done          chan execOutcome
	cancelCall    context.CancelFunc
	interruptDone chan error
	deadline      <-chan time.Time
	// detached: the command leaves a run going server-side. Closing the
	// MCP session then is not waited for: the server may hold its DELETE
	// until the abandoned call has noticed it was cancelled, and go-sdk
	// waits up to 5 s for it, so ctrl+c, d took 5 s to detach.
	detached bool
}

type execOutcome struct {
	res api.ExecuteCodeResult
	err error
}

// closeConn closes the connection, without waiting when detached.
func (x *execRun) closeConn() {
	if x.detached {
		go x.conn.Close()
		return
	}
	x.conn.Close()
}

// resolve finds the session TARGET names (or opens one), with ctrl+c
// stopping it before any code is sent. A runtime named by a full id
// (RFC 1034, as Colab's ids are) in a session exec closes needs no call
// at all: execute_code creates the new session it names, and the code
// goes in the first round trip after the connection's; only an id that
// names no runtime costs the listing that resolves it as a prefix
// (retarget).
func (x *execRun) resolve(target string) error {
	x.target = target
	if _, _, isSession := kit.SplitSessionArg(target); !isSession && !x.o.keep && x.o.executionID == "" {
		if id := ops.RuntimeID(target); api.ValidateID(id) == nil {
			x.session, x.guessed, x.closes = api.RuntimeName(id)+"/sessions/"+state.NewSessionID(), true, true
			return nil
		}
	}
	prep, cancelPrep := context.WithCancel(client.ListToolsEarly(x.base)) // its schema calls follow: tools/list goes alongside the first call
	defer cancelPrep()
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		select {
		case sig := <-x.sigs:
			x.v.S.Signals.Record(sig)
			cancelPrep() // ctrl+c before the code was sent: just stop
		case <-prep.Done():
		}
	}()
	session, opened, err := x.v.execTarget(prep, x.conn, target, x.o)
	interrupted := prep.Err() != nil
	cancelPrep()
	<-watching // from here on the signals are follow's
	x.session = session
	x.closes = opened && !x.o.keep || x.o.rm
	switch {
	case interrupted:
		if opened {
			x.closeQuietly()
		}
		return &kit.ExitError{Code: kit.ExitInterrupted, Msg: "interrupted before the code was sent"}
	case err != nil:
		return err
	case x.o.rm && !x.v.OpenedByColabdash(session):
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "--rm closes only a session colabdash opened (colabdash-…); " + kit.SessionRef(session) + " is probably a notebook's: leave --rm out"}
	}
	return nil
}

// start sends req in the background (runCode: the reattach rule applies).
func (x *execRun) start(req api.ExecuteCodeRequest) {
	x.req = req
	x.done = make(chan execOutcome, 1)
	x.interruptDone = make(chan error, 1)
	var callCtx context.Context
	callCtx, x.cancelCall = context.WithCancel(x.base)
	go func() {
		res, err := x.v.runCode(callCtx, x.conn, req)
		x.done <- execOutcome{res, err}
	}()
}

// follow waits for the code's outcome, --timeout, or signals: the first
// ctrl+c interrupts the kernel, a second one asks to stop or detach
// (without a terminal: detaches); SIGTERM and SIGHUP detach at once.
func (x *execRun) follow() error {
	if x.o.timeout > 0 {
		t := time.NewTimer(x.o.timeout)
		defer t.Stop()
		x.deadline = t.C
	}
	for {
		select {
		case r := <-x.done:
			if ae := kit.AsAPIError(r.err); x.guessed && ae != nil && ae.Code == api.NotFound {
				if err := x.retarget(); err != nil {
					return err
				}
				continue
			}
			return x.finished(r.res, r.err)
		case <-x.deadline:
			return x.detach(x.timedOut())
		case err := <-x.interruptDone:
			x.noteInterrupted(err)
			continue
		case sig := <-x.sigs:
			x.v.S.Signals.Record(sig)
			if sig != os.Interrupt {
				return x.detach(x.detachedErr())
			}
			if x.closes && x.v.interrupted {
				// Nothing to detach from: the session goes with exec.
				return x.stopCode()
			}
			// The first ctrl+c interrupts the kernel, as jupyter console
			// does: KeyboardInterrupt in the code, the session's state kept.
			if !x.v.interrupted {
				x.interruptKernel()
				continue
			}
		}
		if !x.v.CanPrompt() {
			return x.detach(x.detachedErr())
		}
		if err, ended := x.ask(); ended {
			return err
		}
	}
}

// retarget runs the code again after TARGET, read as a full runtime id,
// named no runtime (execute_code's NOT_FOUND: nothing ran and no session
// was made): a listing resolves it as a prefix, or says why it cannot,
// and the code goes to a new session of the runtime found.
func (x *execRun) retarget() error {
	x.cancelCall() // the refused call's context
	x.guessed, x.closes = false, false
	rt, err := kit.FindRuntime(x.base, x.conn, x.target)
	if err != nil {
		return err
	}
	x.session, x.closes = rt.Name+"/sessions/"+state.NewSessionID(), true
	req := x.req
	req.Session = x.session
	x.v.noteRunning(x, req)
	x.start(req)
	return nil
}

func (x *execRun) timedOut() error {
	if x.closes {
		return &kit.ExitError{Code: kit.ExitTimeout, Msg: fmt.Sprintf("gave up waiting after --timeout %s; closed session %s, which stopped the code (--keep leaves it running)", x.o.timeout, kit.SessionRef(x.session))}
	}
	return &kit.ExitError{Code: kit.ExitTimeout, Msg: fmt.Sprintf("gave up waiting after --timeout %s; %s", x.o.timeout, x.hint)}
}

func (x *execRun) detachedErr() error {
	if x.closes {
		return &kit.ExitError{Code: kit.ExitInterrupted, Msg: "stopped: closed session " + kit.SessionRef(x.session)}
	}
	return &kit.ExitError{Code: kit.ExitInterrupted, Msg: "detached; " + x.hint}
}

// interruptKernel sends the kernel an interrupt in the background; its
// answer comes on interruptDone.
func (x *execRun) interruptKernel() {
	x.v.interrupted = true
	x.v.Note("ctrl+c: interrupting the kernel (KeyboardInterrupt in the code; ctrl+c again to " + x.again() + ")")
	go func() {
		_, err := x.v.interruptKernel(x.base, x.conn, x.session)
		x.interruptDone <- err
	}()
}

func (x *execRun) noteInterrupted(err error) {
	if err != nil {
		x.v.Note("could not interrupt the kernel: " + kit.Classify(err, x.conn.Creds).Msg + "; ctrl+c again to " + x.again())
		return
	}
	x.v.Note("interrupted the kernel; waiting for the code to stop (ctrl+c again to " + x.again() + ")")
}

// again is what a second ctrl+c does: stop, in a session exec closes;
// else it asks.
func (x *execRun) again() string {
	if x.closes {
		return "stop it"
	}
	return "stop or detach"
}

// abandon stops waiting for the call and returns err once the call has
// noticed (nothing writes to stderr behind our back afterwards).
func (x *execRun) abandon(err error) error {
	x.cancelCall()
	<-x.done
	return err
}

// detach abandons the call and leaves the run going: nothing more to
// wait for. A session exec closes is closed instead (err then says so).
func (x *execRun) detach(err error) error {
	if x.closes {
		x.abandon(nil)
		return x.closeAfter(err)
	}
	x.detached = true
	err = x.abandon(err)
	// Its own line: the error's line ends with the command that
	// reattaches, to paste.
	x.v.Note("the session stays open; " + x.v.G.CloseSessionHint(x.session))
	return err
}

// ask asks (after a second ctrl+c) whether to stop the code or detach,
// while the code may still finish. ended is false when the answer was to
// keep waiting.
func (x *execRun) ask() (err error, ended bool) {
	answer, endAsk := x.prompt()
	defer endAsk() // a panic too leaves the terminal as it was
	select {
	case r := <-x.done:
		endAsk()
		return x.finished(r.res, r.err), true
	case <-x.deadline:
		endAsk()
		return x.detach(x.timedOut()), true
	case sig := <-x.sigs: // another ctrl+c (or SIGTERM): leave at once
		x.v.S.Signals.Record(sig)
		endAsk()
		return x.detach(x.detachedErr()), true
	case a := <-answer:
		switch strings.ToLower(a) {
		case "s":
			return x.stopCode(), true
		case "d", "ctrl+c":
			return x.detach(x.detachedErr()), true
		}
		x.v.Note("still waiting")
		return nil, false
	}
}

// prompt puts the stop-or-detach question and reads the answer in the
// background: one key on a terminal (raw mode, restored by endAsk on
// every path), else a line.
func (x *execRun) prompt() (answer <-chan string, endAsk func()) {
	v := x.v
	ch := make(chan string, 1)
	q := "\nStop the code (s: closes session " + kit.SessionRef(x.session) + ", its state is lost) or detach (d: it keeps running)? "
	kp := v.openKeyPrompt()
	endAsk = func() {
		if kp != nil && kp.close() {
			v.Mu.Lock()
			fmt.Fprintln(v.S.Err)
			v.Mu.Unlock()
		}
	}
	if kp == nil {
		go func() {
			a, _, _ := v.Ask(x.base, q+"Type s or d, then Enter (anything else: keep waiting): ")
			ch <- a
		}()
		return ch, endAsk
	}
	// The question first, while line ends still return the carriage;
	// then raw mode.
	v.Mu.Lock()
	fmt.Fprint(v.S.Err, termtext.Block(v.Red().Redact(q+"Press s or d (any other key: keep waiting) ")))
	v.Mu.Unlock()
	if kp.raw() != nil {
		kp = nil
		v.Mu.Lock()
		fmt.Fprint(v.S.Err, "then Enter: ")
		v.Mu.Unlock()
		go func() {
			a, _ := v.ReadLine(x.base)
			ch <- strings.TrimSpace(a)
		}()
		return ch, endAsk
	}
	k := kp
	go func() {
		b, err := k.read()
		if k.close() {
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
			ch <- "ctrl+c"
			return
		}
		ch <- string(rune(b))
	}()
	return ch, endAsk
}

// stopCode is the answer s: the code is stopped by closing its session.
func (x *execRun) stopCode() error {
	x.abandon(nil)
	if err := ops.CloseSession(x.base, x.conn.Svc, x.session); err != nil {
		msg := "could not stop the code: delete_session: " + kit.Classify(err, x.conn.Creds).Msg + "; " + x.v.G.CloseSessionHint(x.session)
		return &kit.ExitError{Code: kit.ExitAPI, Msg: msg}
	}
	return &kit.ExitError{Code: kit.ExitInterrupted, Msg: "stopped: closed session " + kit.SessionRef(x.session)}
}

// finished prints the outcome and closes the session when exec closes it
// (x.closes), after the output: the code's words come first.
func (x *execRun) finished(res api.ExecuteCodeResult, err error) error {
	out := x.v.execDone(res, err, x.session, x.hint, x.conn)
	if !x.closes {
		return out
	}
	var ee *kit.ExitError
	if errors.As(out, &ee) && (ee.Code == kit.ExitInterrupted || mayBeRunning(err)) {
		// execDone said the session keeps its state, or left the code
		// perhaps running: the close below ends both.
		if ee.Code == kit.ExitInterrupted {
			ee.Msg = "interrupted: the code raised KeyboardInterrupt"
		}
		ee.Msg += "; closed session " + kit.SessionRef(x.session)
	}
	return x.closeAfter(out)
}

// closeAfter closes the session exec closes and returns out, or, when
// the close failed, the one line that says so and how to close it.
func (x *execRun) closeAfter(out error) error {
	derr := ops.CloseSession(x.base, x.conn.Svc, x.session)
	if derr == nil {
		return out
	}
	msg := "could not close session " + kit.SessionRef(x.session) + ": " + kit.Classify(derr, x.conn.Creds).Msg + "; " + x.v.G.CloseSessionHint(x.session)
	if out == nil {
		return &kit.ExitError{Code: kit.ExitAPI, Msg: msg}
	}
	x.v.Note(msg) // the run's own failure stays the exit code
	return out
}

// closeQuietly closes the session exec opened when nothing was sent in it
// (ctrl+c while opening); a failure is said on stderr.
func (x *execRun) closeQuietly() {
	if x.session == "" {
		return
	}
	if derr := ops.CloseSession(x.base, x.conn.Svc, x.session); derr != nil {
		x.v.Note("could not close session " + kit.SessionRef(x.session) + ": " + kit.Classify(derr, x.conn.Creds).Msg + "; " + x.v.G.CloseSessionHint(x.session))
	}
}

// mayBeRunning reports whether err, the end of a run, may leave the code
// running on the server (the reattach rule gave up on a reattachable
// failure or a lost reply): exec then says how to reattach.
func mayBeRunning(err error) bool {
	ae := kit.AsAPIError(err)
	return ae != nil && (ae.Reattachable() || ae.OutcomeUnknown)
}
