package api

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// LoggingService wraps svc so every call is logged (at info level, warn on
// failure) as "api
// call" with tool (the MCP tool name), target (the runtime or session name,
// "" for account-wide tools), duration and outcome ("ok" or the canonical
// error code such as FAILED_PRECONDITION), plus error (the one-line error
// text) on failure. Proxy tokens in returned runtimes are registered with
// r before anything is logged, so they are redacted everywhere the log
// goes. log must not be nil; r may be nil.
func LoggingService(svc Service, log *slog.Logger, r *Redactor) Service {
	return &loggingService{svc: svc, log: log, r: r}
}

type loggingService struct {
	svc Service
	log *slog.Logger
	r   *Redactor
}

// Outcome is the outcome word logged for err: "ok", the canonical error
// code of an *Error (UNAVAILABLE, NOT_FOUND…), "CANCELLED" or
// "DEADLINE_EXCEEDED" for the context's errors, else "UNKNOWN".
func Outcome(err error) string {
	if err == nil {
		return "ok"
	}
	if ae := (*Error)(nil); errors.As(err, &ae) && ae.Code != "" {
		return string(ae.Code)
	}
	if errors.Is(err, context.Canceled) {
		return string(Cancelled)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return string(DeadlineExceeded)
	}
	return string(Unknown)
}

func (l *loggingService) done(ctx context.Context, tool, target string, start time.Time, err error, rts ...Runtime) {
	for _, rt := range rts {
		if rt.ConnectionInfo != nil {
			l.r.Add(rt.ConnectionInfo.Token)
		}
	}
	attrs := []slog.Attr{slog.String("tool", tool), slog.String("target", target),
		slog.Duration("duration", time.Since(start)), slog.String("outcome", Outcome(err))}
	level := slog.LevelInfo
	if err != nil {
		level = slog.LevelWarn
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	l.log.LogAttrs(ctx, level, "api call", attrs...)
}

func (l *loggingService) GetSubscription(ctx context.Context) (Subscription, error) {
	start := time.Now()
	s, err := l.svc.GetSubscription(ctx)
	l.done(ctx, ToolGetSubscription, "", start, err)
	return s, err
}

func (l *loggingService) ListRuntimeSpecs(ctx context.Context) ([]RuntimeSpec, error) {
	start := time.Now()
	s, err := l.svc.ListRuntimeSpecs(ctx)
	l.done(ctx, ToolListRuntimeSpecs, "", start, err)
	return s, err
}

func (l *loggingService) ListRuntimes(ctx context.Context) ([]Runtime, error) {
	start := time.Now()
	rts, err := l.svc.ListRuntimes(ctx)
	l.done(ctx, ToolListRuntimes, "", start, err, rts...)
	return rts, err
}

func (l *loggingService) GetRuntime(ctx context.Context, name string) (Runtime, error) {
	start := time.Now()
	rt, err := l.svc.GetRuntime(ctx, name)
	l.done(ctx, ToolGetRuntime, name, start, err, rt)
	return rt, err
}

func (l *loggingService) CreateRuntime(ctx context.Context, req CreateRuntimeRequest) (Runtime, error) {
	start := time.Now()
	rt, err := l.svc.CreateRuntime(ctx, req)
	target := rt.Name
	if target == "" && req.RuntimeID != "" {
		target = "runtimes/" + req.RuntimeID
	}
	l.done(ctx, ToolCreateRuntime, target, start, err, rt)
	return rt, err
}

func (l *loggingService) DeleteRuntime(ctx context.Context, name string) error {
	start := time.Now()
	err := l.svc.DeleteRuntime(ctx, name)
	l.done(ctx, ToolDeleteRuntime, name, start, err)
	return err
}

func (l *loggingService) CreateSession(ctx context.Context, parent, sessionID string) (Session, error) {
	start := time.Now()
	s, err := l.svc.CreateSession(ctx, parent, sessionID)
	target := s.Name
	if target == "" {
		target = parent
	}
	l.done(ctx, ToolCreateSession, target, start, err)
	return s, err
}

func (l *loggingService) ListSessions(ctx context.Context, parent string) ([]Session, error) {
	start := time.Now()
	s, err := l.svc.ListSessions(ctx, parent)
	l.done(ctx, ToolListSessions, parent, start, err)
	return s, err
}

func (l *loggingService) DeleteSession(ctx context.Context, name string) error {
	start := time.Now()
	err := l.svc.DeleteSession(ctx, name)
	l.done(ctx, ToolDeleteSession, name, start, err)
	return err
}

func (l *loggingService) ExecuteCode(ctx context.Context, req ExecuteCodeRequest) (ExecuteCodeResult, error) {
	start := time.Now()
	res, err := l.svc.ExecuteCode(ctx, req)
	target := req.Session
	if target == "" {
		target = req.Runtime
	}
	l.done(ctx, ToolExecuteCode, target, start, err)
	return res, err
}

func (l *loggingService) Close() error { return l.svc.Close() }
