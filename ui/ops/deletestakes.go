package ops

import (
	"context"
	"errors"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
)

// DeleteStakesWithin bounds ReadDeleteStakes: a delete question waits
// at most this long for what it says of the runtimes' jobs.
const DeleteStakesWithin = 5 * time.Second

// ReadDeleteStakes reads what deleting the listed runtime rt would stop,
// for a delete question (state.DeleteStakes): its jobs (jobs.List, as
// `colabdash jobs RUNTIME` lists them) and the busy kernels of its
// Jupyter sessions (one GET /api/sessions), through its Jupyter server
// (OpenListed: its listed proxy token while good, else get_runtime's),
// all within limit. It does not fail: jobs that cannot be read within
// limit give state.UncheckedStakes with a few words why (never the
// server's text), kernels that cannot be read count as unknown.
func ReadDeleteStakes(ctx context.Context, svc api.Service, rt api.Runtime, o JupyterOptions, limit time.Duration) state.DeleteStakes {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	jc, _, err := OpenListed(ctx, svc, rt, o)
	var recs []jobs.Record
	if err == nil {
		recs, err = jobs.List(ctx, jc)
	}
	busy := -1
	if jc != nil {
		if ss, serr := jc.Sessions(ctx); serr == nil {
			busy = 0
			for _, s := range ss {
				if s.Kernel.ExecutionState == "busy" {
					busy++
				}
			}
		}
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	switch {
	case err == nil:
		return state.NewDeleteStakes(recs, now(), busy)
	case errors.Is(err, ErrNoConnection):
		return state.UncheckedStakes("the runtime has no connection yet", busy)
	case ctx.Err() != nil:
		return state.UncheckedStakes("no answer within "+limit.String(), busy)
	}
	return state.UncheckedStakes("its Jupyter server could not be read", busy)
}
