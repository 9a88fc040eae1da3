package state

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

var j0 = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

// The jobs table's state column: what each status.json says, and a job
// whose supervisor went quiet is lost only after LostAfter plus the skew
// allowed between the runtime's clock and ours.
func TestJudgeJobStates(t *testing.T) {
	running := &jobs.Status{Pid: 7, Started: j0, Heartbeat: j0}
	cases := []struct {
		name     string
		st       *jobs.Status
		modified time.Time
		created  time.Time
		now      time.Time
		want     string
		code     int
		hasCode  bool
	}{
		{"no status yet", nil, time.Time{}, j0, j0.Add(time.Minute), "starting", 0, false},
		{"never started", nil, time.Time{}, j0, j0.Add(3 * time.Minute), "lost", 0, false},
		{"running", running, j0, time.Time{}, j0.Add(90 * time.Second), "running", 0, false},
		{"quiet too long", running, j0, time.Time{}, j0.Add(2*jobs.LostAfter + time.Second), "lost", 0, false},
		{"quiet, heartbeat only", running, time.Time{}, time.Time{}, j0.Add(3 * time.Minute), "lost", 0, false},
		{"stopping", &jobs.Status{Started: j0, Heartbeat: j0, Stopping: true}, j0, time.Time{}, j0, "stopping", 0, false},
		{"exited 3", &jobs.Status{Started: j0, Ended: j0.Add(time.Second), ExitCode: 3}, j0, time.Time{}, j0.Add(time.Hour), "exited 3", 3, true},
		{"killed", &jobs.Status{Started: j0, Ended: j0.Add(time.Second), ExitCode: -1, Signal: 15}, j0, time.Time{}, j0.Add(time.Hour), "killed (SIGTERM)", 143, true},
		{"failed", &jobs.Status{Error: "no such file"}, j0, time.Time{}, j0, "failed", 1, true},
	}
	for _, c := range cases {
		v := JudgeJob(c.st, c.modified, c.created, c.now)
		if v.String() != c.want {
			t.Errorf("%s: %q, want %q", c.name, v.String(), c.want)
		}
		code, ok := v.ExitStatus()
		if ok != c.hasCode || code != c.code {
			t.Errorf("%s: exit status %d %v, want %d %v", c.name, code, ok, c.code, c.hasCode)
		}
	}
}

func TestLastLineIsAProgressBarsLatestState(t *testing.T) {
	for in, want := range map[string]string{
		"a\nb\n\n":            "b",
		"epoch 1\r 10%\r 50%": "50%",
		"":                    "",
		"one":                 "one",
	} {
		if got := LastLine([]byte(in)); got != want {
			t.Errorf("LastLine(%q) = %q, want %q", in, got, want)
		}
	}
}

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
	if v := f.StatusRead(end, j0, j0); !v.Ended() {
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
	v := f.StatusRead(&jobs.Status{Started: j0, Heartbeat: j0}, j0, j0.Add(3*time.Minute))
	if v.State != JobLost || !f.Done() || f.Ended() != nil {
		t.Fatalf("lost: %v done %v", v, f.Done())
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
