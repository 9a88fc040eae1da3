package ops

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/api/jupyter/proxy"
	"github.com/colabdash/colabdash/state"
)

// This file is JobLog's body: the reads of one job's directory behind a
// small interface (jobReader, so the follow loop is tested without a
// runtime) and the loop that state.LogFollow steers.

// jobReader is what following a job's log reads on its runtime.
type jobReader interface {
	// readLog is jobs.ReadLog: bytes of the log from off, at most max,
	// and the log's size (-1: unknown).
	readLog(ctx context.Context, off, max int64) ([]byte, int64, error)
	// tailLog is jobs.TailLog: the log's last n bytes and their offset.
	tailLog(ctx context.Context, n int64) ([]byte, int64, error)
	// readStatus is status.json in one GET: the status (nil when there
	// is none yet) and its last_modified on the runtime's clock.
	readStatus(ctx context.Context) (*jobs.Status, time.Time, error)
	// readRanges is jobs.ReadStderrRanges.
	readRanges(ctx context.Context, off int64) ([]jobs.Range, int64, error)
}

// jupyterJob reads job id's directory through jc.
type jupyterJob struct {
	jc *jupyter.Client
	id string
}

func (j jupyterJob) readLog(ctx context.Context, off, max int64) ([]byte, int64, error) {
	return jobs.ReadLog(ctx, j.jc, j.id, off, max)
}

func (j jupyterJob) tailLog(ctx context.Context, n int64) ([]byte, int64, error) {
	return jobs.TailLog(ctx, j.jc, j.id, n)
}

func (j jupyterJob) readRanges(ctx context.Context, off int64) ([]jobs.Range, int64, error) {
	return jobs.ReadStderrRanges(ctx, j.jc, j.id, off)
}

// maxStatusReply bounds the contents reply of status.json (64 KiB; the
// supervisor writes a few hundred bytes).
const maxStatusReply = 64 << 10

// statusCallTimeout bounds one read of status.json.
const statusCallTimeout = 30 * time.Second

// readStatus GETs status.json's contents model with its content (one
// request, where jobs.Read makes two): its last_modified is the
// runtime's clock, which the lost rule compares.
func (j jupyterJob) readStatus(ctx context.Context) (*jobs.Status, time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, statusCallTimeout)
	defer cancel()
	p := jobs.Dir(j.id) + "/" + jobs.StatusFile
	resp, err := j.jc.Do(ctx, &proxy.Request{Op: "read", Method: http.MethodGet,
		Path:  "api/contents/" + jupyter.EscapePath(p),
		Query: url.Values{"content": {"1"}, "type": {"file"}, "format": {"text"}}, Retry404: true, Remote: p})
	if errors.Is(err, jupyter.ErrNotFound) {
		return nil, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxStatusReply+1))
	if err != nil {
		return nil, time.Time{}, &jupyter.Error{Op: "read", Path: p, Kind: jupyter.ErrTransport, Message: err.Error()}
	}
	var m struct {
		LastModified string `json:"last_modified"`
		Content      string `json:"content"`
	}
	var st jobs.Status
	if len(b) > maxStatusReply || json.Unmarshal(proxy.TrimXSSI(b), &m) != nil || json.Unmarshal([]byte(m.Content), &st) != nil {
		// Replaced atomically, status.json is never half written: a
		// reply that does not read is the server's fault.
		return nil, time.Time{}, &jupyter.Error{Op: "read", Path: p, Kind: jupyter.ErrServer, Message: "status.json is not a job status"}
	}
	mod, _ := api.ParseExpireTime(m.LastModified)
	return &st, mod, nil
}

// jobLog is JobLog's LogSource.
type jobLog struct {
	r        jobReader
	f        *state.LogFollow
	o        JobLogOptions
	sleep    func(ctx context.Context, d time.Duration) error
	rangeOff int64        // the next byte of stderr.ranges to read
	ranges   []jobs.Range // read, not yet past the delivered log
	endSent  bool         // the chunk with Ended was delivered
	closed   bool
}

// newJobLog is JobLog over any reader.
func newJobLog(r jobReader, o JobLogOptions) *jobLog {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &jobLog{r: r, f: state.NewLogFollow(o.From, o.Tail, o.Follow), o: o, sleep: sleepCtx}
}

// sleepCtx waits d or until ctx ends (its error then).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// errClosed is Next's error after Close.
var errClosed = errors.New("the log source is closed")

// Next makes the reads the follow policy asks for (state.LogFollow)
// until one brings bytes, the job's end is delivered, or one poll
// brought nothing (an empty chunk). It returns io.EOF after the last
// chunk, state.ErrJobLost for a lost job, the read's error when reads
// kept failing for state.LogRetryFor or cannot succeed (the runtime is
// gone), and ctx's cause when ctx ends.
func (l *jobLog) Next(ctx context.Context) (LogChunk, error) {
	if l.closed {
		return LogChunk{}, errClosed
	}
	for {
		step := l.f.Next()
		if step.Kind == state.ReadNothing {
			return l.finish()
		}
		if step.Wait {
			if err := l.sleep(ctx, l.o.Interval); err != nil {
				return LogChunk{}, err
			}
		}
		c, again, err := l.poll(ctx, step)
		if err != nil || !again {
			return c, err
		}
	}
}

// finish is what Next returns once the follow is over: the job's end
// (once), else io.EOF; state.ErrJobLost for a lost job.
func (l *jobLog) finish() (LogChunk, error) {
	if l.f.Lost() {
		return LogChunk{Off: l.f.Off}, state.ErrJobLost
	}
	if end := l.f.Ended(); end != nil && !l.endSent {
		l.endSent = true
		return LogChunk{Off: l.f.Off, Ended: end}, nil
	}
	return LogChunk{}, io.EOF
}

// poll makes one read; again says the policy's next read follows at
// once without anything to deliver (the job ended: drain the log; a
// longer tail).
func (l *jobLog) poll(ctx context.Context, step state.LogStep) (c LogChunk, again bool, err error) {
	was := l.f.Failing()
	switch step.Kind {
	case state.ReadLogTail:
		var data []byte
		var start int64
		if data, start, err = l.r.tailLog(ctx, step.Max); err == nil {
			cut, ok := l.f.TailRead(data, start, l.o.Now())
			if !ok {
				return LogChunk{}, true, nil
			}
			c, err = l.deliver(ctx, data[cut-start:], cut)
		}
	case state.ReadJobStatus:
		var st *jobs.Status
		var mod time.Time
		if st, mod, err = l.r.readStatus(ctx); err == nil {
			if l.f.StatusRead(st, mod, l.o.Now()) {
				return LogChunk{}, true, nil
			}
		}
	default:
		var data []byte
		var size int64
		if data, size, err = l.r.readLog(ctx, step.Off, step.Max); err == nil {
			if int64(len(data)) > step.Max {
				data = data[:step.Max] // a server that sent more than asked
			}
			l.f.LogRead(int64(len(data)), size, l.o.Now())
			c, err = l.deliver(ctx, data, step.Off)
		}
	}
	if err != nil && step.Kind != state.ReadJobStatus && errors.Is(err, jupyter.ErrNotFound) {
		// No log yet (the supervisor has not started): nothing new.
		err = nil
		if step.Kind == state.ReadLogTail {
			l.f.TailRead(nil, 0, l.o.Now())
		} else {
			l.f.LogRead(0, -1, l.o.Now())
		}
	}
	if err != nil {
		return l.failed(ctx, err)
	}
	if was {
		c.Note = "reconnected; nothing was lost"
	}
	if len(c.Data) == 0 && l.f.Done() {
		return c, c.Note == "", nil
	}
	if l.f.Done() && !l.endSent && l.f.Ended() != nil {
		l.endSent = true
		c.Ended = l.f.Ended()
	}
	return c, false, nil
}

// deliver is the chunk of data read at off, with the stderr pieces in
// it when asked (stderr.ranges read after the log, so a range written
// with its bytes is there).
func (l *jobLog) deliver(ctx context.Context, data []byte, off int64) (LogChunk, error) {
	c := LogChunk{Data: data, Off: off}
	if !l.o.Stderr || len(data) == 0 {
		return c, nil
	}
	rs, next, err := l.r.readRanges(ctx, l.rangeOff)
	if err == nil {
		l.rangeOff = next
		l.ranges = append(l.ranges, rs...)
	}
	end := off + int64(len(data))
	keep := l.ranges[:0]
	for _, r := range l.ranges {
		lo, hi := max(r.Off, off), min(r.Off+r.Len, end)
		if lo < hi {
			c.Stderr = append(c.Stderr, jobs.Range{Off: lo, Len: hi - lo})
		}
		if r.Off+r.Len > end {
			keep = append(keep, r)
		}
	}
	if len(keep) > maxPendingRanges {
		// More pieces beyond what was read than a supervisor can write
		// in a poll: a hostile stderr.ranges. Held, they would grow and
		// be scanned at every poll.
		keep = keep[:maxPendingRanges]
	}
	l.ranges = keep
	return c, nil
}

// maxPendingRanges bounds the stderr pieces held for log bytes not read
// yet (a supervisor writes one line per piece of stderr it reads, a few
// hundred a second at most).
const maxPendingRanges = 4096

// failed handles a read's error: a failure of the network, the proxy or
// the server is retried after an interval (an empty chunk, with a note
// the first time) until state.LogRetryFor; anything else ends Next.
func (l *jobLog) failed(ctx context.Context, err error) (LogChunk, bool, error) {
	if ctx.Err() != nil || !transientRead(err) {
		return LogChunk{}, false, err
	}
	first := !l.f.Failing()
	if l.f.ReadFailed(l.o.Now()) {
		return LogChunk{}, false, err
	}
	c := LogChunk{Off: l.f.Off}
	if first {
		c.Note = "lost the connection to the runtime (" + api.OneLine(err.Error(), 200) + "); retrying"
	}
	return c, false, nil
}

// transientRead reports whether a read that failed with err may succeed
// when tried again: the connection, the proxy, the server, or get_runtime
// failing on the network; not a runtime that is gone.
func transientRead(err error) bool {
	for _, k := range []error{jupyter.ErrTransport, jupyter.ErrServer, jupyter.ErrRefused, jupyter.ErrNoConnection} {
		if errors.Is(err, k) {
			return true
		}
	}
	if errors.Is(err, jupyter.ErrRuntimeGone) {
		return false
	}
	return api.IsNetworkError(err) || errors.Is(err, ErrNoConnection)
}

// Close ends the source; Next then fails.
func (l *jobLog) Close() error {
	l.closed = true
	return nil
}
