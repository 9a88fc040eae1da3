package jobs

import (
	"bytes"
	"strconv"
	"strings"
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

// judge reads rec at now: state's rule (the job's status, and lost when
// status.json went unwritten for jobs.LostAfter).
func judge(rec rjobs.Record, now time.Time) jobView {
	st := rec.Status
	if st == nil {
		if !rec.Spec.Created.IsZero() && now.Sub(rec.Spec.Created) > rjobs.LostAfter {
			return jobView{word: "lost", state: "lost", ended: true, lost: true, exit: -1}
		}
		return jobView{word: "starting", state: "starting", exit: -1}
	}
	v := jobView{started: st.Started, exit: -1}
	switch {
	case st.Error != "":
		v.word, v.state, v.ended, v.exit, v.err = "failed", "failed", true, 1, st.Error
	case !st.Ended.IsZero() && st.Signal > 0:
		sig := st.Signal
		v.word, v.state, v.ended, v.exit, v.signal = "killed by "+signalName(sig), "killed", true, 128+sig, &sig
		v.duration = max(st.Ended.Sub(st.Started), 0)
	case !st.Ended.IsZero():
		code := st.ExitCode & 0xff
		v.word, v.state, v.ended, v.exit, v.code = "exited "+strconv.Itoa(code), "exited", true, code, &code
		v.duration = max(st.Ended.Sub(st.Started), 0)
	default:
		seen := rec.Modified
		if seen.IsZero() {
			seen = st.Heartbeat
		}
		if now.Sub(seen) > rjobs.LostAfter {
			v.word, v.state, v.ended, v.lost = "lost", "lost", true, true
			v.duration = max(st.Heartbeat.Sub(st.Started), 0)
			break
		}
		v.word, v.state = "running", "running"
		if st.Stopping {
			v.word, v.state = "stopping", "stopping"
		}
		v.duration = max(now.Sub(st.Started), 0)
	}
	return v
}

// signalNames are the usual signals by their Linux numbers (the
// runtime's).
var signalNames = map[int]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 6: "SIGABRT", 9: "SIGKILL",
	11: "SIGSEGV", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM"}

func signalName(n int) string {
	if s, ok := signalNames[n]; ok {
		return s
	}
	return "signal " + strconv.Itoa(n)
}

// command is what job spec runs, "python FILE ARGS", raw (the caller
// sanitizes it).
func command(spec rjobs.Spec) string {
	words := append([]string{"python", spec.Argv0}, spec.Args...)
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`;&|<>()*?[]{}!#~") {
			words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}

// lastLine is the last line with something on it in tail (a piece of
// the end of a log), as a terminal leaves it after a progress bar's
// carriage returns; raw.
func lastLine(tail []byte) string {
	tail = bytes.TrimRight(tail, " \t\r\n")
	if i := bytes.LastIndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	if i := bytes.LastIndexByte(tail, '\r'); i >= 0 {
		tail = tail[i+1:]
	}
	return strings.TrimSpace(string(tail))
}

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
}

// entry is rec's JobEntry at now.
func entry(rec rjobs.Record, now time.Time) JobEntry {
	v := judge(rec, now)
	e := JobEntry{ID: rec.Spec.ID, Runtime: kit.NameOf(rec.Runtime), Command: command(rec.Spec), State: v.state,
		ExitCode: v.code, Signal: v.signal, Seconds: v.duration.Seconds(), Error: v.err}
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
