package ops

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/colabdash/colabdash/state"
)

// Two processes that see one job end claim its delete: the first gets
// it, the second does not, another job is claimed apart; a marker older
// than WhenDoneClaimsKept is pruned; without a state directory every
// claim is granted.
func TestClaimWhenDoneOnceAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	if !claimed(dir, "runtimes/rt-a", "short-1", now) {
		t.Fatal("the first claim was refused")
	}
	if claimed(dir, "runtimes/rt-a", "short-1", now) {
		t.Fatal("a second process may delete the runtime too")
	}
	if !claimed(dir, "runtimes/rt-b", "short-1", now) || !claimed(dir, "runtimes/rt-a", "short-2", now) {
		t.Fatal("another job's delete was refused")
	}
	es, _ := os.ReadDir(filepath.Join(dir, WhenDoneClaimsDir))
	old := now.Add(-WhenDoneClaimsKept - time.Hour)
	for _, e := range es {
		if err := os.Chtimes(filepath.Join(dir, WhenDoneClaimsDir, e.Name()), old, old); err != nil {
			t.Fatal(err)
		}
	}
	ClaimWhenDone(dir, "runtimes/rt-c", "other-3", now, nil)
	if es, _ := os.ReadDir(filepath.Join(dir, WhenDoneClaimsDir)); len(es) != 1 {
		t.Errorf("%d markers after pruning, want the new one", len(es))
	}
	if !claimed("", "runtimes/rt-a", "short-1", now) || !claimed("", "runtimes/rt-a", "short-1", now) {
		t.Error("without a state directory a claim was refused")
	}
}

// A when-done directory that is a symbolic link is not followed: no
// marker is made where it points, and the delete is not claimed away.
func TestClaimWhenDoneFollowsNoLink(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, WhenDoneClaimsDir)); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	now := time.Now()
	if !claimed(dir, "runtimes/rt-a", "job-1", now) || !claimed(dir, "runtimes/rt-a", "job-1", now) {
		t.Error("a linked claims directory took the claim")
	}
	if es, _ := os.ReadDir(elsewhere); len(es) != 0 {
		t.Errorf("markers made through the link: %v", es)
	}
}

// claimed reports whether ClaimWhenDone gave this process the delete.
func claimed(dir, runtime, id string, now time.Time) bool {
	return ClaimWhenDone(dir, runtime, id, now, nil) == WhenDoneClaimed
}

// While a wait --download holds the runtime, no dashboard or jobs
// --watch claims its --delete-when-done delete (it is postponed, nothing
// claimed); the holder itself may claim it, and once the hold is
// released, or its heartbeat stopped for longer than state.HoldFresh,
// the delete is claimed once.
func TestHeldRuntimeIsNotDeletedUntilReleasedOrStale(t *testing.T) {
	dir, rt := t.TempDir(), "runtimes/rt-a"
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	wait, err := HoldRuntime(dir, rt, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := ClaimWhenDone(dir, rt, "job-1", t0, nil); got != WhenDoneHeld {
		t.Fatalf("a dashboard's claim under a fresh hold: %v, want held", got)
	}
	if !RuntimeHeld(dir, rt, t0, nil) || RuntimeHeld(dir, rt, t0, wait) || RuntimeHeld(dir, "runtimes/rt-b", t0, nil) {
		t.Error("RuntimeHeld: want the hold seen by others, not by its holder, and only for its runtime")
	}
	// Heartbeats keep it live past state.HoldFresh.
	for now := t0; now.Before(t0.Add(10 * time.Minute)); now = now.Add(20 * time.Second) {
		if err := wait.Beat(now); err != nil {
			t.Fatal(err)
		}
		if got := ClaimWhenDone(dir, rt, "job-1", now, nil); got != WhenDoneHeld {
			t.Fatalf("%v after the hold: claim %v, want held", now.Sub(t0), got)
		}
	}
	// The holder claims the delete itself (its own hold does not stop it),
	// and it is claimed once.
	if got := ClaimWhenDone(dir, rt, "job-1", t0.Add(10*time.Minute), wait); got != WhenDoneClaimed {
		t.Fatalf("the holder's claim: %v", got)
	}
	wait.Release()
	if got := ClaimWhenDone(dir, rt, "job-1", t0.Add(10*time.Minute), nil); got != WhenDoneTaken {
		t.Fatalf("after the holder claimed: %v, want taken", got)
	}

	// Released: the next claim gets it.
	other, err := HoldRuntime(dir, rt, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := ClaimWhenDone(dir, rt, "job-2", t0, nil); got != WhenDoneHeld {
		t.Fatalf("claim under a second hold: %v", got)
	}
	other.Release()
	if got := ClaimWhenDone(dir, rt, "job-2", t0, nil); got != WhenDoneClaimed {
		t.Fatalf("claim after the release: %v", got)
	}

	// A holder killed: its hold goes stale and holds no more.
	killed, err := HoldRuntime(dir, rt, t0)
	if err != nil {
		t.Fatal(err)
	}
	_ = killed // never dated again, never released
	if got := ClaimWhenDone(dir, rt, "job-3", t0.Add(time.Minute), nil); got != WhenDoneHeld {
		t.Fatalf("a minute after the last heartbeat: %v, want held", got)
	}
	if got := ClaimWhenDone(dir, rt, "job-3", t0.Add(3*time.Minute), nil); got != WhenDoneClaimed {
		t.Fatalf("three minutes after the last heartbeat: %v, want claimed", got)
	}
}

// Two waits downloading from one runtime each hold it: one releasing
// leaves the other's hold standing.
func TestEachHolderHoldsApart(t *testing.T) {
	dir, rt := t.TempDir(), "runtimes/rt-a"
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	a, errA := HoldRuntime(dir, rt, now)
	b, errB := HoldRuntime(dir, rt, now)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	a.Release()
	if !RuntimeHeld(dir, rt, now, nil) || !RuntimeHeld(dir, rt, now, a) || RuntimeHeld(dir, rt, now, b) {
		t.Error("one holder's release ended the other's hold")
	}
	b.Release()
	if RuntimeHeld(dir, rt, now, nil) {
		t.Error("held after both released")
	}
	var none *RuntimeHold // no state directory: holds nothing, does nothing
	if h, err := HoldRuntime("", rt, now); h != nil || err == nil {
		t.Errorf("HoldRuntime without a state directory: %v, %v", h, err)
	}
	if none.Beat(now) != nil || RuntimeHeld("", rt, now, none) {
		t.Error("a nil hold holds")
	}
	none.Release()
}

// A wait whose download did not come back keeps the runtime: the other
// processes find the delete kept and leave it; a keep after a deleter
// claimed reports it lost.
func TestKeepWhenDone(t *testing.T) {
	dir, rt := t.TempDir(), "runtimes/rt-a"
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	if !KeepWhenDone(dir, rt, "job-1") {
		t.Fatal("the keep was refused")
	}
	if got := ClaimWhenDone(dir, rt, "job-1", now, nil); got != WhenDoneKept {
		t.Errorf("a dashboard's claim of a kept runtime: %v, want kept", got)
	}
	if !claimed(dir, rt, "job-2", now) {
		t.Fatal("claim of job-2")
	}
	if KeepWhenDone(dir, rt, "job-2") {
		t.Error("a keep after a deleter claimed reports it kept")
	}
	if got := ClaimWhenDone(dir, rt, "job-2", now, nil); got != WhenDoneTaken {
		t.Errorf("after a lost keep: %v, want taken", got)
	}
}

// Between polls (wait's downloads) the hold is dated from a ticker: it
// stays live for as long as the clock runs, and stop ends the dating.
func TestKeepBeatingDatesTheHold(t *testing.T) {
	dir, rt := t.TempDir(), "runtimes/rt-a"
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := t0
	late := t0.Add(10 * time.Minute)
	now := func() time.Time { // a minute passes at each tick, up to late
		mu.Lock()
		defer mu.Unlock()
		if clock.Before(late) {
			clock = clock.Add(time.Minute)
		}
		return clock
	}
	h, err := HoldRuntime(dir, rt, t0)
	if err != nil {
		t.Fatal(err)
	}
	stop := h.KeepBeating(time.Millisecond, now)
	for deadline := time.Now().Add(30 * time.Second); !RuntimeHeld(dir, rt, late, nil); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			stop()
			t.Fatal("the hold was not dated ten minutes on: it went stale")
		}
	}
	stop()
	mu.Lock()
	stopped := clock
	mu.Unlock()
	if !RuntimeHeld(dir, rt, stopped, nil) || RuntimeHeld(dir, rt, stopped.Add(state.HoldFresh+time.Minute), nil) {
		t.Error("after stop: want the last date live, and stale once state.HoldFresh passed")
	}
	var none *RuntimeHold
	none.KeepBeating(time.Millisecond, now)()
}
