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

// whenDoneClaimedMsg answers the claim of d's delete among the colabdash
// processes sharing the state directory (ops.ClaimWhenDone): claimed, or
// another one claimed it first (and deletes it), or kept the runtime, or
// holds it (a wait --download copying results back: ask again later).
// gen is the jobs' generation when it was sent (a profile switch drops
// it).
type whenDoneClaimedMsg struct {
	d     whenDone
	gen   uint64
	claim ops.WhenDoneClaim
}

// carryWhenDone claims d's delete, as its note asked, in a command (the
// answer, whenDoneClaimedMsg, deletes it: onWhenDoneClaimed); under
// --readonly it only says that the runtime is left to the user.
func (m *app) carryWhenDone(d whenDone, now time.Time) tea.Cmd {
	if m.opts.ReadOnly {
		m.scr.say(now, common.Say{Text: "job " + d.Job + " ended (" + d.Word + "); --delete-when-done asked to delete " + api.LastSegment(d.Runtime) +
			", but the dashboard is read-only: delete it yourself (d)", Err: true})
		return nil
	}
	dir, gen := m.opts.StateDir, m.jobs.gen
	return func() tea.Msg {
		return whenDoneClaimedMsg{d: d, gen: gen, claim: ops.ClaimWhenDone(dir, d.Runtime, d.Job, now, nil)}
	}
}

// onWhenDoneClaimed deletes the runtime of a claimed delete through the
// dashboard's one delete path, and then forgets the job's note; a delete
// another colabdash claimed first, or a runtime it kept, is only said
// (the runtime then goes from the list at a refresh, or stays). A delete
// postponed by another colabdash's hold is said once and found due again
// by the runtime's next listing.
func (m *app) onWhenDoneClaimed(msg whenDoneClaimedMsg, now time.Time) tea.Cmd {
	if m.jobs == nil || msg.gen != m.jobs.gen {
		return nil
	}
	d, id := msg.d, api.LastSegment(msg.d.Runtime)
	ended := "job " + d.Job + " ended (" + d.Word + "): "
	switch msg.claim {
	case ops.WhenDoneHeld:
		delete(m.jobs.carried, d.Job)
		if !m.jobs.waiting[d.Job] {
			m.jobs.waiting[d.Job] = true
			m.scr.say(now, common.Say{Text: ended + "waiting for a download by another colabdash before deleting " + id + ", as --delete-when-done asked"})
		}
		return nil
	case ops.WhenDoneTaken:
		m.scr.say(now, common.Say{Text: ended + "another colabdash deletes " + id + ", as --delete-when-done asked"})
		return nil
	case ops.WhenDoneKept:
		m.scr.say(now, common.Say{Text: ended + id + " kept despite --delete-when-done, since a colabdash wait --download did not come back"})
		return nil
	}
	m.scr.say(now, common.Say{Text: ended + "deleting " + id + ", as --delete-when-done asked"})
	dir, job := m.opts.StateDir, d.Job
	return tea.Batch(m.ops.startDeleteFor(d.Runtime, "its job "+d.Job+" ended and asked for delete-when-done", now), func() tea.Msg {
		_ = ops.ForgetJobNote(dir, job)
		return nil
	})
}
