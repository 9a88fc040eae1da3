package state

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
)

func TestEventKeyIgnoresWordingAndTime(t *testing.T) {
	a := Event{Kind: EventJobEnded, Runtime: "rt-1", Job: "train-abc123", Status: "exited 0", Text: "x", At: time.Unix(1, 0)}
	b := a
	b.Text, b.At = "seen again at the next refresh", time.Unix(99, 0)
	if a.Key() != b.Key() {
		t.Error("one job's end seen twice has two keys: it would be told twice")
	}
	for _, other := range []Event{{Kind: EventJobEnded, Runtime: "rt-2", Job: "train-abc123"}, {Kind: EventRuntimeIdle, Runtime: "rt-1", Job: "train-abc123"},
		{Kind: EventJobEnded, Runtime: "rt-1", Job: "train-abc123", Instance: "2"}, {Kind: EventJobEnded, Runtime: "rt-1\x00train-abc123"}} {
		if other.Key() == a.Key() {
			t.Errorf("%+v shares the key of %+v", other, a)
		}
	}
}

func TestEventTitleAndJobEndStatus(t *testing.T) {
	cases := []struct {
		ev   Event
		want string
	}{
		{Event{Kind: EventJobEnded, Runtime: "rt-1", Job: "train-abc123", Status: JobEndStatus(0, 0, false)}, "colabdash: job train-abc123 exited 0"},
		{Event{Kind: EventJobEnded, Job: "j", Status: JobEndStatus(-1, 15, false)}, "colabdash: job j killed by signal 15"},
		{Event{Kind: EventJobEnded, Job: "j", Status: JobEndStatus(0, 0, true)}, "colabdash: job j lost"},
		{Event{Kind: EventRuntimeIdle, Runtime: "rt-1", Status: "idle 30m"}, "colabdash: rt-1 idle 30m"},
		{Event{Kind: EventTokenFailed}, "colabdash: token-failed"},
	}
	for _, c := range cases {
		if got := c.ev.Title(); got != c.want {
			t.Errorf("Title() = %q, want %q", got, c.want)
		}
	}
}

func TestNotifyViaPicksWhatTheTerminalShows(t *testing.T) {
	cases := []struct {
		mode, program, term string
		kitty               bool
		want                string
	}{
		{NotifyAuto, "iTerm.app", "xterm-256color", false, NotifyOSC9},
		{NotifyAuto, "WezTerm", "", false, NotifyOSC9},
		{NotifyAuto, "", "xterm-kitty", true, NotifyOSC9},
		{NotifyAuto, "", "wt", false, NotifyOSC9},
		{NotifyAuto, "", "foot-extra", false, NotifyOSC777},
		{NotifyAuto, "", "rxvt-unicode-256color", false, NotifyOSC777},
		{NotifyAuto, "Apple_Terminal", "xterm-256color", false, NotifyBell},
		{NotifyOSC777, "iTerm.app", "", false, NotifyOSC777},
		{NotifyOff, "iTerm.app", "", false, NotifyOff},
	}
	for _, c := range cases {
		if got := NotifyVia(c.mode, c.program, c.term, c.kitty); got != c.want {
			t.Errorf("NotifyVia(%q, %q, %q, %v) = %q, want %q", c.mode, c.program, c.term, c.kitty, got, c.want)
		}
	}
}

// The job-ended text names the script as it was typed (not the path on
// the runtime with its leading / dropped), how long the job ran and its
// arguments, as docs/configuration.md shows it.
func TestJobEndedNamesTheScriptAsTyped(t *testing.T) {
	start := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	rec := jobs.Record{Runtime: "runtimes/rt-abc", Spec: jobs.Spec{ID: "train-4kq9zt", Cwd: "content", File: "content/train.py",
		Argv0: "train.py", Args: []string{"--epochs", "300"}, Created: start},
		Status: &jobs.Status{Pid: 7, Started: start, Ended: start.Add(62 * time.Minute), ExitCode: 0, Heartbeat: start}}
	at := start.Add(63 * time.Minute)
	ev := JobEnded(rec, JudgeJob(rec, at, 0), at)
	if want := "job train-4kq9zt on rt-abc exited 0 after 1h2m: train.py --epochs 300"; ev.Text != want {
		t.Errorf("text %q, want %q", ev.Text, want)
	}
	rec.Spec.Argv0 = ""
	if ev := JobEnded(rec, JudgeJob(rec, at, 0), at); !strings.HasSuffix(ev.Text, ": /content/train.py --epochs 300") {
		t.Errorf("without the typed name: text %q, want the script's absolute path", ev.Text)
	}
	rec.Spec.Argv0, rec.Spec.Args = "my run.py", []string{"a;b"}
	if ev := JobEnded(rec, JudgeJob(rec, at, 0), at); !strings.HasSuffix(ev.Text, ": 'my run.py' 'a;b'") {
		t.Errorf("text %q, want the words quoted as a shell would", ev.Text)
	}
}
