package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Redacted replaces every secret in logs.
const Redacted = "[redacted]"

// secretKeys are attribute keys (compared case-insensitively, with - and _
// treated alike) whose values are always redacted.
var secretKeys = []string{"token", "access_token", "accesstoken", "authorization", "x_colab_runtime_proxy_token",
	"refresh_token", "id_token", "client_secret", "private_key", "proxy_token", "proxytoken", "password",
	"assertion", "client_assertion", "subject_token", "actor_token", "code_verifier", "api_key", "apikey"}

// Redactor removes secrets from text: the patterns of redact.go (bearer
// tokens, JSON token fields, auth headers, secret query and form values
// such as ?token=, ?key=, ?sig=, ?code=, client_secret=, a URL's
// password; those found by their prefix only when shaped like a secret,
// so colabdash's own words stay) and every literal
// value registered with Add (such as the proxy tokens a call returned),
// also when a server echoed it cut short or base64-encoded. The zero value
// is ready; it is safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string            // every registered form, longest first
	raws    []string            // the values as registered, for cut-short echoes
	known   map[string]struct{} // the values in raws, for Add's quick check
}

// minSecretLen: shorter values are not registered (redacting "a" would
// mangle every line and reveal nothing).
const minSecretLen = 6

// minPartial is the shortest start or end of a registered secret that is
// redacted on its own: a server that echoes a token cut short ("invalid
// token abc123…") must not show its first characters.
const minPartial = 8

// Add registers literal secret values (proxy tokens, access tokens,
// refresh tokens, client secrets) to be redacted wherever they appear, also
// in their URL-encoded and JSON-escaped forms (as a form body or a JSON
// reply that echoes them carries them), base64-encoded (standard or URL
// alphabet, at any offset inside a longer base64 text, as in a Basic
// header), and cut short: a run of at least 8 bytes that starts or ends
// like a secret is redacted. Values shorter than 6 bytes are ignored. r
// may be nil (then Add does nothing).
//
// A value already registered costs one map look-up under a read lock and
// changes nothing: Add is called with every reply that carries a proxy
// token, nearly always one it already knows.
func (r *Redactor) Add(secrets ...string) {
	if r == nil || r.knowsAll(secrets) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	added := false
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) < minSecretLen {
			continue
		}
		if _, ok := r.known[s]; ok {
			continue
		}
		if r.known == nil {
			r.known = map[string]struct{}{}
		}
		r.known[s] = struct{}{}
		r.raws = append(r.raws, s)
		forms := []string{s, url.QueryEscape(s), url.PathEscape(s)}
		if b, err := json.Marshal(s); err == nil {
			forms = append(forms, string(b[1:len(b)-1]))
		}
		forms = append(forms, base64Cores(s)...)
		for _, f := range forms {
			if !slices.Contains(r.secrets, f) {
				r.secrets = append(r.secrets, f)
				added = true
			}
		}
	}
	if added {
		// Longest first, so a secret containing another is removed whole.
		slices.SortStableFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	}
}

// knowsAll reports whether every value in secrets is already registered
// (or too short to be), so Add has nothing to do.
func (r *Redactor) knowsAll(secrets []string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) < minSecretLen {
			continue
		}
		if _, ok := r.known[s]; !ok {
			return false
		}
	}
	return true
}

// Redact returns s with every known secret replaced by "[redacted]".
func (r *Redactor) Redact(s string) string {
	if r != nil {
		r.mu.RLock()
		for _, sec := range r.secrets {
			if strings.Contains(s, sec) {
				s = strings.ReplaceAll(s, sec, Redacted)
			}
		}
		for _, sec := range r.raws {
			s = redactPartial(s, sec)
		}
		r.mu.RUnlock()
	}
	return redactPatterns(s)
}

// base64Cores are the parts of s's base64 encodings (standard and URL
// alphabet) that do not depend on what surrounds s: s starting at each of
// the three byte offsets modulo 3, cut to whole 3-byte groups. Cores
// shorter than 8 characters are left out.
func base64Cores(s string) []string {
	var out []string
	for k := 0; k < 3 && k < len(s); k++ {
		t := s[k:]
		t = t[:len(t)/3*3]
		if len(t) < 6 {
			continue
		}
		out = append(out, base64.StdEncoding.EncodeToString([]byte(t)), base64.URLEncoding.EncodeToString([]byte(t)))
	}
	return out
}

// redactPartial replaces in s every run of at least minPartial bytes that
// is a start of sec (as a server shows a token it cut short) or an end of
// sec (as text cut from the front shows it). Whole occurrences are
// already gone.
func redactPartial(s, sec string) string {
	if len(sec) < minPartial || len(s) < minPartial {
		return s
	}
	head, tail := sec[:minPartial], sec[len(sec)-minPartial:]
	if !strings.Contains(s, head) && !strings.Contains(s, tail) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], head) {
			n := minPartial
			for i+n < len(s) && n < len(sec) && s[i+n] == sec[n] {
				n++
			}
			b.WriteString(Redacted)
			i += n
			continue
		}
		if j := i + minPartial; j <= len(s) && s[i:j] == tail {
			// Extend back over what was already written: the longest end
			// of sec that ends at j.
			out := b.String()
			n := minPartial
			for n < len(sec) && n-minPartial < len(out) && out[len(out)-1-(n-minPartial)] == sec[len(sec)-1-n] {
				n++
			}
			b.Reset()
			b.WriteString(out[:len(out)-(n-minPartial)])
			b.WriteString(Redacted)
			i = j
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// AddFields registers the string value of every field named like a secret
// (token, access_token, refresh_token, client_secret, proxy_token, …; see
// RedactingHandler) anywhere in v, a value decoded from JSON (maps, slices,
// strings), so a reply's secrets are known before any of its text is shown.
func (r *Redactor) AddFields(v any) {
	if r == nil {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if s, ok := val.(string); ok && isSecretKey(k) {
				r.Add(s)
				continue
			}
			r.AddFields(val)
		}
	case []any:
		for _, val := range x {
			r.AddFields(val)
		}
	}
}

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
