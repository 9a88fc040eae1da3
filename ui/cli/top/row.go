package top

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/render"
	"github.com/colabdash/colabdash/ui/termtext"
)

// row is what top knows of one runtime after a round: the runtime, what
// the Store holds of it (nil when nothing came yet) and why it could not
// be probed at all ("" when it was).
type row struct {
	rt       api.Runtime
	mon      *monitor.Runtime
	probeErr string
	at       time.Time
	// retryAt is when --watch reads the runtime again after failed reads
	// (zero: not backing off).
	retryAt time.Time
	// gone: the runtime was found deleted or reclaimed; it has no figures
	// (mon is nil) and is not read again.
	gone bool
	// oneRead: a single read of top (no --watch), which first saw every
	// runtime just now and cannot tell how long one never used has been
	// quiet (verdictNotes).
	oneRead bool
}

func newRow(rt api.Runtime, mon *monitor.Runtime, probeErr string, at time.Time) row {
	if mon != nil {
		c := *mon // a copy: the next round writes the Store's
		mon = &c
	}
	return row{rt: rt, mon: mon, probeErr: probeErr, at: at}
}

// hasFigures reports whether the row has resource figures to show (the
// newest, or the last ones before failures).
func (r row) hasFigures() bool {
	return r.mon != nil && !r.mon.ResourcesAt.IsZero() && !r.mon.NotOffered
}

// failed reports whether this round could not read the runtime: it could
// not be probed, or its resources or kernels failed (resources not
// offered by a stock server is not a failure).
func (r row) failed() bool {
	if r.gone || r.probeErr != "" || r.mon == nil {
		return true
	}
	return (r.mon.ResourcesErr != nil && !r.mon.NotOffered) || r.mon.KernelsErr != nil
}

// activity is the row's activity by every signal (monitor.Decide: the
// kernels, terminals, jobs, GPUs): StateUnknown without a kernel list,
// and once the kernels' reads have failed monitor.StaleAfter times in a
// row (the last list no longer says what the kernels do).
func (r row) activity() monitor.Verdict {
	if r.mon == nil || r.mon.KernelsStale() {
		return monitor.Verdict{}
	}
	return r.mon.Verdict(r.at)
}

// activityWord is the ACTIVITY cell: "stale" once the kernels' reads
// have failed too often, as the dashboard's cell says.
func (r row) activityWord() string {
	if r.gone {
		return "GONE"
	}
	if r.mon != nil && r.mon.KernelsStale() {
		return "stale"
	}
	return render.VerdictWord(r.activity())
}

// goneText is what a gone runtime's row says, in the table and in JSON.
const goneText = "runtime gone (deleted or reclaimed)"

// oneReadQuiet is the note of a runtime never used (no kernels, nothing
// ever active) in a single read of top: it was first seen now, and how
// long it was quiet before is not known (top --watch and the dashboard
// count from their first sighting).
const oneReadQuiet = "idle since first seen: now (a single read cannot tell how long; --watch counts)"

// header is the text table's header.
var header = []string{"RUNTIME", "RAM", "DISK", "GPU", "GPU%", "KERNELS", "ACTIVITY", "NOTE"}

// cells is the row as the text table's cells (header's columns); every
// piece of server text is cut to its column and made safe here.
func (r row) cells() []string {
	ram, disk, gpu, util := "-", "-", "-", "-"
	if r.hasFigures() {
		s := r.mon.Last
		ram = render.GiB(s.MemUsed, s.MemTotal)
		disk = render.GiB(s.DiskUsed, s.DiskTotal)
		if s.GPUs > 0 {
			name := termtext.Cut(r.mon.Resources.GPUs[0].Name, 20)
			if s.GPUs > 1 {
				name = fmt.Sprintf("%dx %s", s.GPUs, name)
			}
			gpu, util = name+" "+render.Unknown, render.Unknown // figures the reply left out
			if s.GPUMemTotal > 0 {
				gpu = name + " " + render.GiB(s.GPUMemUsed, s.GPUMemTotal)
			}
			if s.GPUUtilKnown {
				util = fmt.Sprintf("%d%%", int(math.Round(s.GPUUtil*100)))
			}
		}
	}
	a := r.activity()
	return []string{cutID(r.rt), ram, disk, gpu, util, render.KernelsCell(a.Activity), r.activityWord(), strings.Join(r.notes(), "; ")}
}

// notes are what the row says beyond its figures: why it could not be
// read, the GPU never used, stale figures, when --watch reads a runtime
// backing off after failures again.
func (r row) notes() []string {
	out := r.readNotes()
	if !r.retryAt.IsZero() {
		out = append(out, "backing off: next read "+r.retryAt.Local().Format("15:04:05"))
	}
	return out
}

// readNotes are the notes of what the last read found.
func (r row) readNotes() []string {
	if r.gone {
		return []string{goneText}
	}
	if r.probeErr != "" {
		return []string{termtext.Cut(r.probeErr, 100)}
	}
	if r.mon == nil {
		return nil
	}
	var out []string
	switch m := r.mon; {
	case m.NotOffered:
		out = append(out, "resources not offered by this runtime")
	case m.ResourcesErr != nil:
		msg := termtext.Cut(api.OneLine(m.ResourcesErr.Error(), 0), 100)
		if m.ResourcesStale() {
			msg += " (figures stale)"
		} else if !m.ResourcesAt.IsZero() {
			msg += " (figures of " + m.ResourcesAt.Local().Format("15:04:05") + ")"
		}
		out = append(out, msg)
	}
	if r.hasFigures() && r.mon.Last.GPUNeverUsed {
		out = append(out, "GPU never used")
	}
	if r.mon.KernelsErr != nil {
		out = append(out, termtext.Cut(api.OneLine(r.mon.KernelsErr.Error(), 0), 100))
	}
	return append(out, r.verdictNotes()...)
}

// verdictNotes say which signal decided the activity word when another
// than the kernels keeps the runtime busy ("busy: GPU 97%"), how long a
// runtime never used has been quiet since this top first listed it ("idle
// 45m since first seen", the dashboard's words; a single read says
// oneReadQuiet), and which signals could not be read ("unknown: terminals,
// jobs") when the word stands on the others alone.
func (r row) verdictNotes() []string {
	v := r.activity()
	var out []string
	if v.State == monitor.StateBusy && v.By != monitor.SignalKernel {
		out = append(out, "busy: "+render.VerdictWhy(v))
	}
	if q := render.VerdictQuiet(v); q != "" && r.oneRead {
		out = append(out, oneReadQuiet)
	} else if q != "" {
		out = append(out, q)
	}
	if u := render.VerdictUnknown(v); u != "" && v.State != monitor.StateUnknown {
		out = append(out, "unknown: "+u)
	}
	return out
}

// textLines is the text table of rows, with its header; width > 0 is
// the terminal's (fitTable), 0 keeps every column whole.
func textLines(rows []row, width int) []string {
	cells := [][]string{header}
	for _, r := range rows {
		cells = append(cells, r.cells())
	}
	return fitTable.Lines(cells, width)
}

// fitTable fits the table to a terminal as jobs' does: NOTE gives way
// first, then KERNELS (ACTIVITY says what the kernels do), DISK and GPU%
// are left out; RUNTIME, RAM, GPU and ACTIVITY stay.
var fitTable = kit.Table{GiveWay: []int{7}, Drop: []int{5, 2, 4}}

// errNotOffered is matched to tell "not offered" in JSON.
var errNotOffered = apimon.ErrNotOffered

// resourcesStatus is the JSON word for the row's resources: "ok",
// "notOffered", "unavailable" (the figures shown, if any, are from an
// earlier round) or "unknown" (not probed).
func (r row) resourcesStatus() string {
	switch {
	case r.mon == nil || (r.mon.ResourcesAt.IsZero() && r.mon.ResourcesErr == nil && !r.mon.NotOffered):
		return "unknown"
	case r.mon.NotOffered || errors.Is(r.mon.ResourcesErr, errNotOffered):
		return "notOffered"
	case r.mon.ResourcesErr == nil:
		return "ok"
	}
	return "unavailable"
}
