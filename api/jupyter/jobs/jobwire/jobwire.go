// Package jobwire is the part of colabdash's job protocol that both ends
// share without a Jupyter client: the directory layout a job keeps on its
// runtime, the formats of spec.json and status.json, and the launcher's
// marker and answer. Package api/jupyter/jobs reads and writes them through
// a runtime's Jupyter server; the emulator (api/colabfake) serves them.
// It imports nothing of colabdash's, so the emulator can use it without
// an import cycle through the Jupyter client.
package jobwire

import "time"

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

// LauncherMarker is the first line of jobs.LauncherCode: the emulator knows a
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

// LaunchLinePrefix starts the launcher's one line of output: it is
// followed by JSON, {"pid": N} or {"error": "..."}.
const LaunchLinePrefix = "colabdash-job "

// Dir is the contents path of job id's directory.
func Dir(id string) string { return Root + "/" + id }
