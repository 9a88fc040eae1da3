package top

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/cli/kit/kittest"
)

// runOverAB runs top with args (off a terminal, ending with ctx) over
// rt-a and rt-b, calling onRequest with the count of the emulator's proxy
// requests so far (this one included) as each arrives, one call at a
// time.
func runOverAB(t *testing.T, ctx context.Context, onRequest func(e *kittest.Env, n int, r *http.Request), args ...string) kittest.Result {
	t.Helper()
	_, r := runCounting(t, colabfake.Options{Seed: colabfake.SeedEmpty}, kittest.Term{Ctx: ctx}, []string{"rt-a", "rt-b"}, onRequest, args...)
	return r
}

// goneRun runs top with args (off a terminal) over rt-a and rt-b, and
// deletes the runtimes of gone once the first round's proxy requests
// (four a runtime: resources, kernels, terminals, jobs) are served; it fails the test when top does not end
// on its own within a minute.
func goneRun(t *testing.T, gone []string, args ...string) kittest.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := runOverAB(t, ctx, func(e *kittest.Env, n int, _ *http.Request) {
		if n == 8 {
			for _, id := range gone {
				e.Srv.Reclaim("runtimes/" + id)
			}
		}
	}, args...)
	if ctx.Err() != nil {
		t.Fatalf("top %v still watched a minute after its runtimes were deleted:\n%s%s", args, r.Out, r.Err)
	}
	return r
}

// --watch over named runtimes that are deleted: a gone runtime reads
// GONE without figures and is not read again; the round's code is
// not_found; once every runtime named is gone, --watch ends with 6.
func TestTopWatchEndsWhenEveryNamedRuntimeIsGone(t *testing.T) {
	r := goneRun(t, []string{"rt-a", "rt-b"}, "rt-a", "rt-b", "--watch", "1", "--json")
	if r.Code != kit.ExitNotFound || !strings.Contains(r.Err, "every runtime named is gone (deleted or reclaimed)") {
		t.Errorf("exit %d, stderr %q; want 6 and the reason", r.Code, r.Err)
	}
	dec := json.NewDecoder(strings.NewReader(r.Out))
	var last Report
	docs := 0
	for dec.More() {
		if err := dec.Decode(&last); err != nil {
			t.Fatalf("%v:\n%s", err, r.Out)
		}
		docs++
	}
	if docs != 2 || last.OK || last.Error == nil || last.Error.Code != "not_found" {
		t.Fatalf("%d documents, the last %+v; want 2, the last not_found", docs, last)
	}
	for _, rr := range last.Runtimes {
		if !rr.Gone || rr.OK || rr.Resources != nil || rr.Stale || rr.Error != goneText {
			t.Errorf("gone runtime %+v", rr)
		}
	}
}

// One of two named runtimes deleted: its row reads GONE with blank
// figures while the other is still read, and --watch goes on (here until
// the test's own end).
func TestTopWatchShowsAGoneRuntime(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := runOverAB(t, ctx, func(e *kittest.Env, n int, r *http.Request) {
		if n == 8 { // the first round's last request
			e.Srv.Reclaim("runtimes/rt-a")
		}
		if strings.Contains(r.URL.Path, "rt-a") && n > 8 {
			t.Errorf("rt-a read after it was deleted: %s", r.URL.Path)
		}
		if n == 14 { // rt-b's second read after the delete (three requests a read)
			cancel()
		}
	}, "rt-a", "rt-b", "--watch", "1")
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("rt-b was not read twice after rt-a was deleted within a minute:\n%s%s", r.Out, r.Err)
	}
	var goneRows int
	for _, l := range strings.Split(r.Out, "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && f[1] == "rt-a" && strings.Contains(l, "GONE") {
			goneRows++
			if strings.Join(f[2:7], " ") != "- - - - -" || !strings.Contains(l, "runtime gone (deleted or reclaimed)") {
				t.Errorf("gone row %q has figures or lacks its note", l)
			}
		}
	}
	if r.Code != 0 || goneRows < 1 {
		t.Errorf("exit %d, %d GONE rows of rt-a:\n%s%s", r.Code, goneRows, r.Out, r.Err)
	}
}
