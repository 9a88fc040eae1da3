package top

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// top --json of a round where one runtime of two could not be read:
// ok false, the round's exit code word and how many failed; the read
// runtime's memory, kernels and activity as the proxy said them.
func TestTopReportOfAPartialRound(t *testing.T) {
	st := monitor.NewStore()
	idleSince := rowAt.Add(-90 * time.Second)
	st.RecordResources("runtimes/rt-a", rowAt, apimon.Resources{Memory: &apimon.Memory{TotalBytes: 1000, FreeBytes: 600}}, nil)
	st.RecordKernels("runtimes/rt-a", rowAt, []apimon.Kernel{{ID: "k1", Name: "python3", ExecutionState: "idle", LastActivity: idleSince, Connections: 1}}, nil)
	rows := []row{
		newRow(api.Runtime{Name: "runtimes/rt-a"}, st.Get("runtimes/rt-a"), "", rowAt),
		newRow(api.Runtime{Name: "runtimes/rt-b"}, nil, "runtime gone (get_runtime: not found)", rowAt),
	}
	rep := newReport(rows, rowAt)
	if rep.OK || rep.Error == nil || rep.Error.Code != kit.CodeWord(kit.ExitPartial) ||
		rep.Error.Message != "1 of 2 runtimes could not be read (see each runtime's error fields)" {
		t.Errorf("envelope %+v %+v, want a partial failure of 1 of 2", rep.Envelope, rep.Error)
	}
	a, b := rep.Runtimes[0], rep.Runtimes[1]
	if !a.OK || a.Resources == nil || a.Resources.Memory == nil || a.Resources.Memory.UsedBytes != 400 {
		t.Errorf("the read runtime: %+v", a)
	}
	if len(a.Kernels) != 1 || a.Kernels[0].ExecutionState != "idle" || a.Kernels[0].LastActivity != "2026-12-01T17:58:30Z" {
		t.Errorf("kernels %+v", a.Kernels)
	}
	if a.Activity.State != "idle" || a.Activity.ForSeconds != 90 || a.Activity.Since == nil || *a.Activity.Since != "2026-12-01T17:58:30Z" {
		t.Errorf("activity %+v", a.Activity)
	}
	if b.OK || b.Error == "" || b.ResourcesStatus != "unknown" || b.Resources != nil || b.Kernels != nil {
		t.Errorf("the runtime not read: %+v", b)
	}
	// Every runtime read: ok, no error.
	if rep := newReport(rows[:1], rowAt); !rep.OK || rep.Error != nil {
		t.Errorf("a full round: %+v", rep.Envelope)
	}
}

// Resources without memory say null, not zeros; kernels that failed are
// null with their error, though an earlier list is kept for the
// activity.
func TestTopReportNullsWhatWasNotSaid(t *testing.T) {
	st := monitor.NewStore()
	st.RecordResources("runtimes/rt-a", rowAt, apimon.Resources{Disks: []apimon.Disk{{Label: "kernel", TotalBytes: 10, UsedBytes: 5}}}, nil)
	st.RecordKernels("runtimes/rt-a", rowAt, []apimon.Kernel{{ID: "k1", ExecutionState: "busy"}}, nil)
	st.RecordKernels("runtimes/rt-a", rowAt.Add(time.Second), nil, &apimon.Error{Op: "kernels", Kind: apimon.KindUnavailable, Status: 500, Message: "HTTP 500"})
	rr := newRow(api.Runtime{Name: "runtimes/rt-a"}, st.Get("runtimes/rt-a"), "", rowAt).report()
	if rr.Resources == nil || rr.Resources.Memory != nil || len(rr.Resources.Disks) != 1 || rr.Resources.Disks[0].UsedBytes != 5 {
		t.Errorf("resources %+v", rr.Resources)
	}
	if rr.Kernels != nil || rr.KernelsError != "kernels unavailable: HTTP 500" || rr.OK {
		t.Errorf("kernels %v, error %q, ok %v", rr.Kernels, rr.KernelsError, rr.OK)
	}
}

// --json's "at" is when the round read its runtimes, not when the
// document was written.
func TestTopReportAtIsTheRounds(t *testing.T) {
	var out bytes.Buffer
	v := &verb{Verb: kit.NewVerb(&kit.Globals{Logs: kit.Logs{Red: &api.Redactor{}}}, &kit.Streams{Out: &out, Err: &out}, "top")}
	v.AsJSON = true
	if err := v.print([]row{newRow(api.Runtime{Name: "runtimes/rt-a"}, nil, "no connection yet", rowAt)}); err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.At != "2026-12-01T18:00:00Z" {
		t.Errorf("%v: at %q, want the round's 2026-12-01T18:00:00Z", err, rep.At)
	}
}
