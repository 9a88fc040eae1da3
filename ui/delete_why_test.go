package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/ui/ops"
)

// A runtime the dashboard deletes because a --delete-when-done job ended
// says why, in the status line once deleted and in the event log's
// delete_runtime entry, not only "✓ deleted".
func TestDeleteWhenDoneSaysWhy(t *testing.T) {
	_, _, m := fixture(t)
	m.opts.StateDir = t.TempDir()
	m = withJobs(t, m)
	m, _ = update(m, tea.WindowSizeMsg{Width: 200, Height: 40})
	note := ops.JobNote{ID: "train-4kq9zt", Runtime: "runtimes/r-alpha", DeleteWhenDone: true}
	m, _ = update(m, jobNotesMsg{gen: m.jobs.gen, notes: []ops.JobNote{note}})
	now := m.cx.Now()
	ended := runningJob(now)
	ended.Status = &jobs.Status{Pid: 42, Started: now.Add(-72 * time.Minute), Ended: now, Heartbeat: now}
	m, cmd := update(m, jobsListedMsg{gen: m.jobs.gen, runtime: "runtimes/r-alpha", recs: []jobs.Record{ended}})
	answer := claimAnswer(cmd)
	if answer == nil {
		t.Fatal("no claim of the delete")
	}
	m, cmd = update(m, answer)
	const why = "its job train-4kq9zt ended and asked for delete-when-done"
	if v := m.View(); !strings.Contains(v, "deleting r-alpha: "+why) {
		t.Errorf("while deleting, the status line does not say why:\n%s", v)
	}
	walk(cmd, func(msg tea.Msg) tea.Cmd {
		if d, ok := msg.(deleteDoneMsg); ok {
			d.err = nil // the fixture's service deletes nothing: take it as done
			m, _ = update(m, d)
		}
		return nil
	})
	if v := m.View(); !strings.Contains(v, "✓ deleted r-alpha: "+why) {
		t.Errorf("once deleted, the status line does not say why:\n%s", v)
	}
	evs := m.Events()
	if len(evs) == 0 || evs[0].Tool != "delete_runtime" || evs[0].Why != why || evs[0].Outcome() != "ok" {
		t.Fatalf("the event log's delete does not say why: %+v", evs)
	}
	m, _ = update(m, keyMsg("L"))
	if v := m.View(); !strings.Contains(v, why) {
		t.Errorf("the event log does not show why:\n%s", v)
	}
}
