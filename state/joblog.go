package state

import (
	"bytes"
	"errors"
	"strconv"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

// JobState is what a job on a runtime is doing, as JudgeJob reads its
// status.json.
type JobState int

// The states of a job.
const (
	// JobStarting: no status.json yet (the supervisor has not written one).
	JobStarting JobState = iota
	// JobRunning: started, no end recorded, a heartbeat recent enough.
	JobRunning
	// JobExited: the job's process exited with an exit status.
	JobExited
	// JobKilled: a signal ended the job's process.
	JobKilled
	// JobFailed: the supervisor could not start the job (Status.Error).
	JobFailed
	// JobLost: no end recorded and no heartbeat for too long: the
	// supervisor is gone (the runtime restarted, it was killed).
	JobLost
)

// JobVerdict is JudgeJob's reading of one job.
type JobVerdict struct {
	State    JobState
	ExitCode int    // JobExited: the exit status (0-255)
	Signal   int    // JobKilled: the signal's number (Linux numbering)
	Error    string // JobFailed: the supervisor's reason
	Stopping bool   // a stop was seen and the job has not ended yet
}

// ErrJobLost is the error of following a job that was lost (JobLost).
var ErrJobLost = errors.New("the job was lost: its supervisor stopped writing status.json without recording an end (the runtime may have restarted)")

// JudgeJob reads a job's status st (nil: none written yet), the
// last_modified of its status.json on the runtime's clock (modified;
// zero: unknown, the status's own heartbeat is used) and, for a job
// without a status, created, when the client wrote its spec (zero:
// unknown). now is the client's clock. A job whose supervisor recorded
// no end is lost when its status is older than jobs.LostAfter, with
// another jobs.LostAfter allowed for the two clocks' skew; a job that
// never got a status is lost after the same time since created.
func JudgeJob(st *jobs.Status, modified, created, now time.Time) JobVerdict {
	limit := 2 * jobs.LostAfter
	if st == nil {
		if !created.IsZero() && now.Sub(created) > limit {
			return JobVerdict{State: JobLost}
		}
		return JobVerdict{State: JobStarting}
	}
	switch {
	case st.Error != "":
		return JobVerdict{State: JobFailed, Error: st.Error}
	case !st.Ended.IsZero() && st.Signal > 0:
		return JobVerdict{State: JobKilled, Signal: st.Signal}
	case !st.Ended.IsZero():
		return JobVerdict{State: JobExited, ExitCode: st.ExitCode & 0xff}
	}
	last := modified
	if last.IsZero() {
		last = st.Heartbeat
	}
	if !last.IsZero() && now.Sub(last) > limit {
		return JobVerdict{State: JobLost}
	}
	return JobVerdict{State: JobRunning, Stopping: st.Stopping}
}

// Ended reports whether the job will not run any more: exited, killed,
// failed or lost.
func (v JobVerdict) Ended() bool { return v.State >= JobExited }

// ExitStatus is the exit status a shell would give the job: its exit
// code, 128 + the signal when a signal killed it, 1 when it could not
// start; ok is false while it runs, and for a lost job, which has none.
func (v JobVerdict) ExitStatus() (code int, ok bool) {
	switch v.State {
	case JobExited:
		return v.ExitCode, true
	case JobKilled:
		return 128 + v.Signal, true
	case JobFailed:
		return 1, true
	}
	return 0, false
}

// String is the state as the jobs table writes it: "starting",
// "running", "stopping", "exited 0", "killed (SIGTERM)", "failed",
// "lost".
func (v JobVerdict) String() string {
	switch v.State {
	case JobStarting:
		return "starting"
	case JobRunning:
		if v.Stopping {
			return "stopping"
		}
		return "running"
	case JobExited:
		return "exited " + strconv.Itoa(v.ExitCode)
	case JobKilled:
		return "killed (" + SignalName(v.Signal) + ")"
	case JobFailed:
		return "failed"
	}
	return "lost"
}

// Word is the state's one word, as --json writes it: starting, running,
// stopping, exited, killed, failed or lost.
func (v JobVerdict) Word() string {
	switch v.State {
	case JobExited:
		return "exited"
	case JobKilled:
		return "killed"
	}
	return v.String()
}

// signalNames are the usual signals by their Linux numbers.
var signalNames = map[int]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS",
	8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM"}

// SignalName is a signal's name by its Linux number ("SIGTERM"), or
// "signal N" for one without a usual name.
func SignalName(n int) string {
	if s, ok := signalNames[n]; ok {
		return s
	}
	return "signal " + strconv.Itoa(n)
}

// JobDuration is how long a job ran: from its start to its end, or to
// now while it runs (zero before it started).
func JobDuration(st *jobs.Status, now time.Time) time.Duration {
	if st == nil || st.Started.IsZero() {
		return 0
	}
	end := st.Ended
	if end.IsZero() {
		end = now
	}
	return max(end.Sub(st.Started), 0)
}

// LastLine is the last non-empty line of a piece of a log, as the jobs
// table shows it: what follows the last carriage return (a progress
// bar's latest state), blanks around it removed. It is raw: the caller
// sanitizes it.
func LastLine(b []byte) string {
	b = bytes.TrimRight(b, " \t\r\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	if i := bytes.LastIndexByte(b, '\r'); i >= 0 {
		b = b[i+1:]
	}
	return string(bytes.TrimSpace(b))
}

// --- following a job's log: what the next poll reads ---

// LogReadKind is what one poll of a followed log asks the runtime.
type LogReadKind int

// The reads of a followed log.
const (
	// ReadLogBytes: a Range GET of the log's bytes [Off, Off+Max).
	ReadLogBytes LogReadKind = iota
	// ReadLogTail: a suffix Range GET of the log's last Max bytes.
	ReadLogTail
	// ReadJobStatus: a GET of status.json.
	ReadJobStatus
	// ReadNothing: the follow is over (LogFollow.Done).
	ReadNothing
)

// LogStep is the next read of a followed log: what to read, from where
// and how much, and whether to wait a poll interval before it (a read
// that found everything read waits; one that brought a full piece, or
// the last drain after the end, does not).
type LogStep struct {
	Kind     LogReadKind
	Off, Max int64
	Wait     bool
}

// Bounds of following a log.
const (
	// LogPiece is the most one read of a log brings (1 MiB): a log of
	// any size is read in pieces, never whole.
	LogPiece = 1 << 20
	// TailFirstBytes is the suffix read first per --tail line (256
	// bytes a line); TailMaxBytes bounds the suffix read for --tail N
	// (16 MiB): a log with longer lines starts where that suffix does.
	TailFirstBytes = 256
	TailMaxBytes   = 16 << 20
	// LogRetryFor is how long a followed log keeps retrying reads that
	// fail for the network or the server before it gives up (10 min).
	LogRetryFor = 10 * time.Minute
)

// LogFollow decides what each poll of a job's log reads: the log's new
// bytes while there are some; after a read that brought nothing, the
// job's status.json instead; once the status records the end, the log
// again, without waiting, until it is drained; then it is done. It holds
// no bytes: the caller reads and delivers them. The zero value is not
// ready: use NewLogFollow.
type LogFollow struct {
	// Off is the offset in the log of the next byte to read.
	Off int64

	follow  bool
	tail    int   // lines asked for by --tail; 0 when done or none
	tailMax int64 // the suffix asked for by the last tail read
	next    LogStep
	draining,
	done bool
	verdict     JobVerdict // the last status read
	status      *jobs.Status
	noStatus    time.Time // when polls first found no status.json (zero: they found one)
	failedSince time.Time // when reads began failing (zero: the last succeeded)
}

// NewLogFollow starts following a log at offset from, or at its last
// tail lines when tail > 0. Without follow it is done once what the log
// holds now was read.
func NewLogFollow(from int64, tail int, follow bool) *LogFollow {
	f := &LogFollow{Off: max(from, 0), follow: follow}
	f.next = LogStep{Kind: ReadLogBytes, Off: f.Off, Max: LogPiece}
	if tail > 0 {
		f.tail = tail
		f.tailMax = min(int64(tail)*TailFirstBytes, TailMaxBytes)
		f.next = LogStep{Kind: ReadLogTail, Max: f.tailMax}
	}
	return f
}

// Next is the read the next poll makes (ReadNothing once Done).
func (f *LogFollow) Next() LogStep {
	if f.done {
		return LogStep{Kind: ReadNothing}
	}
	return f.next
}

// Done reports whether the follow is over; Ended is then the job's
// final status when the follow saw the job end (nil without follow).
func (f *LogFollow) Done() bool { return f.done }

// Ended is the status that recorded the job's end, once the log was
// drained after it; nil before, and for a follow that did not wait for
// the end.
func (f *LogFollow) Ended() *jobs.Status {
	if f.done && f.draining {
		return f.status
	}
	return nil
}

// Verdict is the job's state as the last status read judged it.
func (f *LogFollow) Verdict() JobVerdict { return f.verdict }

// TailRead records a tail read: data, the log's last bytes, starting at
// offset start. It returns the offset where the last tail lines begin
// and whether data held them all (or the whole log); when it did not,
// the next read is a longer suffix (up to TailMaxBytes, after which the
// lines start where the longest suffix does). The caller delivers
// data[cut-start:] when ok.
func (f *LogFollow) TailRead(data []byte, start int64, now time.Time) (cut int64, ok bool) {
	f.failedSince = time.Time{}
	cut, found := tailStart(data, f.tail)
	if !found && start > 0 && f.tailMax < TailMaxBytes {
		f.tailMax = min(f.tailMax*4, TailMaxBytes)
		f.next = LogStep{Kind: ReadLogTail, Max: f.tailMax}
		return 0, false
	}
	f.tail = 0
	f.Off = start + int64(len(data))
	f.afterLog(int64(len(data))-cut, int64(len(data)) == f.tailMax, -1)
	return start + cut, true
}

// tailStart is where, in b (the end of a log), its last n lines begin
// (a final line without its newline counts; the newline ending the log
// does not start another); found is false when b holds fewer than n
// whole lines.
func tailStart(b []byte, n int) (int64, bool) {
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	for i := 0; i < n; i++ {
		j := bytes.LastIndexByte(b[:end], '\n')
		if j < 0 {
			return 0, false
		}
		if i == n-1 {
			return int64(j + 1), true
		}
		end = j
	}
	return 0, false
}

// LogRead records a read of the log that brought n bytes from Off; size
// is the log's size when the server said it (-1: unknown).
func (f *LogFollow) LogRead(n, size int64, now time.Time) {
	f.failedSince = time.Time{}
	f.Off += n
	f.afterLog(n, n >= f.next.Max, size)
}

// afterLog decides the read after a log read that brought n bytes
// (full: as many as it asked for).
func (f *LogFollow) afterLog(n int64, full bool, size int64) {
	more := full || size >= 0 && f.Off < size
	switch {
	case more:
		f.next = LogStep{Kind: ReadLogBytes, Off: f.Off, Max: LogPiece}
	case f.draining || !f.follow:
		f.done = true
	case n > 0:
		f.next = LogStep{Kind: ReadLogBytes, Off: f.Off, Max: LogPiece, Wait: true}
	default:
		f.next = LogStep{Kind: ReadJobStatus, Wait: true}
	}
}

// StatusRead records a read of status.json: st (nil when there is none
// yet) and its last_modified on the runtime's clock. It returns the
// job's verdict; once it has ended, the next read drains the log
// without waiting. A job lost (or never started for as long) ends the
// follow: the caller reports ErrJobLost.
func (f *LogFollow) StatusRead(st *jobs.Status, modified, now time.Time) JobVerdict {
	f.failedSince = time.Time{}
	created := time.Time{}
	if st == nil {
		if f.noStatus.IsZero() {
			f.noStatus = now
		}
		created = f.noStatus
	} else {
		f.noStatus = time.Time{}
	}
	v := JudgeJob(st, modified, created, now)
	f.verdict, f.status = v, st
	switch {
	case v.State == JobLost:
		f.done = true
	case v.Ended():
		f.draining = true
		f.next = LogStep{Kind: ReadLogBytes, Off: f.Off, Max: LogPiece}
	default:
		f.next = LogStep{Kind: ReadLogBytes, Off: f.Off, Max: LogPiece, Wait: true}
	}
	return v
}

// ReadFailed records that the planned read failed for the network or
// the server at now: the same read is tried again after a poll
// interval. It reports whether to give up instead (failing for longer
// than LogRetryFor).
func (f *LogFollow) ReadFailed(now time.Time) (giveUp bool) {
	if f.failedSince.IsZero() {
		f.failedSince = now
	}
	f.next.Wait = true
	return now.Sub(f.failedSince) > LogRetryFor
}

// Failing reports whether the last read failed (a retry is pending).
func (f *LogFollow) Failing() bool { return !f.failedSince.IsZero() }
