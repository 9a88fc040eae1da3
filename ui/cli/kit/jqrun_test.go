package kit

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// runFilter runs --jq expr on a small document with ctx, and fails t if
// the run does not end within a minute (the limits are made small).
func runFilter(t *testing.T, ctx context.Context, expr string) (string, *ExitError) {
	t.Helper()
	st := &JSONState{}
	if err := (&jqFlag{st: st, asJSON: new(bool)}).Set(expr); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- writeDoc(ctx, &out, false, st, map[string]any{"ok": true, "runtimes": []string{"rt-a"}}, nil)
	}()
	select {
	case err := <-done:
		var ee *ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("--jq %s: %v", expr, err)
		}
		return out.String(), ee
	case <-time.After(time.Minute):
		t.Fatalf("--jq %s still running after a minute", expr)
	}
	return "", nil
}

// smallJqLimits makes the limits of a filter small for one test.
func smallJqLimits(t *testing.T) {
	timeout, memory, output, results := JqTimeout, JqMemory, JqMaxOutput, JqMaxResults
	JqTimeout, JqMemory, JqMaxOutput, JqMaxResults = 500*time.Millisecond, 64<<20, 1<<20, 1000
	t.Cleanup(func() { JqTimeout, JqMemory, JqMaxOutput, JqMaxResults = timeout, memory, output, results })
}

// A filter that never ends, grows without bound or prints without end is
// stopped at its limit with exit 2 and a line naming the limit; the
// results it gave before are kept (up to the limit).
func TestJqFilterLimits(t *testing.T) {
	smallJqLimits(t)
	for _, tc := range []struct {
		expr, says string
		timeout    time.Duration
	}{
		{"last(range(1e12))", "the limit on a filter's time", 500 * time.Millisecond},
		{"def f: f; f", "the limit on a filter's time", 500 * time.Millisecond},
		// Memory first: the time limit is far.
		{"[range(1e12)]", "the limit on a filter's memory", 50 * time.Second},
		{"repeat(.)", "the limits are 1000 results", 50 * time.Second},
		{`repeat("x" * 100000)`, "1 MiB", 50 * time.Second},
	} {
		JqTimeout = tc.timeout
		out, ee := runFilter(t, context.Background(), tc.expr)
		if ee == nil || ee.Code != ExitUsage || !strings.Contains(ee.Msg, tc.says) {
			t.Errorf("--jq %s: %+v, want exit 2 saying %q", tc.expr, ee, tc.says)
		}
		if len(out) > JqMaxOutput+200000 {
			t.Errorf("--jq %s printed %d bytes, over the limit", tc.expr, len(out))
		}
	}
	// A filter within the limits is not touched.
	if out, ee := runFilter(t, context.Background(), ".runtimes[]"); ee != nil || out != "rt-a\n" {
		t.Errorf("--jq .runtimes[]: %q, %+v", out, ee)
	}
}

// The run's end (ctrl+c, SIGTERM, SIGHUP end its context) stops a
// filter at once: exit 130 (128+n by the signal that came).
func TestJqFilterStopsWhenTheRunEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, ee := runFilter(t, ctx, "last(range(1e12))")
	if ee == nil || ee.Code != ExitInterrupted {
		t.Errorf("--jq on an ended run: %+v, want exit %d", ee, ExitInterrupted)
	}
}
