package render

import (
	"testing"
	"time"

	"github.com/colabdash/colabdash/state/monitor"
)

// A restarted kernel and dead ones read as such in the ACTIVITY word and
// the kernel counts, never as idle or "never connected".
func TestRestartedAndDeadWords(t *testing.T) {
	for _, c := range []struct {
		a           monitor.Activity
		word, count string
	}{
		{monitor.Activity{State: monitor.StateRestarted, Kernels: 2, Restarted: 1, Since: mt0, For: 3 * time.Minute}, "restarted 3m", "0 busy 1 idle 1 restarted"},
		{monitor.Activity{State: monitor.StateRestarted, Kernels: 1, Restarted: 1}, "restarted", "0 busy 0 idle 1 restarted"},
		{monitor.Activity{State: monitor.StateDead, Kernels: 2, Dead: 2, Since: mt0, For: time.Hour}, "dead", "0 busy 0 idle 2 dead"},
		{monitor.Activity{State: monitor.StateIdle, Kernels: 2, Dead: 1, Since: mt0, For: 2 * time.Minute}, "idle 2m", "0 busy 1 idle 1 dead"},
	} {
		if got := ActivityWord(c.a); got != c.word {
			t.Errorf("ActivityWord(%+v) = %q, want %q", c.a, got, c.word)
		}
		if got := KernelsCell(c.a); got != c.count {
			t.Errorf("KernelsCell(%+v) = %q, want %q", c.a, got, c.count)
		}
	}
}
