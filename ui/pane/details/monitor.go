package details

// The monitor's lines of the details pane: the kernels'
// activity, RAM, each disk and each GPU with a sparkline of the last 15
// minutes, and why figures are missing or stale.

import (
	"time"

	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/render"
	"github.com/colabdash/colabdash/ui/termtext"
	"github.com/colabdash/colabdash/ui/widget/frame"
)

// Priorities of the monitor's lines among the others (see lines): the
// activity right after the expiry and a healthy token's renewal, RAM and
// the GPU before the URL, the disks after the spec.
const (
	// prioRenewPlan is a healthy token's "renews in" line (details.go):
	// right after the expiry, before the kernels and RAM. When the token
	// is renewed is what a user of a short pane must never lose, and the
	// line must not come and go as the monitor's figures arrive.
	prioRenewPlan = 1
	prioActivity  = 5
	prioWhy       = 17 // the activity line: after RAM and the GPU
	prioRAM       = 15
	prioGPU       = 16
	prioDisk      = 35
	prioMoreDisk  = 45
)

// Sparkline bounds: the value before it takes valueWidth cells; it gets
// what is left of the line, at least minSpark and at most maxSpark cells.
const (
	valueWidth = 28
	minSpark   = 8
	maxSpark   = 60
	keyCells   = 10 // " key      "
	// hold is how many history steps a poll stands for: the runtimes on
	// screen are polled every 30 s, the history has a slot every 5 s.
	hold = int(monitor.OnScreenEvery/monitor.HistoryStep) - 1
)

// monitorLines are what the monitor knows of r at now, for a pane w
// cells wide: nothing when monitoring is off or r is gone.
func monitorLines(c *common.Context, r *state.Runtime, now time.Time, w int) []line {
	if c.Monitor == nil || r.Gone() {
		return nil
	}
	m := c.Monitor.Runtime(r.Name)
	var out []line
	add := func(prio int, k, v string) {
		out = append(out, line{prio, " " + frame.Fit(k, 8) + " " + v})
	}
	if m == nil {
		add(prioActivity, "kernels", c.Styles.Dim.Render("reading…"))
		return out
	}
	add(prioActivity, "kernels", kernelsText(c, m, now))
	if a := activityText(c, m, now); a != "" {
		add(prioWhy, "activity", a)
	}
	spark := min(w-keyCells-valueWidth-1, maxSpark)
	var buf []float64
	withSpark := func(v string, metric monitor.Metric) string {
		if spark < minSpark || m.ResourcesAt.IsZero() {
			return v
		}
		buf = m.History.Series(now, metric, buf)
		return frame.Fit(v, valueWidth) + " " + render.Sparkline(buf, spark, hold)
	}
	switch {
	case m.NotOffered:
		add(prioRAM, "res", "not offered by this runtime (a stock Jupyter server)")
		return out
	case m.ResourcesErr != nil:
		msg := c.Redact(common.ErrLine(m.ResourcesErr))
		switch {
		case m.ResourcesStale():
			msg += " (figures stale)"
		case !m.ResourcesAt.IsZero():
			msg += " (figures of " + m.ResourcesAt.In(c.Location).Format("15:04:05") + ")"
		}
		add(prioRAM, "res", c.Styles.ErrText.Render(msg))
	case m.ResourcesAt.IsZero():
		add(prioRAM, "res", c.Styles.Dim.Render("reading…"))
	}
	if m.ResourcesAt.IsZero() {
		return out
	}
	s := m.Last
	stale := ""
	if m.ResourcesStale() {
		stale = " (stale)"
	}
	if s.MemTotal > 0 {
		add(prioRAM, "ram", withSpark(render.GiB(s.MemUsed, s.MemTotal)+" "+render.Percent(s.Fraction(monitor.MetricMemory))+stale, monitor.MetricMemory))
	}
	for i, g := range m.Resources.GPUs {
		v := termtext.Cut(g.Name, 20) + " " + render.GPUMemory(g) + " · " + render.GPUUtilization(g) + stale
		if g.Knows(apimon.GPUEverUsed) && !g.EverUsed {
			v = termtext.Cut(g.Name, 20) + " · never used" + stale
		}
		if len(m.Resources.GPUs) == 1 {
			v = withSpark(v, monitor.MetricGPU)
		}
		prio := prioGPU
		if i > 0 {
			prio = prioMoreDisk
		}
		add(prio, "gpu", v)
	}
	kernelDisk := -1
	for i, d := range m.Resources.Disks {
		if d.Label == "kernel" || (kernelDisk < 0 && i == 0) {
			kernelDisk = i
		}
	}
	for i, d := range m.Resources.Disks {
		if d.TotalBytes <= 0 {
			continue
		}
		v := render.GiB(d.UsedBytes, d.TotalBytes) + " " + render.Percent(float64(d.UsedBytes)/float64(d.TotalBytes)) + stale
		if name := d.Name(); name != "" {
			v = termtext.Cut(name, 16) + " " + v
		}
		if i == kernelDisk {
			add(prioDisk, "disk", withSpark(v, monitor.MetricDisk))
		} else {
			add(prioMoreDisk, "disk", v)
		}
	}
	return out
}

// kernelsText is the kernels line: how many and what they do ("2 busy 0
// idle · busy 0:42 (no output since 17:03)", "1 busy 1 idle", "IDLE 1:12
// (last activity 15:48)"), a kernel that never connected, or why the
// list could not be read. Its word is the verdict of every signal
// (monitor.Decide): an idle runtime's quiet time runs from the newest
// activity of any signal, and a runtime another signal keeps busy shows
// the counts alone (the activity line says why).
func kernelsText(c *common.Context, m *monitor.Runtime, now time.Time) string {
	if m.Kernels == nil {
		if m.KernelsErr != nil {
			return c.Styles.ErrText.Render(c.Redact(common.ErrLine(m.KernelsErr)))
		}
		return c.Styles.Dim.Render("reading…")
	}
	vd := m.Verdict(now)
	if m.KernelsStale() { // the last list, as it was: the verdict no longer stands on it
		vd = monitor.Verdict{Activity: m.Activity(now), By: monitor.SignalKernel}
	}
	a := vd.Activity
	v := render.KernelsCell(a)
	if a.State != monitor.StateNoKernels && !(a.State == monitor.StateBusy && vd.By != monitor.SignalKernel) {
		v += " · " + render.ActivityWord(a)
	}
	at := func(t time.Time) string { return t.In(c.Location).Format("15:04") }
	switch {
	case a.State == monitor.StateBusy && vd.By != monitor.SignalKernel:
	case a.State == monitor.StateBusy && !a.Since.IsZero():
		v += " (no output since " + at(a.Since) + ")"
	case a.State == monitor.StateIdle && !a.Since.IsZero():
		v += " (last activity " + at(a.Since) + ")"
	case a.State == monitor.StateRestarted && !a.Since.IsZero():
		v += " (started again " + at(a.Since) + " after it died: out of memory? Its variables are gone)"
	case a.State == monitor.StateDead && a.Vanished > 0:
		v += " (no longer listed: the server gave up restarting it, or another client shut it down; nothing runs until a kernel is started)"
	case a.State == monitor.StateDead:
		v += " (the server stopped restarting it: nothing runs until a kernel is started)"
	case a.State == monitor.StateNeverConnected:
		// The verdict first: the counts are cut first on a narrow pane.
		v = "never connected (starting, no connection: WebSocket blocked?) · " + render.KernelsCell(a)
	}
	switch {
	case m.KernelsStale():
		v += " (stale: " + c.Redact(common.ErrLine(m.KernelsErr)) + ")"
	case m.KernelsErr != nil:
		v += " (as of " + m.KernelsAt.In(c.Location).Format("15:04:05") + ")"
	}
	if a.IdleWarning() {
		return c.Styles.Warn.Render(v)
	}
	return v
}

// activityText is the activity line: the verdict of every signal
// (monitor.Decide), the signal that decided and what it saw, and the
// signals not read: "busy (GPU 97%)", "busy (job: 2 running)", "busy
// (terminal 1 10s ago)", "busy 3m (kernel)", "idle 2m (kernels,
// terminals, jobs, GPU agree)", "no kernels, idle 45m since first seen
// (kernels, terminals, jobs, GPU agree)", "dead (kernel) · unknown: GPU"; "" before
// the kernels were listed.
func activityText(c *common.Context, m *monitor.Runtime, now time.Time) string {
	if m.Kernels == nil || m.KernelsStale() {
		return ""
	}
	vd := m.Verdict(now)
	v := render.ActivityWord(vd.Activity)
	if vd.State == monitor.StateNeverConnected {
		v = "stuck"
	}
	if q := render.VerdictQuiet(vd); q != "" {
		v += ", " + q
	}
	switch why := render.VerdictWhy(vd); {
	case why != "":
		v += " (" + c.Redact(why) + ")"
	case vd.By != "":
		v += " (" + string(vd.By) + ")"
	}
	if u := render.VerdictUnknown(vd); u != "" {
		v += " · unknown: " + u
	}
	if vd.IdleWarning() {
		return c.Styles.Warn.Render(v)
	}
	return v
}
