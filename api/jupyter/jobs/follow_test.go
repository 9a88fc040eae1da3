package jobs

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter"
)

// A job's log followed from offsets through a runtime proxy that drops
// requests for a while (replies reset after the request was served, 503s,
// replies cut mid-body, a reply that stalls), and across two proxy-token
// expiries (one renewed ahead of time, one only after the proxy refused
// the expired token), comes out whole: every byte once, in order. A read
// that fails brings nothing, and the next one starts at the same offset.
func TestFollowSurvivesDropsAndTokenExpiry(t *testing.T) {
	e := newEnv(t, colabfake.Options{})
	// The client's clock: the emulator's, held back by lag, so that a
	// token the proxy sees as expired can still look valid to the client
	// (the renewal then comes from the proxy's refusal, not ahead of time).
	var lag atomic.Int64
	jc, err := jupyter.New(jupyter.Options{Runtime: e.Rt.Name, Info: e.Info(), Redactor: e.Red, RetryDelay: 10 * time.Millisecond,
		Renew: e.Renew, Now: func() time.Time { return e.Clk.Now().Add(-time.Duration(lag.Load())) }})
	if err != nil {
		t.Fatal(err)
	}
	var refused atomic.Int64 // requests the proxy saw with an expired token
	e.SetOnProxy(func(r *http.Request) {
		if tok := r.Header.Get(jupyter.TokenHeader); tok != "" && tok == e.expiredToken.Load() {
			refused.Add(1)
		}
	})

	const lines = 300
	j := e.start(t, "follow.py", counting(lines, 15))
	phases := []struct {
		at  int64 // log offset from which the phase starts
		act func()
	}{
		{200, func() {
			e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyDropReply, PathPrefix: "files/", Times: 3})
			e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStatus, Status: http.StatusServiceUnavailable, PathPrefix: "files/", Times: 3})
		}},
		{700, func() { e.Clk.Advance(57 * time.Minute) }}, // 3 min left: renewed ahead of time
		{1200, func() {
			e.expiredToken.Store(jc.Info().Token)
			lag.Store(int64(2 * time.Hour))
			e.Clk.Advance(2 * time.Hour) // the proxy refuses the token; the client does not know yet
		}},
		{1700, func() {
			e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyCut, PathPrefix: "files/", After: 10, Times: 2})
		}},
		{2200, func() {
			e.Srv.InjectProxy(colabfake.ProxyFault{Kind: colabfake.ProxyStall, PathPrefix: "files/", After: 5})
		}},
	}

	ctx := context.Background()
	var got []byte
	failures := 0
	end := time.Now().Add(3 * deadline)
	for ended := false; ; {
		if time.Now().After(end) {
			t.Fatalf("not done within %s: %d bytes, %d failed reads", 3*deadline, len(got), failures)
		}
		for len(phases) > 0 && int64(len(got)) >= phases[0].at {
			// A full piece waits on the runtime, so that the next read has
			// bytes for a fault to cut or stall.
			waitFor(t, "a full piece in the log", func() bool { return logSize(j) >= phases[0].at+64 })
			phases[0].act()
			phases = phases[1:]
		}
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second) // a stalled reply is given up
		b, _, err := ReadLog(rctx, jc, j.spec.ID, int64(len(got)), 64)
		cancel()
		if err != nil {
			failures++
			time.Sleep(20 * time.Millisecond) // the follower's retry interval
			continue
		}
		got = append(got, b...)
		if len(b) > 0 {
			continue
		}
		if ended {
			break
		}
		rctx, cancel = context.WithTimeout(ctx, 3*time.Second)
		rec, err := Read(rctx, jc, j.spec.ID)
		cancel()
		if err != nil {
			failures++
			continue
		}
		if ended = rec.Status != nil && !rec.Status.Ended.IsZero(); !ended {
			time.Sleep(50 * time.Millisecond) // the poll interval
		}
	}
	if want := countingOutput(lines); string(got) != want {
		t.Errorf("the followed log differs from what the job printed (%d bytes, want %d):\n got %q\nwant %q", len(got), len(want), got, want)
	}
	if len(phases) != 0 || e.Srv.PendingProxyFaults() != 0 {
		t.Errorf("%d phases not reached, %d faults not met: the test did not test them", len(phases), e.Srv.PendingProxyFaults())
	}
	// The 503s, the cut replies and the stall each fail a read (each met
	// a full piece); a reset reply may not (Go's transport sends an
	// idempotent GET again by itself when a reused connection is reset).
	if failures < 3+2+1 {
		t.Errorf("only %d reads failed: the faults did not reach the reads", failures)
	}
	if jc.Renewals() < 2 || refused.Load() == 0 {
		t.Errorf("%d renewals, %d requests with the expired token: want both expiries met", jc.Renewals(), refused.Load())
	}
}

// logSize is the size of j's log on the runtime's disk (0 before it
// exists).
func logSize(j *job) int64 {
	fi, err := os.Stat(filepath.Join(j.dir, LogFile))
	if err != nil {
		return 0
	}
	return fi.Size()
}
