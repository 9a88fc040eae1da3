package transfer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// errIdle is the cancel cause of a transfer that stopped moving.
var errIdle = errors.New("no progress")

// watchdog cancels a transfer's context when touch has not been called
// for d: a stalled connection is dropped (and resumed) instead of hanging.
type watchdog struct {
	d      time.Duration
	t      *time.Timer
	parent context.Context
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func newWatchdog(parent context.Context, d time.Duration) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancelCause(parent)
	w := &watchdog{d: d, parent: parent, ctx: ctx, cancel: cancel}
	w.t = time.AfterFunc(d, func() { cancel(fmt.Errorf("%w for %s", errIdle, d)) })
	return ctx, w
}

// touch records progress.
func (w *watchdog) touch() { w.t.Reset(w.d) }

// stop releases the timer and the context.
func (w *watchdog) stop() {
	w.t.Stop()
	w.cancel(nil)
}

// explain turns the watchdog's cancellation into a (transient)
// proxy.ErrTransport; other errors pass unchanged.
func (w *watchdog) explain(err error, op, runtime, path string) error {
	if err != nil && w.parent.Err() == nil && errors.Is(context.Cause(w.ctx), errIdle) {
		return &proxy.Error{Op: op, Runtime: runtime, Path: proxy.CleanRemote(path), Kind: proxy.ErrTransport, Message: fmt.Sprintf("no progress for %s", w.d)}
	}
	return err
}
