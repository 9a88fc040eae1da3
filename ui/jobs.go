package ui

// jobsOps: the runtimes' jobs in the dashboard (api/jupyter/jobs). Their
// listings ride on the monitor's schedule: the selected runtime's jobs
// are listed once per monitor poll interval (5 s) while one of them runs
// (every 15 s when none does), those of the other runtimes on screen
// every minute, none off screen, never two listings of one runtime at
// once, a failing one backed off (30 s doubling to 5 minutes). A listing
// is Jupyter proxy requests alone with the proxy token the snapshot holds:
// one listing of the jobs directory (all a runtime without jobs costs),
// then two small reads for each job whose end is not recorded yet (an
// ended job changes no more: it is not read again), and for the selected
// runtime the last line of at most three running jobs, each at most every
// 15 s (a suffix Range read of the log's last KiB), and the final line of
// its newest five ended jobs, once each: an ended job shows only the
// line read after its end, never one read while it ran. Never an MCP call: a
// token the proxy refuses waits for the dashboard's own renewal (the
// monitor's), and the listing goes again as soon as the token is another,
// whatever its back-off. The job notes
// of this machine's state directory (ui/ops jobnotes) say which
// runtimes a run in progress created: read every 30 s, in a command.
//
// l opens the log viewer (ui/overlay/logview) on the selected runtime's
// newest running job (else its newest job) through ops.JobLog.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/pane/runtimes"
)

// The job listings' pace.
const (
	jobsSelectedEvery = 5 * time.Second  // the selected runtime while a job runs: the monitor's pace
	jobsSelectedIdle  = 15 * time.Second // the selected runtime without a running job
	jobsOthersEvery   = time.Minute      // the other runtimes on screen
	// jobsOthersPerMinute bounds the listings of runtimes other than the
	// selected one in any 60 s, however many are on screen: with the
	// monitor's 120, the dashboard sends at most 140 listings and polls
	// (a listing's per-job reads aside) to the proxies a minute.
	jobsOthersPerMinute = 20
	jobsBackoff         = 30 * time.Second // after a failure, doubling
	jobsMaxBackoff      = 5 * time.Minute
	jobNotesEvery       = 30 * time.Second
	jobsTimeout         = 20 * time.Second
	// jobsTails is how many of the selected runtime's running jobs get
	// their last line read, each at most every jobTailEvery; jobTailBytes
	// how much of a log's end is read for it.
	jobsTails    = 3
	jobTailBytes = 1024
	jobTailEvery = 15 * time.Second
	// jobsFinalTails is how many of the selected runtime's newest jobs
	// that ended get their final line read, once each (the details show
	// five).
	jobsFinalTails = 5
	// jobLogTail is how many lines of a log the viewer starts with.
	jobLogTail = 2000
)

// jobsOps lists the runtimes' jobs and opens their logs. A nil *jobsOps
// is jobs off (monitoring off): its methods do nothing.
type jobsOps struct {
	cx    *common.Context
	opts  *Options
	link  *link
	scr   *screen
	rt    *runtimes.Pane
	gen   uint64
	lists map[string]*jobList
	// byRun are the runtimes a job note marks DeleteWhenDone.
	byRun map[string]bool
	// whenDone are the DeleteWhenDone notes by job id; carried the jobs
	// whose delete this dashboard started (once each); waiting those
	// whose delete another colabdash's hold postponed (said once).
	whenDone map[string]ops.JobNote
	carried  map[string]bool
	waiting  map[string]bool
	// noted is every runtime a DeleteWhenDone note named since this
	// dashboard started, with the note's job id: kept after the note is
	// gone (the process that deleted the runtime forgets it), so the
	// runtime's going is told as the delete the note asked for.
	noted map[string]string
	// othersSent are the send times of the last minute's listings of
	// runtimes other than the selected one, oldest first.
	othersSent []time.Time
	notesNext  time.Time
	notesBusy  bool
	notesError string
}

// jobList is what is known of one runtime's jobs.
type jobList struct {
	jobs     []common.Job
	listed   bool
	busy     bool
	sent     time.Time // when the last listing was sent
	next     time.Time // not before (a failure's back-off)
	fails    int
	tailAt   map[string]time.Time // when each job's last line was read
	lastLine map[string]string
	// final are the ended jobs whose last line was read after their end
	// (it changes no more); an ended job's line is shown only then.
	final map[string]bool
	// refused is the proxy token the last listing was refused with: a
	// listing with another one (renewed meanwhile) is due at once,
	// whatever the back-off.
	refused string
}

// jobsListedMsg answers one listing of runtime's jobs.
type jobsListedMsg struct {
	gen     uint64
	runtime string
	token   string // the proxy token the listing was sent with (never shown)
	recs    []jobs.Record
	tails   map[string]string    // job id → last line read now
	tailAt  map[string]time.Time // job id → when its last line was read
	final   map[string]bool      // job ids of tails read after the job ended
	err     error
}

// jobNotesMsg answers a reading of the job notes (and of the run
// records: runs, the runtimes they name).
type jobNotesMsg struct {
	gen   uint64
	notes []ops.JobNote
	runs  []string
	err   error
}

func newJobsOps(a *app) *jobsOps {
	if a.mon == nil {
		return nil
	}
	j := &jobsOps{cx: a.cx, opts: &a.opts, link: a.link, scr: a.scr, rt: a.rt}
	j.reset()
	return j
}

// reset forgets every listing (another account); answers in flight are
// dropped.
func (m *jobsOps) reset() {
	if m == nil {
		return
	}
	m.gen++
	m.lists, m.byRun = map[string]*jobList{}, map[string]bool{}
	m.whenDone, m.carried, m.waiting = map[string]ops.JobNote{}, map[string]bool{}, map[string]bool{}
	m.notesBusy = false
}

// Jobs is runtime name's jobs as last listed (common.Jobs).
func (m *jobsOps) Jobs(name string) ([]common.Job, bool) {
	l := m.lists[name]
	if l == nil || !l.listed {
		return nil, false
	}
	return l.jobs, true
}

// running reports whether runtime name has a job that may still change
// (or is not listed yet).
func (m *jobsOps) running(name string) bool {
	l := m.lists[name]
	if l == nil || !l.listed {
		return true
	}
	now := m.cx.Now()
	for _, j := range l.jobs {
		if !state.JudgeJob(j.Record, now, 0).Ended() {
			return true
		}
	}
	return false
}

// ByRun reports whether a job note marks runtime name for deletion when
// its job ends (common.Jobs).
func (m *jobsOps) ByRun(name string) bool { return m.byRun[name] }

// due starts the listings due at now: the selected runtime and the
// others on screen (visible rows), those the monitor may poll.
func (m *jobsOps) due(now time.Time, visible int, mon *monitorOps) []tea.Cmd {
	if m == nil || mon == nil {
		return nil
	}
	var cmds []tea.Cmd
	sel := m.rt.Selected()
	renewing := m.cx.Activity.Renewals.InFlight
	for name := range m.lists {
		if r := m.cx.Snap.Runtime(name); r == nil || r.Gone() {
			delete(m.lists, name) // no longer listed: forgotten
		}
	}
	for _, name := range m.rt.OnScreen(visible, nil) {
		ci, ok := mon.connInfo(name)
		if !ok || renewing(name) {
			continue
		}
		l := m.lists[name]
		if l == nil {
			l = &jobList{}
			m.lists[name] = l
		}
		every := jobsOthersEvery
		switch {
		case name == sel && m.running(name):
			every = jobsSelectedEvery
		case name == sel:
			every = jobsSelectedIdle
		}
		if l.refused != "" && ci.Token != l.refused { // renewed since: the back-off was for the token
			l.next, l.sent, l.refused = time.Time{}, time.Time{}, ""
		}
		// Due by the runtime's role now: a runtime just selected is
		// listed at the selected pace, counted from its last listing.
		if l.busy || now.Before(l.next) || !l.sent.IsZero() && now.Sub(l.sent) < every {
			continue
		}
		if name != sel {
			for len(m.othersSent) > 0 && now.Sub(m.othersSent[0]) >= time.Minute {
				m.othersSent = m.othersSent[1:]
			}
			if len(m.othersSent) >= jobsOthersPerMinute {
				continue
			}
			m.othersSent = append(m.othersSent, now)
		}
		l.busy, l.sent = true, now
		cmds = append(cmds, m.list(name, ci, name == sel, l))
	}
	if m.opts.StateDir != "" && !m.opts.Demo && !m.notesBusy && !now.Before(m.notesNext) {
		m.notesBusy, m.notesNext = true, now.Add(jobNotesEvery)
		cmds = append(cmds, m.readNotes())
	}
	return cmds
}

// list is one listing of runtime name's jobs through ci, with the last
// lines of its running jobs when tails (the selected runtime).
func (m *jobsOps) list(name string, ci api.ConnectionInfo, tails bool, l *jobList) tea.Cmd {
	ctx, gen, now := m.link.life.ctx, m.gen, m.opts.Now
	known := map[string]jobs.Record{} // jobs whose end is recorded: they change no more
	for _, j := range l.jobs {
		if st := j.Record.Status; st != nil && (!st.Ended.IsZero() || st.Error != "") {
			known[j.Record.Spec.ID] = j.Record
		}
	}
	tailAt, final := map[string]time.Time{}, map[string]bool{}
	for id, at := range l.tailAt {
		tailAt[id] = at
	}
	for id := range l.final {
		final[id] = true
	}
	return func() (msg tea.Msg) {
		res := jobsListedMsg{gen: gen, runtime: name, token: ci.Token, tailAt: tailAt}
		defer func() {
			if r := recover(); r != nil {
				res.err = fmt.Errorf("jobs: internal error: %v", r)
				msg = res
			}
		}()
		ctx, cancel := context.WithTimeout(ctx, jobsTimeout)
		defer cancel()
		// The proxy token alone: no renewal here (no MCP call); a
		// refused token fails this listing until the dashboard renews it.
		jc, err := jupyter.New(jupyter.Options{Runtime: name, Info: ci, Now: now})
		if err != nil {
			res.err = err
			return res
		}
		res.recs, res.err = listJobs(ctx, jc, known)
		if res.err != nil || !tails {
			return res
		}
		res.tails, res.final = readTails(ctx, jc, res.recs, tailAt, final, now)
		return res
	}
}

// onListed folds a listing's answer and returns the deletes job notes
// ask for that it found due (dueWhenDone).
func (m *jobsOps) onListed(msg jobsListedMsg, now time.Time) []whenDone {
	if m == nil || msg.gen != m.gen {
		return nil
	}
	l := m.lists[msg.runtime]
	if l == nil {
		return nil // forgotten meanwhile
	}
	l.busy = false
	if msg.err != nil {
		l.fails++
		l.next = now.Add(min(jobsBackoff<<min(l.fails-1, 4), jobsMaxBackoff))
		l.listed, l.refused = false, ""
		if errors.Is(msg.err, jupyter.ErrRefused) {
			l.refused = msg.token
		}
		m.scr.recordEvent(now, "jobs list", msg.runtime, 0, msg.err)
		return nil
	}
	l.fails, l.listed, l.tailAt, l.refused = 0, true, msg.tailAt, ""
	if l.lastLine == nil {
		l.lastLine, l.final = map[string]string{}, map[string]bool{}
	}
	for id, s := range msg.tails {
		l.lastLine[id] = s
	}
	for id := range msg.final {
		l.final[id] = true
	}
	l.jobs = l.jobs[:0]
	for _, r := range msg.recs { // List passed their ids through jobs.ValidID
		last := l.lastLine[r.Spec.ID]
		if state.JudgeJob(r, now, 0).Ended() && !l.final[r.Spec.ID] {
			last = "" // a line read while it ran is not its last one
		}
		l.jobs = append(l.jobs, common.Job{Record: r, Last: last})
	}
	return m.dueWhenDone(msg.runtime, l, now)
}

// readNotes reads the job notes and the run records of the state
// directory, in a command.
func (m *jobsOps) readNotes() tea.Cmd {
	dir, gen := m.opts.StateDir, m.gen
	return func() (msg tea.Msg) {
		res := jobNotesMsg{gen: gen, runs: runRecordRuntimes(dir)}
		defer func() {
			if r := recover(); r != nil {
				res.err = fmt.Errorf("job notes: internal error: %v", r)
				msg = res
			}
		}()
		res.notes, res.err = ops.JobNotes(dir)
		return res
	}
}

// Run records: `colabdash run` (ui/cli/run) writes one JSON file per run
// that creates a runtime into the state directory's "runs" directory
// before it creates it, and removes it once the runtime is deleted; the
// file's "runtime" field names the runtime ("runtimes/…"). A record left
// by a run that was killed names a runtime nobody will delete: it is
// marked as well. At most maxRunRecords files of at most 16 KiB each are
// read.
const (
	runRecordsDir = "runs"
	maxRunRecords = 100
)

// runRecordRuntimes are the runtimes the run records of state directory
// dir name; records that cannot be read are skipped.
func runRecordRuntimes(dir string) []string {
	ents, err := os.ReadDir(filepath.Join(dir, runRecordsDir))
	if err != nil {
		return nil
	}
	var out []string
	for i, e := range ents {
		if i == maxRunRecords {
			break
		}
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := safefile.Read(filepath.Join(dir, runRecordsDir, e.Name()), 16<<10, 0)
		if err != nil {
			continue
		}
		var rec struct {
			Runtime string `json:"runtime"`
		}
		if json.Unmarshal(b, &rec) == nil && strings.HasPrefix(rec.Runtime, "runtimes/") {
			out = append(out, rec.Runtime)
		}
	}
	return out
}

// onNotes folds the job notes and run records: the runtimes a run in
// progress created (the run records' even when the notes could not be
// read).
func (m *jobsOps) onNotes(msg jobNotesMsg, now time.Time) {
	if m == nil || msg.gen != m.gen {
		return
	}
	m.notesBusy = false
	by := map[string]bool{}
	for _, name := range msg.runs {
		by[name] = true
	}
	m.byRun = by
	if msg.err != nil {
		if e := msg.err.Error(); e != m.notesError {
			m.notesError = e
			m.scr.recordEvent(now, "state file", ops.JobNotesFile, 0, msg.err)
		}
		return
	}
	m.notesError = ""
	m.whenDone = map[string]ops.JobNote{}
	if m.noted == nil {
		m.noted = map[string]string{}
	}
	for _, n := range msg.notes {
		if n.DeleteWhenDone {
			by[n.Runtime] = true
			m.whenDone[n.ID] = n
			m.noted[n.Runtime] = n.ID
		}
	}
}

// whenDoneJob is the job whose DeleteWhenDone note named runtime, since
// this dashboard started ("", false: none, or monitoring off).
func (m *jobsOps) whenDoneJob(runtime string) (string, bool) {
	if m == nil {
		return "", false
	}
	id, ok := m.noted[runtime]
	return id, ok
}
