package render

// The monitor's words and cells, shared by the dashboard (the
// runtimes table's RAM, GPU and ACTIVITY columns, the details and
// sessions panes) and `colabdash top`: one way to say a runtime's
// kernel activity, its sizes and a sparkline of its last 15 minutes.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// ActivityWord is a runtime's kernel activity as a word that reads
// without colour: "busy 42m" (since the last output), "idle 12m",
// "IDLE 1h12m" once every kernel has been idle for monitor.IdleWarnAfter
// (Colab's own idle disconnect is unofficial), "restarted 3m" (a kernel
// that was up is starting again: it died and the server restarted it),
// "dead" (every kernel), "never connected", "starting", "no kernels", "-"
// unknown;
// durations are to the minute, seconds in the first minute ("idle 12s";
// state.FormatMinutes).
func ActivityWord(a monitor.Activity) string {
	switch a.State {
	case monitor.StateBusy:
		if a.Since.IsZero() {
			return "busy"
		}
		return word("busy ", a.For)
	case monitor.StateIdle:
		if a.Since.IsZero() {
			return "idle"
		}
		if a.IdleWarning() {
			return word("IDLE ", a.For)
		}
		return word("idle ", a.For)
	case monitor.StateRestarted:
		if a.Since.IsZero() {
			return "restarted"
		}
		return word("restarted ", a.For)
	case monitor.StateUnknown:
		return "-"
	}
	return a.State.String()
}

// KernelsCell counts the kernels: "1 busy 2 idle", "0 busy 0 idle 1
// starting", "0 busy 0 idle 1 stuck" (never connected), "0 busy 1 idle 1
// restarted", "0 busy 0 idle 2 dead", "none", "-" unknown.
func KernelsCell(a monitor.Activity) string {
	switch a.State {
	case monitor.StateUnknown:
		return "-"
	case monitor.StateNoKernels:
		return "none"
	}
	c := fmt.Sprintf("%d busy %d idle", a.Busy, a.Idle())
	for _, n := range []struct {
		count int
		what  string
	}{{a.Starting, "starting"}, {a.NeverConnected, "stuck"}, {a.Restarted, "restarted"}, {a.Dead, "dead"}} {
		if n.count > 0 {
			c += fmt.Sprintf(" %d %s", n.count, n.what)
		}
	}
	return c
}

// word is prefix followed by d to the minute, in seconds under a minute
// (state.FormatMinutes).
func word(prefix string, d time.Duration) string {
	return prefix + state.FormatMinutes(d)
}

// GiB is "used/total GiB" with one decimal ("-" when the total is
// unknown).
func GiB(used, total int64) string {
	if total <= 0 {
		return "-"
	}
	const g = 1 << 30
	return fmt.Sprintf("%.1f/%.1f GiB", float64(used)/g, float64(total)/g)
}

// Unknown is a figure the server did not send: never shown as zero.
const Unknown = "unknown"

// GPUMemory is g's memory, "2.7/15.0 GiB"; "?/15.0 GiB" when the reply
// gave the total alone, Unknown when it gave no total.
func GPUMemory(g apimon.GPU) string {
	switch {
	case !g.Knows(apimon.GPUMemoryTotal):
		return Unknown
	case !g.Knows(apimon.GPUMemoryUsed):
		return fmt.Sprintf("?/%.1f GiB", float64(g.MemoryTotalBytes)/(1<<30))
	}
	return GiB(g.MemoryUsedBytes, g.MemoryTotalBytes)
}

// GPUUtilization is g's utilization, "15%", or Unknown when the reply
// left it out.
func GPUUtilization(g apimon.GPU) string {
	if !g.Knows(apimon.GPUUtil) {
		return Unknown
	}
	return Percent(g.GPUUtilization)
}

// percentCells are, by percent, its text ("0%" to "100%") and the
// table's figure cell (a bar and the percent right-aligned, "▄ 45%"),
// built on first use: a command that draws no table pays nothing at
// start-up.
var percentCells = sync.OnceValue(func() (c *[101]struct{ percent, figure string }) {
	c = new([101]struct{ percent, figure string })
	for i := range c {
		c[i].percent = strconv.Itoa(i) + "%"
		c[i].figure = Level(float64(i)/100) + frame.FitRight(c[i].percent, 4)
	}
	return c
})

// percentOf is f (0–1, clamped) as a whole percent.
func percentOf(f float64) int { return int(math.Round(min(max(f, 0), 1) * 100)) }

// Percent is a fraction 0–1 as a whole percent ("45%"; "-" for NaN).
func Percent(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	return percentCells()[percentOf(f)].percent
}

// levels are the eight heights of a sparkline cell, lowest first.
var levels = [...]string{"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"}

// Level is a fraction 0–1 as one cell of a bar: "▁" (0) to "█" (1).
func Level(f float64) string {
	if math.IsNaN(f) {
		return " "
	}
	return levels[int(math.Round(min(max(f, 0), 1)*float64(len(levels)-1)))]
}

// Sparkline draws series (fractions 0–1, oldest first, NaN where there
// is no sample) in w cells: each cell the highest value of its share of
// the series, a space where its share has no sample. A sample also
// stands for the hold slots after it that have none (a runtime polled
// less often than the series' step). It is "" when w < 1 or the series
// has no sample at all.
func Sparkline(series []float64, w, hold int) string {
	n := len(series)
	if w < 1 || n == 0 {
		return ""
	}
	w = min(w, n)
	var b strings.Builder
	b.Grow(w * 3)
	seen := false
	last, age := math.NaN(), 0
	for i := range w {
		hi := math.NaN()
		for _, v := range series[i*n/w : (i+1)*n/w] {
			if !math.IsNaN(v) {
				last, age = v, 0
			} else if age++; age > hold {
				last = math.NaN()
			}
			if !math.IsNaN(last) && (math.IsNaN(hi) || last > hi) {
				hi = last
			}
		}
		seen = seen || !math.IsNaN(hi)
		b.WriteString(Level(hi))
	}
	if !seen {
		return ""
	}
	return b.String()
}

// MonColumn is one of the runtimes table's monitor columns: its title,
// its width in cells and its cell for what the monitor knows of a runtime
// (nil: nothing yet) at now. Cells are plain text that reads without
// colour. Sort is the column as the table sorts by it (its title and a
// SortBy with a Figure), in Sortable.
type MonColumn struct {
	Title string
	Width int
	Cell  func(m *monitor.Runtime, now time.Time) string
	Sort  *Column
}

// The monitor columns, in order: RAM used (a bar and a percent), the
// GPUs' utilisation (the same; "–" without a GPU) and the kernels'
// activity (ActivityWord: "IDLE 1:12"). A cell reads "–" before the first
// figures, "?" when they could not be read yet, "stale" after
// monitor.StaleAfter failed polls in a row, and "n/a" when the runtime
// does not offer the resources route (a stock Jupyter server).
var (
	ColRAM = MonColumn{Title: "RAM", Width: 5, Cell: func(m *monitor.Runtime, _ time.Time) string { return figureCell(m, monitor.MetricMemory) },
		Sort: &SortRAM}
	ColGPU = MonColumn{Title: "GPU", Width: 5, Cell: func(m *monitor.Runtime, _ time.Time) string { return figureCell(m, monitor.MetricGPU) },
		Sort: &SortGPU}
	ColActivity = MonColumn{Title: "ACTIVITY", Width: 11, Cell: activityCell, Sort: &SortActivity}
)

// The monitor columns as the table sorts by them (MonColumn.Sort): RAM
// and GPU by the fraction used, least first; ACTIVITY by state (busy,
// starting, stuck, no kernels, idle), then by how long in it, shortest
// first, so reversed the runtime idle longest comes first. A runtime
// whose cell shows no figure ("–", "?", "stale", "n/a") sorts after
// those with one.
var (
	SortRAM      = Column{Title: "RAM", Long: "RAM", Sort: &SortBy{Word: "RAM", Action: keymap.ActionSortRAM, Figure: figureKey(monitor.MetricMemory)}}
	SortGPU      = Column{Title: "GPU", Long: "GPU", Sort: &SortBy{Word: "GPU", Action: keymap.ActionSortGPU, Figure: figureKey(monitor.MetricGPU)}}
	SortActivity = Column{Title: "ACTIVITY", Long: "ACTIVITY", Sort: &SortBy{Word: "activity", Action: keymap.ActionSortActivity, Figure: activityKey}}
)

// figureKey is a SortBy.Figure: metric's fraction in the newest figures,
// which the table shows (figureCell).
func figureKey(metric monitor.Metric) func(m *monitor.Runtime, _ time.Time) (float64, bool) {
	return func(m *monitor.Runtime, _ time.Time) (float64, bool) {
		if m == nil || m.NotOffered || m.ResourcesAt.IsZero() || m.ResourcesStale() {
			return 0, false
		}
		f := m.Last.Fraction(metric)
		return f, !math.IsNaN(f)
	}
}

// activityRank orders the kernel activity states for ACTIVITY's sort.
var activityRank = map[monitor.State]float64{
	monitor.StateBusy: 0, monitor.StateStarting: 1, monitor.StateRestarted: 1.5, monitor.StateNeverConnected: 2,
	monitor.StateNoKernels: 3, monitor.StateIdle: 4, monitor.StateDead: 5,
}

// activityKey is a SortBy.Figure: the state's rank, then seconds in it
// (the rank weighs more than any duration).
func activityKey(m *monitor.Runtime, now time.Time) (float64, bool) {
	if m == nil || m.Kernels == nil || m.KernelsStale() {
		return 0, false
	}
	a := m.Verdict(now)
	rank, ok := activityRank[a.State]
	if !ok {
		return 0, false
	}
	return rank*1e10 + max(a.For.Seconds(), 0), true
}

// MonColumns are the monitor columns in table order.
var MonColumns = []MonColumn{ColRAM, ColGPU, ColActivity}

// figureCell is metric of m's newest figures as "▄ 45%".
func figureCell(m *monitor.Runtime, metric monitor.Metric) string {
	switch {
	case m == nil:
		return "–"
	case m.NotOffered:
		return "n/a"
	case m.ResourcesAt.IsZero() && m.ResourcesErr != nil:
		return "?"
	case m.ResourcesAt.IsZero():
		return "–"
	case m.ResourcesStale():
		return "stale"
	}
	f := m.Last.Fraction(metric)
	if math.IsNaN(f) && m.Last.GPUs > 0 && (metric == monitor.MetricGPU || metric == monitor.MetricGPUMemory) {
		return "?" // a GPU whose figure the reply left out: unknown, not none
	}
	if math.IsNaN(f) {
		return "–"
	}
	return percentCells()[percentOf(f)].figure
}

// activityCell is m's activity by every signal for the table
// (monitor.Decide): VerdictWord ("busy job", "busy GPU", "busy term"
// when another signal than the kernels keeps it busy), with
// "stuck" for a kernel that never connected, "?" when
// the kernels could not be listed yet and "stale" after
// monitor.StaleAfter failed polls in a row.
func activityCell(m *monitor.Runtime, now time.Time) string {
	switch {
	case m == nil:
		return "–"
	case m.Kernels == nil && m.KernelsErr != nil:
		return "?"
	case m.KernelsStale():
		return "stale"
	}
	v := m.Verdict(now)
	switch v.State {
	case monitor.StateUnknown:
		return "–"
	case monitor.StateNeverConnected:
		return "stuck"
	}
	return VerdictWord(v)
}

// MonWidth is the cells the monitor columns take in a row, separators
// included (what MonCells and MonBlank write).
func MonWidth() int {
	n := 0
	for _, c := range MonColumns {
		n += c.Width + 1
	}
	return n
}

// MonitorMinWidth is the narrowest table that has the monitor columns.
const MonitorMinWidth = 80

// monitorVersionWidth is the narrowest table with the monitor columns
// that keeps VERSION.
const monitorVersionWidth = 100

// WidthsWithMonitor lays the table out in w cells like WidthsFor, with
// the monitor columns (RAM, GPU, ACTIVITY, after NAME and before SPEC)
// from MonitorMinWidth cells up. They are kept before SPEC's width and
// VERSION: on a narrow screen VERSION goes (always below 100 cells) and
// SPEC shortens (down to minSpecWidth); but NAME is still the last thing
// cut: when a name up to nameNeed cells would not fit whole even so, the
// table is WidthsFor's, without the monitor columns.
func WidthsWithMonitor(w, nameNeed int) Widths {
	if w < MonitorMinWidth {
		return WidthsFor(w, nameNeed)
	}
	for _, version := range []int{10, 0} {
		if version > 0 && w < monitorVersionWidth {
			continue
		}
		c, ok := fitWidths(Widths{Spec: 18, Sess: 8, Token: 10 + tokenWordWidth, Version: version, Monitor: true}, w, nameNeed)
		if ok {
			return c
		}
	}
	return WidthsFor(w, nameNeed)
}

// monHeader writes the monitor columns' titles, the one the rows are
// sorted by (by) with its arrow.
func monHeader(b *strings.Builder, by *Column, reverse bool) {
	for _, col := range MonColumns {
		b.WriteString(frame.Fit(headerTitle(col.Sort, col.Width, by, reverse), col.Width) + " ")
	}
}

// MonCells writes m's monitor cells at now, each fitted to its column
// and followed by a space (right-aligned figures, the activity word
// left-aligned). Every cell is one cell per rune.
func MonCells(b *strings.Builder, m *monitor.Runtime, now time.Time) {
	for _, col := range MonColumns {
		cell := col.Cell(m, now)
		n := utf8.RuneCountInString(cell)
		if n > col.Width {
			cell, n = frame.Fit(cell, col.Width), col.Width
		}
		if col.Title != ColActivity.Title {
			pad(b, col.Width-n)
		}
		b.WriteString(cell)
		if col.Title == ColActivity.Title {
			pad(b, col.Width-n)
		}
		b.WriteByte(' ')
	}
}

// pad writes n spaces.
func pad(b *strings.Builder, n int) {
	for range n {
		b.WriteByte(' ')
	}
}

// MonBlank writes blank monitor cells (a row that is not a runtime yet:
// a create under way), so what follows stays in its column.
func MonBlank(b *strings.Builder) { b.WriteString(strings.Repeat(" ", MonWidth())) }
