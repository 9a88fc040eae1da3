package api

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
)

// Redacted replaces every secret in logs.
const Redacted = "[redacted]"

// secretKeys are attribute keys (compared case-insensitively, with - and _
// treated alike) whose values are always redacted.
var secretKeys = []string{"token", "access_token", "accesstoken", "authorization", "x_colab_runtime_proxy_token",
	"refresh_token", "id_token", "client_secret", "private_key", "proxy_token", "proxytoken", "password",
	"assertion", "client_assertion", "subject_token", "actor_token", "code_verifier", "api_key", "apikey"}

// isSecretKey reports whether an attribute key names a secret.
func isSecretKey(k string) bool {
	k = strings.ToLower(strings.ReplaceAll(k, "-", "_"))
	return slices.Contains(secretKeys, k)
}

// RedactingHandler wraps an slog.Handler so no secret reaches it: values of
// secret keys (token, access_token, authorization,
// x-colab-runtime-proxy-token, refresh_token, client_secret, private_key,
// …) become "[redacted]", and every message, string, error and
// fmt.Stringer value passes through Redactor.Redact, including those in
// groups and in attributes added with With.
type RedactingHandler struct {
	next slog.Handler
	r    *Redactor
}

// NewRedactingHandler wraps next; r may be nil (patterns only).
func NewRedactingHandler(next slog.Handler, r *Redactor) *RedactingHandler {
	return &RedactingHandler{next: next, r: r}
}

// Enabled reports whether the wrapped handler handles level.
func (h *RedactingHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle redacts the record's message and attributes and passes it on.
func (h *RedactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

// WithAttrs redacts attrs once and returns a handler that adds them.
func (h *RedactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = h.attr(a)
	}
	return &RedactingHandler{next: h.next.WithAttrs(red), r: h.r}
}

// WithGroup returns a handler that nests later attributes under name.
func (h *RedactingHandler) WithGroup(name string) slog.Handler {
	return &RedactingHandler{next: h.next.WithGroup(name), r: h.r}
}

func (h *RedactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	if isSecretKey(a.Key) {
		if v.Kind() == slog.KindString && v.String() == "" {
			return slog.String(a.Key, "")
		}
		return slog.String(a.Key, Redacted)
	}
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.Redact(v.String()))
	case slog.KindGroup:
		g := v.Group()
		out := make([]any, len(g))
		for i, ga := range g {
			out[i] = h.attr(ga)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, h.r.Redact(x.Error()))
		case interface{ String() string }:
			return slog.String(a.Key, h.r.Redact(x.String()))
		case []byte:
			return slog.String(a.Key, h.r.Redact(string(x)))
		case nil:
			return slog.Attr{Key: a.Key, Value: v}
		default:
			// Structs and maps could hold secrets in fields: log their
			// JSON with secret fields redacted, never %v of the raw value.
			b, err := json.Marshal(x)
			if err != nil {
				return slog.String(a.Key, fmt.Sprintf("<%T>", x))
			}
			return slog.String(a.Key, h.r.Redact(string(b)))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// LogValue logs a ConnectionInfo with its proxy token masked
// (slog.LogValuer).
func (c ConnectionInfo) LogValue() slog.Value {
	tok := ""
	if c.Token != "" {
		tok = Redacted
	}
	return slog.GroupValue(slog.String("url", c.URL), slog.String("token", tok),
		slog.Time("expireTime", c.ExpireTime))
}
