package state

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

// JobState is the word for where a job is in its life.
type JobState string

// Job states. Exited and Killed are ended by the job itself or a signal;
// Lost is a job whose supervisor stopped writing without recording an end
// (the supervisor killed, the runtime restarted) or that never started;
// Failed is a job its supervisor could not start.
const (
	JobStarting JobState = "starting"
	JobRunning  JobState = "running"
	JobExited   JobState = "exited"
	JobKilled   JobState = "killed"
	JobLost     JobState = "lost"
	JobFailed   JobState = "failed"
)

// JobView is a job judged at one instant.
type JobView struct {
	State JobState
	// ExitCode is the job's status (JobExited); Signal the signal that
	// ended it (JobKilled).
	ExitCode, Signal int
	// Stopping: a stop was asked and the job has not ended yet.
	Stopping bool
	// Started is when the job's process started (the runtime's clock;
	// zero while starting); Duration how long it ran: to its end, to its
	// last heartbeat when lost, to now while running (never negative).
	Started  time.Time
	Duration time.Duration
	// Error is the supervisor's reason for JobFailed (raw: from the
	// runtime).
	Error string
}

// Ended reports whether the job will not change any more: exited,
// killed, lost or failed.
func (v JobView) Ended() bool {
	return v.State != JobStarting && v.State != JobRunning
}

// Word is the state as `jobs` shows it: "starting", "running",
// "stopping", "exited 3", "killed by SIGTERM" ("killed by signal 40" for
// a signal without a common name), "lost", "failed".
func (v JobView) Word() string {
	switch v.State {
	case JobRunning:
		if v.Stopping {
			return "stopping"
		}
	case JobExited:
		return "exited " + strconv.Itoa(v.ExitCode)
	case JobKilled:
		return "killed by " + SignalName(v.Signal)
	}
	return string(v.State)
}

// ExitStatus is the status a command following the job exits with, as a
// shell reports a process: the job's exit code (0–255), 128 + the signal
// that killed it, and -1 for a job that has not ended or whose end is not
// known (lost, failed): the caller picks its own code for those.
func (v JobView) ExitStatus() int {
	switch v.State {
	case JobExited:
		return v.ExitCode & 0xff
	case JobKilled:
		return 128 + v.Signal
	}
	return -1
}

// linuxSignals are the names of the signals a job is commonly ended by,
// by their number on Linux (the runtime's system, whatever the client's).
var linuxSignals = map[int]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 6: "SIGABRT",
	7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE",
	14: "SIGALRM", 15: "SIGTERM", 24: "SIGXCPU", 25: "SIGXFSZ"}

// SignalName is a Linux signal's name ("SIGTERM" for 15), or "signal N".
func SignalName(sig int) string {
	if n, ok := linuxSignals[sig]; ok {
		return n
	}
	return "signal " + strconv.Itoa(sig)
}

// JudgeJob judges rec at now (the client's clock):
//
//   - failed: the supervisor recorded an Error;
//   - exited N / killed by S: it recorded the end;
//   - starting: no status.json yet, the spec written less than lostAfter
//     ago; lost once longer (the launch never started the supervisor);
//   - lost: no end recorded and status.json not rewritten for more than
//     lostAfter: Record.Modified (the runtime's clock; the status's own
//     heartbeat when the server gave no time) compared with now, so
//     lostAfter covers both the missed heartbeats and the clocks' skew;
//   - running otherwise.
//
// lostAfter is jobs.LostAfter in use (0 means it); tests pass a shorter
// one with an injected now.
func JudgeJob(rec jobs.Record, now time.Time, lostAfter time.Duration) JobView {
	if lostAfter <= 0 {
		lostAfter = jobs.LostAfter
	}
	st := rec.Status
	if st == nil {
		if !rec.Spec.Created.IsZero() && now.Sub(rec.Spec.Created) > lostAfter {
			return JobView{State: JobLost}
		}
		return JobView{State: JobStarting}
	}
	v := JobView{Started: st.Started, Stopping: st.Stopping}
	switch {
	case st.Error != "":
		v.State, v.Error = JobFailed, st.Error
		v.Stopping = false
		return v
	case !st.Ended.IsZero():
		v.State, v.Stopping = JobExited, false
		if st.Signal > 0 {
			v.State, v.Signal = JobKilled, st.Signal
		} else {
			v.ExitCode = st.ExitCode
		}
		v.Duration = positive(st.Ended.Sub(st.Started))
		return v
	}
	seen := rec.Modified
	if seen.IsZero() {
		seen = st.Heartbeat
	}
	if now.Sub(seen) > lostAfter {
		v.State, v.Stopping = JobLost, false
		v.Duration = positive(st.Heartbeat.Sub(st.Started))
		return v
	}
	v.State = JobRunning
	// The runtime's start against the client's now: as near as the
	// clocks agree, and never negative.
	v.Duration = positive(now.Sub(st.Started))
	return v
}

func positive(d time.Duration) time.Duration { return max(d, 0) }

// JobCommand is the command a job runs as a shell would show it:
// "python FILE ARGS", each word that is not plain single-quoted (raw:
// from the runtime; the caller sanitizes it for a terminal).
func JobCommand(spec jobs.Spec) string {
	words := append([]string{"python", spec.Argv0}, spec.Args...)
	for i, w := range words {
		words[i] = shellWord(w)
	}
	return strings.Join(words, " ")
}

// JobScript is the script a job runs and its arguments as the user typed
// them ("train.py --epochs 300"), each word as JobCommand quotes it; a
// spec without the typed name (Argv0) names the script by its absolute
// path on the runtime ("/content/train.py"); "" for a spec with neither
// (raw: the caller sanitizes it).
func JobScript(spec jobs.Spec) string {
	script := spec.Argv0
	if script == "" && spec.File != "" {
		script = "/" + strings.TrimPrefix(spec.File, "/")
	}
	if script == "" {
		return ""
	}
	words := append([]string{script}, spec.Args...)
	for i, w := range words {
		words[i] = shellWord(w)
	}
	return strings.Join(words, " ")
}

// shellWord is w as is when it holds only characters no shell treats
// specially, else in single quotes.
func shellWord(w string) string {
	if w == "" {
		return "''"
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r)) {
			return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return w
}

// maxLastLine bounds LastLine's result, in bytes.
const maxLastLine = 200

// LastLine is the line `jobs` shows from the end of a job's log (tail:
// its last bytes): the last line with something on it, as a terminal
// leaves it after a progress bar's carriage returns (each \r starts
// writing over the line from its first column), spaces trimmed, at most
// 200 bytes of valid UTF-8. It is raw: the caller sanitizes it for a
// terminal. "" for an empty log.
func LastLine(tail []byte) string {
	lines := bytes.Split(tail, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		s := strings.TrimSpace(overwrite(lines[i]))
		if s == "" {
			continue
		}
		if len(s) > maxLastLine {
			s = s[:maxLastLine]
			for len(s) > 0 && !utf8.ValidString(s) {
				s = s[:len(s)-1]
			}
		}
		return s
	}
	return ""
}

// overwrite is what a terminal shows of line: each \r returns to the
// first column, and what follows replaces the characters there.
func overwrite(line []byte) string {
	var screen []rune
	col := 0
	for _, r := range string(line) {
		if r == '\r' {
			col = 0
			continue
		}
		if col < len(screen) {
			screen[col] = r
		} else {
			screen = append(screen, r)
		}
		col++
	}
	return string(screen)
}

// JobRow is one line of `jobs`: raw values from the runtime (the caller
// sanitizes Command and Last for a terminal).
type JobRow struct {
	ID, Runtime, Command string
	View                 JobView
	Last                 string
}

// JobRowOf is rec's row at now, with the last line of its log taken from
// tail (its last bytes, or nil).
func JobRowOf(rec jobs.Record, now time.Time, tail []byte) JobRow {
	return JobRow{ID: rec.Spec.ID, Runtime: rec.Runtime, Command: JobCommand(rec.Spec),
		View: JudgeJob(rec, now, 0), Last: LastLine(tail)}
}

// Summary is the row as one line, its fields two spaces apart: id,
// runtime id, command, state word, start (UTC, to the second, "-" while
// starting), duration (FormatDuration), last line.
func (r JobRow) Summary() string {
	started := "-"
	if !r.View.Started.IsZero() {
		started = r.View.Started.UTC().Format("2006-01-02 15:04:05")
	}
	rt := r.Runtime[strings.LastIndexByte(r.Runtime, '/')+1:]
	fields := []string{r.ID, rt, r.Command, r.View.Word(), started, FormatDuration(r.View.Duration)}
	if r.Last != "" {
		fields = append(fields, r.Last)
	}
	return strings.Join(fields, "  ")
}
