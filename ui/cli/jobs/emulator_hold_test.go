package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	rjobs "github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
	"github.com/colabdash/colabdash/ui/ops"
)

// raceGate orders the two processes of the race below: wait's download
// starts only once jobs --watch has carried out a round that saw the
// job ended (so it saw the end first, while wait still had the results
// to copy).
type raceGate struct {
	ended        atomic.Bool  // the job's end is written
	rounds       atomic.Int32 // listings of the runtimes (jobs --watch's rounds, wait's lookup)
	roundsAfter  atomic.Int32 // those after the end was written: jobs --watch's alone
	watchSawEnd  chan struct{}
	once         sync.Once
	downloadsRan atomic.Int32
}

// gatedBackend is the live backend with raceGate's order.
type gatedBackend struct {
	backend
	g *raceGate
}

// Runtimes begins a round of jobs --watch (after wait's lookup): its
// second round after the end was written comes after one that saw the
// end and carried out (or not) the delete.
func (b gatedBackend) Runtimes(ctx context.Context) ([]api.Runtime, error) {
	b.g.rounds.Add(1)
	if b.g.ended.Load() && b.g.roundsAfter.Add(1) == 2 {
		b.g.once.Do(func() { close(b.g.watchSawEnd) })
	}
	return b.backend.Runtimes(ctx)
}

func (b gatedBackend) Open(ctx context.Context, rt api.Runtime) (runtimeJobs, error) {
	rj, err := b.backend.Open(ctx, rt)
	if err != nil {
		return nil, err
	}
	return gatedRuntime{runtimeJobs: rj, g: b.g}, nil
}

type gatedRuntime struct {
	runtimeJobs
	g *raceGate
}

func (r gatedRuntime) Download(ctx context.Context, remote, local string, dir, force bool, warn func(string), done func(kit.CopiedFile)) error {
	select {
	case <-r.g.watchSawEnd:
	case <-ctx.Done():
		return ctx.Err()
	}
	r.g.downloadsRan.Add(1)
	return r.runtimeJobs.Download(ctx, remote, local, dir, force, warn, done)
}

// Against the emulator: a job noted --delete-when-done, `wait --download
// --delete` started while it runs, and `jobs --watch` beside it, which
// sees the end first. The watch leaves the runtime to the download
// (saying so), the results come back whole, and the server counts one
// delete_runtime.
func TestWaitDownloadRacingJobsWatchDeletesOnceAfterTheResults(t *testing.T) {
	e := kittest.Demo(t)
	note := ops.JobNote{ID: "train-race01", Runtime: demoRT, DeleteWhenDone: true}
	g := &raceGate{watchSawEnd: make(chan struct{})}
	oldLoad, oldForget, oldWait, oldConnect := loadNotes, forgetNote, waitEvery, connect
	t.Cleanup(func() { loadNotes, forgetNote, waitEvery, connect = oldLoad, oldForget, oldWait, oldConnect })
	var notesMu sync.Mutex
	notes := []ops.JobNote{note}
	loadNotes = func() ([]ops.JobNote, error) {
		notesMu.Lock()
		defer notesMu.Unlock()
		return slices.Clone(notes), nil
	}
	forgetNote = func(id string) error {
		notesMu.Lock()
		defer notesMu.Unlock()
		notes = slices.DeleteFunc(notes, func(n ops.JobNote) bool { return n.ID == id })
		return nil
	}
	waitEvery = 20 * time.Millisecond
	connect = func(ctx context.Context, v *verb) (backend, error) {
		b, err := oldConnect(ctx, v)
		if err != nil {
			return nil, err
		}
		return gatedBackend{backend: b, g: g}, nil
	}

	started := time.Now().Add(-time.Minute).UTC()
	writeJob(t, e, note.ID, rjobs.Status{Pid: 42, Started: started, Heartbeat: time.Now().UTC()}, "epoch 1\n")
	results := bytes.Repeat([]byte("weights "), 4096)
	ctx := context.Background()
	jc := demoJupyter(t, e)
	if err := jc.MkdirAll(ctx, "content/outputs"); err != nil {
		t.Fatal(err)
	}
	if _, err := jc.Upload(ctx, "content/outputs/model.bin", bytes.NewReader(results), int64(len(results)), nil); err != nil {
		t.Fatal(err)
	}

	local := t.TempDir()
	waited := make(chan kittest.Result, 1)
	go func() { waited <- e.Run(waitCmd, note.ID, "--download", "outputs/:"+local+"/", "--delete", "--json") }()
	// wait holds the runtime before the job ends.
	for deadline := time.Now().Add(30 * time.Second); !ops.RuntimeHeld(stateDir(), demoRT, time.Now(), nil); {
		if time.Now().After(deadline) {
			t.Fatal("wait --download took no hold of the runtime")
		}
		time.Sleep(5 * time.Millisecond)
	}
	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	watched := make(chan kittest.Result, 1)
	go func() {
		watched <- e.RunTerm(kittest.Term{Ctx: watchCtx}, listCmd, "--watch", "--interval", "20ms")
	}()

	now := time.Now().UTC()
	writeJob(t, e, note.ID, rjobs.Status{Pid: 42, Started: started, Ended: now, ExitCode: 0, Heartbeat: now}, "epoch 1\nsaved\n")
	g.ended.Store(true)

	var w kittest.Result
	select {
	case w = <-waited:
	case <-time.After(2 * time.Minute):
		stopWatch()
		t.Fatal("wait did not return")
	}
	// Two more rounds of the watch after wait's delete: time enough for
	// a second delete, were it to send one.
	after := g.rounds.Load()
	for deadline := time.Now().Add(30 * time.Second); g.rounds.Load() < after+2 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	stopWatch()
	watch := <-watched

	var rep WaitReport
	if err := json.Unmarshal([]byte(w.Out), &rep); err != nil || w.Code != 0 || !rep.Deleted {
		t.Fatalf("wait: exit %d, %q, %q", w.Code, w.Out, w.Err)
	}
	if g.downloadsRan.Load() != 1 {
		t.Fatalf("%d downloads ran", g.downloadsRan.Load())
	}
	if got, err := os.ReadFile(filepath.Join(local, "outputs", "model.bin")); err != nil || !bytes.Equal(got, results) {
		t.Fatalf("the results came back as %d bytes (%v), want %d", len(got), err, len(results))
	}
	if n := e.Srv.CallCount(api.ToolDeleteRuntime); n != 1 {
		t.Fatalf("the server counted %d delete_runtime calls, want 1", n)
	}
	if !strings.Contains(watch.Out, "job train-race01 ended (exited 0): waiting for a download by another colabdash before deleting runtime rt-t4demo7k2p") {
		t.Fatalf("jobs --watch did not say it waits for the download:\n%s\n%s", watch.Out, watch.Err)
	}
}
