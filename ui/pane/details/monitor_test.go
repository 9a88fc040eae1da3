package details

import (
	"strings"
	"testing"
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

// The details show the kernels' activity, RAM, the GPU (never used, said
// so) and the disk, each figure with a sparkline of the polls of the
// last 15 minutes.
func TestDetailsShowResourcesWithSparklines(t *testing.T) {
	c, r := fixture(commontest.T0.Add(48 * time.Minute))
	mon := commontest.NewMonitor()
	c.Monitor = mon
	t0 := commontest.T0
	// Ten minutes of polls every 30 s, RAM rising from 10 % to 90 %.
	for i := range 21 {
		at := t0.Add(time.Duration(i-20) * 30 * time.Second)
		mon.Store.RecordResources(r.Name, at, commontest.Resources(0.1+0.04*float64(i), 0, false), nil)
	}
	mon.Store.RecordKernels(r.Name, t0, []apimon.Kernel{
		commontest.Kernel("k1", "idle", t0.Add(-72*time.Minute), 1), commontest.Kernel("k2", "idle", t0.Add(-80*time.Minute), 0)}, nil)
	lines := View(c, r, t0, 90, 12)
	commontest.AssertSize(t, "details", lines, 90, 12)
	v := strings.Join(lines, "\n")
	for _, want := range []string{
		"kernels  0 busy 2 idle · IDLE 1h12m (last activity 15:48)",
		"ram      11.4/12.7 GiB 90%",
		"gpu      Tesla T4 · never used",
		"disk     21.3/107.7 GiB 20%",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("details lack %q:\n%s", want, v)
		}
	}
	ram := lineWith(lines, "ram ")
	// The sparkline rises left to right without gaps between the polls,
	// and its first third (older than the polls) is blank.
	spark := strings.TrimSpace(ram[strings.Index(ram, "90%")+len("90%"):])
	if !strings.HasPrefix(spark, "▂") || !strings.HasSuffix(spark, "▇") || strings.Contains(spark, " ") || len([]rune(spark)) < 30 {
		t.Errorf("ram sparkline %q", spark)
	}
	// A narrow pane keeps the figures and drops the sparklines.
	if v := strings.Join(View(c, r, t0, 45, 12), "\n"); !strings.Contains(v, "ram      11.4/12.7 GiB 90%") || strings.Contains(v, "▁") {
		t.Errorf("45 cells:\n%s", v)
	}
	// A short pane keeps the expiry, when the token renews, the activity
	// and RAM, in that order of rank.
	short := strings.Join(View(c, r, t0, 90, 5), "\n")
	for _, want := range []string{"expires", "renews in", "IDLE 1h12m", "ram"} {
		if !strings.Contains(short, want) {
			t.Errorf("5-line details lack %q:\n%s", want, short)
		}
	}
}

// On a pane of three lines (a 60x15 terminal) the expiry and when the
// token renews stay whether or not the monitor's first figures have
// arrived: the kernels' line takes the third, and RAM never pushes the
// renewal out.
func TestShortPaneKeepsTheRenewalAsFiguresArrive(t *testing.T) {
	c, r := fixture(commontest.T0.Add(48 * time.Minute))
	c.Activity.Renewals = commontest.Renewals{Next: 43*time.Minute + 5*time.Second}
	mon := commontest.NewMonitor()
	c.Monitor = mon
	t0 := commontest.T0
	view := func() []string { return View(c, r, t0, 60, 4) }
	want := func(when string, third string) {
		t.Helper()
		lines := view()
		if !strings.Contains(lines[1], "expires") || !strings.Contains(lines[2], "renews in 43m5s") || !strings.Contains(lines[3], third) {
			t.Errorf("%s: want the expiry, the renewal and %q:\n%s", when, third, strings.Join(lines, "\n"))
		}
	}
	want("before the first poll", "kernels  reading…")
	mon.Store.RecordResources(r.Name, t0, commontest.Resources(0.5, 0, false), nil)
	mon.Store.RecordKernels(r.Name, t0, []apimon.Kernel{commontest.Kernel("k1", "busy", t0.Add(-time.Minute), 1)}, nil)
	want("with figures", "kernels  1 busy 0 idle")
}

func lineWith(lines []string, s string) string {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// Failures read as words: "resources unavailable: …" with the time of the
// figures shown, "(figures stale)" after three failures in a row, "not
// offered by this runtime" on a stock server; a GPU in use shows its
// utilisation.
func TestDetailsSayWhyFiguresAreMissing(t *testing.T) {
	c, r := fixture(commontest.T0.Add(48 * time.Minute))
	mon := commontest.NewMonitor()
	c.Monitor = mon
	t0 := commontest.T0
	view := func() string { return strings.Join(View(c, r, t0, 100, 12), "\n") }
	if v := view(); !strings.Contains(v, "kernels  reading…") {
		t.Errorf("before the first poll:\n%s", v)
	}
	mon.Store.RecordResources(r.Name, t0.Add(-time.Minute), commontest.Resources(0.5, 0.15, true), nil)
	if v := view(); !strings.Contains(v, "gpu      Tesla T4 2.2/15.0 GiB · 15%") {
		t.Errorf("a GPU in use:\n%s", v)
	}
	fail := &apimon.Error{Op: "resources", Kind: apimon.KindUnavailable, Status: 500, Message: "HTTP 500"}
	mon.Store.RecordResources(r.Name, t0, apimon.Resources{}, fail)
	if v := view(); !strings.Contains(v, "resources unavailable: HTTP 500 (figures of 16:59:00)") || !strings.Contains(v, "ram      6.3/12.7 GiB 50%") {
		t.Errorf("one failure:\n%s", v)
	}
	for range monitor.StaleAfter - 1 {
		mon.Store.RecordResources(r.Name, t0, apimon.Resources{}, fail)
	}
	if v := view(); !strings.Contains(v, "resources unavailable: HTTP 500 (figures stale)") || !strings.Contains(v, "50% (stale)") {
		t.Errorf("three failures:\n%s", v)
	}
	mon.Store.RecordResources(r.Name, t0, apimon.Resources{}, &apimon.Error{Op: "resources", Kind: apimon.KindNotOffered, Status: 404})
	if v := view(); !strings.Contains(v, "not offered by this runtime") || strings.Contains(v, "ram ") {
		t.Errorf("a stock server:\n%s", v)
	}
	mon.Store.RecordKernels(r.Name, t0, []apimon.Kernel{commontest.Kernel("k", "starting", t0.Add(-2*time.Minute), 0)}, nil)
	if v := view(); !strings.Contains(v, "kernels  never connected (starting, no connection: WebSocket blocked?) · 0 busy 0 idle 1 stuck") {
		t.Errorf("a kernel stuck starting:\n%s", v)
	}
	c.Monitor = nil
	if v := view(); strings.Contains(v, "kernels") {
		t.Errorf("monitor off:\n%s", v)
	}
}

// The monitor's error texts go through the redactor.
func TestMonitorErrorsAreRedacted(t *testing.T) {
	c, r := fixture(commontest.T0.Add(48 * time.Minute))
	mon := commontest.NewMonitor()
	c.Monitor = mon
	c.Redact = func(s string) string { return strings.ReplaceAll(s, "tok-r-alpha", "••••") }
	leak := &apimon.Error{Op: "resources", Kind: apimon.KindUnavailable, Message: "echoed tok-r-alpha"}
	mon.Store.RecordResources(r.Name, commontest.T0, apimon.Resources{}, leak)
	mon.Store.RecordKernels(r.Name, commontest.T0, nil, &apimon.Error{Op: "kernels", Kind: apimon.KindUnavailable, Message: "echoed tok-r-alpha"})
	v := strings.Join(View(c, r, commontest.T0, 100, 12), "\n")
	if strings.Contains(v, "tok-r-alpha") || strings.Count(v, "echoed ••••") != 2 {
		t.Errorf("details:\n%s", v)
	}
}

// monitored is the fixture's runtime with one resources poll at T0 of
// res, on a Context with the monitor on.
func monitored(t *testing.T, res apimon.Resources) (*common.Context, *state.Runtime) {
	t.Helper()
	c, r := fixture(commontest.T0.Add(48 * time.Minute))
	mon := commontest.NewMonitor()
	c.Monitor = mon
	mon.Store.RecordResources(r.Name, commontest.T0, res, nil)
	return c, r
}

// hasSpark reports whether line draws a sparkline.
func hasSpark(line string) bool { return strings.ContainsAny(line, "▁▂▃▄▅▆▇█") }

// The sparkline is drawn down to its narrowest, 8 cells (a 47-cell
// pane), and left out below.
func TestSparklineAtItsNarrowest(t *testing.T) {
	c, r := monitored(t, commontest.Resources(0.5, 0, false))
	if ram := lineWith(View(c, r, commontest.T0, 47, 12), "ram "); !hasSpark(ram) {
		t.Errorf("47 cells: no sparkline: %q", ram)
	}
	if ram := lineWith(View(c, r, commontest.T0, 46, 12), "ram "); hasSpark(ram) {
		t.Errorf("46 cells: a sparkline: %q", ram)
	}
}

// No RAM line without the memory's figures, and no line for a disk of no
// size.
func TestNoLineForMissingFigures(t *testing.T) {
	res := commontest.Resources(0.5, -1, false)
	res.Memory = nil
	res.Disks = append(res.Disks, apimon.Disk{Label: "/mnt/empty"})
	c, r := monitored(t, res)
	v := strings.Join(View(c, r, commontest.T0, 90, 14), "\n")
	if strings.Contains(v, "ram ") || strings.Contains(v, "empty") || !strings.Contains(v, "disk     21.3/107.7 GiB 20%") {
		t.Errorf("details:\n%s", v)
	}
}

// The kernel's disk (labelled "kernel", else the first) gets the
// sparkline and the disk's rank; the other disks follow without one.
// With two GPUs neither has a sparkline, and the first outranks the
// second.
func TestKernelDiskAndFirstGPUComeFirst(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		disks       []apimon.Disk
		spark, rest string
	}{
		{[]apimon.Disk{{Label: "/mnt/data", TotalBytes: 10 * gib, UsedBytes: gib}, {Label: "/mnt/scratch", TotalBytes: 10 * gib, UsedBytes: gib}}, "data", "scratch"},
		{[]apimon.Disk{{Label: "/mnt/data", TotalBytes: 10 * gib, UsedBytes: gib}, {Label: "kernel", TotalBytes: 10 * gib, UsedBytes: gib}}, "disk     1.0/10.0 GiB", "data"},
	} {
		res := commontest.Resources(0.5, -1, false)
		res.Disks = tc.disks
		c, r := monitored(t, res)
		lines := View(c, r, commontest.T0, 90, 14)
		if l := lineWith(lines, tc.spark); !hasSpark(l) {
			t.Errorf("the kernel's disk %q has no sparkline:\n%s", tc.spark, strings.Join(lines, "\n"))
		}
		if l := lineWith(lines, tc.rest); hasSpark(l) {
			t.Errorf("another disk %q has a sparkline:\n%s", tc.rest, strings.Join(lines, "\n"))
		}
	}
	res := commontest.Resources(0.5, -1, false)
	res.GPUs = []apimon.GPU{{Name: "GPU-A", MemoryTotalBytes: 15 * gib, EverUsed: true}, {Name: "GPU-B", MemoryTotalBytes: 15 * gib, EverUsed: true}}
	c, r := monitored(t, res)
	lines := View(c, r, commontest.T0, 90, 14)
	if a, b := lineWith(lines, "GPU-A"), lineWith(lines, "GPU-B"); a == "" || b == "" || hasSpark(a) || hasSpark(b) {
		t.Errorf("two GPUs:\n%s", strings.Join(lines, "\n"))
	}
	// Title, expiry, renewal, kernels, RAM, then the first GPU only.
	short := strings.Join(View(c, r, commontest.T0, 90, 6), "\n")
	if !strings.Contains(short, "GPU-A") || strings.Contains(short, "GPU-B") {
		t.Errorf("6-line details:\n%s", short)
	}
}

// After the kernels' list fails to read, the kernels line keeps the last
// figures with their time; after three failures in a row, that they are
// stale and why.
func TestKernelsLineAfterFailedReads(t *testing.T) {
	c, r := monitored(t, commontest.Resources(0.5, -1, false))
	mon := c.Monitor.(commontest.Monitor)
	t0 := commontest.T0
	mon.Store.RecordKernels(r.Name, t0.Add(-time.Minute), []apimon.Kernel{commontest.Kernel("k1", "busy", t0.Add(-2*time.Minute), 1)}, nil)
	fail := &apimon.Error{Op: "kernels", Kind: apimon.KindUnavailable, Status: 502, Message: "HTTP 502"}
	mon.Store.RecordKernels(r.Name, t0, nil, fail)
	if l := lineWith(View(c, r, t0, 120, 12), "kernels"); !strings.Contains(l, "1 busy 0 idle") || !strings.Contains(l, "(as of 16:59:00)") {
		t.Errorf("one failure: %q", l)
	}
	for range monitor.StaleAfter - 1 {
		mon.Store.RecordKernels(r.Name, t0, nil, fail)
	}
	if l := lineWith(View(c, r, t0, 120, 12), "kernels"); !strings.Contains(l, "1 busy 0 idle") || !strings.Contains(l, "(stale: ") || !strings.Contains(l, "HTTP 502") {
		t.Errorf("three failures: %q", l)
	}
}

// A runtime whose only kernel the server dropped after it was seen up
// (it died and its restarts failed) says so on its kernels line, and its
// activity reads dead by the kernel, not "no kernels".
func TestKernelsLineOfAKernelTheServerGaveUp(t *testing.T) {
	c, r := monitored(t, commontest.Resources(0.5, -1, false))
	mon := c.Monitor.(commontest.Monitor)
	t0 := commontest.T0
	mon.Store.RecordKernels(r.Name, t0.Add(-2*time.Minute), []apimon.Kernel{commontest.Kernel("k1", "idle", t0.Add(-3*time.Minute), 0)}, nil)
	mon.Store.RecordKernels(r.Name, t0.Add(-time.Minute), []apimon.Kernel{}, nil)
	view := View(c, r, t0, 160, 14)
	if l := lineWith(view, "kernels"); !strings.Contains(l, "0 busy 0 idle 1 dead · dead (no longer listed: the server gave up restarting it") {
		t.Errorf("kernels: %q", l)
	}
	if l := lineWith(view, "activity"); !strings.Contains(l, "dead") || strings.Contains(l, "no kernels") {
		t.Errorf("activity: %q", l)
	}
}
