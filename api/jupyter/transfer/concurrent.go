package transfer

// The files of a recursive copy move several at a time: each
// costs about one round trip to the runtime, so one after another 500
// small files take 500 round trips of waiting. The copy first makes its
// plan (the local walk, or the remote listings), then a bounded pool
// moves the files while one goroutine reports them in the plan's order
// (sorted by path, never completion order), so the output of the same
// copy is the same every time.

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// Bounds of CopyOptions.Jobs.
const (
	// DefaultJobs is how many files a recursive copy moves at once by
	// default: 8 hide a round trip of 50–100 ms behind the others (500
	// small files in about 63 round trips instead of 500), while a
	// runtime's Jupyter server, which serves contents requests one at a
	// time on its event loop, and Colab's proxy see no more requests at
	// once than a browser opens to one host (6–8). Colab documents no
	// rate limit for the proxy; none was met at 8.
	DefaultJobs = 8
	// MaxJobs bounds CopyOptions.Jobs (larger values are lowered to it).
	MaxJobs = 32
)

// jobs is o.Jobs within 1..MaxJobs (DefaultJobs when 0 or less).
func (o CopyOptions) jobs() int {
	switch {
	case o.Jobs <= 0:
		return DefaultJobs
	case o.Jobs > MaxJobs:
		return MaxJobs
	}
	return o.Jobs
}

// fileJob is one file of a recursive copy's plan: run moves it (and may
// call Progress, from any goroutine); finish reports its outcome (OnFile,
// Warn), called in plan order by one goroutine at a time, and only for
// a job that ran.
type fileJob struct {
	run    func(ctx context.Context) (FileResult, error)
	finish func(r FileResult, err error)
}

// stopsTheRest reports whether a file's failure would fail every file
// after it (the runtime gone, the token refused, no connection, the
// network down after the retries, ctx ended): the pool then starts no
// other file. Any other failure (one file corrupt, in the way, refused
// locally, gone from the listing) leaves the rest to complete.
func stopsTheRest(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	for _, k := range []error{proxy.ErrRuntimeGone, proxy.ErrRefused, proxy.ErrNoConnection, proxy.ErrTransport,
		proxy.ErrRedirect, proxy.ErrInterrupted} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}

// runPlan runs jobs, n at a time, calling each one's finish in plan
// order as soon as it and every job before it have ended. After a
// failure that stopsTheRest no job is started (those running end on
// their own); runPlan then returns that failure, the first in plan
// order, once every running job has ended and been finished. It
// returns nil otherwise: the other failures went to their finish.
func runPlan(ctx context.Context, jobs []fileJob, n int) error {
	if len(jobs) == 0 {
		return nil
	}
	n = min(n, len(jobs))
	type outcome struct {
		r   FileResult
		err error
		ran bool
	}
	out := make([]outcome, len(jobs))
	ended := make(chan int, len(jobs))
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				if !stop.Load() && ctx.Err() == nil {
					r, err := jobs[i].run(ctx)
					out[i] = outcome{r: r, err: err, ran: true}
					if err != nil && stopsTheRest(ctx, err) {
						stop.Store(true)
					}
				}
				ended <- i
			}
		}()
	}
	var fatal error
	have := make([]bool, len(jobs))
	for emitted := 0; emitted < len(jobs); {
		i := <-ended
		have[i] = true
		for emitted < len(jobs) && have[emitted] {
			// The channel receive orders this read after the worker's write.
			o := out[emitted]
			switch {
			case !o.ran:
			case o.err != nil && stopsTheRest(ctx, o.err):
				if fatal == nil {
					fatal = o.err
				}
			default:
				jobs[emitted].finish(o.r, o.err)
			}
			emitted++
		}
	}
	wg.Wait()
	if fatal == nil && ctx.Err() != nil {
		fatal = ctx.Err()
	}
	return fatal
}
