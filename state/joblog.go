package state

import (
	"bytes"
	"errors"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

// ErrJobLost is the error of following a job that was lost: no end
// recorded and status.json not rewritten for longer than jobs.LostAfter
// (or never written for as long).
var ErrJobLost = errors.New("the job was lost: its supervisor stopped writing status.json without recording an end (the runtime may have restarted)")

// followedJob is what a follow needs of a status read, judged by
// JudgeJob: whether the job has ended (exited, killed or failed) or was
// lost. A job without status.json is judged from noStatus, when polls
// first found none (zero: unknown).
func followedJob(st *jobs.Status, modified, noStatus, now time.Time) (ended, lost bool) {
	v := JudgeJob(jobs.Record{Spec: jobs.Spec{Created: noStatus}, Status: st, Modified: modified}, now, 0)
	return v.Ended() && v.State != JobLost, v.State == JobLost
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
	lost        bool         // the last status read judged the job lost
	status      *jobs.Status // the last status read
	noStatus    time.Time    // when polls first found no status.json (zero: they found one)
	failedSince time.Time    // when reads began failing (zero: the last succeeded)
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

// Lost reports whether the follow ended because the job was lost
// (ErrJobLost).
func (f *LogFollow) Lost() bool { return f.lost }

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
// yet) and its last_modified on the runtime's clock. It reports whether
// the job has ended (exited, killed, failed): the next read then drains
// the log without waiting. A job lost (or never started for as long)
// ends the follow: Lost, and the caller reports ErrJobLost.
func (f *LogFollow) StatusRead(st *jobs.Status, modified, now time.Time) (ended bool) {
	f.failedSince = time.Time{}
	if st == nil && f.noStatus.IsZero() {
		f.noStatus = now
	} else if st != nil {
		f.noStatus = time.Time{}
	}
	ended, lost := followedJob(st, modified, f.noStatus, now)
	f.status, f.lost = st, lost
	switch {
	case lost:
		f.done = true
	case ended:
		f.draining = true
		f.next = LogStep{Kind: ReadLogBytes, Off: f.Off, Max: LogPiece}
	default:
		f.next = LogStep{Kind: ReadLogBytes, Off: f.Off, Max: LogPiece, Wait: true}
	}
	return ended
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
