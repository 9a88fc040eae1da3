package ui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/ops"
)

// whenDone is a delete a job note asked for (run --detach
// --delete-when-done) that a listing found due: job Job on Runtime ended
// (Word says how).
type whenDone struct {
	Runtime, Job, Word string
}

// dueWhenDone returns the deletes the job notes ask for among a listing
// of runtime's jobs at now: each job with a DeleteWhenDone note naming
// that runtime that has ended (exited, killed or lost), once per job.
func (m *jobsOps) dueWhenDone(runtime string, l *jobList, now time.Time) []whenDone {
	var out []whenDone
	for _, j := range l.jobs {
		id := j.Record.Spec.ID
		n, ok := m.whenDone[id]
		if !ok || n.Runtime != runtime || m.carried[id] {
			continue
		}
		if v := state.JudgeJob(j.Record, now, 0); v.Ended() {
			m.carried[id] = true
			out = append(out, whenDone{Runtime: runtime, Job: id, Word: v.Word()})
		}
	}
	return out
}

// carryWhenDone deletes d's runtime as its note asked, through the
// dashboard's one delete path, and then forgets the note; under
// --readonly it only says that the runtime is left to the user.
func (m *app) carryWhenDone(d whenDone, now time.Time) tea.Cmd {
	id := api.LastSegment(d.Runtime)
	if m.opts.ReadOnly {
		m.scr.say(now, common.Say{Text: "job " + d.Job + " ended (" + d.Word + "); --delete-when-done asked to delete " + id +
			", but the dashboard is read-only: delete it yourself (d)", Err: true})
		return nil
	}
	m.scr.say(now, common.Say{Text: "job " + d.Job + " ended (" + d.Word + "): deleting " + id + ", as --delete-when-done asked"})
	dir, job := m.opts.StateDir, d.Job
	return tea.Batch(m.ops.startDelete(d.Runtime, now), func() tea.Msg {
		_ = ops.ForgetJobNote(dir, job)
		return nil
	})
}
