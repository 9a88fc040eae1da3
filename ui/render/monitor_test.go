package render

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
)

var mt0 = time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC)

// A sparkline is one cell per share of the series, the highest sample
// of each; a share without a sample is blank and no sample at all is "".
func TestSparkline(t *testing.T) {
	nan := math.NaN()
	if got := Sparkline([]float64{0, 1, nan, nan, 0.5, 0.2}, 3, 0); got != "█ ▅" {
		t.Errorf("got %q", got)
	}
	if got := Sparkline([]float64{nan, nan}, 5, 2); got != "" {
		t.Errorf("no samples: %q", got)
	}
	if got := Sparkline([]float64{0.3}, 0, 0); got != "" {
		t.Errorf("no room: %q", got)
	}
	// Never wider than asked, nor than the series.
	series := make([]float64, monitor.HistoryLen)
	for i := range series {
		series[i] = float64(i) / float64(len(series))
	}
	if got := Sparkline(series, 30, 0); ansi.StringWidth(got) != 30 || !strings.HasPrefix(got, "▁") || !strings.HasSuffix(got, "█") {
		t.Errorf("rising series: %q", got)
	}
	if got := Sparkline(series[:4], 30, 0); ansi.StringWidth(got) != 4 {
		t.Errorf("short series: %q", got)
	}
	// Held: a sample stands for the hold slots after it.
	if got := Sparkline([]float64{0.5, nan, nan, nan, 1, nan}, 6, 2); got != "▅▅▅ ██" {
		t.Errorf("held: %q", got)
	}
	if Percent(0.456) != "46%" || Percent(nan) != "-" || Percent(2) != "100%" {
		t.Errorf("Percent")
	}
}

// The activity words read without colour: IDLE in capitals once every
// kernel has been idle an hour.
func TestActivityWords(t *testing.T) {
	now := mt0.Add(2 * time.Hour)
	k := func(state string, last time.Time, conns int) apimon.Kernel {
		return apimon.Kernel{ID: state + last.String(), ExecutionState: state, LastActivity: last, Connections: conns}
	}
	for _, c := range []struct {
		ks   []apimon.Kernel
		word string
	}{
		{nil, "-"},
		{[]apimon.Kernel{}, "no kernels"},
		{[]apimon.Kernel{k("idle", now.Add(-72*time.Minute), 1)}, "IDLE 1h12m"},
		{[]apimon.Kernel{k("idle", now.Add(-12*time.Minute), 1)}, "idle 12m"},
		{[]apimon.Kernel{k("busy", now.Add(-2*time.Hour), 1)}, "busy 2h"},
		{[]apimon.Kernel{k("starting", now.Add(-5*time.Minute), 0)}, "never connected"},
	} {
		if got := ActivityWord(monitor.Judge(c.ks, now, nil)); got != c.word {
			t.Errorf("%v: %q, want %q", c.ks, got, c.word)
		}
	}
}

// The monitor's cells: "–" before anything came, "?" when nothing could
// be read, figures as a bar and a percent, "stale" after three failures,
// "n/a" on a stock server; the ACTIVITY cell's idle word.
func TestMonitorCells(t *testing.T) {
	s := monitor.NewStore()
	name := "runtimes/r"
	cell := func() []string {
		m := s.Get(name)
		return []string{ColRAM.Cell(m, mt0), ColGPU.Cell(m, mt0), ColActivity.Cell(m, mt0)}
	}
	if got := strings.Join(cell(), "|"); got != "–|–|–" {
		t.Errorf("nothing yet: %q", got)
	}
	fail := &apimon.Error{Op: "resources", Kind: apimon.KindUnavailable, Status: 500, Message: "HTTP 500"}
	s.RecordResources(name, mt0, apimon.Resources{}, fail)
	s.RecordKernels(name, mt0, nil, fail)
	if got := strings.Join(cell(), "|"); got != "?|?|?" {
		t.Errorf("failed first: %q", got)
	}
	res := apimon.Resources{Memory: &apimon.Memory{TotalBytes: 100, FreeBytes: 55}, Disks: []apimon.Disk{},
		GPUs: []apimon.GPU{{Name: "Tesla T4", MemoryTotalBytes: 10, GPUUtilization: 1, EverUsed: true}}}
	s.RecordResources(name, mt0, res, nil)
	s.RecordKernels(name, mt0, []apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: mt0.Add(-61 * time.Minute), Connections: 1}}, nil)
	// Idle kernels beside a GPU at 100 %: the GPU keeps the word off idle.
	if got := strings.Join(cell(), "|"); got != "▄ 45%|█100%|busy GPU" {
		t.Errorf("figures: %q", got)
	}
	quiet := res
	quiet.GPUs = []apimon.GPU{{Name: "Tesla T4", MemoryTotalBytes: 10, GPUUtilization: 0.01, EverUsed: true}}
	s.RecordResources(name, mt0, quiet, nil)
	if got := strings.Join(cell(), "|"); got != "▄ 45%|▁  1%|IDLE 1h1m" {
		t.Errorf("figures: %q", got)
	}
	for range monitor.StaleAfter {
		s.RecordResources(name, mt0, apimon.Resources{}, fail)
	}
	if got := cell()[0]; got != "stale" {
		t.Errorf("after %d failures: %q", monitor.StaleAfter, got)
	}
	s.RecordResources(name, mt0, apimon.Resources{}, &apimon.Error{Op: "resources", Kind: apimon.KindNotOffered})
	if got := cell()[:2]; got[0] != "n/a" || got[1] != "n/a" {
		t.Errorf("not offered: %q", got)
	}
	s.RecordResources(name, mt0, apimon.Resources{Memory: res.Memory, Disks: []apimon.Disk{}}, nil)
	if got := cell()[1]; got != "–" {
		t.Errorf("a runtime without a GPU: %q", got)
	}
}

// A kernel starting is counted as starting, not idle, until it counts
// as stuck (never connected) after monitor.NeverConnectedAfter.
func TestKernelsCellStarting(t *testing.T) {
	ks := []apimon.Kernel{{ID: "a", ExecutionState: "idle", LastActivity: mt0, Connections: 1},
		{ID: "b", ExecutionState: "starting", LastActivity: mt0}}
	if got := KernelsCell(monitor.Judge(ks, mt0.Add(10*time.Second), nil)); got != "0 busy 1 idle 1 starting" {
		t.Errorf("a kernel starting for 10 s: %q", got)
	}
	if got := KernelsCell(monitor.Judge(ks, mt0.Add(monitor.NeverConnectedAfter+time.Second), nil)); got != "0 busy 1 idle 1 stuck" {
		t.Errorf("a kernel starting past NeverConnectedAfter: %q", got)
	}
}

// The monitor columns come from 80 cells up, after NAME and before SPEC;
// SPEC shortens for them and VERSION goes below 100 cells; below 80 the
// table is as without them.
func TestWidthsWithMonitor(t *testing.T) {
	for _, w := range []int{80, 100, 160} {
		c := WidthsWithMonitor(w, 13)
		if !c.Monitor || c.Name != 13 && w < 160 {
			t.Errorf("%d: %+v", w, c)
		}
		h := Header(c, nil, false)
		if ansi.StringWidth(h) > w {
			t.Errorf("%d: header %d cells: %q", w, ansi.StringWidth(h), h)
		}
		if i, j := strings.Index(h, "RAM"), strings.Index(h, "SPEC"); i < 0 || j < i || !strings.Contains(h, "GPU") || !strings.Contains(h, "ACTIVITY") {
			t.Errorf("%d: header %q", w, h)
		}
		if (c.Version > 0) != (w >= 100) {
			t.Errorf("%d: version %d", w, c.Version)
		}
		// A whole row: prefix, name, monitor cells, spec, version, sess, token.
		row := RowPrefix + c.Name + 1 + MonWidth() + c.Spec + 1 + c.Sess + 1 + c.Token
		if c.Version > 0 {
			row += c.Version + 1
		}
		if row > w {
			t.Errorf("%d: a row takes %d cells", w, row)
		}
	}
	if c := WidthsWithMonitor(79, 13); c.Monitor || c != WidthsFor(79, 13) {
		t.Errorf("79: %+v", c)
	}
	// NAME is still cut last: VERSION goes first, then the monitor
	// columns.
	if c := WidthsWithMonitor(100, 30); !c.Monitor || c.Version != 0 || c.Name != 30 {
		t.Errorf("a 30-cell name at 100 cells: %+v", c)
	}
	if c := WidthsWithMonitor(80, 26); c.Monitor || c != WidthsFor(80, 26) {
		t.Errorf("a 26-cell name at 80 cells: %+v", c)
	}
	// At 80 cells a 13-cell name leaves SPEC room for "TPU/V6E1/STD":
	// the token's spare room and the count's age went first.
	if c := WidthsWithMonitor(80, 13); !c.Monitor || c.Name != 13 || c.Spec < len("TPU/V6E1/STD") || c.Sess != 4 {
		t.Errorf("a 13-cell name at 80 cells: %+v", c)
	}
}

// Sorted by a monitor column, its title carries the arrow and the header
// keeps its columns in place; the
// monitor columns sort only where the table shows them.
func TestMonitorSortHeaderAndShows(t *testing.T) {
	c := WidthsWithMonitor(120, 13)
	plain := Header(c, nil, false)
	for _, tc := range []struct {
		by      *Column
		reverse bool
		want    string
	}{
		{&SortRAM, false, "RAM↑  GPU "}, {&SortGPU, true, "RAM   GPU↓ "}, {&SortActivity, false, " ACTIVITY↑   SPEC"},
	} {
		h := Header(c, tc.by, tc.reverse)
		if !strings.Contains(h, tc.want) || ansi.StringWidth(h) != ansi.StringWidth(plain) || strings.Index(h, "SPEC") != strings.Index(plain, "SPEC")+2 {
			t.Errorf("%s: header %q", tc.by.Title, h)
		}
	}
	if !c.Shows(&SortRAM) || WidthsFor(120, 13).Shows(&SortRAM) || WidthsWithMonitor(79, 13).Shows(&SortActivity) {
		t.Error("a monitor column sorts where it is not shown, or not where it is")
	}
	if got := Sortable(); len(got) != 8 || got[1] != &SortRAM || got[3] != &SortActivity || got[4] != &ColSpec {
		t.Errorf("sortable: %v", got)
	}
}

// The monitor sort keys: no figures (nothing yet, n/a, stale, no GPU)
// is not a key; ACTIVITY ranks busy before idle whatever the durations.
func TestMonitorSortKeys(t *testing.T) {
	s := monitor.NewStore()
	if _, ok := SortRAM.Sort.Figure(nil, mt0); ok {
		t.Error("nil has a RAM key")
	}
	res := apimon.Resources{Memory: &apimon.Memory{TotalBytes: 100, FreeBytes: 75}}
	s.RecordResources("a", mt0, res, nil)
	if k, ok := SortRAM.Sort.Figure(s.Get("a"), mt0); !ok || k != 0.25 {
		t.Errorf("RAM key %v %v", k, ok)
	}
	if _, ok := SortGPU.Sort.Figure(s.Get("a"), mt0); ok {
		t.Error("no GPU has a GPU key")
	}
	s.RecordKernels("busy", mt0, []apimon.Kernel{{ID: "k", ExecutionState: "busy", LastActivity: mt0.Add(-9 * time.Hour), Connections: 1}}, nil)
	s.RecordKernels("idle", mt0, []apimon.Kernel{{ID: "k", ExecutionState: "idle", LastActivity: mt0.Add(-time.Minute), Connections: 1}}, nil)
	b, okb := SortActivity.Sort.Figure(s.Get("busy"), mt0)
	i, oki := SortActivity.Sort.Figure(s.Get("idle"), mt0)
	if !okb || !oki || b >= i {
		t.Errorf("busy %v %v, idle %v %v", b, okb, i, oki)
	}
	if _, ok := SortActivity.Sort.Figure(s.Get("a"), mt0); ok {
		t.Error("no kernel list has an ACTIVITY key")
	}
}

// The ACTIVITY cell keeps its word through a failed kernels poll or two,
// says "stale" (and gives no sort key) after monitor.StaleAfter in a
// row, and has its word again after a success.
func TestActivityCellSaysStaleAfterFailedPolls(t *testing.T) {
	s := monitor.NewStore()
	name := "runtimes/r"
	busy := []apimon.Kernel{{ID: "k", ExecutionState: "busy", LastActivity: mt0.Add(-42 * time.Second), Connections: 1}}
	s.RecordKernels(name, mt0, busy, nil)
	word := ColActivity.Cell(s.Get(name), mt0)
	if word == "stale" || word == "–" || word == "?" {
		t.Fatalf("kernels listed: %q", word)
	}
	fail := &apimon.Error{Op: "kernels", Kind: apimon.KindUnavailable, Status: 502, Message: "HTTP 502"}
	for i := 1; i <= monitor.StaleAfter; i++ {
		now := mt0.Add(time.Duration(i) * 30 * time.Second)
		s.RecordKernels(name, now, nil, fail)
		got := ColActivity.Cell(s.Get(name), mt0)
		_, sortable := SortActivity.Sort.Figure(s.Get(name), mt0)
		if stale := i >= monitor.StaleAfter; stale != (got == "stale") || stale == sortable {
			t.Errorf("after %d failed polls: %q (sort key: %v), want %q", i, got, sortable, map[bool]string{true: "stale", false: word}[stale])
		}
	}
	s.RecordKernels(name, mt0, busy, nil)
	if got := ColActivity.Cell(s.Get(name), mt0); got != word {
		t.Errorf("after a success: %q, want %q", got, word)
	}
}
