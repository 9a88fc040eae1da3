package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/overlay/logview"
)

// putJob writes job spec's record on the runtime jc reaches as a
// supervisor would leave it (st nil: no status yet).
func putJob(t *testing.T, jc *jupyter.Client, spec jobs.Spec, st *jobs.Status) {
	t.Helper()
	ctx := context.Background()
	dir := jobs.Dir(spec.ID)
	if err := jc.MkdirAll(ctx, dir); err != nil {
		t.Fatal(err)
	}
	put := func(name string, v any) {
		b, _ := json.Marshal(v)
		if _, err := jc.Upload(ctx, dir+"/"+name, bytes.NewReader(b), int64(len(b)), nil); err != nil {
			t.Fatal(err)
		}
	}
	put(jobs.SpecFile, spec)
	if st != nil {
		put(jobs.StatusFile, st)
	}
}

// proxyRequests is the number of proxy requests the emulator has seen.
func (ms *monitorStack) proxyRequests() int {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	n := 0
	for _, c := range ms.reqs {
		n += c
	}
	return n
}

// Against the emulator's proxy: a runtime without jobs costs one request
// a listing; a job whose end is recorded is not read again; the
// dashboard shows the jobs it listed, in the table and the details.
func TestJobsListedThroughTheProxy(t *testing.T) {
	ms, jc := onCPUDemo(t)
	ctx := context.Background()
	before := ms.proxyRequests()
	if recs, err := listJobs(ctx, jc, nil); err != nil || len(recs) != 0 {
		t.Fatalf("no jobs: %v, %v", recs, err)
	}
	if n := ms.proxyRequests() - before; n != 1 {
		t.Fatalf("a runtime without jobs cost %d requests", n)
	}
	now := ms.clk.Now()
	putJob(t, jc, jobs.Spec{ID: "prep-2b8xqq", Created: now.Add(-time.Hour)},
		&jobs.Status{Pid: 7, Started: now.Add(-time.Hour), Ended: now.Add(-50 * time.Minute), ExitCode: 0, Heartbeat: now.Add(-50 * time.Minute)})
	putJob(t, jc, jobs.Spec{ID: "train-4kq9zt", Created: now.Add(-10 * time.Minute)},
		&jobs.Status{Pid: 8, Started: now.Add(-10 * time.Minute), Heartbeat: now})
	before = ms.proxyRequests()
	recs, err := listJobs(ctx, jc, nil)
	if err != nil || len(recs) != 2 || recs[0].Spec.ID != "train-4kq9zt" {
		t.Fatalf("listed %+v, %v", recs, err)
	}
	if n := ms.proxyRequests() - before; n != 5 {
		t.Fatalf("two jobs read: %d requests, want 5", n)
	}
	before = ms.proxyRequests()
	if recs, err = listJobs(ctx, jc, map[string]jobs.Record{"prep-2b8xqq": recs[1]}); err != nil || len(recs) != 2 {
		t.Fatalf("listed again %+v, %v", recs, err)
	}
	if n := ms.proxyRequests() - before; n != 3 {
		t.Fatalf("with the ended job known: %d requests, want 3", n)
	}
	ms.tick(jobsSelectedIdle) // the selected runtime had no running job: listed again 15 s on
	v := ms.view()
	if !strings.Contains(lineWith(v, "rt-cpudemo4qx "), "2j") || !strings.Contains(v, "jobs     1 running · 1 ended") ||
		!strings.Contains(v, "prep-2b8xqq  exited 0 10m") {
		t.Errorf("the dashboard does not show the jobs:\n%s", v)
	}
}

// l on the demo's T4 runtime follows its running job's log through
// ops.JobLog and the emulator's proxy: its first lines show, drawn.
func TestLFollowsTheDemoJob(t *testing.T) {
	ms := newMonitorStack(t, 100, colabfake.Options{})
	ms.start()
	ms.m = ms.m.selectID(t, colabfake.DemoJobsRuntime)
	ms.tick(time.Second)
	m, cmd := update(ms.m, keyMsg("l"))
	if o, open := find[*logview.Overlay](m.scr); !open || o.Target().ID != colabfake.DemoRunningJob {
		t.Fatalf("l opened no viewer on %s: %q", colabfake.DemoRunningJob, m.cx.Status.Text)
	}
	for i := 0; !strings.Contains(m.View(), "training resnet18 on /content/data: 300 epochs"); i++ {
		if i == 30 || cmd == nil {
			t.Fatalf("after %d reads the viewer shows:\n%s", i, m.View())
		}
		var next tea.Cmd
		walk(cmd, func(msg tea.Msg) tea.Cmd {
			if lm, ok := msg.(logview.Msg); ok {
				m, next = update(m, lm)
			}
			return nil
		})
		cmd = next
	}
	v := m.View()
	if !strings.Contains(v, "LOG · job train-demo01 on rt-t4demo7k2p") || !strings.Contains(v, "● following") {
		t.Errorf("the viewer:\n%s", v)
	}
	m, closeCmd := update(m, keyMsg("esc"))
	walk(closeCmd, func(tea.Msg) tea.Cmd { return nil })
}

// putLog writes job id's log on the runtime jc reaches.
func putLog(t *testing.T, jc *jupyter.Client, id, log string) {
	t.Helper()
	if err := jc.MkdirAll(context.Background(), jobs.Dir(id)); err != nil {
		t.Fatal(err)
	}
	if _, err := jc.Upload(context.Background(), jobs.Dir(id)+"/"+jobs.LogFile, strings.NewReader(log), int64(len(log)), nil); err != nil {
		t.Fatal(err)
	}
}

// An ended job shows the last line of its whole output (as colabdash
// jobs does), never a line read while it ran: alike on a dashboard that
// watched it end and on one started after.
func TestEndedJobShowsItsFinalLine(t *testing.T) {
	for _, watched := range []bool{true, false} {
		ms, jc := onCPUDemo(t)
		start := ms.clk.Now()
		spec := jobs.Spec{ID: "bars-kvrng8", Created: start}
		if watched {
			putJob(t, jc, spec, &jobs.Status{Pid: 9, Started: start, Heartbeat: start})
			putLog(t, jc, spec.ID, "step 1\nstep 2\n")
			ms.tick(jobsSelectedIdle)
			if v := ms.view(); !strings.Contains(v, "bars-kvrng8 running") || !strings.Contains(v, "│ step 2") {
				t.Fatalf("the running job and its last line:\n%s", v)
			}
		}
		putLog(t, jc, spec.ID, "step 1\nstep 2\nTraceback (most recent call last):\nValueError: boom\n")
		end := ms.clk.Now()
		putJob(t, jc, spec, &jobs.Status{Pid: 9, Started: start, Ended: end, ExitCode: 1, Heartbeat: end})
		ms.tick(jobsSelectedIdle)
		v := ms.view()
		if row := lineWith(v, "bars-kvrng8"); !strings.Contains(row, "exited 1") || !strings.Contains(row, "│ ValueError: boom") {
			t.Errorf("watched %v: the ended job's line %q, want its final line:\n%s", watched, row, v)
		}
		if strings.Contains(v, "step 2") {
			t.Errorf("watched %v: a line read while the job ran is shown after its end:\n%s", watched, v)
		}
	}
}

// onCPUDemo is a monitor stack on the demo (100 columns), listed, with
// rt-cpudemo4qx selected, and a Jupyter client of that runtime's proxy on
// the stack's clock.
func onCPUDemo(t *testing.T) (*monitorStack, *jupyter.Client) {
	t.Helper()
	ms := newMonitorStack(t, 100, colabfake.Options{})
	ms.start()
	ms.tick(time.Second)
	ms.m = ms.m.selectID(t, "rt-cpudemo4qx")
	sel := ms.m.cx.Snap.Runtime(ms.m.rt.Selected())
	jc, err := jupyter.New(jupyter.Options{Runtime: sel.Name, Info: *sel.ConnectionInfo, Now: ms.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	return ms, jc
}
