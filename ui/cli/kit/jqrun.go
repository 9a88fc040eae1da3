package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/itchyny/gojq"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/ui/termtext"
)

// The limits of one --jq filter run on one document (docs/scripting.md,
// "--jq"): a filter that never ends or grows without bound is stopped
// with exit 2, and ctrl+c, SIGTERM and SIGHUP stop it at once (exit
// 128+n). Variables so tests can make them small.
var (
	// JqTimeout is the longest one filter run may take.
	JqTimeout = 10 * time.Second
	// JqMemory is how much the heap may grow, in bytes, while a filter runs.
	JqMemory uint64 = 256 << 20
	// JqMaxOutput is the most bytes of results one run may print.
	JqMaxOutput = 64 << 20
	// JqMaxResults is the most results one run may give.
	JqMaxResults = 1_000_000
)

// errJqMemory ends a filter's context when it took more than JqMemory.
var errJqMemory = errors.New("memory limit")

// jqFlush: results are written out in pieces of about this many bytes.
const jqFlush = 64 << 10

// runJq runs st's filter on in and writes its results on w (each on a
// line of its own: a string bare, sanitized on a terminal; anything else
// as JSON, indented on a terminal and compact otherwise), within the
// limits above and until ctx ends.
func runJq(ctx context.Context, w io.Writer, tty bool, st *JSONState, in any) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, JqTimeout)
	defer cancel()
	mctx, mcancel := context.WithCancelCause(ctx)
	defer mcancel(nil)
	stop := watchHeap(mcancel, JqMemory)
	defer stop()
	var out bytes.Buffer
	written, results := 0, 0
	flush := func() error {
		written += out.Len()
		_, err := w.Write(out.Bytes())
		out.Reset()
		if err != nil {
			return &ExitError{Code: ExitFailure, Msg: "writing JSON: " + err.Error()}
		}
		return nil
	}
	iter := st.Jq.RunWithContext(mctx, in)
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := v.(error); ok {
			var he *gojq.HaltError
			if errors.As(err, &he) && he.Value() == nil {
				break
			}
			_ = flush()
			return jqStopped(ctx, mctx, st, err)
		}
		if err := appendResult(&out, tty, v); err != nil {
			return &ExitError{Code: ExitUsage, Msg: "--jq " + st.JqExpr + ": " + err.Error()}
		}
		if results++; results > JqMaxResults || written+out.Len() > JqMaxOutput {
			return &ExitError{Code: ExitUsage, Msg: fmt.Sprintf("--jq %s: stopped after %d results and %d bytes of output (the limits are %d results and %d MiB)",
				api.OneLine(st.JqExpr, 200), results-1, written, JqMaxResults, JqMaxOutput>>20)}
		}
		if out.Len() >= jqFlush {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// jqStopped is the error of a filter run that ended with err: a signal
// (ctx's parent ended: exit 128+n by the caller's SignalState), the time
// or memory limit, or the filter's own error (exit 2).
func jqStopped(ctx, mctx context.Context, st *JSONState, err error) error {
	expr := api.OneLine(st.JqExpr, 200)
	switch {
	case context.Cause(mctx) == errJqMemory:
		return &ExitError{Code: ExitUsage, Msg: fmt.Sprintf("--jq %s: stopped after taking %d MiB (the limit on a filter's memory)", expr, JqMemory>>20)}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &ExitError{Code: ExitUsage, Msg: fmt.Sprintf("--jq %s: stopped after %s (the limit on a filter's time)", expr, JqTimeout)}
	case ctx.Err() != nil:
		return &ExitError{Code: ExitInterrupted, Msg: "--jq " + expr + ": interrupted"}
	}
	return &ExitError{Code: ExitUsage, Msg: "--jq " + expr + ": " + api.OneLine(err.Error(), 200)}
}

// appendResult appends one result of a filter to out, and a newline.
func appendResult(out *bytes.Buffer, tty bool, v any) error {
	if s, ok := v.(string); ok {
		if tty {
			s = termtext.Output(s)
		}
		out.WriteString(s)
		out.WriteByte('\n')
		return nil
	}
	vb, err := gojq.Marshal(v)
	if err != nil {
		return err
	}
	if tty {
		var ib bytes.Buffer
		if json.Indent(&ib, vb, "", "  ") == nil {
			vb = ib.Bytes()
		}
	}
	out.Write(termtext.JSON(vb))
	out.WriteByte('\n')
	return nil
}

// heapBytes is the bytes of heap objects, live or not yet swept
// (MemStats.HeapAlloc). runtime.ReadMemStats briefly stops the world,
// which at one read per 20 ms costs far less than linking
// runtime/metrics, whose package initialisation every command would pay.
func heapBytes() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// watchHeap cancels with errJqMemory once the heap grew by more than
// limit bytes since it was called (after a collection, so garbage does
// not count); stop ends the watch and waits for it.
func watchHeap(cancel context.CancelCauseFunc, limit uint64) (stop func()) {
	base := heapBytes()
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if heapBytes() < base+limit {
				continue
			}
			runtime.GC()
			if heapBytes() >= base+limit {
				cancel(errJqMemory)
				return
			}
		}
	}()
	return func() { close(done); <-ended }
}
