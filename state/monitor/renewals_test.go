package monitor

import (
	"testing"
	"time"
)

func TestRenewalsAllowOneRenewalPerRuntimeEveryRenewEvery(t *testing.T) {
	r := NewRenewals()
	t0 := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	if !r.Due("runtimes/a", t0) {
		t.Fatal("a runtime never renewed is not due")
	}
	r.Renewed("runtimes/a", t0)
	if r.Due("runtimes/a", t0.Add(RenewEvery-time.Second)) {
		t.Error("due again within RenewEvery of its renewal: a persisting 404 would renew every poll")
	}
	if !r.Due("runtimes/b", t0) {
		t.Error("another runtime's renewal made b wait")
	}
	if !r.Due("runtimes/a", t0.Add(RenewEvery)) {
		t.Error("not due RenewEvery after its renewal")
	}
	r.Retain(func(name string) bool { return name != "runtimes/a" })
	if !r.Due("runtimes/a", t0.Add(time.Second)) {
		t.Error("a forgotten runtime still waits for its old renewal")
	}
	r.Renewed("runtimes/b", t0)
	r.Retain(func(name string) bool { return true })
	if r.Due("runtimes/b", t0.Add(time.Second)) {
		t.Error("Retain forgot a runtime it was told to keep")
	}
}

func TestResourcesDueAfterNotOfferedRecheck(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	if !ResourcesDue(time.Time{}, t0) {
		t.Error("never found not offered, yet not due")
	}
	if ResourcesDue(t0, t0.Add(NotOfferedRecheck-time.Second)) {
		t.Error("due within NotOfferedRecheck of a not offered")
	}
	if !ResourcesDue(t0, t0.Add(NotOfferedRecheck)) {
		t.Error("not due NotOfferedRecheck after a not offered")
	}
}
