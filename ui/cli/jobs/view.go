package jobs

import (
	"time"

	rjobs "github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// jobView is a job judged at one instant, as the verbs show it.
type jobView struct {
	word     string // the table's state: "running", "exited 3", "killed by SIGTERM", "lost"…
	state    string // --json's state: starting, running, stopping, exited, killed, failed, lost
	ended    bool   // exited, killed, failed or lost
	lost     bool
	exit     int // the exit status once ended (-1: none, lost)
	code     *int
	signal   *int
	started  time.Time
	duration time.Duration
	err      string // the supervisor's reason (failed), raw
}

// judge reads rec at now by state's rule (state.JudgeJob).
func judge(rec rjobs.Record, now time.Time) jobView {
	jv := state.JudgeJob(rec, now, 0)
	v := jobView{word: jv.Word(), state: string(jv.State), ended: jv.Ended(), lost: jv.State == state.JobLost,
		exit: jv.ExitStatus(), started: jv.Started, duration: jv.Duration, err: jv.Error}
	switch jv.State {
	case state.JobRunning:
		if jv.Stopping {
			v.state = "stopping"
		}
	case state.JobExited:
		code := jv.ExitCode & 0xff
		v.code = &code
	case state.JobKilled:
		sig := jv.Signal
		v.signal = &sig
	case state.JobFailed:
		v.exit = 1
	}
	return v
}

// signalName is a Linux signal's name (state.SignalName).
func signalName(n int) string { return state.SignalName(n) }

// command is what job spec runs, "python FILE ARGS", raw
// (state.JobCommand; the caller sanitizes it).
func command(spec rjobs.Spec) string { return state.JobCommand(spec) }

// lastLine is the last line with something on it in tail, as a
// terminal leaves it (state.LastLine); raw.
func lastLine(tail []byte) string { return state.LastLine(tail) }

// JobEntry is one job in the --json documents of jobs, logs and wait.
// Times are RFC 3339 on the runtime's clock; ExitCode is set once the
// job exited, Signal once a signal killed it; LastLine is the last line
// of its log (jobs only).
type JobEntry struct {
	ID       string          `json:"id"`
	Runtime  kit.RuntimeName `json:"runtime"`
	Command  string          `json:"command"`
	State    string          `json:"state" jsonschema:"starting, running, stopping, exited, killed, failed or lost"`
	ExitCode *int            `json:"exitCode,omitempty"`
	Signal   *int            `json:"signal,omitempty"`
	Started  *time.Time      `json:"started,omitempty"`
	Ended    *time.Time      `json:"ended,omitempty"`
	Seconds  float64         `json:"seconds" jsonschema:"how long it ran, to its end or to now"`
	LastLine string          `json:"lastLine,omitempty"`
	Error    string          `json:"error,omitempty" jsonschema:"why the supervisor could not start it (state failed)"`
	// rec is the record the entry was made from (the event of its end
	// is worded from it, state.JobEnded).
	rec rjobs.Record
}

// entry is rec's JobEntry at now.
func entry(rec rjobs.Record, now time.Time) JobEntry {
	v := judge(rec, now)
	e := JobEntry{ID: rec.Spec.ID, Runtime: kit.NameOf(rec.Runtime), Command: command(rec.Spec), State: v.state,
		ExitCode: v.code, Signal: v.signal, Seconds: v.duration.Seconds(), Error: v.err, rec: rec}
	if !v.started.IsZero() {
		t := v.started
		e.Started = &t
	}
	if st := rec.Status; st != nil && !st.Ended.IsZero() {
		t := st.Ended
		e.Ended = &t
	}
	return e
}

// durationText is how the table writes a job's duration.
func durationText(v jobView) string {
	if v.started.IsZero() {
		return "-"
	}
	return state.FormatDuration(v.duration)
}
