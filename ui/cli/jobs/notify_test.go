package jobs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rjobs "github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/notify"
	"github.com/colabdash/colabdash/ui/ops"
)

// hooked makes the verbs tell events with OSC 777 and the command tee
// -a (each event's JSON appended to the returned file), claimed in
// state directory dir.
func hooked(t *testing.T, dir string) string {
	t.Helper()
	got := filepath.Join(t.TempDir(), "events.jsonl")
	notifyOptions = func(v *verb) notify.Options {
		return notify.Options{StateDir: dir, Redactor: v.Red(), Getenv: func(k string) string { return map[string]string{"TERM": "foot"}[k] },
			Environ:  []string{"PATH=" + os.Getenv("PATH")},
			Settings: config.Notify{Terminal: state.NotifyAuto, Command: "tee", Args: []string{"-a", got}, Timeout: 10 * time.Second}}
	}
	return got
}

// events are the events the command read, one JSON document a line.
func events(t *testing.T, file string) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var ev map[string]string
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		out = append(out, ev)
	}
	return out
}

// wait on a job that ends rings on stderr when it is a terminal (OSC
// 777 and the bell, the job's hostile argument made plain text) and runs
// the command with the event; a wait that finds the job ended already,
// or whose event a dashboard claimed in the same state directory, tells
// nothing; without a terminal on stderr the command alone hears of it.
func TestWaitTellsTheEndItSaw(t *testing.T) {
	rec := record(rtA, "train-1", running(), "\x1b]2;pwned\a$(id)")
	r := &fakeRuntime{jobs: []rjobs.Record{rec}}
	r.status = func(n int) *rjobs.Status {
		if n < 3 {
			return running()
		}
		return exited(0)
	}
	setup(t, oneRuntime(r), nil)
	dir := t.TempDir()
	got := hooked(t, dir)
	res := run(t, nil, term{errTTY: true}, "wait", "train-1")
	if res.code != 0 {
		t.Fatalf("exit %d %q", res.code, res.err)
	}
	if want := "\x1b]777;notify;colabdash: job train-1 exited 0;job train-1 on rt-a exited 0"; !strings.Contains(res.err, want) ||
		strings.Count(res.err, "\a") != 1 || strings.Count(res.err, "\x1b") != 2 || !strings.Contains(res.err, "$(id)") {
		t.Fatalf("stderr %q, want %q and the bell, nothing else raw", res.err, want)
	}
	evs := events(t, got)
	if len(evs) != 1 || evs[0]["kind"] != "job-ended" || evs[0]["job"] != "train-1" || evs[0]["runtime"] != "rt-a" || evs[0]["status"] != "exited 0" ||
		!strings.HasPrefix(evs[0]["text"], "job train-1 on rt-a exited 0 after 20s: train.py ") {
		t.Fatalf("the command read %v", evs)
	}
	// The job has ended: waiting on it again finds the end, tells none.
	if res := run(t, nil, term{errTTY: true}, "wait", "train-1"); res.code != 0 || strings.Contains(res.err, "\a") || len(events(t, got)) != 1 {
		t.Fatalf("a found end was told: %q %v", res.err, events(t, got))
	}
	// Another job, whose end a dashboard told first (claimed in the
	// state directory): wait tells nothing more.
	r.jobs = []rjobs.Record{record(rtA, "eval-2", running())}
	r.reads = 0
	notify.New(notify.Options{StateDir: dir}).Notify(context.Background(), state.Event{Kind: state.EventJobEnded, Runtime: "rt-a", Job: "eval-2"})
	if res := run(t, nil, term{errTTY: true}, "wait", "eval-2"); res.code != 0 || strings.Contains(res.err, "\a") || len(events(t, got)) != 1 {
		t.Fatalf("an end a dashboard told was told again: %q %v", res.err, events(t, got))
	}
	// stderr not a terminal: no bytes, the command runs.
	r.jobs = []rjobs.Record{record(rtA, "prep-3", running())}
	r.reads = 0
	if res := run(t, nil, term{}, "wait", "prep-3"); res.code != 0 || strings.ContainsAny(res.err, "\a\x1b") || len(events(t, got)) != 2 {
		t.Fatalf("stderr %q, events %v", res.err, events(t, got))
	}
}

// jobs --watch tells a job seen running that ends, and the delete its
// --delete-when-done note asked, each once however many rounds follow.
func TestJobsWatchTellsEndsAndDeletes(t *testing.T) {
	ra := &fakeRuntime{name: rtA, jobs: []rjobs.Record{record(rtA, "train-1", running())}}
	b := oneRuntime(ra)
	setup(t, b, []ops.JobNote{{ID: "train-1", Runtime: rtA, DeleteWhenDone: true}})
	got := hooked(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.onList = func() {
		switch b.lists {
		case 2:
			ra.jobs[0].Status = exited(3)
		case 5:
			cancel()
		}
	}
	res := run(t, nil, term{ctx: ctx, errTTY: true}, "jobs", "--watch", "--interval", "1ms")
	if res.code != kit.ExitInterrupted {
		t.Fatalf("exit %d %q", res.code, res.err)
	}
	evs := events(t, got)
	// The dashboard's and wait's words (state.JobEnded): the duration,
	// the script as typed.
	if len(evs) > 0 && evs[0]["text"] != "job train-1 on rt-a exited 3 after 20s: train.py" {
		t.Errorf("text %q, want the one wording of a job's end", evs[0]["text"])
	}
	if len(evs) != 2 || evs[0]["status"] != "exited 3" || evs[1]["status"] != "exited 3, runtime deleted" ||
		!strings.Contains(evs[1]["text"], "deleted runtime rt-a: job train-1 ended (exited 3)") {
		t.Fatalf("the command read %v", evs)
	}
	if n := strings.Count(res.err, "\a"); n != 2 {
		t.Errorf("rang %d times: %q", n, res.err)
	}
}
