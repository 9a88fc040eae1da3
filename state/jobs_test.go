package state

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

var jobT0 = time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)

func running(heartbeat time.Time) *jobs.Status {
	return &jobs.Status{Pid: 4242, Started: jobT0, Heartbeat: heartbeat}
}

// Every state `jobs` shows, judged from what the runtime recorded and the
// client's clock: a job is lost only when its status has gone unwritten
// for longer than LostAfter, clock skew included.
func TestJudgeJob(t *testing.T) {
	ended := jobT0.Add(90 * time.Second)
	cases := []struct {
		name      string
		rec       jobs.Record
		now       time.Time
		lostAfter time.Duration
		want      string
		state     JobState
		dur       time.Duration
		exit      int
	}{
		{"no status yet", jobs.Record{Spec: jobs.Spec{Created: jobT0}}, jobT0.Add(2 * time.Second), 0, "starting", JobStarting, 0, -1},
		{"no status long after the launch", jobs.Record{Spec: jobs.Spec{Created: jobT0}}, jobT0.Add(61 * time.Second), 0, "lost", JobLost, 0, -1},
		{"heartbeat 4s ago", jobs.Record{Status: running(jobT0.Add(56 * time.Second)), Modified: jobT0.Add(56 * time.Second)}, jobT0.Add(time.Minute), 0, "running", JobRunning, time.Minute, -1},
		{"status unwritten for exactly LostAfter", jobs.Record{Status: running(jobT0), Modified: jobT0}, jobT0.Add(jobs.LostAfter), 0, "running", JobRunning, jobs.LostAfter, -1},
		{"status unwritten past LostAfter", jobs.Record{Status: running(jobT0.Add(10 * time.Second)), Modified: jobT0.Add(10 * time.Second)}, jobT0.Add(71 * time.Second), 0, "lost", JobLost, 10 * time.Second, -1},
		{"short LostAfter (tests)", jobs.Record{Status: running(jobT0.Add(10 * time.Second)), Modified: jobT0.Add(10 * time.Second)}, jobT0.Add(13 * time.Second), 2 * time.Second, "lost", JobLost, 10 * time.Second, -1},
		{"runtime clock 50s ahead", jobs.Record{Status: running(jobT0.Add(50 * time.Second)), Modified: jobT0.Add(50 * time.Second)}, jobT0.Add(time.Second), 0, "running", JobRunning, time.Second, -1},
		{"no server time: the heartbeat", jobs.Record{Status: running(jobT0)}, jobT0.Add(61 * time.Second), 0, "lost", JobLost, 0, -1},
		{"stop asked", jobs.Record{Status: &jobs.Status{Started: jobT0, Stopping: true}, Modified: jobT0}, jobT0.Add(time.Second), 0, "stopping", JobRunning, time.Second, -1},
		{"exited 0", jobs.Record{Status: &jobs.Status{Started: jobT0, Ended: ended}}, jobT0.Add(time.Hour), 0, "exited 0", JobExited, 90 * time.Second, 0},
		{"exited 3, long ago", jobs.Record{Status: &jobs.Status{Started: jobT0, Ended: ended, ExitCode: 3}, Modified: ended}, jobT0.Add(48 * time.Hour), 0, "exited 3", JobExited, 90 * time.Second, 3},
		{"killed by a stop", jobs.Record{Status: &jobs.Status{Started: jobT0, Ended: ended, ExitCode: -1, Signal: 15, Stopping: true}}, jobT0.Add(time.Hour), 0, "killed by SIGTERM", JobKilled, 90 * time.Second, 143},
		{"killed by SIGKILL", jobs.Record{Status: &jobs.Status{Started: jobT0, Ended: ended, ExitCode: -1, Signal: 9}}, jobT0.Add(time.Hour), 0, "killed by SIGKILL", JobKilled, 90 * time.Second, 137},
		{"killed by an unnamed signal", jobs.Record{Status: &jobs.Status{Started: jobT0, Ended: ended, ExitCode: -1, Signal: 40}}, jobT0.Add(time.Hour), 0, "killed by signal 40", JobKilled, 90 * time.Second, 168},
		{"supervisor's error", jobs.Record{Status: &jobs.Status{Started: jobT0, Ended: jobT0, Error: "cannot start the job: FileNotFoundError"}}, jobT0.Add(time.Hour), 0, "failed", JobFailed, 0, -1},
		{"error without an end", jobs.Record{Status: &jobs.Status{Error: "the supervisor failed"}, Modified: jobT0}, jobT0.Add(time.Second), 0, "failed", JobFailed, 0, -1},
	}
	for _, c := range cases {
		v := JudgeJob(c.rec, c.now, c.lostAfter)
		if v.Word() != c.want || v.State != c.state || v.Duration != c.dur || v.ExitStatus() != c.exit {
			t.Errorf("%s: %q %s %v exit %d; want %q %s %v exit %d", c.name, v.Word(), v.State, v.Duration, v.ExitStatus(), c.want, c.state, c.dur, c.exit)
		}
		if v.Ended() != (c.state != JobStarting && c.state != JobRunning) {
			t.Errorf("%s: Ended() = %v in state %s", c.name, v.Ended(), v.State)
		}
	}
}

// The last line `jobs` shows is what a terminal would leave on the
// screen: the last line with text, as carriage returns leave it.
func TestLastLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                            "",
		"\n\n":                        "",
		"one\ntwo\n":                  "two",
		"one\ntwo":                    "two",
		"epoch 1\n 10%\r 50%\r100%\n": "100%",
		"loss 0.5\n 40%\r    \r\n\n":  "loss 0.5",
		"loss 0.5\n 40%\r   \r\n\n":   "%",
		"abcdef\rXY":                  "XYcdef",
		"a\r\n":                       "a",
	} {
		if got := LastLine([]byte(in)); got != want {
			t.Errorf("LastLine(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("é", 150) // 300 bytes
	if got := LastLine([]byte(long)); len(got) > 200 || !strings.HasPrefix(long, got) || len(got) < 198 {
		t.Errorf("LastLine of a long line kept %d bytes: %q", len(got), got)
	}
}

// A job's row names its command as a shell would show it and its state,
// start and duration.
func TestJobRowSummary(t *testing.T) {
	rec := jobs.Record{Runtime: "runtimes/rt-abc", Spec: jobs.Spec{ID: "train-4kq9zt", Argv0: "train.py", Args: []string{"--lr", "0.1", "my data", "it's"}},
		Status: &jobs.Status{Started: jobT0, Ended: jobT0.Add(252 * time.Second), ExitCode: 3}}
	got := JobRowOf(rec, jobT0.Add(time.Hour), []byte("epoch 3\n 10%\r100%\n")).Summary()
	want := `train-4kq9zt  rt-abc  python train.py --lr 0.1 'my data' 'it'\''s'  exited 3  2026-12-07 05:00:00  4m12s  100%`
	if got != want {
		t.Errorf("Summary:\n got %s\nwant %s", got, want)
	}
	starting := JobRowOf(jobs.Record{Runtime: "runtimes/rt-abc", Spec: jobs.Spec{ID: "x-1", Argv0: "x.py", Created: jobT0}}, jobT0, nil).Summary()
	if starting != "x-1  rt-abc  python x.py  starting  -  0s" {
		t.Errorf("Summary of a starting job: %q", starting)
	}
}

// Following costs one request per poll: the log while it brings bytes,
// status.json after an empty read, and once the job has ended the log
// until it is drained.
func TestJobFollowPolicy(t *testing.T) {
	var f JobFollow
	var steps []string
	step := func(s JobFollowStep) { steps = append(steps, [...]string{"log", "status", "done"}[s]) }
	const piece = 100
	step(f.Next())
	f.LogRead(piece, piece) // a full piece: more may wait
	step(f.Next())
	f.LogRead(30, piece)
	step(f.Next())
	f.LogRead(0, piece) // nothing new: look at the status next
	step(f.Next())
	f.StatusRead(false) // still running
	step(f.Next())
	f.LogRead(0, piece)
	step(f.Next())
	f.StatusRead(true) // ended: drain the log
	step(f.Next())
	f.LogRead(piece, piece)
	step(f.Next())
	f.LogRead(7, piece)
	step(f.Next())
	want := "log log log status log status log log done"
	if got := strings.Join(steps, " "); got != want {
		t.Errorf("steps %q, want %q", got, want)
	}
}
