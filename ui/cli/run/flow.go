package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// deleteBound bounds deleting the run's runtime, or closing its session,
// when the run ends: a context of its own, since the run's may be the
// one a signal cancelled.
const deleteBound = 60 * time.Second

// createRecoverBound bounds re-sending a create_runtime the run cancelled
// (ctrl+c while Colab was creating): the identical request returns the
// runtime if Colab made it, so it can be deleted.
const createRecoverBound = 2 * time.Minute

// errRunTimeout is the cause of a run ended by --timeout.
var errRunTimeout = errors.New("--timeout")

// runSignalCause is the cause of a run ended by a signal (run watches
// signals itself, to delete its runtime before it exits).
type runSignalCause struct{ sig os.Signal }

func (c runSignalCause) Error() string { return "signal " + c.sig.String() }

// runSignalCode is the exit code for a run ended by sig: 128+n, as shells
// report a process killed by signal n.
func runSignalCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return kit.ExitInterrupted
}

// runState is one run: its connection, the runtime, whether the run owns
// it (created it, or may have), its session and the summary so far.
type runState struct {
	v      *verb
	conn   *kit.Connection
	base   context.Context // the process's, never cancelled by the run's end
	ctx    context.Context // the run's: a signal or --timeout cancels it
	cancel context.CancelCauseFunc
	// abandon is closed by a second signal: the cleanup stops waiting.
	abandon chan struct{}
	done    chan struct{}

	ledger         *runLedger
	req            api.CreateRuntimeRequest
	owned          bool // run created the runtime (or sent the create)
	createAnswered bool
	rt             api.Runtime
	session        string
	jc             *jupyter.Client // the runtime's files, once reached
	jobID          string          // the job run started (a script), once started
	detached       bool            // --detach and the job started: the runtime stays
	keptFor        string          // why cleanup keeps the runtime besides --keep ("": it does not)
	rep            Report
}

// Report is the JSON of `colabdash run --json`, in the file verbs'
// envelope (kit.Envelope: ok, and error on failure), then what the run did. ExitCode is the
// command's exit code; Files are the uploads and downloads, as cp --json
// lists them; Missing are the --download paths that did not exist.
type Report struct {
	kit.Envelope
	ExitCode  int             `json:"exitCode"`
	File      string          `json:"file"`
	Runtime   kit.RuntimeName `json:"runtime"`
	RequestID string          `json:"requestId,omitempty"`
	Created   bool            `json:"created"`
	Deleted   bool            `json:"deleted"`
	Kept      bool            `json:"kept"`
	Session   string          `json:"session,omitempty"`
	// Job is the id of the job a script runs as; Detached is set when
	// run returned once it started (--detach).
	Job      string `json:"job,omitempty"`
	Detached bool   `json:"detached,omitempty"`
	Stdout   string `json:"stdout,omitempty"`
	Stderr   string `json:"stderr,omitempty"`
	// ExecutionError is the script's exception (not SystemExit).
	ExecutionError *api.ExecuteError `json:"executionError,omitempty"`
	Output         string            `json:"output,omitempty"`
	FailedCell     int               `json:"failedCell,omitempty"`
	Cells          int               `json:"cells,omitempty"`
	Files          []kit.CopiedFile  `json:"files"`
	Missing        []string          `json:"missing"`
	Seconds        float64           `json:"seconds"`
}

// startRun begins watching for what ends a run early: SIGINT, SIGTERM
// and SIGHUP (or, without signal subscriptions, the end of parent, which
// is what tests do), and --timeout. The first one cancels rs.ctx with
// its cause; a second one closes rs.abandon.
func (v *verb) startRun(parent context.Context, timeout time.Duration) *runState {
	base := context.WithoutCancel(parent)
	ctx, cancel := context.WithCancelCause(base)
	rs := &runState{v: v, base: base, ctx: ctx, cancel: cancel, abandon: make(chan struct{}), done: make(chan struct{}),
		rep: Report{Files: []kit.CopiedFile{}, Missing: []string{}}}
	var (
		sigs     <-chan os.Signal
		stopSigs = func() {}
		ended    = parent.Done()
	)
	if v.S.Interrupts != nil {
		sigs, stopSigs = v.S.Interrupts() // SIGINT, SIGTERM and SIGHUP (watchedSignals)
		// A reader of stdout or stderr that went away must not kill the
		// run before it deleted its runtime: writes fail (EPIPE) instead.
		signal.Ignore(syscall.SIGPIPE)
		ended = nil // the signal itself says which it was
	}
	var (
		deadline <-chan time.Time
		timer    *time.Timer
	)
	if timeout > 0 {
		timer = time.NewTimer(timeout)
		deadline = timer.C
	}
	go func() {
		if timer != nil {
			defer timer.Stop()
		}
		defer stopSigs()
		stops := 0
		stop := func(cause error) {
			stops++
			if stops == 1 {
				cancel(cause)
				return
			}
			if stops == 2 {
				close(rs.abandon)
			}
		}
		for {
			select {
			case sig := <-sigs:
				stop(runSignalCause{sig})
			case <-ended:
				ended = nil
				stop(runSignalCause{os.Interrupt})
			case <-deadline:
				deadline = nil
				if stops == 0 {
					stop(errRunTimeout)
				}
			case <-rs.done:
				return
			}
		}
	}()
	return rs
}

// finish stops watching for signals.
func (rs *runState) finish() { close(rs.done) }

// cleanupCtx is a fresh context for the run's cleanup, bounded by bound
// and ended by a second signal.
func (rs *runState) cleanupCtx(bound time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(rs.base, bound)
	go func() {
		select {
		case <-rs.abandon:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// stoppedBy is what ended the run early: a runSignalCause, errRunTimeout,
// or nil.
func (rs *runState) stoppedBy() error {
	if rs.ctx.Err() == nil {
		return nil
	}
	return context.Cause(rs.ctx)
}

// stopError is the run's error once a signal or --timeout ended it.
func (rs *runState) stopError(what string) *kit.ExitError {
	switch c := rs.stoppedBy().(type) {
	case runSignalCause:
		return &kit.ExitError{Code: runSignalCode(c.sig), Msg: "interrupted (" + c.sig.String() + ") " + what}
	default:
		return &kit.ExitError{Code: ExitRunTimeout, Msg: "--timeout reached " + what}
	}
}

// create records the run, creates its runtime with one requestId (and a
// runtime id chosen here, so the record names the runtime before it
// exists) and waits until it is listed with a connection.
func (rs *runState) create(spec api.RuntimeSpecKey, file string) error {
	v, conn := rs.v, rs.conn
	specs, tier, err := kit.LoadSpecs(rs.ctx, conn)
	if err != nil {
		return rs.orStopped(err, "before creating a runtime; nothing was created")
	}
	var se *state.SpecError
	if err := state.CheckSpec(specs, spec, tier); errors.As(err, &se) {
		code := kit.ExitQuota
		if se.Problem == state.SpecNotOffered {
			code = kit.ExitUsage
		}
		return &kit.ExitError{Code: code, Msg: termtext.Line(se.Error())}
	}
	requestID := uuid.NewString()
	rs.req = api.CreateRuntimeRequest{Spec: spec, RequestID: requestID, RuntimeID: "run-" + requestID[:8]}
	rs.rep.RequestID = requestID
	if !v.demo() {
		endpoint, profile := v.runAccount(conn)
		l, err := beginRun(kit.StateDir(), runRecord{RequestID: requestID, Runtime: api.RuntimeName(rs.req.RuntimeID),
			Spec: spec.String(), Endpoint: endpoint, Profile: profile, File: file, PID: os.Getpid(), Started: time.Now()})
		if err != nil {
			return &kit.ExitError{Code: kit.ExitFailure, Msg: "cannot record the run in the state directory, so nothing was created (a killed run could leave a runtime behind): " + err.Error()}
		}
		rs.ledger = l
	}
	rs.owned = true
	v.Note(fmt.Sprintf("creating runtime %s (%s, requestId %s)", rs.req.RuntimeID, termtext.Cut(spec.String(), 60), requestID))
	// The rule is state's; run's presentation: after a lost reply whose
	// runtime is not listed, the identical request goes again by itself
	// (the run deletes whatever it made).
	res, err := ops.Create(rs.ctx, conn.Svc, ops.CreateRequest{CreateRuntimeRequest: rs.req},
		ops.CreateOptions{ConfirmResend: func(state.CreateDecision) bool { return true }})
	if err != nil {
		return rs.createFailed(err, spec, specs, tier)
	}
	rt := res.Runtime
	rs.createAnswered = true
	if err := state.CheckCreated(rs.req, rt); err != nil {
		// Not the runtime asked for: it is neither used nor deleted;
		// cleanup deletes only the one requested (gone already is fine).
		return &kit.ExitError{Code: kit.ExitAPI, Msg: termtext.Line(err.Error())}
	}
	rs.rt = rt
	rs.rep.Runtime, rs.rep.Created = kit.NameOf(rt.Name), true
	if rs.ledger != nil {
		if err := rs.ledger.created(rt.Name); err != nil {
			v.Note("could not update the run's record: " + err.Error())
		}
	}
	rt, err = v.WaitListed(rs.ctx, conn, rt, 0)
	if err != nil {
		return rs.orStopped(err, "while waiting for the runtime")
	}
	rs.rt = rt
	return nil
}

// createFailed is run's exit when ops.Create gave up: the stop's own
// error after a signal or --timeout, else Colab's refusal explained (no
// runtime was made, so there is nothing to delete and no record to keep)
// or the unknown outcome (the cleanup then re-sends the identical request
// to find the runtime and delete it).
func (rs *runState) createFailed(err error, spec api.RuntimeSpecKey, specs []api.RuntimeSpec, tier api.SubscriptionTier) error {
	if rs.ctx.Err() != nil {
		return rs.stopError("while creating the runtime")
	}
	var ce *ops.CreateError
	if !errors.As(err, &ce) || ce.Decision.Err == nil {
		return kit.Classify(err, rs.conn.Creds)
	}
	if ce.Decision.Step == state.CreateUnknown {
		return kit.Classify(ce.Decision.Err, rs.conn.Creds)
	}
	rs.owned = false
	if rs.ledger != nil {
		rs.ledger.end()
	}
	return rs.v.CreateFailed(ce.Decision.Err, spec, specs, tier, ce.Attempts, rs.conn)
}

// orStopped is err, or the stop's own error when a signal or --timeout
// caused it.
func (rs *runState) orStopped(err error, what string) error {
	if rs.stoppedBy() != nil {
		return rs.stopError(what)
	}
	return err
}

// cleanup closes the session the run opened on a runtime it does not own,
// and deletes the runtime it created (unless keep), each with a fresh
// bounded context. It returns an error when the runtime may be left.
func (rs *runState) cleanup(keep bool) error {
	v, conn := rs.v, rs.conn
	if !rs.owned {
		if rs.session != "" {
			ctx, cancel := rs.cleanupCtx(deleteBound)
			defer cancel()
			if err := conn.Svc.DeleteSession(ctx, rs.session); err != nil {
				v.Note("could not close session " + kit.SessionRef(rs.session) + ": " + kit.Classify(err, conn.Creds).Msg)
			}
		}
		return nil
	}
	name := api.RuntimeName(rs.req.RuntimeID)
	if rs.rt.Name != "" {
		name = rs.rt.Name
	}
	id := termtext.Cut(api.LastSegment(name), 63)
	if rs.detached && rs.createAnswered {
		// The job runs on: the runtime is the job's now, and this run
		// is no longer what deletes it.
		rs.ledger.end()
		rs.rep.Kept = true
		return nil
	}
	if keep && rs.createAnswered {
		rs.ledger.end()
		rs.rep.Kept = true
		g := v.G
		why := "--keep"
		if rs.keptFor != "" {
			why = rs.keptFor
		}
		if !kit.PasteID(api.LastSegment(name)) {
			v.Note("kept runtime " + id + " (" + why + "); " + kit.UnusualID("the runtime", api.LastSegment(name)))
			return nil
		}
		more := g.CommandOr("colabdash exec "+id+" -f FILE", "exec", id, "-f", "FILE") + " runs more"
		if rs.keptFor != "" {
			more = g.CommandOr("colabdash cp -r "+id+":/content/PATH .", "cp", "-r", id+":/content/PATH", ".") + " copies them"
		}
		v.Note("kept runtime " + id + " (" + why + "): " + g.CommandOr("colabdash ls "+id+":/content", "ls", id+":/content") + " lists its files; " +
			more + "; " + g.CommandOr("colabdash delete "+id, "delete", id) + " deletes it")
		return nil
	}
	if stop := rs.stoppedBy(); stop != nil {
		v.Note("deleting runtime " + id + " (at most " + state.FormatDuration(deleteBound) + "; a second ctrl+c abandons it)")
	}
	recovered := true
	if !rs.createAnswered {
		// The create was cut short: the identical request says whether
		// Colab made the runtime (and waits for it), so it can go.
		ctx, cancel := rs.cleanupCtx(createRecoverBound)
		rt, err := conn.Svc.CreateRuntime(ctx, rs.req)
		cancel()
		if err == nil && state.CheckCreated(rs.req, rt) != nil {
			v.Note(termtext.Line(state.CheckCreated(rs.req, rt).Error()))
		} else if err == nil {
			name = rt.Name
			rs.rep.Created = true
		} else if ctx.Err() != nil {
			recovered = false
		}
	}
	ctx, cancel := rs.cleanupCtx(deleteBound)
	defer cancel()
	err := conn.Svc.DeleteRuntime(ctx, name)
	ae := kit.AsAPIError(err)
	if err == nil || ae != nil && ae.Code == api.NotFound && recovered {
		rs.ledger.end()
		rs.rep.Deleted = err == nil
		rs.rep.Runtime = kit.NameOf(name)
		if err == nil {
			v.Note("deleted runtime " + id)
		}
		return nil
	}
	rs.ledger.release()
	why := "the create was cut short and its outcome is unknown"
	if err != nil && ae == nil || ae != nil && ae.Code != api.NotFound {
		why = kit.Classify(err, conn.Creds).Msg
	}
	g := rs.v.G
	del := "colabdash delete (" + kit.UnusualID("the runtime", api.LastSegment(name)) + ")"
	if kit.PasteID(api.LastSegment(name)) {
		del = g.CommandOr("colabdash delete "+id+" --yes --ignore-missing", "delete", id, "--yes", "--ignore-missing")
	}
	return &kit.ExitError{Code: kit.ExitAPI, Msg: "runtime " + id + " may be left running (" + why + "): delete it with " +
		del + ", or " + g.CommandOr("colabdash run --reap", "run", "--reap")}
}

// reap is run --reap: it deletes the runtimes of runs that did not
// finish, naming each and asking on a terminal; yes (--yes) deletes
// without asking. Without a terminal and without --yes it refuses
// before anything is read (exit 2).
func (v *verb) reap(cmd *cobra.Command, yes bool) error {
	if !yes && !v.CanPrompt() {
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "refusing to delete without confirmation: stdin or stderr is not a terminal; pass --yes to run --reap"}
	}
	conn, err := v.Connect(cmd.Context())
	if err != nil {
		return err
	}
	defer conn.Close()
	deleted, found, err := v.reapLeftovers(cmd.Context(), conn, !yes)
	if v.AsJSON {
		rep := kit.DeleteReport{Envelope: kit.Envelope{OK: err == nil}, Runtimes: []kit.DeleteEntry{}}
		if err != nil {
			rep.Envelope = kit.Failure(err, v.Red())
		}
		for _, name := range deleted {
			rep.Runtimes = append(rep.Runtimes, kit.DeleteEntry{Name: name, Deleted: true})
		}
		if jerr := v.WriteJSON(rep); jerr != nil && err == nil {
			return jerr
		}
	} else if found == 0 && err == nil {
		v.Note("no runtime left by an unfinished run")
	}
	return err
}
