package top

import (
	"errors"
	"fmt"
	"github.com/colabdash/colabdash/api/plural"
	"time"

	"github.com/colabdash/colabdash/api"
	apimon "github.com/colabdash/colabdash/api/monitor"
	"github.com/colabdash/colabdash/state/monitor"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// Report is `colabdash top --json`: one document per round (with
// --watch, one per interval). On a failure of the whole command (no
// connection, an unknown RUNTIME) OK is false, Error says why (redacted)
// and Runtimes is []. OK is also false when some runtime could not be
// read (its own error fields say why); resources not offered by a stock
// Jupyter server is not a failure. At is when the round ended (RFC 3339,
// UTC; "" on a failure before any round).
type Report struct {
	kit.Envelope
	At       string          `json:"at"`
	Runtimes []RuntimeReport `json:"runtimes"`
}

// RuntimeReport is one runtime. Name is "runtimes/rt-abc" (kit.RuntimeName).
// ResourcesStatus is "ok", "notOffered" (a stock Jupyter server has no
// api/colab/resources), "unavailable" (ResourcesError says why: "resources
// unavailable: HTTP 500") or "unknown" (not probed: Error says why).
// Resources are the newest figures (with --watch, possibly from an
// earlier round: ResourcesAt says when, and Stale is set after three
// failed rounds in a row); null when none came. Kernels is null when
// they could not be listed (KernelsError says why). Error is why the
// runtime could not be probed at all (no connectionInfo yet, the
// runtime gone, get_runtime failing). Gone is set once the runtime was
// found deleted or reclaimed: then Resources and Kernels are null, and
// the round's error code is "not_found" when no runtime was read.
type RuntimeReport struct {
	Name            kit.RuntimeName  `json:"name"`
	OK              bool             `json:"ok"`
	Error           string           `json:"error,omitempty"`
	ResourcesStatus string           `json:"resourcesStatus"`
	ResourcesError  string           `json:"resourcesError,omitempty"`
	ResourcesAt     string           `json:"resourcesAt,omitempty"`
	Stale           bool             `json:"stale"`
	Resources       *ResourcesReport `json:"resources"`
	KernelsError    string           `json:"kernelsError,omitempty"`
	Kernels         []KernelReport   `json:"kernels"`
	Activity        ActivityReport   `json:"activity"`
	Gone            bool             `json:"gone"`
}

// ResourcesReport is what api/colab/resources said, after its defaults:
// sizes in bytes, utilizations fractions 0–1. Memory is null when the
// reply had none; UsedBytes is totalBytes − freeBytes. GPUNeverUsed is
// set when the runtime has GPUs and none was ever used since it started.
type ResourcesReport struct {
	Memory       *MemoryReport `json:"memory"`
	Disks        []DiskReport  `json:"disks"`
	GPUs         []GPUReport   `json:"gpus"`
	GPUNeverUsed bool          `json:"gpuNeverUsed"`
}

// MemoryReport is the runtime's RAM in bytes.
type MemoryReport struct {
	TotalBytes int64 `json:"totalBytes"`
	FreeBytes  int64 `json:"freeBytes"`
	UsedBytes  int64 `json:"usedBytes"`
}

// DiskReport is one file system; Label "kernel" is the VM's own disk.
type DiskReport struct {
	Label      string `json:"label"`
	TotalBytes int64  `json:"totalBytes"`
	UsedBytes  int64  `json:"usedBytes"`
}

// GPUReport is one GPU: memory in bytes, utilizations 0–1 (the shape
// api/colab/resources sends, after its defaults).
type GPUReport = apimon.GPU

// KernelReport is one Jupyter kernel as api/kernels lists it;
// LastActivity is RFC 3339 UTC ("" when the server gave none).
type KernelReport struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	ExecutionState string `json:"executionState"`
	LastActivity   string `json:"lastActivity"`
	Connections    int    `json:"connections"`
}

// ActivityReport is the runtime's kernel activity. State is "unknown"
// (no list, or the kernels' reads failed monitor.StaleAfter times in a
// row: the table says "stale"), "no kernels", "busy", "never connected" (a kernel starting for over a
// minute with no connection), "starting", "idle", "restarted" (a kernel
// that was up is starting again: it died and the server restarted it; a
// single read of `top` cannot tell, `--watch` can) or "dead" (every
// kernel is listed dead, or, seen up by `--watch`, is no longer listed:
// the server gave up restarting it and dropped it, its session too);
// Restarted and Dead count such kernels (Kernels and Dead include the
// ones no longer listed). Since is, when busy,
// the last output of the busy kernels, when idle the last activity, when
// restarted when the restart was first seen, when dead about when they
// died (RFC 3339 UTC, null otherwise, also when every last_activity is
// more than monitor.ActivityHorizon away) and ForSeconds the time since; IdleWarning is
// set once every kernel has been idle for an hour (Colab may reclaim an
// idle runtime: README, "Idle runtimes"). The state is the verdict of
// every signal: By names the one that decided ("kernel", "job", "GPU",
// "terminal"; "first seen" for a runtime with no kernels on which nothing
// was ever active: it is quiet since this top first listed it, Since then,
// about now in a single read; "" when none did), Detail what it saw ("2 running", "97%",
// "terminal 1 10s ago"; server text), Unknown the signals not read (the
// word then stands on the others alone).
type ActivityReport struct {
	State          string   `json:"state"`
	Kernels        int      `json:"kernels"`
	Busy           int      `json:"busy"`
	NeverConnected int      `json:"neverConnected"`
	Restarted      int      `json:"restarted"`
	Dead           int      `json:"dead"`
	Since          *string  `json:"since"`
	ForSeconds     int64    `json:"forSeconds"`
	IdleWarning    bool     `json:"idleWarning"`
	By             string   `json:"by"`
	Detail         string   `json:"detail"`
	Unknown        []string `json:"unknown"`
}

// newReport is the JSON of one round's rows.
func newReport(rows []row, at time.Time) Report {
	rep := Report{Envelope: kit.Envelope{OK: true}, At: at.UTC().Format(time.RFC3339), Runtimes: make([]RuntimeReport, 0, len(rows))}
	failed := 0
	for _, r := range rows {
		rr := r.report()
		if !rr.OK {
			failed++
		}
		rep.Runtimes = append(rep.Runtimes, rr)
	}
	if failed > 0 {
		// The round's exit code (exitOf) in the envelope.
		code := kit.ExitAPI
		var ee *kit.ExitError
		if errors.As(exitOf(rows), &ee) {
			code = ee.Code
		}
		rep.Envelope = kit.Fail(code, fmt.Sprintf("%d of %s could not be read (see each runtime's error fields)", failed, plural.Count(len(rows), "runtime")))
	}
	return rep
}

func (r row) report() RuntimeReport {
	if r.gone {
		return RuntimeReport{Name: kit.NameOf(r.rt.Name), Error: goneText, ResourcesStatus: "unknown",
			Activity: ActivityReport{State: monitor.Activity{}.State.String(), Unknown: []string{}}, Gone: true}
	}
	a := r.activity()
	rr := RuntimeReport{Name: kit.NameOf(r.rt.Name), OK: !r.failed(), Error: r.probeErr, ResourcesStatus: r.resourcesStatus(),
		Activity: ActivityReport{State: a.State.String(), Kernels: a.Kernels, Busy: a.Busy, NeverConnected: a.NeverConnected,
			Restarted: a.Restarted, Dead: a.Dead, ForSeconds: int64(a.For / time.Second), IdleWarning: a.IdleWarning(),
			By: string(a.By), Detail: a.Detail, Unknown: make([]string, 0, len(a.Unknown))}}
	for _, u := range a.Unknown {
		rr.Activity.Unknown = append(rr.Activity.Unknown, string(u))
	}
	if !a.Since.IsZero() {
		s := rfc3339(a.Since)
		rr.Activity.Since = &s
	}
	m := r.mon
	if m == nil {
		return rr
	}
	if m.ResourcesErr != nil {
		rr.ResourcesError = api.OneLine(m.ResourcesErr.Error(), 0)
	}
	if m.KernelsErr != nil {
		rr.KernelsError = api.OneLine(m.KernelsErr.Error(), 0)
	}
	if r.hasFigures() {
		rr.ResourcesAt = rfc3339(m.ResourcesAt)
		rr.Stale = m.ResourcesStale()
		rr.Resources = resourcesReport(m)
	}
	if m.Kernels != nil && m.KernelsErr == nil {
		rr.Kernels = make([]KernelReport, 0, len(m.Kernels))
		for _, k := range m.Kernels {
			rr.Kernels = append(rr.Kernels, KernelReport{ID: k.ID, Name: k.Name, ExecutionState: k.ExecutionState,
				LastActivity: rfc3339(k.LastActivity), Connections: k.Connections})
		}
	}
	return rr
}

func resourcesReport(m *monitor.Runtime) *ResourcesReport {
	res := m.Resources
	out := &ResourcesReport{Disks: make([]DiskReport, 0, len(res.Disks)), GPUs: make([]GPUReport, 0, len(res.GPUs)),
		GPUNeverUsed: m.Last.GPUNeverUsed}
	if res.Memory != nil {
		out.Memory = &MemoryReport{TotalBytes: res.Memory.TotalBytes, FreeBytes: res.Memory.FreeBytes, UsedBytes: res.Memory.UsedBytes()}
	}
	for _, d := range res.Disks {
		out.Disks = append(out.Disks, DiskReport{Label: d.Label, TotalBytes: d.TotalBytes, UsedBytes: d.UsedBytes})
	}
	for _, g := range res.GPUs {
		out.GPUs = append(out.GPUs, g)
	}
	return out
}

// rfc3339 is t in RFC 3339 UTC, "" for the zero time.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
