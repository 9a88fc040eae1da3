package jobs

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	rjobs "github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
)

// jobs --watch leaves the runtime of a job noted --delete-when-done that
// ended while another colabdash (a wait --download) holds it, says so
// once, and deletes it once the hold is released, or once the holder's
// heartbeat stopped for longer than state.HoldFresh (it was killed).
func TestJobsWatchWaitsForAHeldRuntime(t *testing.T) {
	for _, end := range []string{"released", "stale"} {
		t.Run(end, func(t *testing.T) {
			note := ops.JobNote{ID: "train-1", Runtime: rtA, DeleteWhenDone: true}
			r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", exited(0))}}
			b := oneRuntime(r)
			forgotten := setup(t, b, []ops.JobNote{note})
			clock := now()
			now = func() time.Time { return clock }
			hold, err := ops.HoldRuntime(stateDir(), rtA, clock)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var deletedWhileHeld []string
			b.onList = func() {
				switch b.lists {
				case 2, 3: // rounds 1 and 2 saw the end under a fresh hold
					deletedWhileHeld = append(deletedWhileHeld, b.deleted...)
					clock = clock.Add(state.HoldBeatEvery)
					if err := hold.Beat(clock); err != nil {
						t.Error(err)
					}
				case 4:
					if end == "released" {
						hold.Release()
					} else { // no heartbeat since round 2
						clock = clock.Add(state.HoldFresh + time.Second)
					}
				case 6:
					cancel()
				}
			}
			res := run(t, nil, term{ctx: ctx}, "jobs", "--watch", "--interval", "1ms")
			if res.code != kit.ExitInterrupted {
				t.Fatalf("exit %d %q", res.code, res.err)
			}
			if len(deletedWhileHeld) != 0 {
				t.Fatalf("deleted %v while another colabdash held the runtime", deletedWhileHeld)
			}
			if !slices.Equal(b.deleted, []string{rtA}) || !slices.Equal(*forgotten, []string{"train-1"}) {
				t.Fatalf("deleted %v, forgotten %v; want rt-a once the hold was %s", b.deleted, *forgotten, end)
			}
			// Each round redraws the table and the lines said so far.
			last := res.out[strings.LastIndex(res.out, "ID "):]
			waiting := "job train-1 ended (exited 0): waiting for a download by another colabdash before deleting runtime rt-a"
			if n := strings.Count(last, waiting); n != 1 || !strings.Contains(last, "deleted runtime rt-a: job train-1 ended (exited 0)") {
				t.Fatalf("said %d times that it waits; the last round:\n%s", n, last)
			}
		})
	}
}

// wait --download holds the runtime from before the job ends: a
// dashboard or jobs --watch seeing the end meanwhile leaves the delete,
// and wait, once the results are back, carries out the noted
// --delete-when-done itself, once. When a download did not come back, it
// keeps the runtime against the others too: jobs --watch then says it
// was kept and deletes nothing.
func TestWaitHoldsTheRuntimeUntilItsDownloadsAreBack(t *testing.T) {
	note := ops.JobNote{ID: "train-1", Runtime: rtA, DeleteWhenDone: true}
	r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", running())}}
	b := oneRuntime(r)
	setup(t, b, []ops.JobNote{note})
	// The job runs for 10 minutes of the clock, read every minute: the
	// hold lives on wait's heartbeats alone.
	clock := now()
	now = func() time.Time { return clock }
	r.status = func(n int) *rjobs.Status {
		clock = clock.Add(time.Minute)
		if n < 10 {
			st := running()
			st.Heartbeat = clock
			return st
		}
		return exited(0)
	}
	var heldAtDownload []bool
	var othersClaim []ops.WhenDoneClaim
	r.onDownload = func() {
		// Another process sees the end while wait copies.
		heldAtDownload = append(heldAtDownload, ops.RuntimeHeld(stateDir(), rtA, now(), nil))
		othersClaim = append(othersClaim, claimDelete(note, nil))
	}
	local := t.TempDir()
	res := run(t, nil, term{}, "wait", "train-1", "--download", "out/:"+local+"/")
	if res.code != 0 || !slices.Equal(b.deleted, []string{rtA}) || !strings.Contains(res.err, "deleted runtime rt-a: job train-1 ended (exited 0), as --delete-when-done asked") {
		t.Fatalf("exit %d, deleted %v, stderr %q", res.code, b.deleted, res.err)
	}
	if !slices.Equal(heldAtDownload, []bool{true}) || !slices.Equal(othersClaim, []ops.WhenDoneClaim{ops.WhenDoneHeld}) {
		t.Fatalf("while wait downloaded: held %v, another process's claim %v; want held", heldAtDownload, othersClaim)
	}
	if ops.RuntimeHeld(stateDir(), rtA, now(), nil) {
		t.Error("the hold outlived wait")
	}
	if got := claimDelete(note, nil); got != ops.WhenDoneTaken {
		t.Errorf("after wait deleted the runtime another process's claim is %v, want taken", got)
	}

	// A download that fails: the runtime is kept, against jobs --watch too.
	r = &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", exited(0))}, downErr: &jupyter.Error{Op: "download", Kind: jupyter.ErrTransport, Message: "connection reset"}}
	b = oneRuntime(r)
	forgotten := setup(t, b, []ops.JobNote{note})
	res = run(t, nil, term{}, "wait", "train-1", "--download", "out/:"+filepath.Join(t.TempDir(), "x"))
	if res.code != kit.ExitPartial || len(b.deleted) != 0 || !strings.Contains(res.err, "runtime rt-a kept despite --delete-when-done") {
		t.Fatalf("wait: exit %d, deleted %v, stderr %q", res.code, b.deleted, res.err)
	}
	if !slices.Equal(*forgotten, []string{"train-1"}) {
		t.Errorf("forgotten %v: the kept runtime's intent stays noted", *forgotten)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.onList = func() {
		if b.lists == 3 {
			cancel()
		}
	}
	res = run(t, nil, term{ctx: ctx}, "jobs", "--watch", "--interval", "1ms") // a watch that still read the note
	if len(b.deleted) != 0 || !strings.Contains(res.out, "runtime rt-a kept despite --delete-when-done, since a colabdash wait --download did not come back") {
		t.Fatalf("jobs --watch: deleted %v, stdout %q", b.deleted, res.out)
	}
}

// ctrl+c while wait waits for another colabdash's download deletes
// nothing.
func TestWaitStoppedWhileAnotherHoldsDeletesNothing(t *testing.T) {
	r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", exited(0))}}
	b := oneRuntime(r)
	setup(t, b, nil)
	other, err := ops.HoldRuntime(stateDir(), rtA, now())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.onDownload = cancel // ctrl+c once wait's own download is back
	res := run(t, nil, term{ctx: ctx}, "wait", "train-1", "--download", "out/:"+t.TempDir()+"/", "--delete")
	if res.code != kit.ExitInterrupted || len(b.deleted) != 0 ||
		!strings.Contains(res.err, "waiting for a download by another colabdash before deleting runtime rt-a") || !strings.Contains(res.err, "runtime rt-a not deleted") {
		t.Fatalf("exit %d, deleted %v, stderr %q", res.code, b.deleted, res.err)
	}
}

// A download that finds the runtime deleted (by hand, or by a colabdash
// that took the delete before wait's hold: wait started after the job
// ended) says so, and does not claim the runtime was kept.
func TestWaitDownloadFromADeletedRuntimeSaysSo(t *testing.T) {
	note := ops.JobNote{ID: "train-1", Runtime: rtA, DeleteWhenDone: true}
	r := &fakeRuntime{jobs: []rjobs.Record{record(rtA, "train-1", exited(0))},
		downErr: &jupyter.Error{Op: "download", Kind: jupyter.ErrRuntimeGone, Message: "the runtime no longer exists"}}
	b := oneRuntime(r)
	setup(t, b, []ops.JobNote{note})
	res := run(t, nil, term{}, "wait", "train-1", "--download", "out/:"+t.TempDir()+"/", "--delete")
	if res.code == 0 || len(b.deleted) != 0 || strings.Contains(res.err, "kept") || !strings.Contains(res.err, "no longer exists") {
		t.Fatalf("exit %d, deleted %v, stderr %q", res.code, b.deleted, res.err)
	}
}
