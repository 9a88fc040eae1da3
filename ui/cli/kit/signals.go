package kit

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// endSignals end every command: ctrl+c (SIGINT), kill's default (SIGTERM)
// and a terminal that hung up (SIGHUP). A command a signal ended exits
// 128 + the signal's number, as a shell reports a process the signal
// killed: 130, 143 and 129.
var endSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// SignalState is what the signals did to one run of the program.
type SignalState struct {
	last  atomic.Int32 // the number of the last signal that arrived; 0: none
	owned atomic.Bool  // the command answers signals itself (exec): see exitCode
}

// SignalCause is the cause of the context a signal ended.
type SignalCause struct{ sig syscall.Signal }

// Error is "interrupted (SIGNAL)".
func (c SignalCause) Error() string { return fmt.Sprintf("interrupted (%s)", signalName(c.sig)) }

// WatchSignals returns a context that the first of endSignals ends (its
// cause a signalCause), and the state that records the last one, until
// stop is called.
func WatchSignals(parent context.Context) (ctx context.Context, st *SignalState, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	st = &SignalState{}
	ch := make(chan os.Signal, len(endSignals))
	signal.Notify(ch, watchedSignals()...)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-ch:
				n := s.(syscall.Signal)
				st.last.Store(int32(n))
				cancel(SignalCause{n})
			case <-done:
				return
			}
		}
	}()
	return ctx, st, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// watchedSignals are endSignals but SIGHUP when it was ignored as the
// process started (nohup): that one stays ignored. SIGINT and SIGTERM are
// always answered, as they were before SIGHUP was (a script's `trap "" INT`
// keeps the shell alive through ctrl+c and leaves it to colabdash).
func watchedSignals() []os.Signal {
	if signal.Ignored(syscall.SIGHUP) {
		return []os.Signal{syscall.SIGINT, syscall.SIGTERM}
	}
	return endSignals
}

// Record notes sig, which a command that answers signals itself (exec)
// received on its own channel: the exit code must not depend on whether
// watchSignals saw it first.
func (st *SignalState) Record(sig os.Signal) {
	if n, ok := sig.(syscall.Signal); ok && st != nil {
		st.last.Store(int32(n))
	}
}

// Own says the running command answers signals itself (exec asks, on the
// first ctrl+c, whether to stop or detach; "keep waiting" goes on): then
// only its own ExitInterrupted becomes 128 + the signal, and a run that
// went on to its end keeps its exit code.
func (st *SignalState) Own() {
	if st != nil {
		st.owned.Store(true)
	}
}

// ExitCode is the process's exit code for a command that returned code:
// once a signal arrived, 128 + its number (the last one's) when the
// command reports itself interrupted (ExitInterrupted), and for any
// outcome of a command that does not answer signals itself (a signal
// ended it: emulator and forward, which run until one comes, return
// nil). Without a signal, code as it is.
func (st *SignalState) ExitCode(code int) int {
	n := int(st.last.Load())
	if n == 0 || code != ExitInterrupted && st.owned.Load() {
		return code
	}
	return 128 + n
}

// signalName is "SIGINT", "SIGTERM" or "SIGHUP".
func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}
