package state

import "time"

// A runtime hold is how a colabdash process that will still read a
// runtime after its job ends (wait --download copying results back)
// tells the others sharing its state directory not to delete that
// runtime yet: a --delete-when-done delete waits while a hold is live.
// The holder dates its hold every HoldBeatEvery; a hold not dated for
// HoldFresh (its process was killed) no longer holds.
const (
	HoldBeatEvery = 30 * time.Second
	HoldFresh     = 2 * time.Minute
)

// HoldLive reports whether a hold last dated beat still holds at now: it
// was dated at most HoldFresh ago. A date more than HoldFresh ahead of
// now (a clock set wrong, a file touched by hand) does not hold either,
// so no date keeps a runtime for ever.
func HoldLive(beat, now time.Time) bool {
	d := now.Sub(beat)
	return d <= HoldFresh && d >= -HoldFresh
}

// HoldBeatDue reports whether a hold last dated at last is to be dated
// again at now (HoldBeatEvery passed; the clock going back counts too).
func HoldBeatDue(last, now time.Time) bool {
	d := now.Sub(last)
	return d >= HoldBeatEvery || d < 0
}
