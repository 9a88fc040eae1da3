package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api/jupyter"
	rjobs "github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/termtext"
)

// LogsReport is `colabdash logs --json`: the job, and the piece of its
// log printed, [From, To) in bytes, as text (invalid UTF-8 replaced).
// Truncated says the piece was longer than --json keeps (8 MiB) and only
// its end is here.
type LogsReport struct {
	kit.Envelope
	Job       *JobEntry `json:"job,omitempty"`
	From      int64     `json:"from"`
	To        int64     `json:"to"`
	Log       string    `json:"log"`
	Truncated bool      `json:"truncated,omitempty"`
}

// maxJSONLog bounds the log logs --json holds (8 MiB: the end is kept).
const maxJSONLog = 8 << 20

// pollEvery is how often a followed log is polled (a variable for tests).
var pollEvery = time.Second

// now is the verbs' clock (tests replace it).
var now = time.Now

func logsCmd(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "logs")
	var follow bool
	var tail int
	cmd := &cobra.Command{
		Use:   "logs JOB | RUNTIME/SESSION",
		Short: "Print a job's log, or follow it to the job's end (-f); or a kernel's output, live",
		Long: "logs prints the log of JOB (its stdout and stderr as written, from the first byte; --tail N\n" +
			"the last N lines). JOB is a job id as run --detach printed it, or RUNTIME/JOB; the runtime is\n" +
			"the one this machine started it on, else the listed runtime that has it. With -f it follows\n" +
			"the log until the job ends (one request a second: the new bytes, else the job's status),\n" +
			"across token renewals and dropped connections, and exits with the job's exit status.\n" +
			"Into a pipe or a file the log's bytes go as they are; on a terminal, its carriage returns and\n" +
			"colours are drawn (a progress bar shows its latest state) and every other control is shown\n" +
			"inert. Secrets colabdash knows are redacted either way.\n" +
			"logs RUNTIME/SESSION (a notebook's session, as sessions lists it; RUNTIME/sessions/SESSION\n" +
			"too) attaches to that kernel's output channel and prints, live, what cells run from anywhere\n" +
			"(the browser, another client) print, progress bars included, until ctrl+c; output from before\n" +
			"it attached is not available.\n" +
			kit.JSONHelp + "\n" + exitCodesHelp + kit.ExitCodesHelp,
		Example: "  colabdash logs train-4kq9zt -f\n  colabdash logs rt-abc/train-4kq9zt --tail 20\n" +
			"  colabdash logs train-4kq9zt > train.log\n" +
			"  colabdash logs rt-abc/notebook-ab12cd34   # what the notebook's cells print, live",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeJobs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if tail < 0 {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: "--tail must not be negative"}
			}
			return v.logs(cmd.Context(), args[0], follow, tail)
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "follow the log until the job ends, then exit with its exit status")
	kit.IntVar(cmd.Flags(), &tail, "tail", 0, "a whole number of lines", "start at the last N lines (0: the whole log)")
	v.JSONFlags(cmd, "print one JSON document: {ok, job, from, to, log} (with -f, once the job ended)")
	return cmd
}

// logs is `logs ARG`.
func (v *verb) logs(ctx context.Context, arg string, follow bool, tail int) error {
	b, err := connect(ctx, v)
	if err != nil {
		return err
	}
	defer b.Close()
	if rt, session, ok := kit.SplitSessionArg(arg); ok && strings.Contains(arg, "/sessions/") {
		return v.kernelLogs(ctx, b, rt, session, tail, true)
	}
	f, err := v.locate(ctx, b, arg)
	var ee *kit.ExitError
	if rt, session, ok := kit.SplitSessionArg(arg); ok && errors.As(err, &ee) && ee.Code == kit.ExitNotFound {
		// RUNTIME/X names no job there: X may be a notebook's session.
		if kerr := v.kernelLogs(ctx, b, rt, session, tail, false); !errors.Is(kerr, errNoSession) {
			return kerr
		}
	}
	if err != nil {
		return err
	}
	src := f.rj.Log(f.id, ops.JobLogOptions{Tail: tail, Follow: follow, Interval: pollEvery, Now: now})
	defer src.Close()
	out := newLogOut(v.S.Out, v.S.OutTTY, v.ColorOn(v.S.OutTTY), v.Red())
	rep := LogsReport{From: -1}
	var logText []byte // --json: the log printed, its end when longer than maxJSONLog
	var end *rjobs.Status
	for {
		c, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			_ = out.Flush()
			rep.Log, rep.Truncated = jsonLog(logText, rep.Truncated)
			if ctx.Err() != nil {
				return &kit.ExitError{Code: kit.ExitInterrupted, Msg: fmt.Sprintf("stopped reading the log of %s; the job goes on", f.ref())}
			}
			return v.logFailed(f, err, &rep)
		}
		if c.Note != "" {
			v.Note(c.Note)
		}
		if len(c.Data) > 0 {
			if rep.From < 0 {
				rep.From = c.Off
			}
			rep.To = c.Off + int64(len(c.Data))
			if v.AsJSON {
				logText = append(logText, c.Data...)
				if len(logText) > 2*maxJSONLog { // keep the end, copying seldom
					logText, rep.Truncated = append(logText[:0:0], logText[len(logText)-maxJSONLog:]...), true
				}
			} else if err := out.Write(c.Data); err != nil {
				return &kit.ExitError{Code: kit.ExitFailure, Msg: "writing the log: " + err.Error()}
			}
		}
		if c.Ended != nil {
			end = c.Ended
		}
	}
	if err := out.Flush(); err != nil {
		return &kit.ExitError{Code: kit.ExitFailure, Msg: "writing the log: " + err.Error()}
	}
	if end != nil {
		f.rec.Status = end
	}
	if rep.From < 0 {
		rep.From = rep.To
	}
	e := entry(f.rec, now())
	rep.Job, rep.OK = &e, true
	if follow && end != nil {
		rep.Envelope = jobEnvelope(&e)
	}
	if v.AsJSON {
		rep.Log, rep.Truncated = jsonLog(logText, rep.Truncated)
		if err := v.WriteJSON(rep); err != nil {
			return err
		}
	}
	if !follow || end == nil {
		return nil
	}
	return v.jobExit(f, judge(f.rec, now()), true)
}

// jobExit is the verb's result for a job that ended: its exit status,
// quietly when the log just shown says why (logShown) and no signal
// ended the job, else with a line saying how it ended; or why it has
// none.
func (v *verb) jobExit(f *found, jv jobView, logShown bool) error {
	switch {
	case jv.lost:
		return &kit.ExitError{Code: ExitLost, Msg: lostMsg(f)}
	case jv.state == "failed":
		return &kit.ExitError{Code: kit.ExitFailure, Msg: fmt.Sprintf("job %s could not start: %s", f.ref(), termtext.Cut(jv.err, 300))}
	case jv.exit > 0 && !v.AsJSON && (jv.signal != nil || !logShown):
		// A kill is in no log, and wait shows no log: say how it ended
		// (--json's error says it already).
		return &kit.ExitError{Code: jv.exit, Msg: fmt.Sprintf("job %s %s", f.ref(), jv.word)}
	case jv.exit > 0: // the log just printed says why
		return &kit.ExitError{Code: jv.exit}
	}
	return nil
}

// lostMsg says that job f was lost.
func lostMsg(f *found) string {
	return fmt.Sprintf("job %s was lost: its supervisor stopped without recording an end (the runtime may have restarted); its exit status is unknown", f.ref())
}

// logFailed is the verb's result when following failed: a lost job,
// the runtime gone, or a read that kept failing.
func (v *verb) logFailed(f *found, err error, rep *LogsReport) error {
	var ee *kit.ExitError
	if errors.Is(err, state.ErrJobLost) {
		ee = &kit.ExitError{Code: ExitLost, Msg: lostMsg(f)}
	} else {
		ee = kit.FileError(err, nil)
	}
	if v.AsJSON {
		rep.Envelope = kit.Failure(ee, v.Red())
		if rep.From < 0 {
			rep.From = rep.To
		}
		_ = v.WriteJSON(rep)
	}
	return ee
}

// jsonLog is the log logs --json prints: its last maxJSONLog bytes
// (truncated says some were left out), invalid UTF-8 replaced.
func jsonLog(b []byte, truncated bool) (string, bool) {
	if len(b) > maxJSONLog {
		b, truncated = b[len(b)-maxJSONLog:], true
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), truncated
}

// jobEnvelope is the envelope of a document about job e once it ended:
// ok when it exited 0, else a failure saying how it ended (code
// "failed", as exec says of code that exited non-zero).
func jobEnvelope(e *JobEntry) kit.Envelope {
	switch {
	case e.ExitCode != nil && *e.ExitCode == 0:
		return kit.Envelope{OK: true}
	case e.ExitCode != nil:
		return kit.Fail(kit.ExitFailure, fmt.Sprintf("the job exited %d", *e.ExitCode))
	case e.Signal != nil:
		return kit.Fail(kit.ExitFailure, "the job was killed by "+signalName(*e.Signal))
	case e.State == "lost":
		return kit.Fail(kit.ExitFailure, "the job was lost")
	case e.State == "failed":
		return kit.Fail(kit.ExitFailure, "the job could not start")
	}
	return kit.Envelope{OK: true}
}

// errNoSession: kernelLogs found no kernel for the session (a RUNTIME/X
// that named no job either keeps the job's not-found error).
var errNoSession = errors.New("no such session")

// kernelLogs is `logs RUNTIME/SESSION`: what the kernel of that session
// prints, live, until ctrl+c or the kernel is gone. named says the
// argument named a session in so many words (RUNTIME/sessions/S): a
// session without a kernel is then not found, else errNoSession.
func (v *verb) kernelLogs(ctx context.Context, b backend, rtArg, session string, tail int, named bool) error {
	rts, err := b.Runtimes(ctx)
	if err != nil {
		return b.Classify(err)
	}
	rt, err := kit.ResolveRuntime(rts, rtArg)
	if err != nil {
		if named {
			return err
		}
		return errNoSession
	}
	rj, err := b.Open(ctx, rt)
	if err != nil {
		return b.Classify(err)
	}
	src, err := rj.KernelLog(ctx, session)
	switch {
	case errors.Is(err, jupyter.ErrNoKernel) && named:
		return &kit.ExitError{Code: kit.ExitNotFound, Msg: fmt.Sprintf("no kernel for session %s on runtime %s (colabdash sessions lists them)",
			termtext.Cut(session, 80), termtext.Cut(rt.ID(), 63))}
	case errors.Is(err, jupyter.ErrNoKernel):
		return errNoSession
	case err != nil:
		return b.Classify(err)
	}
	defer src.Close()
	if tail > 0 || v.AsJSON {
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "a kernel's output has no past to read: --tail and --json are for jobs"}
	}
	out := newLogOut(v.S.Out, v.S.OutTTY, v.ColorOn(v.S.OutTTY), v.Red())
	defer out.Flush()
	for {
		c, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			_ = out.Flush()
			if ctx.Err() != nil {
				return &kit.ExitError{Code: kit.ExitInterrupted, Msg: "stopped reading the kernel's output"}
			}
			return b.Classify(err)
		}
		if c.Note != "" {
			_ = out.Flush()
			v.Note(c.Note)
		}
		if err := out.Write(c.Data); err != nil {
			return &kit.ExitError{Code: kit.ExitFailure, Msg: "writing the output: " + err.Error()}
		}
	}
}
