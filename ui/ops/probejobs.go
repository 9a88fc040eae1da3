package ops

import (
	"context"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
)

// ProbeJobsEvery is the shortest time between two listings of one
// runtime's jobs by a Prober (`top --watch` reads its runtimes more
// often): a listing is a directory read plus two small reads per job.
const ProbeJobsEvery = 30 * time.Second

// JobSignal is what recs say of a runtime's work at now: how many of
// them run (starting or running by state.JudgeJob) and when the newest
// of the others ended (its recorded end, else its start plus how long it
// ran: a lost job's last heartbeat; zero when none ended).
func JobSignal(recs []jobs.Record, now time.Time) (running int, lastEnd time.Time) {
	for _, r := range recs {
		v := state.JudgeJob(r, now, 0)
		if !v.Ended() {
			running++
			continue
		}
		end := time.Time{}
		if r.Status != nil && !r.Status.Ended.IsZero() {
			end = r.Status.Ended
		} else if !v.Started.IsZero() {
			end = v.Started.Add(v.Duration)
		}
		if end.After(lastEnd) {
			lastEnd = end
		}
	}
	return running, lastEnd
}

// ProbeJobs lists runtime name's jobs (jobs.List, through its Jupyter
// server with the connectionInfo the last Probe used, the proxy token
// alone: no renewal) and records them for its verdict, at most every
// ProbeJobsEvery; a runtime Probe could not reach, or whose listing
// fails, has its jobs unknown. Call it after Probe.
func (p *Prober) ProbeJobs(ctx context.Context, name string, now func() time.Time) {
	p.mu.Lock()
	ci, ok := p.infos[name]
	last, listed := p.jobsAt[name]
	probeErr := p.probeErr[name]
	p.mu.Unlock()
	if !ok || probeErr != "" {
		p.RecordJobs(name, 0, time.Time{}, false)
		return
	}
	if listed && now().Sub(last) < ProbeJobsEvery {
		return
	}
	jc, err := jupyter.New(jupyter.Options{Runtime: name, Info: ci, Now: now, Redactor: p.client.Redactor()})
	var recs []jobs.Record
	if err == nil {
		recs, err = jobs.List(ctx, jc)
	}
	if ctx.Err() != nil {
		return
	}
	at := now()
	running, lastEnd := JobSignal(recs, at)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil {
		p.jobsAt[name] = at
	} else {
		delete(p.jobsAt, name)
	}
	p.store.RecordJobs(name, running, lastEnd, err == nil)
}
