// Package commontest builds what the dashboard's component tests share: a
// fixture common.Context over a snapshot of a few runtimes on a fixed
// clock, and assertions on drawn lines (exact size, inert text). Tests
// only; it touches no network and no file.
package commontest

import (
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/colabdash/colabdash/api"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/theme"
)

// T0 is the fixture clock's instant: 2026-11-29 17:00:00 UTC.
var T0 = time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC)

// Runtime is a runtime of the given id and spec whose proxy token expires
// at expire (zero: unknown), with a loopback connection URL.
func Runtime(id string, spec api.RuntimeSpecKey, expire time.Time) api.Runtime {
	rt := api.Runtime{Name: api.RuntimeName("runtimes/" + id), RuntimeSpec: spec}
	rt.ConnectionInfo = &api.ConnectionInfo{URL: "http://127.0.0.1:9/proxy/" + id + "/", Token: "tok-" + id, ExpireTime: expire}
	return rt
}

// Context is a fixture Context of w×h cells at T0 (the clock stays there),
// without colour, with the default keys, over a snapshot holding rts
// (listed at T0, no sessions listed yet). Its Renewals say no renewal is
// in flight and every token renews at the default threshold.
func Context(w, h int, rts ...api.Runtime) *common.Context {
	snap := state.New(state.Config{})
	snap.ApplyRuntimes(T0, rts)
	return &common.Context{
		Snap:     snap,
		Keys:     keymap.Default(),
		Styles:   theme.New(true, theme.Dark),
		Now:      func() time.Time { return T0 },
		Location: time.UTC,
		Redact:   func(s string) string { return s },
		Layout:   common.Layout{W: w, H: h, TableRows: max(1, (h-7)*3/5), BottomRows: (h - 7) - max(1, (h-7)*3/5), Split: w >= 100},
		Activity: common.Activity{
			Deleting: map[string]time.Time{}, Closing: map[string]time.Time{}, Opening: map[string]time.Time{},
			Renewals: Renewals{},
		},
		RefreshInterval: 30 * time.Second,
	}
}

// ANSIStyles are the dark theme's styles drawn with 16-colour ANSI codes
// (Context's are without colour), for a test of what colour or bold
// shows.
func ANSIStyles() *theme.Styles {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI)
	return theme.NewWith(r, theme.Dark)
}

// Renewals is a common.Renewals with fixed answers: Renewing names the
// runtimes whose renewal is in flight; every threshold is the default.
type Renewals struct {
	Renewing map[string]bool
	Manual   bool          // tokens do not renew on their own (autoRenew: false)
	Next     time.Duration // RetryIn's answer for every runtime (0: 30 s)
}

// Threshold is state.DefaultExpiringThreshold for every runtime.
func (r Renewals) Threshold(string) time.Duration { return state.DefaultExpiringThreshold }

// InFlight reports whether name is in Renewing.
func (r Renewals) InFlight(name string) bool { return r.Renewing[name] }

// RetryIn is Next, or 30 s when Next is 0.
func (r Renewals) RetryIn(string, time.Time) time.Duration {
	if r.Next > 0 {
		return r.Next
	}
	return 30 * time.Second
}

// Auto is !Manual.
func (r Renewals) Auto() bool { return !r.Manual }

// AssertSize fails unless lines are exactly h lines, none wider than w
// cells.
func AssertSize(t testing.TB, what string, lines []string, w, h int) {
	t.Helper()
	if len(lines) != h {
		t.Errorf("%s: %d lines, want %d:\n%s", what, len(lines), h, strings.Join(lines, "\n"))
	}
	for i, ln := range lines {
		if lw := ansi.StringWidth(ln); lw > w {
			t.Errorf("%s: line %d is %d cells wide (max %d): %q", what, i, lw, w, ln)
		}
	}
}

var sgrSeq = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// AssertInert fails when out could drive a terminal: any ESC that does not
// start an SGR sequence, BEL or another C0 control but "\n", DEL, a C1
// control, a bidi override or isolate, invalid UTF-8, or (w > 0) a line
// wider than w cells.
func AssertInert(t testing.TB, screen, out string, w int) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: invalid UTF-8", screen)
	}
	for _, r := range sgrSeq.ReplaceAllString(out, "") {
		bad := ""
		switch {
		case r == '\n':
		case r == 0x1b:
			bad = "an ESC that is not SGR"
		case r < 0x20 || r == 0x7f:
			bad = "a C0 control or DEL"
		case r >= 0x80 && r <= 0x9f:
			bad = "a C1 control"
		case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			bad = "a bidi control"
		}
		if bad != "" {
			t.Errorf("%s: %s (U+%04X) reached the output:\n%q", screen, bad, r, out)
			return
		}
	}
	if w > 0 {
		for i, ln := range strings.Split(out, "\n") {
			if lw := ansi.StringWidth(ln); lw > w {
				t.Errorf("%s: line %d is %d cells wide (terminal %d): %q", screen, i, lw, w, ln)
			}
		}
	}
}

// Monitor is a common.Monitor over a state/monitor Store: tests record
// polls into Store (RecordResources, RecordKernels) and the panes read
// them. NewMonitor returns an empty one.
type Monitor struct{ Store *monitor.Store }

// NewMonitor returns a Monitor over an empty Store.
func NewMonitor() Monitor { return Monitor{Store: monitor.NewStore()} }

// Runtime is Store.Get.
func (m Monitor) Runtime(name string) *monitor.Runtime { return m.Store.Get(name) }

// Resources are a runtime's figures as the emulator gives them for a T4
// runtime: a share ramUsed of 12.7 GiB of RAM, the `kernel` disk 21.3/107.7 GiB, one
// Tesla T4 of 15 GiB at gpuUtil, everUsed as given (no GPU when gpuUtil
// is negative).
func Resources(ramUsed float64, gpuUtil float64, everUsed bool) apimon.Resources {
	const gib = 1 << 30
	total := int64(13_636_500_000)
	r := apimon.Resources{
		Memory: &apimon.Memory{TotalBytes: total, FreeBytes: total - int64(float64(total)*ramUsed)},
		Disks:  []apimon.Disk{{Label: "kernel", TotalBytes: 115_642_000_000, UsedBytes: 22_870_000_000}},
	}
	if gpuUtil >= 0 {
		r.GPUs = []apimon.GPU{{Name: "Tesla T4", MemoryTotalBytes: 15 * gib, MemoryUsedBytes: int64(gpuUtil * 15 * gib), GPUUtilization: gpuUtil, EverUsed: everUsed}}
	}
	return r
}

// Kernel is a kernel in state, last active at last, with conns
// connections.
func Kernel(id, state string, last time.Time, conns int) apimon.Kernel {
	return apimon.Kernel{ID: id, Name: "python3", ExecutionState: state, LastActivity: last, Connections: conns}
}

// MustSize is AssertSize that stops the test at once: lines, when they
// are exactly h lines none wider than w cells.
func MustSize(t testing.TB, what string, lines []string, w, h int) []string {
	t.Helper()
	if AssertSize(t, what, lines, w, h); t.Failed() {
		t.FailNow()
	}
	return lines
}

// WaitFor waits for ch to close or send, failing the test when that has
// not happened after 20 s (under a client's 30 s idle watchdog): what
// says what never happened.
func WaitFor(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s never happened", what)
	}
}
