package top

import (
	"slices"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/termtext"
)

// demoRows are three runtimes as the demo shows them: a CPU, a busy T4
// whose GPU was never used, and one never used with a long note.
func demoRows() []row {
	st := monitor.NewStore()
	mem := &apimon.Memory{TotalBytes: 13 * gib, FreeBytes: 11 * gib}
	disks := []apimon.Disk{{Label: "kernel", TotalBytes: 108 * gib, UsedBytes: 21 * gib}}
	idle := []apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: rowAt}}
	st.RecordResources("runtimes/rt-cpudemo4qx", rowAt, apimon.Resources{Memory: mem, Disks: disks}, nil)
	st.RecordKernels("runtimes/rt-cpudemo4qx", rowAt, idle, nil)
	st.RecordResources("runtimes/rt-t4demo7k2p", rowAt, apimon.Resources{Memory: mem, Disks: disks,
		GPUs: []apimon.GPU{{Name: "Tesla T4", MemoryTotalBytes: 15 * gib, GPUUtilization: 0}}}, nil)
	st.RecordKernels("runtimes/rt-t4demo7k2p", rowAt, append(idle, apimon.Kernel{ID: "k2", ExecutionState: "idle", LastActivity: rowAt}), nil)
	var rows []row
	for _, id := range []string{"rt-cpudemo4qx", "rt-t4demo7k2p"} {
		rows = append(rows, newRow(api.Runtime{Name: "runtimes/" + id}, st.Get("runtimes/"+id), "", rowAt))
	}
	gone := newRow(api.Runtime{Name: "runtimes/rt-v6edemo2mw"}, nil, "", rowAt)
	gone.gone = true
	return append(rows, gone)
}

// On a terminal top fits its width, as jobs does: at 80 columns no line
// is wider (so none wraps mid-word), NOTE is cut and KERNELS, DISK and
// GPU% are left out as needed while RUNTIME, RAM, GPU and ACTIVITY stay whole; at
// 200 columns, as off a terminal, every column is there in full.
func TestTopFitsTheTerminalWidth(t *testing.T) {
	rows := demoRows()
	full := textLines(rows, 0)
	if !strings.Contains(full[0], "KERNELS") || !strings.Contains(full[0], "DISK") || termtext.Width(full[3]) <= 80 {
		t.Fatalf("off a terminal the table is not whole, or too narrow to test:\n%s", strings.Join(full, "\n"))
	}
	if wide := textLines(rows, 200); strings.Join(wide, "\n") != strings.Join(full, "\n") {
		t.Errorf("at 200 columns:\n%s\nwant every column, as off a terminal:\n%s", strings.Join(wide, "\n"), strings.Join(full, "\n"))
	}
	narrow := textLines(rows, 80)
	for _, l := range narrow {
		if termtext.Width(l) > 80 {
			t.Errorf("at 80 columns a line is %d wide: %q", termtext.Width(l), l)
		}
	}
	for _, col := range []string{"RUNTIME", "RAM", "GPU", "ACTIVITY", "NOTE"} {
		if !slices.Contains(strings.Fields(narrow[0]), col) {
			t.Errorf("at 80 columns the header %q lacks %s", narrow[0], col)
		}
	}
	for _, col := range []string{"KERNELS", "DISK"} {
		if strings.Contains(narrow[0], col) {
			t.Errorf("at 80 columns the header %q still has %s (the table cannot fit with it)", narrow[0], col)
		}
	}
	for _, want := range []string{"rt-t4demo7k2p", "Tesla T4 0.0/15.0 GiB", "2.0/13.0 GiB", "GONE"} {
		if !strings.Contains(strings.Join(narrow, "\n"), want) {
			t.Errorf("at 80 columns %q is not shown whole:\n%s", want, strings.Join(narrow, "\n"))
		}
	}
	if !strings.Contains(narrow[3], "…") {
		t.Errorf("at 80 columns the long note is not cut with an ellipsis: %q", narrow[3])
	}
}
