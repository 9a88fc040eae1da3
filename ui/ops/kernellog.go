package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/api/jupyter/kernel"
)

// KernelLogMax bounds what a kernel's output source holds for a reader
// that does not keep up (4 MiB): beyond it the oldest bytes are dropped,
// and the next chunk's Note says how many.
const KernelLogMax = 4 << 20

// KernelNoteBefore is the first chunk's note: a kernel's output channel
// carries only what is published while someone listens.
const KernelNoteBefore = "output from before attaching is not available"

// kernelRetryMax bounds the wait between two reconnects of a kernel's
// output channel.
const kernelRetryMax = 30 * time.Second

// KernelLog follows the output channel (iopub) of the kernel of Colab
// session on the runtime jc reaches: what every cell prints, whoever ran
// it (the browser, another client), as a terminal would show it: a cell's
// start as "In [N]: CODE" lines, stdout and stderr as printed (\r kept,
// stderr's pieces in LogChunk.Stderr), results and displays as text, an
// exception's traceback with its colours, a restart as a note. It finds
// the kernel (jupyter MatchKernel) and opens its channel before it
// returns, so nothing published afterwards is missed; a dropped socket is
// dialled again (a note says output in between is lost) until Close or the
// kernel is gone. Next returns io.EOF once the source has ended. Errors:
// MatchKernel's (jupyter.ErrNoKernel and the client's) and kernel.Dial's.
func KernelLog(ctx context.Context, jc *jupyter.Client, session string) (LogSource, error) {
	id, err := jc.MatchKernel(ctx, session)
	if err != nil {
		return nil, err
	}
	k := &kernelLog{wake: make(chan struct{}, 1), done: make(chan struct{}), note: KernelNoteBefore}
	c, err := k.dial(ctx, jc, id)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	k.cancel = cancel
	go k.run(wctx, jc, id, c)
	return k, nil
}

// dial opens kernel id's channels socket with k receiving its iopub.
func (k *kernelLog) dial(ctx context.Context, jc *jupyter.Client, id string) (*kernel.Conn, error) {
	return kernel.Dial(ctx, jc.Client, id, kernel.Options{OnIOPub: k.publish})
}

// kernelLog is KernelLog's source: the channels socket's reader appends
// what the kernel publishes to buf; Next takes it.
type kernelLog struct {
	cancel context.CancelFunc
	wake   chan struct{} // something new (buffered, 1)
	done   chan struct{} // closed when the watcher has ended

	mu      sync.Mutex
	buf     []byte
	stderr  []jobs.Range // offsets in the whole stream
	off     int64        // the stream offset of buf[0]
	dropped int64        // bytes dropped since the last Next
	note    string
	err     error // why the watcher ended (nil: Close)
}

// run keeps socket c open until ctx ends, dialling again after a drop;
// a dial that fails for another reason than a dropped connection (the
// kernel is gone, the runtime refuses) ends the source.
func (k *kernelLog) run(ctx context.Context, jc *jupyter.Client, id string, c *kernel.Conn) {
	defer close(k.done)
	wait := time.Second
	for {
		select {
		case <-ctx.Done():
			_ = c.Close()
			return
		case <-c.Done():
		}
		_ = c.Close()
		k.say("the kernel's output channel closed; reconnecting (output meanwhile is lost)")
		for {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			wait = min(wait*2, kernelRetryMax)
			var err error
			if c, err = k.dial(ctx, jc, id); err == nil {
				k.say("reconnected to the kernel's output channel")
				wait = time.Second
				break
			}
			if ctx.Err() != nil {
				return
			}
			if !errors.Is(err, kernel.ErrClosed) && !errors.Is(err, jupyter.ErrTransport) {
				k.end(err)
				return
			}
		}
	}
}

// publish appends what message m shows.
func (k *kernelLog) publish(m kernel.Message) {
	if in, ok := m.Input(); ok {
		lines := strings.Split(strings.TrimRight(in.Code, "\n"), "\n")
		var b strings.Builder
		for i, l := range lines {
			if i == 0 {
				fmt.Fprintf(&b, "In [%d]: %s\n", in.ExecutionCount, l)
			} else {
				b.WriteString("   ...: " + l + "\n")
			}
		}
		k.add(b.String(), false)
		return
	}
	if s, ok := m.Stream(); ok {
		k.add(s.Text, s.Name == "stderr")
		return
	}
	if m.Type == "error" {
		if e, ok := m.Exception(); ok {
			k.add(strings.Join(e.Traceback, "\n")+"\n", true)
		}
		return
	}
	if t, ok := m.Text(); ok {
		k.add(t+"\n", false)
		return
	}
	if st, ok := m.State(); ok && (st == "restarting" || st == "dead") {
		k.say("the kernel is " + st)
	}
}

// add appends text (from stderr when errOut), dropping the oldest bytes
// beyond KernelLogMax.
func (k *kernelLog) add(text string, errOut bool) {
	if text == "" {
		return
	}
	k.mu.Lock()
	start := k.off + int64(len(k.buf))
	k.buf = append(k.buf, text...)
	if errOut {
		k.stderr = append(k.stderr, jobs.Range{Off: start, Len: int64(len(text))})
	}
	if over := len(k.buf) - KernelLogMax; over > 0 {
		k.buf = append(k.buf[:0:0], k.buf[over:]...)
		k.off += int64(over)
		k.dropped += int64(over)
	}
	k.mu.Unlock()
	k.kick()
}

// say sets a note for the next chunk.
func (k *kernelLog) say(note string) {
	k.mu.Lock()
	k.note = note
	k.mu.Unlock()
	k.kick()
}

// end records why the watcher ended.
func (k *kernelLog) end(err error) {
	k.mu.Lock()
	k.err = err
	k.mu.Unlock()
}

func (k *kernelLog) kick() {
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// Next returns what the kernel published since the last call, waiting up
// to a second for something new; io.EOF once the watcher ended and
// everything was taken (the watcher's error instead, when it failed).
func (k *kernelLog) Next(ctx context.Context) (LogChunk, error) {
	if c, ok := k.take(); ok {
		return c, nil
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return LogChunk{}, context.Cause(ctx)
	case <-k.wake:
	case <-k.done:
	case <-t.C:
	}
	if c, ok := k.take(); ok {
		return c, nil
	}
	select {
	case <-k.done:
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.err != nil {
			return LogChunk{}, k.err
		}
		return LogChunk{}, io.EOF
	default:
		return LogChunk{}, nil
	}
}

// take removes and returns what is buffered; ok is false when nothing
// (neither bytes nor a note) is.
func (k *kernelLog) take() (LogChunk, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.buf) == 0 && k.note == "" && k.dropped == 0 {
		return LogChunk{}, false
	}
	c := LogChunk{Data: k.buf, Off: k.off, Note: k.note}
	if k.dropped > 0 {
		c.Note = strings.TrimPrefix(c.Note+"; ", "; ") + fmt.Sprintf("%d bytes dropped: the reader fell behind", k.dropped)
	}
	for _, r := range k.stderr {
		if r.Off+r.Len > k.off { // the part still held
			if r.Off < k.off {
				r.Len -= k.off - r.Off
				r.Off = k.off
			}
			c.Stderr = append(c.Stderr, r)
		}
	}
	k.off += int64(len(k.buf))
	k.buf, k.stderr, k.note, k.dropped = nil, nil, "", 0
	return c, true
}

// Close stops watching (the kernel is not touched) and waits for the
// watcher to end.
func (k *kernelLog) Close() error {
	k.cancel()
	<-k.done
	return nil
}
