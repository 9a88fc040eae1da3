package sessions

// The runtime's Jupyter kernels under its sessions: each
// kernel's execution_state, last activity and connections, as the
// monitor last read them from api/kernels.

import (
	"strconv"

	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// kernelLines are r's kernels, at most room lines: a heading, then one
// line per kernel ("  idle      last 17:03 · 1 connection   4f1c2a9e"),
// "…" when more do not fit. Nothing when monitoring is off, r is gone or
// no kernel list came yet.
func kernelLines(c *common.Context, r *state.Runtime, w, room int) []string {
	if c.Monitor == nil || r == nil || r.Gone() || room < 2 {
		return nil
	}
	m := c.Monitor.Runtime(r.Name)
	if m == nil || m.Kernels == nil {
		return nil
	}
	head := "  kernels " + strconv.Itoa(len(m.Kernels))
	if m.KernelsStale() {
		head += " (stale)"
	}
	out := []string{c.Styles.Dim.Render(head)}
	for i, k := range m.Kernels {
		if len(out) == room-1 && i < len(m.Kernels)-1 {
			out = append(out, c.Styles.Dim.Render("  … "+strconv.Itoa(len(m.Kernels)-i)+" more"))
			break
		}
		out = append(out, kernelLine(c, k, w))
	}
	return out
}

// kernelLine is one kernel: its execution_state, last activity and
// connections, then its id (cut first when w is short).
func kernelLine(c *common.Context, k apimon.Kernel, w int) string {
	st := k.ExecutionState
	if st == "" {
		st = "unknown"
	}
	last := "never"
	if !k.LastActivity.IsZero() {
		last = k.LastActivity.In(c.Location).Format("15:04")
	}
	conns := strconv.Itoa(k.Connections) + " connection"
	if k.Connections != 1 {
		conns += "s"
	}
	ln := "  " + frame.Fit(termtext.Line(st), 9) + " last " + last + " · " + conns
	if id := termtext.Line(k.ID); id != "" && w-termtext.Width(ln) >= 10 {
		ln += "  " + termtext.Cut(id, min(w-termtext.Width(ln)-2, 36))
	}
	return ln
}
