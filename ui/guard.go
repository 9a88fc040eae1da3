package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api"
)

// errNoService is the error of a call made without a Colab service.
var errNoService = errors.New("no Colab service configured")

// callSpec describes one guarded command: what it is (the tool name, for
// error text), the Service it uses, the parent context and its timeout.
type callSpec struct {
	what    string
	svc     api.Service
	needSvc bool            // a nil svc fails the call at once
	parent  context.Context // cancelled when the user quits
	timeout time.Duration   // 0: no timeout (execute_code runs as long as the code)
	sem     chan struct{}   // when set, one slot is held for the call
	cancel  *context.CancelFunc
	redact  func(string) string // removes secrets from a panic's text (Options.Redact)
}

// guard is the one place every command that calls out (an API call, a
// profile connection) is wrapped: it derives the context (parent, timeout,
// optional semaphore slot), fails at once without a Service, and turns a
// panic into an error ("internal error in create_runtime: …") so a broken
// Service never takes the terminal down. fn does the work; fail builds the
// command's message from an error that happened around it.
func guard(c callSpec, fn func(ctx context.Context, svc api.Service) tea.Msg, fail func(error) tea.Msg) tea.Cmd {
	parent := c.parent
	if parent == nil {
		parent = context.Background()
	}
	var early context.Context
	var earlyCancel context.CancelFunc
	if c.cancel != nil {
		// The caller may abandon the call before it runs: its context
		// exists now. Others make theirs when they run, so a command that
		// is never run holds nothing.
		early, earlyCancel = context.WithCancel(parent)
		*c.cancel = earlyCancel
	}
	return func() (msg tea.Msg) {
		ctx, cancel := early, earlyCancel
		if ctx == nil {
			ctx, cancel = context.WithCancel(parent)
		}
		defer cancel()
		defer func() {
			if r := recover(); r != nil {
				msg = fail(panicError(c.redact, "internal error in "+c.what, r))
			}
		}()
		if c.needSvc && c.svc == nil {
			return fail(fmt.Errorf("%s: %w", c.what, errNoService))
		}
		if c.sem != nil {
			select {
			case c.sem <- struct{}{}:
				defer func() { <-c.sem }()
			case <-ctx.Done():
				return fail(ctx.Err())
			}
		}
		if c.timeout > 0 {
			var stop context.CancelFunc
			ctx, stop = context.WithTimeout(ctx, c.timeout)
			defer stop()
		}
		return fn(ctx, c.svc)
	}
}

// apiCall is the callSpec of an API call on the Service in use with the
// call timeout.
func (m *link) apiCall(tool string) callSpec {
	return callSpec{what: tool, svc: m.svc, needSvc: true, parent: m.life.ctx, timeout: m.opts.CallTimeout, redact: m.redact}
}

// panicError turns a recovered panic value into the error a call reports,
// "PREFIX: VALUE", with every secret removed by red (Options.Redact; nil
// removes nothing): a panic's text can quote a request or a reply, and it
// is shown in the status line, the header and the event log.
func panicError(red func(string) string, prefix string, r any) error {
	s := fmt.Sprintf("%s: %v", prefix, r)
	if red != nil {
		s = red(s)
	}
	return errors.New(s)
}
