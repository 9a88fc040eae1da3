package top

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
)

var rowAt = time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)

const gib = 1 << 30

// storeRow records res (and kernels ks, when not nil) for runtime rt-a at
// rowAt and returns its row.
func storeRow(res apimon.Resources, resErr error, ks []apimon.Kernel) row {
	st := monitor.NewStore()
	st.RecordResources("runtimes/rt-a", rowAt, res, resErr)
	if ks != nil {
		st.RecordKernels("runtimes/rt-a", rowAt, ks, nil)
	}
	return newRow(api.Runtime{Name: "runtimes/rt-a"}, st.Get("runtimes/rt-a"), "", rowAt)
}

// The GPU columns: none on a CPU runtime, the GPU's name and memory for
// one, "2x NAME" and the summed memory for two, and the mean utilisation
// rounded to a percent; RAM and disk in GiB.
func TestTopGPUCells(t *testing.T) {
	mem := &apimon.Memory{TotalBytes: 16 * gib, FreeBytes: 12 * gib}
	disks := []apimon.Disk{{Label: "kernel", TotalBytes: 100 * gib, UsedBytes: 25 * gib}}
	t4 := func(used, util float64) apimon.GPU {
		return apimon.GPU{Name: "Tesla T4", MemoryUsedBytes: int64(used * gib), MemoryTotalBytes: 15 * gib, GPUUtilization: util, EverUsed: true}
	}
	for _, c := range []struct {
		name      string
		gpus      []apimon.GPU
		gpu, util string
	}{
		{"cpu", nil, "-", "-"},
		{"one", []apimon.GPU{t4(1.5, 0.424)}, "Tesla T4 1.5/15.0 GiB", "42%"},
		{"two", []apimon.GPU{t4(1, 0.2), t4(2, 0.3)}, "2x Tesla T4 3.0/30.0 GiB", "25%"},
	} {
		cells := storeRow(apimon.Resources{Memory: mem, Disks: disks, GPUs: c.gpus}, nil, nil).cells()
		if cells[1] != "4.0/16.0 GiB" || cells[2] != "25.0/100.0 GiB" || cells[3] != c.gpu || cells[4] != c.util {
			t.Errorf("%s: RAM %q DISK %q GPU %q GPU%% %q; want 4.0/16.0 GiB, 25.0/100.0 GiB, %q, %q",
				c.name, cells[1], cells[2], cells[3], cells[4], c.gpu, c.util)
		}
	}
}

// A failed resources read says its error and, while the last figures are
// fresh, their time; once they are stale, that they are; resources not
// offered are said as such, and "GPU never used" follows the figures.
func TestTopResourceNotes(t *testing.T) {
	fail := &apimon.Error{Op: "resources", Kind: apimon.KindUnavailable, Status: 500, Message: "HTTP 500"}
	st := monitor.NewStore()
	name := "runtimes/rt-a"
	st.RecordResources(name, rowAt, apimon.Resources{Memory: &apimon.Memory{TotalBytes: gib},
		GPUs: []apimon.GPU{{Name: "T4", MemoryTotalBytes: gib}}}, nil)
	notes := func(at time.Time) string {
		return strings.Join(newRow(api.Runtime{Name: name}, st.Get(name), "", at).notes(), "; ")
	}
	if got := notes(rowAt); got != "GPU never used" {
		t.Errorf("a GPU runtime never used: note %q", got)
	}
	for i := 1; i <= monitor.StaleAfter; i++ {
		at := rowAt.Add(time.Duration(i) * 5 * time.Second)
		st.RecordResources(name, at, apimon.Resources{}, fail)
		got := notes(at)
		if !strings.HasPrefix(got, "resources unavailable: HTTP 500") {
			t.Fatalf("after %d failure(s): note %q", i, got)
		}
		if i < monitor.StaleAfter {
			if want := " (figures of " + rowAt.Local().Format("15:04:05") + ")"; !strings.Contains(got, want) {
				t.Errorf("after %d failure(s): note %q lacks %q", i, got, want)
			}
		} else if !strings.Contains(got, " (figures stale)") || strings.Contains(got, "figures of") {
			t.Errorf("after %d failures: note %q, want the figures said stale", i, got)
		}
	}
	// No figures ever: the error alone.
	r := storeRow(apimon.Resources{}, fail, nil)
	if got := strings.Join(r.notes(), "; "); got != "resources unavailable: HTTP 500" || r.resourcesStatus() != "unavailable" {
		t.Errorf("no figures and a failure: note %q, status %q", got, r.resourcesStatus())
	}
	no := storeRow(apimon.Resources{}, &apimon.Error{Op: "resources", Kind: apimon.KindNotOffered, Status: 404}, nil)
	if got := strings.Join(no.notes(), "; "); got != "resources not offered by this runtime" || no.resourcesStatus() != "notOffered" || no.failed() {
		t.Errorf("not offered: note %q, status %q, failed %v", got, no.resourcesStatus(), no.failed())
	}
}

// --json's resourcesStatus: unknown before any read, ok after one,
// notOffered, and unavailable after a failure even with earlier figures.
func TestTopResourcesStatus(t *testing.T) {
	fail := &apimon.Error{Op: "resources", Kind: apimon.KindUnavailable, Status: 500, Message: "HTTP 500"}
	if s := newRow(api.Runtime{Name: "runtimes/rt-a"}, nil, "no connectionInfo", rowAt).resourcesStatus(); s != "unknown" {
		t.Errorf("never read: %q", s)
	}
	st := monitor.NewStore()
	st.RecordKernels("runtimes/rt-a", rowAt, nil, nil) // kernels only
	if s := newRow(api.Runtime{Name: "runtimes/rt-a"}, st.Get("runtimes/rt-a"), "", rowAt).resourcesStatus(); s != "unknown" {
		t.Errorf("kernels read, resources not asked: %q", s)
	}
	if s := storeRow(apimon.Resources{}, nil, nil).resourcesStatus(); s != "ok" {
		t.Errorf("read: %q", s)
	}
	st.RecordResources("runtimes/rt-a", rowAt, apimon.Resources{}, nil)
	st.RecordResources("runtimes/rt-a", rowAt.Add(time.Second), apimon.Resources{}, fail)
	r := newRow(api.Runtime{Name: "runtimes/rt-a"}, st.Get("runtimes/rt-a"), "", rowAt)
	if s := r.resourcesStatus(); s != "unavailable" || !r.failed() {
		t.Errorf("failed after a read: %q, failed %v", s, r.failed())
	}
}

// Over `top --watch`, a kernel seen idle in one round and no longer
// listed in the next (the server gave it up after its restarts failed)
// reads dead in the KERNELS and ACTIVITY cells and in the JSON's
// activity; a row made before the next round keeps what it said.
func TestTopRowOfAKernelTheServerGaveUp(t *testing.T) {
	st := monitor.NewStore()
	st.RecordKernels("runtimes/rt-a", rowAt.Add(-time.Minute), []apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: rowAt.Add(-2 * time.Minute)}}, nil)
	before := newRow(api.Runtime{Name: "runtimes/rt-a"}, st.Get("runtimes/rt-a"), "", rowAt.Add(-time.Minute))
	st.RecordKernels("runtimes/rt-a", rowAt, []apimon.Kernel{}, nil)
	r := newRow(api.Runtime{Name: "runtimes/rt-a"}, st.Get("runtimes/rt-a"), "", rowAt)
	if c := r.cells(); c[5] != "0 busy 0 idle 1 dead" || c[6] != "dead" {
		t.Errorf("KERNELS %q ACTIVITY %q", c[5], c[6])
	}
	if a := r.report().Activity; a.State != "dead" || a.Dead != 1 || a.Kernels != 1 || a.By != "kernel" {
		t.Errorf("JSON activity %+v", a)
	}
	if c := before.cells(); c[5] != "0 busy 1 idle" {
		t.Errorf("the earlier round's row now says %q", c[5])
	}
}
