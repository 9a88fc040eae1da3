package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coder/websocket"
)

// Result is what one Execute collected; every text is the kernel's raw,
// untrusted text.
type Result struct {
	// Stdout and Stderr are the code's stream output, each in the order
	// written (\r and ANSI codes as the code wrote them).
	Stdout, Stderr string
	// Result is the text/plain of the execute_result (the value of the
	// last expression, as Out[N] shows it), "" when there was none.
	Result string
	// Displays are the text/plain renderings of the display_data
	// messages, in order (a figure's "<Figure size …>").
	Displays []string
	// Error is the exception the code raised (KeyboardInterrupt after an
	// interrupt), nil when it raised none.
	Error *ExecError
	// ExecutionCount is the kernel's In[N] for this execution (0 when
	// the kernel sent none).
	ExecutionCount int
	// Status is the execute_reply's status: "ok", "error" or "aborted"
	// (a request queued behind one that failed; nothing ran).
	Status string
	// Truncated is set when output was dropped: past
	// Options.MaxOutput, or a message skipped (larger than
	// Options.MaxMessage) while the code ran.
	Truncated bool
}

// run is one Execute in flight (guarded by Conn.mu).
type run struct {
	res     Result
	size    int64 // bytes of output kept
	idle    bool  // iopub status idle for the request seen
	replied bool  // execute_reply seen
	done    chan struct{}
	err     error
}

// finish ends the run with err (nil: complete). Call with Conn.mu held.
func (r *run) finish(err error) {
	r.err = err
	close(r.done)
}

// keep appends text to *dst within the output bound max (bytes of all
// the run's output), setting Truncated when the bound cut it.
func (r *run) keep(dst *string, text string, max int64) {
	if left := max - r.size; int64(len(text)) > left {
		if left < 0 {
			left = 0
		}
		text = text[:left]
		r.res.Truncated = true
	}
	r.size += int64(len(text))
	*dst += text
}

// apply folds m, a message whose parent is the run's request, into the
// result; it reports whether the run is complete (status idle and
// execute_reply both seen, or a reply saying the request was aborted).
func (r *run) apply(m Message, max int64) bool {
	switch {
	case m.Channel == ChannelShell && m.Type == "execute_reply":
		var rep executeReply
		_ = json.Unmarshal(m.Content, &rep)
		r.replied, r.res.Status = true, rep.Status
		if rep.ExecutionCount > 0 {
			r.res.ExecutionCount = rep.ExecutionCount
		}
		if e, ok := m.Exception(); ok && r.res.Error == nil {
			r.setError(e, max)
		}
		if rep.Status == "aborted" {
			return true
		}
	case m.Channel != ChannelIOPub:
	case m.Type == "stream":
		if s, ok := m.Stream(); ok {
			switch s.Name {
			case "stdout":
				r.keep(&r.res.Stdout, s.Text, max)
			case "stderr":
				r.keep(&r.res.Stderr, s.Text, max)
			}
		}
	case m.Type == "execute_result":
		if t, ok := m.Text(); ok {
			r.res.Result = ""
			r.keep(&r.res.Result, t, max)
		}
	case m.Type == "display_data":
		if t, ok := m.Text(); ok {
			var d string
			r.keep(&d, t, max)
			r.res.Displays = append(r.res.Displays, d)
		}
	case m.Type == "error":
		if e, ok := m.Exception(); ok {
			r.setError(e, max)
		}
	case m.Type == "execute_input":
		if in, ok := m.Input(); ok && in.ExecutionCount > 0 {
			r.res.ExecutionCount = in.ExecutionCount
		}
	case m.Type == "status":
		if st, _ := m.State(); st == "idle" {
			r.idle = true
		}
	}
	return r.idle && r.replied
}

// setError records e, its texts within the output bound.
func (r *run) setError(e ExecError, max int64) {
	x := &ExecError{}
	r.keep(&x.Name, e.Name, max)
	r.keep(&x.Value, e.Value, max)
	for _, f := range e.Traceback {
		if r.size >= max {
			r.res.Truncated = true
			break
		}
		var s string
		r.keep(&s, f, max)
		x.Traceback = append(x.Traceback, s)
	}
	r.res.Error = x
}

// Execute runs code in the kernel (an execute_request on the shell
// channel: not silent, stored in the history, no stdin, so input()
// raises at once, and stop_on_error false: with it, ipykernel aborts
// every request that arrives for a moment after one that raised, and
// each Execute is a program of its own) and returns what it printed, its result and its
// exception, once the kernel's status for it is idle and its
// execute_reply has come. An exception the code raised is
// Result.Error, not an error.
//
// Errors: ErrClosed when the socket ends first (Close, the kernel shut
// down, the network); ErrKernelLost when the server reports the kernel
// restarting or dead; the context's error when ctx ends first, in which
// case the code goes on running in the kernel (interrupt it through the
// runtime's Jupyter API to stop it).
func (c *Conn) Execute(ctx context.Context, code string) (*Result, error) {
	id := newID()
	msg, err := encodeRequest(ChannelShell, "execute_request", id, c.session, executeRequest{
		Code: code, StoreHistory: true, UserExpressions: map[string]any{}})
	if err != nil {
		return nil, err
	}
	r := &run{done: make(chan struct{})}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.pending[id] = r
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}
	if err := c.ws.Write(ctx, websocket.MessageText, msg); err != nil {
		forget()
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, fmt.Errorf("kernel %s: %w: sending the request: %v", c.kernel, ErrClosed, err)
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		forget()
		return nil, context.Cause(ctx)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	res := r.res
	return &res, nil
}

// Watch opens kernel kernelID's channels socket through d (as Dial does,
// o.OnIOPub ignored) and calls fn with every iopub message the kernel
// publishes from then on (stream, status, execute_input, execute_result,
// display_data, error…, whichever client's request it belongs to), in
// order, until ctx ends, fn returns an error or the socket ends. A slow
// fn slows the socket and loses nothing. Output published before the
// socket opened is not available.
//
// It returns fn's error as it is, the context's error, or one wrapping
// ErrClosed (the kernel shut down, the network dropped), and Dial's
// errors.
func Watch(ctx context.Context, d Dialer, kernelID string, o Options, fn func(Message) error) error {
	var fnErr error
	stop := make(chan struct{})
	var once bool
	o.OnIOPub = func(m Message) {
		if once {
			return
		}
		if err := fn(m); err != nil {
			fnErr, once = err, true
			close(stop)
		}
	}
	c, err := Dial(ctx, d, kernelID, o)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		_ = c.Close()
		return context.Cause(ctx)
	case <-stop:
		_ = c.Close()
		return fnErr
	case <-c.Done():
		_ = c.Close()
		if fnErr != nil { // fn failed on the last message read
			return fnErr
		}
		return c.Err()
	}
}

// String is the result in one line, for logs and test failures: the
// sizes and the exception, never the output itself.
func (r *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "status %s, In[%d], stdout %d bytes, stderr %d bytes", r.Status, r.ExecutionCount, len(r.Stdout), len(r.Stderr))
	if r.Error != nil {
		fmt.Fprintf(&b, ", raised %s", r.Error.Name)
	}
	if r.Truncated {
		b.WriteString(", truncated")
	}
	return b.String()
}
