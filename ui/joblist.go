package ui

// The reads of one jobs listing (jobsOps.list): the jobs directory, the
// jobs that may have changed, and the last lines the details show.

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/overlay/logview"
)

// readTails reads the last lines of recs' jobs (newest first) through jc:
// of the newest jobsTails running ones, each at most every jobTailEvery
// (tailAt: when each was last read, updated), and of the newest
// jobsFinalTails ended ones, once each after its end (final: those read
// already). It returns the lines read and which of them are final; a
// read that fails is left out (tried again next time).
func readTails(ctx context.Context, jc *jupyter.Client, recs []jobs.Record, tailAt map[string]time.Time,
	final map[string]bool, now func() time.Time) (map[string]string, map[string]bool) {
	tails, ended := map[string]string{}, map[string]bool{}
	running, done := 0, 0
	for _, r := range recs {
		id := r.Spec.ID
		if state.JudgeJob(r, now(), 0).Ended() {
			if done++; done > jobsFinalTails || final[id] {
				continue
			}
		} else {
			if running == jobsTails {
				continue
			}
			if running++; !tailAt[id].IsZero() && now().Sub(tailAt[id]) < jobTailEvery {
				continue
			}
		}
		b, _, err := jobs.TailLog(ctx, jc, id, jobTailBytes)
		if err != nil {
			continue
		}
		tails[id] = LastLine(b)
		tailAt[id] = now()
		if state.JudgeJob(r, now(), 0).Ended() {
			ended[id] = true
		}
	}
	return tails, ended
}

// listJobs is jobs.List that reads again only the jobs that may have
// changed: one listing of the jobs directory (a runtime without it has
// none), then jobs.Read of each job not in known (known: those whose end
// was recorded, kept as they were). Newest first, as jobs.List.
func listJobs(ctx context.Context, jc *jupyter.Client, known map[string]jobs.Record) ([]jobs.Record, error) {
	dir, err := jc.List(ctx, jobs.Root)
	switch {
	case errors.Is(err, jupyter.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	var out []jobs.Record
	for _, e := range dir.Entries {
		if !e.IsDir() || jobs.ValidID(e.Name) != nil {
			continue
		}
		if r, ok := known[e.Name]; ok {
			out = append(out, r)
			continue
		}
		r, err := jobs.Read(ctx, jc, e.Name)
		switch {
		case err == nil:
			out = append(out, r)
		case errors.Is(err, jupyter.ErrNotFound), errors.Is(err, jobs.ErrBadRecord):
		default:
			return nil, err
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Spec.Created.Equal(out[j].Spec.Created) {
			return out[i].Spec.Created.After(out[j].Spec.Created)
		}
		return out[i].Spec.ID < out[j].Spec.ID
	})
	return out, nil
}

// LastLine is the last non-empty line of a log's end b as one line of
// text: what a terminal would show of it ("\r" redraws kept), made safe
// (termtext), its colours dropped.
func LastLine(b []byte) string {
	var buf logview.Buffer
	_, _ = buf.Write(b)
	for i := buf.Len() - 1; i >= 0; i-- {
		if s := strings.TrimSpace(buf.Plain(i)); s != "" {
			return s
		}
	}
	return ""
}
