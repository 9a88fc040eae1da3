package api

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Redactor removes secrets from text: the patterns of redact.go (bearer
// tokens, JSON token fields, auth headers, secret query and form values
// such as ?token=, ?key=, ?sig=, ?code=, client_secret=, a URL's
// password; those found by their prefix only when shaped like a secret,
// so colabdash's own words stay) and every literal
// value registered with Add or AddExpiring (such as the proxy tokens a
// call returned), also when a server echoed it in other letter case, cut
// short or encoded (Forms). Both are also found in the text as a
// terminal shows it, across escape sequences and ignored controls, and
// across the symbols a sanitizer draws for them (screenText). The zero
// value is ready; it is safe for concurrent use.
//
// A redaction costs one pass over the text, however many secrets were
// ever seen: the registered values are matched by one automaton, built
// again only when the set changes, and a proxy token is forgotten once
// it can no longer be valid (AddExpiring), so a server that sends a new
// token with every listing does not make redaction slower and slower.
type Redactor struct {
	mu        sync.RWMutex
	entries   map[string]*secretEntry // by value as registered
	m         *matcher                // the automaton of entries; nil until built
	dirty     bool                    // entries changed since m was built
	nextPrune time.Time               // the earliest forget time of an expiring entry; zero: none
	now       func() time.Time        // the clock; nil: time.Now
}

// secretEntry is one registered value. An expiring one (a proxy token)
// is forgotten at forgetAt; a permanent one (a credential) never.
type secretEntry struct {
	expiring bool
	expire   time.Time    // its expireTime; zero when the server gave none
	seen     atomic.Int64 // when a reply last carried it, Unix nanoseconds
}

// minSecretLen: shorter values are not registered (redacting "a" would
// mangle every line and reveal nothing).
const minSecretLen = 6

// minPartial is the shortest start or end of a registered secret that is
// redacted on its own: a server that echoes a token cut short ("invalid
// token abc123…") must not show its first characters.
const minPartial = 8

// ForgetGrace is how long a proxy token is still redacted after it
// expired (its expireTime, or MaxTokenLife after the last reply that
// carried it, whichever is first) and after the last reply that carried
// it: room for a clock that is off and a reply still on its way.
const ForgetGrace = 15 * time.Minute

// MaxTokenLife bounds how long a proxy token is taken to stay valid
// after the last reply that carried it, whatever expireTime a server
// claims: Colab's proxy tokens live about an hour.
const MaxTokenLife = 2 * time.Hour

// SetClock makes r read the time from now (tests); nil is time.Now.
func (r *Redactor) SetClock(now func() time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.now = now
}

func (r *Redactor) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

// Add registers literal secret values (access tokens, refresh tokens,
// client secrets) to be redacted wherever they appear, for as long as
// the process runs, in every form of Forms and cut short: a run of at
// least 8 bytes that starts or ends like a secret is redacted. Values
// shorter than 6 bytes are ignored. r may be nil (then Add does nothing).
//
// A value already registered costs one map look-up under a read lock and
// changes nothing.
func (r *Redactor) Add(secrets ...string) { r.add(false, time.Time{}, secrets) }

// AddExpiring registers proxy tokens as Add does, valid until expire
// (their expireTime; zero when the server gave none). Each call is a
// reply that carries them. A token is forgotten ForgetGrace after the
// later of: the last reply that carried it, and its end of life (expire,
// or MaxTokenLife after that last reply, whichever is first). Every
// token that may still be valid stays redacted. A value registered with
// Add stays permanent.
func (r *Redactor) AddExpiring(expire time.Time, secrets ...string) { r.add(true, expire, secrets) }

func (r *Redactor) add(expiring bool, expire time.Time, secrets []string) {
	if r == nil || r.knowsAll(expiring, expire, secrets) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock().UnixNano()
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) < minSecretLen {
			continue
		}
		if e, ok := r.entries[s]; ok {
			r.refresh(e, expiring, expire, now)
			continue
		}
		if r.entries == nil {
			r.entries = map[string]*secretEntry{}
		}
		e := &secretEntry{expiring: expiring, expire: expire}
		e.seen.Store(now)
		r.entries[s] = e
		r.dirty = true
		r.schedule(e)
	}
}

// refresh notes that a reply carried e again (under the write lock).
func (r *Redactor) refresh(e *secretEntry, expiring bool, expire time.Time, now int64) {
	switch {
	case !expiring:
		e.expiring = false // a credential after all: never forgotten
	case e.expiring && expire.After(e.expire):
		e.expire = expire
	}
	e.seen.Store(now)
}

// knowsAll reports whether every value in secrets is already registered
// as it would be (or too short to be), so add has nothing to do but note
// that a reply carried them.
func (r *Redactor) knowsAll(expiring bool, expire time.Time, secrets []string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	now := int64(0)
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) < minSecretLen {
			continue
		}
		e, ok := r.entries[s]
		if !ok || e.expiring && (!expiring || expire.After(e.expire)) {
			return false
		}
		if e.expiring {
			if now == 0 {
				now = r.clock().UnixNano()
			}
			e.seen.Store(now)
		}
	}
	return true
}

// forgetAt is when e may be forgotten (zero for a permanent value).
func (e *secretEntry) forgetAt() time.Time {
	if !e.expiring {
		return time.Time{}
	}
	seen := time.Unix(0, e.seen.Load())
	end := seen.Add(MaxTokenLife)
	if !e.expire.IsZero() && e.expire.Before(end) {
		end = e.expire
	}
	if end.Before(seen) {
		end = seen
	}
	return end.Add(ForgetGrace)
}

// schedule brings the next prune forward to e's forget time.
func (r *Redactor) schedule(e *secretEntry) {
	if at := e.forgetAt(); !at.IsZero() && (r.nextPrune.IsZero() || at.Before(r.nextPrune)) {
		r.nextPrune = at
	}
}

// prune forgets the expiring values past their forget time (under the
// write lock) and schedules the next prune.
func (r *Redactor) prune(now time.Time) {
	r.nextPrune = time.Time{}
	for s, e := range r.entries {
		at := e.forgetAt()
		if at.IsZero() {
			continue
		}
		if !now.Before(at) {
			delete(r.entries, s)
			r.dirty = true
			continue
		}
		r.schedule(e)
	}
}

// Redact returns s with every known secret replaced by "[redacted]".
func (r *Redactor) Redact(s string) string {
	var m *matcher
	if r != nil {
		m = r.matcherNow()
	}
	s, w := m.redactWords(s, true)
	return redactPatternsWith(s, w)
}

// RedactBytes is Redact of the text p: p itself, not copied, when it
// holds nothing to redact (no secret, no word a pattern needs, no "=",
// no "://", no control nor a control's picture), else Redact(string(p))
// as bytes.
func (r *Redactor) RedactBytes(p []byte) []byte {
	m := wordMatcher()
	if r != nil {
		if rm := r.matcherNow(); rm != nil {
			m = rm
		}
	}
	if spans, w, ctl := matchIn(m, p); len(spans) == 0 && w == 0 && !ctl &&
		bytes.IndexByte(p, '=') < 0 && !bytes.Contains(p, []byte("://")) &&
		!bytes.Contains(p, []byte("\xe2\x90")) && !bytes.Contains(p, []byte("\ufffd")) {
		return p
	}
	return []byte(r.Redact(string(p)))
}

// Carries reports whether s holds a registered secret in any form
// Redact finds by value (Forms, any letter case, cut short); the
// patterns, which find unregistered secrets by what precedes them, are
// not applied. r may be nil (then nothing is registered).
func (r *Redactor) Carries(s string) bool {
	if r == nil {
		return false
	}
	return r.matcherNow().redact(s) != s
}

// Known reports how many values r holds now (registered and not yet
// forgotten).
func (r *Redactor) Known() int {
	r.matcherNow()
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.entries)
}

// matcherNow is the automaton of the values registered now: the one
// built last, or, after a change or past a forget time, a new one.
func (r *Redactor) matcherNow() *matcher {
	r.mu.RLock()
	m, stale := r.m, r.dirty
	if !stale && !r.nextPrune.IsZero() {
		stale = !r.clock().Before(r.nextPrune)
	}
	r.mu.RUnlock()
	if !stale {
		return m
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if now := r.clock(); !r.nextPrune.IsZero() && !now.Before(r.nextPrune) {
		r.prune(now)
	}
	if r.dirty {
		raws := make([]string, 0, len(r.entries))
		forms := make([][]string, 0, len(r.entries))
		for s := range r.entries {
			raws = append(raws, s)
			forms = append(forms, Forms(s))
		}
		r.m, r.dirty = newMatcher(raws, forms), false
	}
	return r.m
}

// Forms are the whole forms of a secret s the redactor finds (besides
// its start and end cut short, and any of them in other letter case): s
// itself, URL-encoded (query and path), JSON-escaped, and the parts of
// its base64 encodings (standard and URL alphabet, with or without
// padding) that do not depend on what surrounds it (base64Cores).
func Forms(s string) []string {
	forms := []string{s, url.QueryEscape(s), url.PathEscape(s)}
	if b, err := json.Marshal(s); err == nil {
		forms = append(forms, string(b[1:len(b)-1]))
	}
	return append(forms, base64Cores(s)...)
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

// AddFields registers the string value of every field named like a secret
// (token, access_token, refresh_token, client_secret, proxy_token, …; see
// RedactingHandler) anywhere in v, a value decoded from JSON (maps, slices,
// strings), so a reply's secrets are known before any of its text is shown.
// A "token" beside an "expireTime" or a "url" (a runtime's connectionInfo)
// is a proxy token: registered with AddExpiring.
func (r *Redactor) AddFields(v any) {
	if r == nil {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		expire, proxy := connectionInfoExpiry(x)
		for k, val := range x {
			if s, ok := val.(string); ok && isSecretKey(k) {
				if proxy && k == "token" {
					r.AddExpiring(expire, s)
				} else {
					r.Add(s)
				}
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

// connectionInfoExpiry reports whether m is shaped like a runtime's
// connectionInfo (a token beside an expireTime or a url), and its
// expireTime (zero when absent or not RFC 3339).
func connectionInfoExpiry(m map[string]any) (time.Time, bool) {
	if _, ok := m["token"].(string); !ok {
		return time.Time{}, false
	}
	et, hasExpire := m["expireTime"].(string)
	_, hasURL := m["url"].(string)
	if !hasExpire && !hasURL {
		return time.Time{}, false
	}
	t, _ := time.Parse(time.RFC3339Nano, et)
	return t, true
}
