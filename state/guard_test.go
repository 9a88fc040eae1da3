package state

import (
	"testing"
	"time"
)

// The idle guard walked along a fake clock, as the dashboard's tick
// would: each case is a sequence of (minutes since start, idle since
// minute, cancel before this step) and the steps expected.
func TestGuardDecideAlongAClock(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	type tick struct {
		min       int
		idleSince int // -1: not idle by every signal
		cancel    bool
		want      GuardStep
	}
	cases := []struct {
		name  string
		p     GuardPolicy
		ticks []tick
	}{
		{"off", GuardPolicy{}, []tick{{120, 0, false, GuardNone}}},
		{"warn once per stretch of idleness", GuardPolicy{After: 30 * time.Minute}, []tick{
			{29, 0, false, GuardNone}, {30, 0, false, GuardWarnNow}, {31, 0, false, GuardNone}, {90, 0, false, GuardNone},
			{91, 91, false, GuardNone}, {121, 91, false, GuardWarnNow}}},
		{"delete only after the last warning and its grace", GuardPolicy{After: 30 * time.Minute, Delete: true}, []tick{
			{30, 0, false, GuardLastWarning}, {34, 0, false, GuardNone}, {35, 0, false, GuardDeleteNow}, {40, 0, false, GuardNone}}},
		{"work during the grace starts afresh", GuardPolicy{After: 30 * time.Minute, Delete: true}, []tick{
			{30, 0, false, GuardLastWarning}, {33, -1, false, GuardNone}, {36, 33, false, GuardNone}, {63, 33, false, GuardLastWarning}, {68, 33, false, GuardDeleteNow}}},
		{"a signal not read keeps the guard from acting", GuardPolicy{After: 30 * time.Minute, Delete: true}, []tick{
			{30, -1, false, GuardNone}, {60, -1, false, GuardNone}}},
		{"the user's key cancels the delete", GuardPolicy{After: 30 * time.Minute, Delete: true}, []tick{
			{30, 0, false, GuardLastWarning}, {32, 0, true, GuardNone}, {40, 0, false, GuardNone}, {200, 0, false, GuardNone}}},
		{"read-only only warns", GuardPolicy{After: 30 * time.Minute, Delete: true, ReadOnly: true}, []tick{
			{30, 0, false, GuardWarnNow}, {40, 0, false, GuardNone}, {300, 0, false, GuardNone}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m GuardMemo
			for _, tk := range c.ticks {
				since := time.Time{}
				if tk.idleSince >= 0 {
					since = at(tk.idleSince)
				}
				if tk.cancel {
					m.Cancelled = true
				}
				var got GuardStep
				got, m = GuardDecide(c.p, m, since, at(tk.min))
				if got != tk.want {
					t.Fatalf("minute %d (idle since %d): step %d, want %d", tk.min, tk.idleSince, got, tk.want)
				}
			}
		})
	}
}

// The delete a last warning announces comes GuardGrace after it, and is
// said coming only while it is: not before the warning, not after the
// user kept the runtime or a new stretch began, never for a guard that
// only warns or in read-only.
func TestGuardDeleteAt(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	p := GuardPolicy{After: 30 * time.Minute, Delete: true}
	_, m := GuardDecide(p, GuardMemo{}, t0, t0.Add(29*time.Minute))
	if _, ok := m.DeleteAt(p); ok {
		t.Fatal("a delete coming before the last warning")
	}
	warned := t0.Add(30 * time.Minute)
	_, m = GuardDecide(p, m, t0, warned)
	if at, ok := m.DeleteAt(p); !ok || !at.Equal(warned.Add(GuardGrace)) {
		t.Fatalf("after the last warning: delete at %s (%v), want %s", at, ok, warned.Add(GuardGrace))
	}
	for _, q := range []GuardPolicy{{After: p.After}, {After: p.After, Delete: true, ReadOnly: true}} {
		if _, ok := m.DeleteAt(q); ok {
			t.Errorf("policy %+v: a delete coming", q)
		}
	}
	if _, ok := (GuardMemo{IdleSince: t0, Warned: warned, Cancelled: true}).DeleteAt(p); ok {
		t.Error("a delete coming for a runtime kept")
	}
	_, m = GuardDecide(p, m, warned.Add(time.Minute), warned.Add(2*time.Minute))
	if _, ok := m.DeleteAt(p); ok {
		t.Error("a delete coming in a new stretch of idleness")
	}
}
