package ops

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/colabdash/colabdash/api/safefile/marker"
	"github.com/colabdash/colabdash/state"
)

// WhenDoneClaimsDir is the directory, below the state directory, of the
// markers by which colabdash processes claim the delete a job note asks
// for (run --detach --delete-when-done): the dashboards, jobs --watch and
// wait that see the job end race for it, and only the first deletes the
// runtime. The same directory holds the runtime holds (HoldRuntime) and
// the keeps (KeepWhenDone). Markers older than WhenDoneClaimsKept are
// removed by the next claim.
const (
	WhenDoneClaimsDir  = "when-done"
	WhenDoneClaimsKept = 7 * 24 * time.Hour
)

// WhenDoneClaim is what ClaimWhenDone found.
type WhenDoneClaim int

const (
	// WhenDoneClaimed: this process is the first: it deletes the runtime.
	WhenDoneClaimed WhenDoneClaim = iota
	// WhenDoneTaken: another process claimed the delete first and
	// deletes the runtime.
	WhenDoneTaken
	// WhenDoneKept: a wait whose download did not come back claimed the
	// delete to keep the runtime (KeepWhenDone): nobody deletes it.
	WhenDoneKept
	// WhenDoneHeld: another process holds the runtime (HoldRuntime: a
	// wait --download still copying its results); nothing was claimed:
	// ask again later.
	WhenDoneHeld
)

// claimKey is the key of job id's delete of runtime among the claims and
// the keeps.
func claimKey(runtime, id string) string { return runtime + "\x00" + id }

// whenDoneMarkers are state directory dir's claims, keeps and holds of
// runtime (each holder a marker of its own).
func whenDoneMarkers(dir, runtime string) (claims, keeps, holds marker.Dir) {
	claims = marker.Dir{State: dir, Name: WhenDoneClaimsDir}
	keeps = marker.Dir{State: dir, Name: WhenDoneClaimsDir, Prefix: "kept-"}
	holds = marker.Dir{State: dir, Name: WhenDoneClaimsDir, Prefix: "hold-"}.Of(runtime)
	return claims, keeps, holds
}

// ClaimWhenDone claims, for this process, the delete of runtime
// (runtimes/ID) that job id's note asks for, among the colabdash
// processes sharing state directory dir. A live hold of the runtime by
// another process (RuntimeHeld; own, this process's hold, is left out)
// postpones it: WhenDoneHeld, nothing claimed. Otherwise the job's claim
// marker is created exclusively: WhenDoneClaimed when this call made it,
// else WhenDoneTaken, or WhenDoneKept when a wait made it to keep the
// runtime. A hold taken while the marker was made (a wait --download
// started after the job ended) is checked again after it: the claim is
// then withdrawn and the answer is WhenDoneHeld. With no state directory,
// or one the marker cannot be written in (WhenDoneClaimsDir a symbolic
// link, or a link at the marker's name: never followed, see package
// marker), it answers WhenDoneClaimed: a second delete_runtime is better
// than none. now dates the markers pruned and judges the holds.
func ClaimWhenDone(dir, runtime, id string, now time.Time, own *RuntimeHold) WhenDoneClaim {
	claims, keeps, _ := whenDoneMarkers(dir, runtime)
	claims.Prune(now.Add(-WhenDoneClaimsKept))
	if RuntimeHeld(dir, runtime, now, own) {
		return WhenDoneHeld
	}
	key := claimKey(runtime, id)
	created, err := claims.Create(key)
	switch {
	case err != nil:
		return WhenDoneClaimed
	case !created && keeps.Exists(key):
		return WhenDoneKept
	case !created:
		return WhenDoneTaken
	case RuntimeHeld(dir, runtime, now, own):
		_ = claims.Remove(key)
		return WhenDoneHeld
	}
	return WhenDoneClaimed
}

// KeepWhenDone claims job id's delete of runtime to keep the runtime
// (wait, when a download did not come back: its results are still only
// there): the other processes then find it kept (WhenDoneKept) and leave
// it. It reports false when another process claimed the delete first
// (it deletes the runtime: WhenDoneTaken).
func KeepWhenDone(dir, runtime, id string) bool {
	claims, keeps, _ := whenDoneMarkers(dir, runtime)
	key := claimKey(runtime, id)
	// The keep first: a process that finds the claim taken then finds it
	// kept too.
	keptNow, _ := keeps.Create(key)
	created, err := claims.Create(key)
	if err != nil || created || !keptNow {
		return true // kept by this call, or by another wait before it
	}
	_ = keeps.Remove(key) // a deleter's claim
	return false
}

// RuntimeHold is this process's hold of a runtime: while it is live (its
// holder dates it every state.HoldBeatEvery, Beat), the --delete-when-done
// deletes of the other colabdash processes sharing the state directory
// wait (ClaimWhenDone answers WhenDoneHeld). A nil *RuntimeHold holds
// nothing; its methods do nothing. Its methods are not for concurrent
// use.
type RuntimeHold struct {
	holds marker.Dir
	key   string    // this holder's own marker
	beat  time.Time // when it was last dated
}

// HoldRuntime holds runtime (runtimes/ID) in state directory dir, dated
// now, until Release: wait --download takes it before the job ends and
// releases it once its downloads are over. The error is marker's (no
// state directory, a symbolic link in the way): the runtime is then not
// held, and the nil *RuntimeHold returned with it does nothing.
func HoldRuntime(dir, runtime string, now time.Time) (*RuntimeHold, error) {
	_, _, holds := whenDoneMarkers(dir, runtime)
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	h := &RuntimeHold{holds: holds, key: hex.EncodeToString(b[:]), beat: now}
	if err := holds.Touch(h.key, now); err != nil {
		return nil, err
	}
	return h, nil
}

// Beat dates the hold now when state.HoldBeatEvery passed since it was
// last dated (call it at every poll: it costs nothing in between). Its
// error is the dating's: the hold may then go stale.
func (h *RuntimeHold) Beat(now time.Time) error {
	if h == nil || !state.HoldBeatDue(h.beat, now) {
		return nil
	}
	if err := h.holds.Touch(h.key, now); err != nil {
		return err
	}
	h.beat = now
	return nil
}

// Release ends the hold (its marker removed; one that cannot be removed
// goes stale within state.HoldFresh).
func (h *RuntimeHold) Release() {
	if h != nil {
		_ = h.holds.Remove(h.key)
	}
}

// RuntimeHeld reports whether a process other than own's holder holds
// runtime in state directory dir at now: a hold dated within
// state.HoldFresh of now (state.HoldLive).
func RuntimeHeld(dir, runtime string, now time.Time, own *RuntimeHold) bool {
	_, _, holds := whenDoneMarkers(dir, runtime)
	var except []string
	if own != nil {
		except = append(except, own.key)
	}
	beat, ok := holds.Newest(except...)
	return ok && state.HoldLive(beat, now)
}

// KeepBeating dates the hold every period (state.HoldBeatEvery: Beat
// dates it no more often), by now's clock, from a goroutine of its own,
// until stop is called (stop waits for it):
// for the stretches without a poll to Beat from (wait's downloads, whose
// listings, retries and link checks may move no byte for minutes). The
// hold must not be used otherwise until stop returns. A nil hold starts
// nothing.
func (h *RuntimeHold) KeepBeating(period time.Duration, now func() time.Time) (stop func()) {
	if h == nil {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				_ = h.Beat(now())
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}
