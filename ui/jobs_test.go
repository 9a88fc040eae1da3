package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/overlay/logview"
)

// withJobs turns m's monitor and jobs on, and has r-alpha's jobs listed:
// train-4kq9zt running (its last line read) and prep-2b8xqq that exited 1.
func withJobs(t *testing.T, m Model) Model {
	t.Helper()
	m = withMonitor(m)
	m.jobs = newJobsOps(m.app)
	m.cx.Jobs = m.jobs
	now := m.cx.Now()
	m.jobs.lists["runtimes/r-alpha"] = &jobList{busy: true}
	running := runningJob(now)
	ended := jobs.Record{Runtime: "runtimes/r-alpha", Spec: jobs.Spec{ID: "prep-2b8xqq"},
		Status: &jobs.Status{Started: now.Add(-3 * time.Hour), Ended: now.Add(-3*time.Hour + 4*time.Minute), ExitCode: 1}, Modified: now.Add(-3 * time.Hour)}
	m, _ = update(m, jobsListedMsg{gen: m.jobs.gen, runtime: "runtimes/r-alpha", recs: []jobs.Record{running, ended},
		tails: map[string]string{"train-4kq9zt": "epoch 3/10 loss 0.21"}})
	return m
}

// runningJob is r-alpha's job train-4kq9zt, running for 72 minutes at
// now.
func runningJob(now time.Time) jobs.Record {
	return jobs.Record{Runtime: "runtimes/r-alpha", Spec: jobs.Spec{ID: "train-4kq9zt"},
		Status: &jobs.Status{Pid: 42, Started: now.Add(-72 * time.Minute), Heartbeat: now}, Modified: now.Add(-3 * time.Second), LogSize: 900}
}

// The table counts a runtime's jobs beside its sessions, the details list
// them (id, state, duration, last line), and a runtime a run in progress
// created is marked "&".
func TestJobsInTheTableAndDetails(t *testing.T) {
	_, _, m := fixture(t)
	m = withJobs(t, m)
	m, _ = update(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	v := m.View()
	row := lineWith(v, "r-alpha ")
	if !strings.Contains(row, " 2j ") {
		t.Errorf("r-alpha's row has no job count:\n%s", v)
	}
	if strings.Contains(lineWith(v, "r-bravo "), "j ") {
		t.Errorf("a runtime without jobs shows a count:\n%s", v)
	}
	for _, want := range []string{"jobs     1 running · 1 ended", "train-4kq9zt running  1h12m │ epoch 3/10 loss 0.21", "prep-2b8xqq  exited 1 4m"} {
		if !strings.Contains(v, want) {
			t.Errorf("details lack %q:\n%s", want, v)
		}
	}
	m, _ = update(m, jobNotesMsg{gen: m.jobs.gen, notes: []ops.JobNote{{ID: "train-4kq9zt", Runtime: "runtimes/r-alpha", DeleteWhenDone: true}}})
	if v := m.View(); !strings.HasPrefix(lineWith(v, "r-alpha "), "›&") || !strings.Contains(v, "deleted when done") {
		t.Errorf("the runtime a run created is not marked:\n%s", v)
	}
	m, _ = update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if v := m.View(); !strings.Contains(lineWith(v, "r-alpha "), "2j") {
		t.Errorf("at 80 columns the count is gone:\n%s", v)
	}
}

// lineWith is the first line of v holding s.
func lineWith(v, s string) string {
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// viewSource is a LogSource that gives its chunks, then waits; closes
// counts its Close calls.
type viewSource struct {
	chunks chan ops.LogChunk
	closes atomic.Int32
}

func (s *viewSource) Next(ctx context.Context) (ops.LogChunk, error) {
	select {
	case c := <-s.chunks:
		return c, nil
	case <-ctx.Done():
		return ops.LogChunk{}, ctx.Err()
	}
}

func (s *viewSource) Close() error { s.closes.Add(1); return nil }

// l on the runtimes table opens the viewer on the newest running job,
// whose chunks the app hands to it; esc closes it and a late answer is
// dropped.
func TestLOpensTheRunningJobsLog(t *testing.T) {
	_, _, m := fixture(t)
	m = withJobs(t, m)
	src := &viewSource{chunks: make(chan ops.LogChunk, 4)}
	var opened string
	jobLogSource = func(_ *jupyter.Client, id string) (ops.LogSource, error) { opened = id; return src, nil }
	t.Cleanup(func() { jobLogSource = jobLog })
	m, cmd := update(m, keyMsg("l"))
	o, ok := find[*logview.Overlay](m.scr)
	if !ok || opened != "train-4kq9zt" || cmd == nil {
		t.Fatalf("l opened %q (viewer %v)", opened, ok)
	}
	if !strings.Contains(m.cx.Status.Text, "the newest running job of 2 jobs") {
		t.Errorf("status %q does not say which job", m.cx.Status.Text)
	}
	src.chunks <- ops.LogChunk{Data: []byte("epoch 4/10 loss 0.19\n")}
	msg := cmd()
	m, cmd = update(m, msg)
	if v := m.View(); !strings.Contains(v, "epoch 4/10 loss 0.19") || !strings.Contains(v, "LOG · job train-4kq9zt on r-alpha · running") {
		t.Fatalf("the viewer does not show the chunk:\n%s", v)
	}
	m, closeCmd := update(m, keyMsg("esc"))
	if _, open := find[*logview.Overlay](m.scr); open {
		t.Fatal("esc left the viewer open")
	}
	walk(closeCmd, func(tea.Msg) tea.Cmd { return nil })
	if msg := cmd(); msg != nil { // the pending read ends with the closed viewer
		_, next := update(m, msg)
		walk(next, func(msg tea.Msg) tea.Cmd {
			if msg != nil {
				t.Fatalf("a closed viewer's answer led to %T (another read?)", msg)
			}
			return nil
		})
	}
	if n := src.closes.Load(); n != 1 {
		t.Fatalf("the source was closed %d times", n)
	}
	_ = o

	// On the sessions panel l connects to the session's kernel output in
	// a command; a failure says so in one line.
	m, _ = update(m, keyMsg("tab"))
	m, cmd = update(m, keyMsg("l"))
	if cmd == nil || !strings.Contains(m.cx.Status.Text, "connecting to the kernel of session colabdash-1a2b") {
		t.Fatalf("l on a session: status %q", m.cx.Status.Text)
	}
	m, _ = update(m, cmd())
	if _, open := find[*logview.Overlay](m.scr); open || !m.cx.Status.Err || !strings.Contains(m.cx.Status.Text, "kernel output of session colabdash-1a2b: ") ||
		strings.Contains(m.cx.Status.Text, "\n") {
		t.Fatalf("a kernel that cannot be reached: status %q", m.cx.Status.Text)
	}
}

// l where it cannot open a log says why in one line: a source that
// cannot be made, a runtime whose jobs are not listed yet, one without
// jobs.
func TestLWithoutAJobLog(t *testing.T) {
	_, _, m := fixture(t)
	m = withJobs(t, m)
	jobLogSource = func(*jupyter.Client, string) (ops.LogSource, error) {
		return nil, errors.New("no log source\nsecond line")
	}
	t.Cleanup(func() { jobLogSource = jobLog })
	m, _ = update(m, keyMsg("l"))
	if _, open := find[*logview.Overlay](m.scr); open || !m.cx.Status.Err ||
		m.cx.Status.Text != "log of job train-4kq9zt: no log source second line" {
		t.Fatalf("status %q", m.cx.Status.Text)
	}
	m, _ = update(m, keyMsg("j"))
	m, _ = update(m, keyMsg("l"))
	if !strings.Contains(m.cx.Status.Text, "not listed yet") {
		t.Fatalf("a runtime not listed: %q", m.cx.Status.Text)
	}
	m.jobs.lists[m.rt.Selected()] = &jobList{listed: true}
	m, _ = update(m, keyMsg("l"))
	// The hint is a command that works as printed: the runtime named.
	if id := api.LastSegment(m.rt.Selected()); !strings.Contains(m.cx.Status.Text, "no job on "+id+" (colabdash run --runtime "+id+" --detach FILE starts one)") {
		t.Fatalf("a runtime without jobs: %q", m.cx.Status.Text)
	}
}

// A failed listing is backed off (30 s, doubling), and recorded in the
// event log; the runtime's count goes.
func TestJobsListingBacksOff(t *testing.T) {
	_, _, m := fixture(t)
	m = withJobs(t, m)
	now := m.cx.Now()
	l := m.jobs.lists["runtimes/r-alpha"]
	l.busy = true
	m, _ = update(m, jobsListedMsg{gen: m.jobs.gen, runtime: "runtimes/r-alpha", err: errors.New("proxy: 502")})
	if l.listed || l.next.Sub(now) != jobsBackoff {
		t.Fatalf("after a failure: listed %v, next in %v", l.listed, l.next.Sub(now))
	}
	if _, ok := m.jobs.Jobs("runtimes/r-alpha"); ok {
		t.Fatal("a failed listing still counts jobs")
	}
	l.busy = true
	m, _ = update(m, jobsListedMsg{gen: m.jobs.gen, runtime: "runtimes/r-alpha", err: errors.New("proxy: 502")})
	if l.next.Sub(now) != 2*jobsBackoff {
		t.Fatalf("second failure: next in %v", l.next.Sub(now))
	}
	// The pace: the selected runtime every 5 s, the others on screen
	// every minute, never one whose listing is under way.
	l.busy, l.next = false, time.Time{}
	first := m.jobs.due(now, m.runtimeRows(), m.mon)
	if len(first) < 2 || !l.busy {
		t.Fatalf("%d listings due at first (r-alpha's under way: %v)", len(first), l.busy)
	}
	if again := m.jobs.due(now.Add(time.Second), m.runtimeRows(), m.mon); len(again) != 0 {
		t.Fatalf("%d listings while they are under way", len(again))
	}
	for name, x := range m.jobs.lists {
		var recs []jobs.Record
		if name == "runtimes/r-alpha" {
			recs = []jobs.Record{runningJob(now)}
		}
		m, _ = update(m, jobsListedMsg{gen: m.jobs.gen, runtime: name, recs: recs})
		if x.busy {
			t.Fatalf("%s still under way", name)
		}
	}
	if at5 := m.jobs.due(now.Add(jobsSelectedEvery), m.runtimeRows(), m.mon); len(at5) != 1 {
		t.Fatalf("%d listings 5 s on, want the selected runtime's alone", len(at5))
	}
	m, _ = update(m, jobsListedMsg{gen: m.jobs.gen, runtime: m.rt.Selected(), recs: []jobs.Record{runningJob(now)}})
	if at60 := m.jobs.due(now.Add(jobsOthersEvery), m.runtimeRows(), m.mon); len(at60) != len(first) {
		t.Fatalf("%d listings a minute on, want %d", len(at60), len(first))
	}
	_ = common.Job{}
}

// A run record in the state directory (a run that created a runtime and
// has not deleted it yet) marks its runtime too, even while the job notes
// cannot be read.
func TestRunRecordMarksItsRuntime(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, runRecordsDir), 0o700); err != nil {
		t.Fatal(err)
	}
	rec := `{"requestId":"x","runtime":"runtimes/r-bravo","created":true,"file":"train.py","pid":1}`
	if err := os.WriteFile(filepath.Join(dir, runRecordsDir, "x.json"), []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, runRecordsDir, "junk.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	runs := runRecordRuntimes(dir)
	if len(runs) != 1 || runs[0] != "runtimes/r-bravo" {
		t.Fatalf("run records name %q", runs)
	}
	_, _, m := fixture(t)
	m = withJobs(t, m)
	m, _ = update(m, jobNotesMsg{gen: m.jobs.gen, runs: runs, err: errors.New("jobs.json: permission denied")})
	if row := lineWith(m.View(), "r-bravo "); !strings.HasPrefix(row, " &") {
		t.Fatalf("r-bravo's row %q is not marked", row)
	}
}

// A profile switch closes the log viewer: its read in flight ends, and
// its answer closes the source, once.
func TestProfileSwitchEndsTheLogViewer(t *testing.T) {
	_, _, m := fixture(t)
	m = withJobs(t, m)
	src := &viewSource{chunks: make(chan ops.LogChunk, 1)}
	jobLogSource = func(*jupyter.Client, string) (ops.LogSource, error) { return src, nil }
	t.Cleanup(func() { jobLogSource = jobLog })
	m, read := update(m, keyMsg("l"))
	if _, open := find[*logview.Overlay](m.scr); !open {
		t.Fatal("no viewer")
	}
	m.scr.leaveAccount()
	if _, open := find[*logview.Overlay](m.scr); open {
		t.Fatal("the viewer stayed after a profile switch")
	}
	done := goRun(t, "the viewer's read", func() tea.Msg { return read() })
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the read did not end with the switch")
	}
	_, next := update(m, msg)
	walk(next, func(tea.Msg) tea.Cmd { return nil })
	if n := src.closes.Load(); n != 1 {
		t.Fatalf("the source was closed %d times", n)
	}
}

// claimAnswer runs cmd's commands until the claim of a
// --delete-when-done delete answers, and returns that answer (nil: none).
func claimAnswer(cmd tea.Cmd) tea.Msg {
	var got tea.Msg
	walk(cmd, func(msg tea.Msg) tea.Cmd {
		if c, ok := msg.(whenDoneClaimedMsg); ok {
			got = c
		}
		return nil
	})
	return got
}

// A job noted run --detach --delete-when-done that the dashboard sees
// end has its runtime deleted, once, through the dashboard's delete;
// read-only, the dashboard only says the runtime is left to the user.
// Two dashboards sharing a state directory that both see it end: one
// deletes, the other only says another colabdash does.
func TestDeleteWhenDoneIsCarriedOut(t *testing.T) {
	stateDir := t.TempDir()
	for _, dash := range []struct {
		readOnly, second bool
	}{{false, false}, {true, false}, {false, true}} {
		readOnly := dash.readOnly
		_, _, m := fixture(t)
		m.opts.ReadOnly, m.opts.StateDir = readOnly, stateDir
		m = withJobs(t, m)
		note := ops.JobNote{ID: "train-4kq9zt", Runtime: "runtimes/r-alpha", DeleteWhenDone: true}
		m, _ = update(m, jobNotesMsg{gen: m.jobs.gen, notes: []ops.JobNote{note}})
		now := m.cx.Now()
		running := runningJob(now)
		if m, _ := update(m, jobsListedMsg{gen: m.jobs.gen, runtime: "runtimes/r-alpha", recs: []jobs.Record{running}}); len(m.ops.deleting) != 0 {
			t.Fatalf("a running job's runtime is being deleted (readonly %v)", readOnly)
		}
		ended := running
		ended.Status = &jobs.Status{Pid: 42, Started: now.Add(-72 * time.Minute), Ended: now, ExitCode: 0, Heartbeat: now}
		m, cmd := update(m, jobsListedMsg{gen: m.jobs.gen, runtime: "runtimes/r-alpha", recs: []jobs.Record{ended}})
		if readOnly {
			_, deleting := m.ops.deleting["runtimes/r-alpha"]
			if v := m.View(); deleting || claimAnswer(cmd) != nil || !strings.Contains(v, "read-only") {
				t.Errorf("read-only: deleting %v, status:\n%s", deleting, v)
			}
			continue
		}
		answer := claimAnswer(cmd)
		if answer == nil {
			t.Fatal("no claim of the delete")
		}
		m, cmd = update(m, answer)
		_, deleting := m.ops.deleting["runtimes/r-alpha"]
		v := m.View()
		if dash.second {
			if deleting || cmd != nil || !strings.Contains(v, "another colabdash deletes r-alpha") {
				t.Errorf("a second dashboard deletes the runtime too (deleting %v):\n%s", deleting, v)
			}
			continue
		}
		if !deleting || cmd == nil || !strings.Contains(v, "deleting r-alpha") {
			t.Fatalf("the ended job's runtime is not being deleted:\n%s", v)
		}
		delete(m.ops.deleting, "runtimes/r-alpha")
		if m, cmd = update(m, jobsListedMsg{gen: m.jobs.gen, runtime: "runtimes/r-alpha", recs: []jobs.Record{ended}}); len(m.ops.deleting) != 0 || claimAnswer(cmd) != nil {
			t.Error("the next listing deletes again")
		}
	}
}

// A listing the proxy refused for its token is backed off while the
// runtime keeps that token, and goes again at once when the dashboard
// renewed it: the jobs (a signal of the activity verdict) are not left
// unknown for minutes by a refusal the renewal already answered.
func TestJobsListingRefusedGoesAgainWithTheRenewedToken(t *testing.T) {
	_, _, m := fixture(t)
	m = withJobs(t, m)
	now := m.cx.Now()
	name := "runtimes/r-alpha"
	ci, ok := m.mon.connInfo(name)
	if !ok {
		t.Fatal("r-alpha has no connectionInfo")
	}
	refused := &jupyter.Error{Op: "list", Kind: jupyter.ErrRefused, Message: "the proxy token cannot be renewed"}
	l := m.jobs.lists[name]
	l.busy = true
	m, _ = update(m, jobsListedMsg{gen: m.jobs.gen, runtime: name, token: ci.Token, err: refused})
	m.jobs.due(now.Add(time.Second), m.runtimeRows(), m.mon)
	if l.busy {
		t.Fatalf("listed again with the token just refused")
	}
	l.busy = true
	m, _ = update(m, jobsListedMsg{gen: m.jobs.gen, runtime: name, token: "the-token-before-the-renewal", err: refused})
	m.jobs.due(now.Add(time.Second), m.runtimeRows(), m.mon)
	if !l.busy {
		t.Fatalf("a listing refused with a token since renewed waits out its back-off (next in %v)", l.next.Sub(now))
	}
}

// A job noted --delete-when-done that the dashboard sees end while
// another colabdash (a wait --download copying results back) holds its
// runtime: the dashboard deletes nothing, says so once on its status
// line, and deletes the runtime at a listing after the hold was
// released, or once the holder's heartbeat stopped for longer than
// state.HoldFresh (it was killed).
func TestDeleteWhenDoneWaitsForAHeldRuntime(t *testing.T) {
	for _, end := range []string{"released", "stale"} {
		t.Run(end, func(t *testing.T) {
			stateDir := t.TempDir()
			_, clk, m := fixture(t)
			m.opts.StateDir = stateDir
			m = withJobs(t, m)
			note := ops.JobNote{ID: "train-4kq9zt", Runtime: "runtimes/r-alpha", DeleteWhenDone: true}
			m, _ = update(m, jobNotesMsg{gen: m.jobs.gen, notes: []ops.JobNote{note}})
			now := m.cx.Now()
			hold, err := ops.HoldRuntime(stateDir, note.Runtime, now)
			if err != nil {
				t.Fatal(err)
			}
			ended := runningJob(now)
			ended.Status = &jobs.Status{Pid: 42, Started: now.Add(-72 * time.Minute), Ended: now, ExitCode: 0, Heartbeat: now}
			listing := func(m Model) (Model, tea.Cmd) {
				t.Helper()
				m, cmd := update(m, jobsListedMsg{gen: m.jobs.gen, runtime: note.Runtime, recs: []jobs.Record{ended}})
				answer := claimAnswer(cmd)
				if answer == nil {
					t.Fatal("the ended job's delete was not asked for")
				}
				return update(m, answer)
			}
			waiting := "job train-4kq9zt ended (exited 0): waiting for a download by another colabdash before deleting r-alpha, as --delete-when-done asked"
			for i := range 2 {
				m.scr.clearStatus()
				var cmd tea.Cmd
				m, cmd = listing(m)
				if _, deleting := m.ops.deleting[note.Runtime]; deleting || cmd != nil {
					t.Fatalf("listing %d: the runtime is deleted while another colabdash holds it", i+1)
				}
				if said := m.cx.Status.Text; i == 0 && said != waiting || i == 1 && said != "" {
					t.Fatalf("listing %d: status %q; want the wait said once", i+1, said)
				}
				clk.add(state.HoldBeatEvery)
				if err := hold.Beat(m.cx.Now()); err != nil {
					t.Fatal(err)
				}
			}
			if end == "released" {
				hold.Release()
			} else {
				clk.add(state.HoldFresh + time.Second)
			}
			m, cmd := listing(m)
			if _, deleting := m.ops.deleting[note.Runtime]; !deleting || cmd == nil || !strings.Contains(m.cx.Status.Text, "deleting r-alpha") {
				t.Fatalf("the hold %s, the runtime is not being deleted; status %q", end, m.cx.Status.Text)
			}
		})
	}
}
