package state

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

var j0 = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

// The follow policy: new bytes while there are some, then status.json,
// then one last drain after the end; a full piece is followed at once.
func TestLogFollowReadsStatusOnlyWhenTheLogBroughtNothing(t *testing.T) {
	f := NewLogFollow(0, 0, true)
	step := func(want LogReadKind, wait bool) LogStep {
		t.Helper()
		s := f.Next()
		if s.Kind != want || s.Wait != wait {
			t.Fatalf("next = %+v, want kind %d wait %v", s, want, wait)
		}
		return s
	}
	step(ReadLogBytes, false)
	f.LogRead(LogPiece, -1, j0) // a full piece: more at once
	step(ReadLogBytes, false)
	f.LogRead(10, -1, j0) // the end of what there is
	s := step(ReadLogBytes, true)
	if s.Off != LogPiece+10 {
		t.Fatalf("offset %d", s.Off)
	}
	f.LogRead(0, -1, j0)
	step(ReadJobStatus, true)
	f.StatusRead(&jobs.Status{Started: j0, Heartbeat: j0}, j0, j0)
	step(ReadLogBytes, true)
	f.LogRead(0, -1, j0)
	step(ReadJobStatus, true)
	end := &jobs.Status{Started: j0, Ended: j0, ExitCode: 2}
	if !f.StatusRead(end, j0, j0) {
		t.Fatal("not ended")
	}
	step(ReadLogBytes, false) // the drain
	if f.Ended() != nil {
		t.Fatal("ended before the drain")
	}
	f.LogRead(5, -1, j0)
	if !f.Done() || f.Ended() != end {
		t.Fatalf("done %v ended %v", f.Done(), f.Ended())
	}
	if f.Next().Kind != ReadNothing {
		t.Fatal("reads after the end")
	}
}

func TestLogFollowWithoutFollowStopsAtTheEnd(t *testing.T) {
	f := NewLogFollow(100, 0, false)
	if s := f.Next(); s.Off != 100 {
		t.Fatalf("from: %+v", s)
	}
	f.LogRead(7, 200, j0) // the server says there are 200 bytes
	if f.Done() || f.Next().Wait {
		t.Fatal("stopped before the size the server gave")
	}
	f.LogRead(93, 200, j0)
	if !f.Done() || f.Ended() != nil {
		t.Fatal("not done at the end of the log")
	}
}

func TestLogFollowTailFindsTheLastLines(t *testing.T) {
	f := NewLogFollow(0, 2, false)
	s := f.Next()
	if s.Kind != ReadLogTail || s.Max != 2*TailFirstBytes {
		t.Fatalf("first tail read %+v", s)
	}
	// A suffix without two whole lines asks for a longer one.
	if _, ok := f.TailRead([]byte("xx\nlast\n"), 1000, j0); ok {
		t.Fatal("one line taken for two")
	}
	if s := f.Next(); s.Kind != ReadLogTail || s.Max <= 2*TailFirstBytes {
		t.Fatalf("no longer suffix: %+v", s)
	}
	data := []byte("tail of one\nsecond\nlast\n")
	cut, ok := f.TailRead(data, 1000, j0)
	if !ok || string(data[cut-1000:]) != "second\nlast\n" {
		t.Fatalf("cut %d ok %v: %q", cut, ok, data[cut-1000:])
	}
	if !f.Done() || f.Off != 1000+int64(len(data)) {
		t.Fatalf("done %v off %d", f.Done(), f.Off)
	}
	// A whole log shorter than N lines is all of it.
	g := NewLogFollow(0, 5, true)
	cut, ok = g.TailRead([]byte("a\nb"), 0, j0)
	if !ok || cut != 0 {
		t.Fatalf("short log: cut %d ok %v", cut, ok)
	}
	if s := g.Next(); s.Kind != ReadLogBytes || s.Off != 3 || !s.Wait {
		t.Fatalf("after the tail: %+v", s)
	}
}

func TestLogFollowGivesUpOnALostJobAndOnLongFailures(t *testing.T) {
	f := NewLogFollow(0, 0, true)
	f.LogRead(0, -1, j0)
	f.StatusRead(&jobs.Status{Started: j0, Heartbeat: j0}, j0, j0.Add(30*time.Second))
	if f.Lost() || f.Done() {
		t.Fatal("lost while its heartbeat is recent")
	}
	f.LogRead(0, -1, j0)
	f.StatusRead(&jobs.Status{Started: j0, Heartbeat: j0}, j0, j0.Add(jobs.LostAfter+time.Second))
	if !f.Lost() || !f.Done() || f.Ended() != nil {
		t.Fatalf("lost %v done %v", f.Lost(), f.Done())
	}
	// A job that never wrote a status is lost after as long.
	h := NewLogFollow(0, 0, true)
	h.LogRead(0, -1, j0)
	h.StatusRead(nil, time.Time{}, j0)
	h.LogRead(0, -1, j0)
	h.StatusRead(nil, time.Time{}, j0.Add(jobs.LostAfter+time.Second))
	if !h.Lost() {
		t.Fatal("a job that never started is followed forever")
	}
	g := NewLogFollow(0, 0, true)
	if g.ReadFailed(j0) || !g.Next().Wait || !g.Failing() {
		t.Fatal("a first failure is retried after an interval")
	}
	if g.ReadFailed(j0.Add(LogRetryFor / 2)) {
		t.Fatal("gave up early")
	}
	if !g.ReadFailed(j0.Add(LogRetryFor + time.Second)) {
		t.Fatal("never gives up")
	}
	g.LogRead(1, -1, j0)
	if g.Failing() {
		t.Fatal("a success did not clear the failure")
	}
	if !strings.Contains(ErrJobLost.Error(), "lost") {
		t.Fatal(ErrJobLost)
	}
}
