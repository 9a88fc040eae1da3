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
)

// Root is the contents path of the jobs directory ("var/colabdash/jobs",
// /var/colabdash/jobs on a Colab runtime, whose Jupyter root is /). It is
// outside /content so that a copy of /content never carries logs, and not
// hidden, since Jupyter neither lists nor serves hidden paths.
const Root = "var/colabdash/jobs"

// File names inside a job's directory.
const (
	SpecFile       = "spec.json"
	SupervisorFile = "supervise.py"
	StatusFile     = "status.json"
	LogFile        = "log"
	StderrFile     = "stderr.ranges"
	StopFile       = "stop"
)

// LauncherMarker is the first line of LauncherCode: the emulator knows a
// job launch by it.
const LauncherMarker = "# colabdash: start a job"

// HeartbeatEvery is how often a running job's supervisor rewrites
// status.json (5 s); LostAfter is how long without a heartbeat makes a
// job that has not recorded its end lost (60 s, clock skew included).
const (
	HeartbeatEvery = 5 * time.Second
	LostAfter      = 60 * time.Second
)

// DefaultGrace is the time between stop's SIGTERM and its SIGKILL (10 s).
const DefaultGrace = 10 * time.Second

// ErrBadID: a job id that is not ours (see ValidID).
var ErrBadID = errors.New("not a job id")

// Spec is spec.json: what the job runs. Cwd and File are contents paths
// (no leading slash: "content", "content/train.py"); the job runs
// `python File Args...` in Cwd with argv[0] = Argv0 (FILE as the user
// gave it when that is a relative path without "..", else its base name).
type Spec struct {
	ID      string    `json:"id"`
	Cwd     string    `json:"cwd"`
	File    string    `json:"file"`
	Argv0   string    `json:"argv0"`
	Args    []string  `json:"args"`
	Created time.Time `json:"created"`
}

// Status is status.json as the supervisor writes it. Pid is the job's
// process (a process group leader: its pgid is Pid). Ended is zero while
// the job runs; then ExitCode is its status (>= 0), or Signal the signal
// that ended it (> 0, ExitCode -1). Stopping is set once a stop was seen.
// Heartbeat is the supervisor's clock at its last write.
type Status struct {
	Pid       int       `json:"pid"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended,omitzero"`
	ExitCode  int       `json:"exit_code"`
	Signal    int       `json:"signal,omitempty"`
	Stopping  bool      `json:"stopping,omitempty"`
	Heartbeat time.Time `json:"heartbeat"`
	Error     string    `json:"error,omitempty"` // the supervisor could not start the job
}

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
