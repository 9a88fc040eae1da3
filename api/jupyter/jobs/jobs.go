// Package jobs is colabdash's job protocol on a runtime: a job is a real
// process, `python FILE ARGS`, started by a small supervisor of its own
// session and process group, so that the client leaving, the network
// dropping, the proxy token expiring or a kernel restarting does not end
// it. Everything a job has lives in one directory on the runtime, read and
// written through the runtime's Jupyter server (the contents API and
// /files/ with Range), never through a kernel once the job is started:
//
//	/var/colabdash/jobs/ID/          (contents path var/colabdash/jobs/ID)
//	  spec.json       what to run (Spec), written by the client first
//	  supervise.py    the supervisor (SupervisorSource), written by the client
//	  status.json     the supervisor's record (Status), replaced atomically,
//	                  rewritten every HeartbeatEvery while the job runs
//	  log             the job's stdout and stderr, merged, as written
//	  stderr.ranges   "OFFSET LENGTH\n" for each piece of log from stderr
//	  stop            present: the client asked to stop (its text: the
//	                  grace in seconds before SIGKILL)
//
// Starting a job needs one execute_code (LauncherCode), whose kernel only
// forks the supervisor and returns; the package does not call MCP itself
// (the caller runs the launcher, see ui/ops).
package jobs

import (
	"errors"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs/jobwire"
)

// The layout and formats are package jobwire's (the emulator shares
// them); they are named here too so that callers name one package.
const (
	// Root is the contents path of the jobs directory (jobwire.Root).
	Root = jobwire.Root
	// SpecFile … StopFile are the file names inside a job's directory.
	SpecFile       = jobwire.SpecFile
	SupervisorFile = jobwire.SupervisorFile
	StatusFile     = jobwire.StatusFile
	LogFile        = jobwire.LogFile
	StderrFile     = jobwire.StderrFile
	StopFile       = jobwire.StopFile
	// LauncherMarker is the first line of LauncherCode.
	LauncherMarker = jobwire.LauncherMarker
	// LaunchLinePrefix starts the launcher's one line of output.
	LaunchLinePrefix = jobwire.LaunchLinePrefix
	// HeartbeatEvery and LostAfter: a running job's status.json is
	// rewritten every HeartbeatEvery; without one for LostAfter, a job
	// that recorded no end is lost.
	HeartbeatEvery = jobwire.HeartbeatEvery
	LostAfter      = jobwire.LostAfter
	// DefaultGrace is the time between stop's SIGTERM and its SIGKILL.
	DefaultGrace = jobwire.DefaultGrace
)

// Spec is spec.json: what the job runs (jobwire.Spec).
type Spec = jobwire.Spec

// Status is status.json as the supervisor writes it (jobwire.Status).
type Status = jobwire.Status

// Dir is the contents path of job id's directory.
func Dir(id string) string { return jobwire.Dir(id) }

// ErrBadID: a job id that is not ours (see ValidID).
var ErrBadID = errors.New("not a job id")

// Record is one job as read from its runtime: its spec, its status (nil
// before the supervisor wrote one) and status.json's last_modified on the
// runtime's clock.
type Record struct {
	Runtime  string // runtimes/ID
	Spec     Spec
	Status   *Status
	Modified time.Time
	LogSize  int64 // -1: unknown
}
