package ops

import (
	"context"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

// JobRequest is a job to start on a runtime that is listed and reachable.
type JobRequest struct {
	// Runtime is the runtime's name (runtimes/ID).
	Runtime string
	// File is the script as the user named it (a local path) and Script
	// its bytes; Args its arguments.
	File   string
	Script []byte
	Args   []string
}

// StartJob starts req as a job (api/jupyter/jobs): it uploads the script
// under /content, writes the job's directory (jobs.Prepare) and runs the
// launcher through execute_code in a session of its own, which it then
// closes (CloseSession). It returns the job's spec. Errors: the Jupyter
// client's, execute_code's (as the API gave them), or the launcher's
// refusal (jobs.ParseLaunch).
func StartJob(ctx context.Context, svc api.Service, jc *jupyter.Client, req JobRequest) (jobs.Spec, error) {
	return startJob(ctx, svc, jc, req)
}

// LogChunk is what one LogSource.Next brought: Data new bytes of the log
// (raw: the caller sanitizes or filters them) starting at log offset Off,
// Stderr the pieces of Data that came from stderr (jobs only, when asked),
// and Ended, set once the source has ended and everything before its end
// was delivered: the job's final status (nil for a kernel's output).
type LogChunk struct {
	Data   []byte
	Off    int64
	Stderr []jobs.Range
	Ended  *jobs.Status
	// Note is a line for the user from the source itself (a reconnect,
	// "output from before attaching is not available"), or "".
	Note string
}

// LogSource is a log being followed: a job's (JobLog) or a kernel's
// output channel (KernelLog). Next blocks until something is new, the
// source ends, interval passes (an empty chunk) or ctx ends.
type LogSource interface {
	Next(ctx context.Context) (LogChunk, error)
	Close() error
}

// JobLogOptions steer JobLog.
type JobLogOptions struct {
	// From is the log offset to start at; Tail > 0 starts at the last
	// Tail lines instead.
	From int64
	Tail int
	// Follow keeps going until the job ends; false ends after what the
	// log holds now.
	Follow bool
	// Stderr also reads stderr.ranges (run: a second request per poll).
	Stderr bool
	// Interval is the poll interval (0: one second).
	Interval time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// JobLog follows job id's log on the runtime jc reaches. Each poll makes
// at most one proxy request (two with Stderr): new bytes of the log while
// there are some, else status.json; a log of any size is read only in its
// new bytes. Token renewals and reconnects neither lose nor repeat a byte.
// Next returns io.EOF after the last chunk (with Follow, the one whose
// Ended is the job's final status), state.ErrJobLost when the job was
// lost, and a read's error once reads kept failing for
// state.LogRetryFor or cannot succeed (the runtime is gone); a read that
// failed on the network is an empty chunk, with a Note the first time.
func JobLog(jc *jupyter.Client, id string, o JobLogOptions) LogSource {
	return newJobLog(jupyterJob{jc: jc, id: id}, o)
}
