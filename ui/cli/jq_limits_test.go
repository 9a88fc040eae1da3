package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// A --jq filter that never ends is stopped by the signal that ends the
// run (here the run's context, as ctrl+c ends it): exit 130 at once
// (the failure envelope printed plain, as for any filter that fails on
// it); and one that outruns its time limit is exit 2 saying so.
func TestJqFilterEndsWithTheRun(t *testing.T) {
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	type result struct {
		code      int
		out, errs string
	}
	run := func(tm term, args ...string) result {
		t.Helper()
		done := make(chan result, 1)
		go func() {
			code, out, errs := e.runTerm(tm, args...)
			done <- result{code, out, errs}
		}()
		select {
		case r := <-done:
			return r
		case <-time.After(time.Minute):
			t.Fatalf("%v: still running after a minute", args)
		}
		return result{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := run(term{ctx: ctx}, "specs", "--jq", "last(range(1e12))"); r.code != kit.ExitInterrupted || !strings.Contains(r.out, `"interrupted"`) {
		t.Errorf("specs --jq on an interrupted run: exit %d, stdout %q, stderr %q; want 130", r.code, r.out, r.errs)
	}
	old := kit.JqTimeout
	kit.JqTimeout = 300 * time.Millisecond
	t.Cleanup(func() { kit.JqTimeout = old })
	if r := run(term{}, "specs", "--jq", "last(range(1e12))"); r.code != kit.ExitUsage || !strings.Contains(r.errs, "the limit on a filter's time") {
		t.Errorf("specs --jq that never ends: exit %d, stderr %q; want 2 naming the time limit", r.code, r.errs)
	}
}
