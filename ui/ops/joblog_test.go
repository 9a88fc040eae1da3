package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
)

// fakeJob is a job's directory as a runtime holds it: a log that is a
// virtual prefix of base filler bytes (a log of any size, never stored)
// followed by what was appended, a status, stderr ranges; it counts the
// requests and the bytes they carried, as the proxy would.
type fakeJob struct {
	base     int64 // filler bytes before appended (each line "x…x\n" of 64)
	appended []byte
	status   *jobs.Status
	modified time.Time
	ranges   []jobs.Range
	fail     int // the next fail reads fail with a network error

	requests, bytesRead int
}

func (j *fakeJob) size() int64 { return j.base + int64(len(j.appended)) }

// at returns the log's bytes [off, end).
func (j *fakeJob) at(off, end int64) []byte {
	out := make([]byte, 0, end-off)
	for i := off; i < end && i < j.base; i++ {
		if i%64 == 63 {
			out = append(out, '\n')
		} else {
			out = append(out, 'x')
		}
	}
	if end > j.base {
		out = append(out, j.appended[max(off-j.base, 0):end-j.base]...)
	}
	return out
}

func (j *fakeJob) failing() error {
	j.requests++
	if j.fail > 0 {
		j.fail--
		return &jupyter.Error{Op: "read", Kind: jupyter.ErrTransport, Message: "connection reset"}
	}
	return nil
}

func (j *fakeJob) readLog(_ context.Context, off, n int64) ([]byte, int64, error) {
	if err := j.failing(); err != nil {
		return nil, -1, err
	}
	if off >= j.size() {
		return nil, -1, nil // 416: nothing new
	}
	b := j.at(off, min(off+n, j.size()))
	j.bytesRead += len(b)
	return b, -1, nil
}

func (j *fakeJob) tailLog(_ context.Context, n int64) ([]byte, int64, error) {
	if err := j.failing(); err != nil {
		return nil, 0, err
	}
	jobStart := max(j.size()-n, 0)
	b := j.at(jobStart, j.size())
	j.bytesRead += len(b)
	return b, jobStart, nil
}

func (j *fakeJob) readStatus(context.Context) (*jobs.Status, time.Time, error) {
	if err := j.failing(); err != nil {
		return nil, time.Time{}, err
	}
	j.bytesRead += 200
	if j.status == nil {
		return nil, time.Time{}, nil
	}
	st := *j.status
	return &st, j.modified, nil
}

func (j *fakeJob) readRanges(_ context.Context, off int64) ([]jobs.Range, int64, error) {
	j.requests++
	n := int(off)
	return j.ranges[n:], int64(len(j.ranges)), nil
}

// fakeClock is a fake clock that sleeping advances.
type fakeClock struct{ now time.Time }

// follower is a JobLog over j whose waits advance clk and then call
// tick (the job doing something during the poll interval).
func follower(j *fakeJob, clk *fakeClock, o JobLogOptions, tick func()) *jobLog {
	o.Now = func() time.Time { return clk.now }
	l := newJobLog(j, o)
	l.sleep = func(ctx context.Context, d time.Duration) error {
		clk.now = clk.now.Add(d)
		if tick != nil {
			tick()
		}
		return ctx.Err()
	}
	return l
}

// drain calls Next until the source ends, collecting the bytes, the
// notes and the end status; it fails the test after limit calls.
func drain(t *testing.T, l *jobLog, limit int) (data []byte, notes []string, end *jobs.Status, err error) {
	t.Helper()
	off := int64(-1)
	for i := 0; i < limit; i++ {
		c, err := l.Next(context.Background())
		if err != nil {
			return data, notes, end, err
		}
		if len(c.Data) > 0 {
			if off >= 0 && c.Off != off {
				t.Fatalf("chunk at %d, want %d: a byte lost or repeated", c.Off, off)
			}
			off = c.Off + int64(len(c.Data))
		}
		data = append(data, c.Data...)
		if c.Note != "" {
			notes = append(notes, c.Note)
		}
		if c.Ended != nil {
			end = c.Ended
		}
	}
	t.Fatalf("still going after %d calls", limit)
	return
}

var jobStart = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

// logs -f: a job printing a line per second is followed from its first
// line to its end, every line once and in order, and the end carries
// the job's status; a network failure in the middle loses nothing.
func TestJobLogFollowsEveryLineOnceToTheEnd(t *testing.T) {
	clk := &fakeClock{now: jobStart}
	j := &fakeJob{status: &jobs.Status{Pid: 9, Started: jobStart, Heartbeat: jobStart}, modified: jobStart}
	var want bytes.Buffer
	n := 0
	tick := func() {
		n++
		switch {
		case n <= 20:
			line := fmt.Sprintf("step %d\n", n)
			want.WriteString(line)
			j.appended = append(j.appended, line...)
			j.status.Heartbeat, j.modified = clk.now, clk.now
			if n == 7 {
				j.fail = 2
			}
		case n == 25:
			j.appended = append(j.appended, "bye\n"...) // written just before the end
			want.WriteString("bye\n")
			j.status.Ended, j.status.ExitCode, j.modified = clk.now, 3, clk.now
		}
	}
	l := follower(j, clk, JobLogOptions{Follow: true}, tick)
	got, notes, end, err := drain(t, l, 200)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("ended with %v", err)
	}
	if got := string(got); got != want.String() {
		t.Fatalf("log:\n%q\nwant\n%q", got, want.String())
	}
	if end == nil || end.ExitCode != 3 {
		t.Fatalf("end status %+v", end)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "retrying") || !strings.Contains(notes[1], "reconnected") {
		t.Fatalf("notes %q", notes)
	}
}

// One request per poll: while the job prints nothing the polls read the
// log and status.json in turn, never both.
func TestJobLogMakesOneRequestPerPoll(t *testing.T) {
	clk := &fakeClock{now: jobStart}
	j := &fakeJob{status: &jobs.Status{Started: jobStart, Heartbeat: jobStart}, modified: jobStart}
	polls := 0
	tick := func() { polls++; j.modified = clk.now }
	l := follower(j, clk, JobLogOptions{Follow: true}, tick)
	for i := 0; i < 50; i++ {
		if _, err := l.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if j.requests > polls+1 {
		t.Fatalf("%d requests in %d polls", j.requests, polls)
	}
}

// --tail N starts at the last N lines of a log of a gigabyte, reading
// only its end; following on reads only what is appended.
func TestJobLogTailReadsOnlyTheEndOfAHugeLog(t *testing.T) {
	clk := &fakeClock{now: jobStart}
	j := &fakeJob{base: 1 << 30, appended: []byte("one\ntwo\nthree\n"),
		status: &jobs.Status{Started: jobStart, Ended: jobStart, ExitCode: 0}, modified: jobStart}
	l := follower(j, clk, JobLogOptions{Tail: 2, Follow: true}, nil)
	got, _, end, err := drain(t, l, 20)
	if !errors.Is(err, io.EOF) || end == nil {
		t.Fatalf("err %v end %v", err, end)
	}
	if string(got) != "two\nthree\n" {
		t.Fatalf("tail: %q", got)
	}
	if j.bytesRead > 4096 {
		t.Fatalf("read %d bytes of a 1 GiB log for two lines", j.bytesRead)
	}
}

// A log read without -f stops at its end; one read from an offset far
// into a huge log reads only from there.
func TestJobLogWithoutFollowReadsFromWhereAsked(t *testing.T) {
	clk := &fakeClock{now: jobStart}
	j := &fakeJob{base: 1 << 30, appended: []byte("new line\n")}
	l := follower(j, clk, JobLogOptions{From: 1 << 30}, nil)
	got, _, end, err := drain(t, l, 10)
	if !errors.Is(err, io.EOF) || end != nil || string(got) != "new line\n" {
		t.Fatalf("%q %v %v", got, end, err)
	}
	if j.requests != 1 {
		t.Fatalf("%d requests", j.requests)
	}
}

// A job whose supervisor went quiet is reported lost, not followed
// forever.
func TestJobLogReportsALostJob(t *testing.T) {
	clk := &fakeClock{now: jobStart}
	j := &fakeJob{status: &jobs.Status{Started: jobStart, Heartbeat: jobStart}, modified: jobStart}
	l := follower(j, clk, JobLogOptions{Follow: true, Interval: 10 * time.Second}, nil)
	_, _, _, err := drain(t, l, 100)
	if !errors.Is(err, state.ErrJobLost) {
		t.Fatalf("err %v", err)
	}
	if clk.now.Sub(jobStart) < jobs.LostAfter {
		t.Fatalf("lost after only %s", clk.now.Sub(jobStart))
	}
}

// With Stderr, each chunk says which of its bytes came from stderr,
// even when a piece spans two chunks.
func TestJobLogMarksStderrPieces(t *testing.T) {
	clk := &fakeClock{now: jobStart}
	j := &fakeJob{appended: []byte("out\nerr1\n"), ranges: []jobs.Range{{Off: 4, Len: 5}},
		status: &jobs.Status{Started: jobStart, Heartbeat: jobStart}, modified: jobStart}
	n := 0
	l := follower(j, clk, JobLogOptions{Follow: true, Stderr: true}, func() {
		n++
		if n == 1 {
			j.appended = append(j.appended, "err2\nout2\n"...)
			j.ranges = append(j.ranges, jobs.Range{Off: 9, Len: 5})
			j.status.Ended, j.modified = clk.now, clk.now
		}
	})
	var errText []byte
	for {
		c, err := l.Next(context.Background())
		if err != nil {
			break
		}
		for _, r := range c.Stderr {
			errText = append(errText, c.Data[r.Off-c.Off:r.Off-c.Off+r.Len]...)
		}
	}
	if string(errText) != "err1\nerr2\n" {
		t.Fatalf("stderr %q", errText)
	}
}

// A runtime that is gone ends the follow at once with that error.
func TestJobLogStopsWhenTheRuntimeIsGone(t *testing.T) {
	clk := &fakeClock{now: jobStart}
	gone := &jupyter.Error{Op: "read", Kind: jupyter.ErrRuntimeGone}
	l := follower(&fakeJob{}, clk, JobLogOptions{Follow: true}, nil)
	l.r = goneReader{gone}
	if _, err := l.Next(context.Background()); !errors.Is(err, jupyter.ErrRuntimeGone) {
		t.Fatalf("err %v", err)
	}
}

type goneReader struct{ err error }

func (g goneReader) readLog(context.Context, int64, int64) ([]byte, int64, error) {
	return nil, 0, g.err
}
func (g goneReader) tailLog(context.Context, int64) ([]byte, int64, error) { return nil, 0, g.err }
func (g goneReader) readStatus(context.Context) (*jobs.Status, time.Time, error) {
	return nil, time.Time{}, g.err
}
func (g goneReader) readRanges(context.Context, int64) ([]jobs.Range, int64, error) {
	return nil, 0, g.err
}

// BenchmarkJobLogFollow follows a log of a gigabyte that grows by 4 KiB
// a poll interval: it reports the requests made per poll interval
// (budget: at most 1) and the bytes read beyond what was appended, per
// poll and per minute of polls a second (budget: under 1 MB a minute).
func BenchmarkJobLogFollow(b *testing.B) {
	clk := &fakeClock{now: jobStart}
	j := &fakeJob{base: 1 << 30, status: &jobs.Status{Started: jobStart, Heartbeat: jobStart}, modified: jobStart}
	line := bytes.Repeat([]byte("y"), 4095)
	line = append(line, '\n')
	// The first read is made at once, the others each after a poll
	// interval's sleep: every read is a poll's.
	appended, polls := 0, 1
	o := JobLogOptions{From: j.size(), Follow: true, Now: func() time.Time { return clk.now }}
	l := newJobLog(j, o)
	l.sleep = func(context.Context, time.Duration) error {
		clk.now = clk.now.Add(time.Second)
		polls++
		j.appended = append(j.appended, line...)
		appended += len(line)
		j.modified = clk.now
		return nil
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := l.Next(context.Background()); err != nil {
			b.Fatal(err)
		}
		if len(j.appended) > 1<<20 { // keep the fake's memory bounded
			j.base += int64(len(j.appended))
			j.appended = nil
		}
	}
	b.StopTimer()
	if polls > 0 {
		b.ReportMetric(float64(j.requests)/float64(polls), "requests/poll")
		b.ReportMetric(float64(j.bytesRead-appended)/float64(polls), "extra-bytes/poll")
		// A poll a second: what a minute of following reads beyond what
		// was appended (budget: under 1 MB).
		b.ReportMetric(float64(j.bytesRead-appended)/float64(polls)*60, "extra-bytes/min")
	}
}

// A hostile stderr.ranges naming pieces far beyond the log cannot make a
// follower hold (and scan at every poll) more than maxPendingRanges of
// them, however long it follows.
func TestJobLogBoundsPendingStderrPieces(t *testing.T) {
	clk := &fakeClock{now: jobStart}
	j := &fakeJob{appended: []byte("line\n"), status: &jobs.Status{Started: jobStart, Heartbeat: jobStart}, modified: jobStart}
	l := follower(j, clk, JobLogOptions{Follow: true, Stderr: true}, func() {
		j.appended = append(j.appended, "more\n"...)
		for i := 0; i < 3000; i++ {
			j.ranges = append(j.ranges, jobs.Range{Off: 99_999_999_999, Len: 1})
		}
		j.status.Heartbeat, j.modified = clk.now, clk.now
	})
	for i := 0; i < 40; i++ {
		if _, err := l.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(l.ranges) > maxPendingRanges {
			t.Fatalf("poll %d: %d pieces held", i, len(l.ranges))
		}
	}
	if len(l.ranges) == 0 {
		t.Fatal("the pieces were never read: the test proves nothing")
	}
}
