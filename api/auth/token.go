package auth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/api/safehttp"
)

// flight is one token mint in progress; callers that need a token while it
// runs wait for it instead of minting their own (single-flight).
type flight struct {
	done  chan struct{}
	epoch uint64
	tok   *oauth2.Token
	gen   uint64
	err   error
}

// token returns a valid access token and its generation, minting one when
// the cache is empty or within EarlyRefresh of expiry. Concurrent callers
// share one mint. A waiting caller gives up when ctx ends; the mint itself
// is bounded by the token HTTP client's timeout.
func (c *Credentials) token(ctx context.Context) (*oauth2.Token, uint64, error) {
	c.mu.Lock()
	c.reloadLocked()
	if c.sticky != nil {
		err := c.sticky
		c.mu.Unlock()
		return nil, 0, err
	}
	if c.validLocked() {
		tok, gen := c.tok, c.gen
		c.mu.Unlock()
		return tok, gen, nil
	}
	if f := c.flight; f != nil {
		c.mu.Unlock()
		return wait(ctx, f)
	}
	f := c.startLocked()
	c.mu.Unlock()
	c.mint(f, false)
	return f.tok, f.gen, f.err
}

// checkSubjectFile reads an external_account's credential_source.file
// the bounded way (a regular file of at most 64 KiB, in bounded time)
// before the library reads it without limits, and registers the subject
// token it holds as a secret. A file that is not there is left for the
// library to report.
func (c *Credentials) checkSubjectFile(src *loaded) error {
	if src.subjectFile == "" {
		return nil
	}
	b, err := readFile(src.subjectFile, safefile.MaxTokenFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	var v any
	if json.Unmarshal(b, &v) == nil {
		c.red.AddFields(v)
	} else {
		c.red.Add(strings.TrimSpace(string(b)))
	}
	return nil
}

func wait(ctx context.Context, f *flight) (*oauth2.Token, uint64, error) {
	select {
	case <-f.done:
		return f.tok, f.gen, f.err
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
}

// validLocked reports whether the cached token can still be sent.
func (c *Credentials) validLocked() bool {
	if c.tok == nil || c.tok.AccessToken == "" {
		return false
	}
	if c.tok.Expiry.IsZero() {
		return true
	}
	early := EarlyRefresh
	if life := c.tok.Expiry.Sub(c.mintedAt); life < 2*early {
		early = life / 2
	}
	if early < 0 {
		early = 0
	}
	return c.now().Add(early).Before(c.tok.Expiry)
}

func (c *Credentials) startLocked() *flight {
	f := &flight{done: make(chan struct{}), epoch: c.epoch}
	c.flight = f
	return f
}

// mint fetches a new token for f from a fresh token source (so no library
// cache can hand back the old token), stores it and releases the waiters.
func (c *Credentials) mint(f *flight, forced bool) {
	c.mu.Lock()
	src := c.src
	c.mu.Unlock()

	var tok *oauth2.Token
	var err error
	switch src.kind {
	case sourceAccessTokenFile:
		tok = &oauth2.Token{AccessToken: src.static, TokenType: "Bearer"}
	case sourceMetadata:
		tok, err = newMetadataSource(c.scopes).Token()
	default:
		err = c.checkSubjectFile(src)
		var ts oauth2.TokenSource
		if err == nil {
			if ts, err = c.jsonSource(src); err == nil {
				tok, err = ts.Token()
			}
		}
	}
	if err == nil && tok != nil {
		// A secret from the moment it exists: before any request carries it
		// and any server can echo it.
		c.red.Add(tok.AccessToken, tok.RefreshToken)
		if id, ok := tok.Extra("id_token").(string); ok {
			c.red.Add(id)
		}
	}

	c.mu.Lock()
	if err != nil {
		ae := c.tokenError(err, src)
		if (ae.Kind == KindReauthRequired || ae.Kind == KindClockSkew) && f.epoch == c.epoch {
			c.sticky = ae
		}
		f.err = ae
	} else {
		f.tok = tok
		if f.epoch == c.epoch {
			c.tok, c.mintedAt = tok, c.now()
			c.gen++
			f.gen = c.gen
			if forced {
				c.forcedAt = c.mintedAt
			}
		}
	}
	if c.flight == f {
		c.flight = nil
	}
	c.mu.Unlock()
	close(f.done)
}

// reloadLocked re-reads the credentials or token file when its modification
// time or size changed (a new `gcloud auth application-default login`, a
// rewritten token file) and reports whether it did. A file that is
// momentarily unreadable or half-written is ignored: the old credentials
// stay in use and the file is looked at again on the next request.
func (c *Credentials) reloadLocked() bool {
	src := c.src
	if src.path == "" {
		return false
	}
	st, err := os.Stat(src.path)
	if err != nil || (st.ModTime().Equal(src.modTime) && st.Size() == src.size) {
		return false
	}
	l, err := c.load(src.kind, src.path, src.from)
	if err != nil {
		return false
	}
	c.src = l
	c.epoch++
	c.tok, c.sticky, c.forcedAt = nil, nil, time.Time{}
	return true
}

// ForceRefresh is for a 401 from the server while the cached token looked
// valid (clock skew, revocation). It drops the cached
// token and mints a new one, and reports whether retrying the request once
// may help:
//
//   - true when the credentials file changed on disk (it is re-read), when
//     another caller's refresh is in progress or already replaced the token
//     the server rejected (three concurrent 401s cause one token fetch), or
//     when this call minted a new token;
//   - false when a refresh cannot help: an access token file that did not
//     change, re-authentication is required (KindReauthRequired), minting
//     failed, or the token was already force-refreshed within
//     RefreshCooldown and was rejected again. So a second 401 ends as an
//     auth error instead of a loop.
//
// Which token a server rejected is known for requests sent through
// HTTPClient or Transport; other callers are treated as having been
// rejected with the current token. The MCP client calls this from its
// OnUnauthenticated hook.
func (c *Credentials) ForceRefresh(ctx context.Context) bool {
	c.mu.Lock()
	if c.reloadLocked() {
		c.mu.Unlock()
		return true
	}
	if f := c.flight; f != nil {
		c.mu.Unlock()
		_, _, err := wait(ctx, f)
		return err == nil
	}
	if c.rejected != 0 && c.rejected < c.gen {
		c.mu.Unlock()
		return true
	}
	if c.sticky != nil || c.src.kind == sourceAccessTokenFile ||
		(!c.forcedAt.IsZero() && c.now().Sub(c.forcedAt) < RefreshCooldown) {
		c.mu.Unlock()
		return false
	}
	c.tok = nil
	f := c.startLocked()
	c.mu.Unlock()
	c.mint(f, true)
	return f.err == nil
}

// noteRejected records that a server answered 401 to a request carrying the
// token of generation gen.
func (c *Credentials) noteRejected(gen uint64) {
	c.mu.Lock()
	if gen > c.rejected {
		c.rejected = gen
	}
	c.mu.Unlock()
}

// clock is the time now by c's clock (time.Now when c has none).
func (c *Credentials) clock() time.Time {
	if c == nil || c.now == nil {
		return time.Now()
	}
	return c.now()
}

// quotaHeader is the x-goog-user-project value, "" for none.
func (c *Credentials) quotaHeader() string {
	p, _ := c.QuotaProject()
	return p
}

// TokenSource returns an oauth2.TokenSource backed by the same cache as
// HTTPClient. Its errors are *Error. The token it returns is a secret:
// never log or display it.
func (c *Credentials) TokenSource() oauth2.TokenSource { return tokenSource{c} }

type tokenSource struct{ c *Credentials }

func (t tokenSource) Token() (*oauth2.Token, error) {
	tok, _, err := t.c.token(context.Background())
	return tok, err
}

// HTTPClient returns a client whose requests carry `Authorization: Bearer
// <token>`, x-goog-user-project (when a quota project is set) and
// X-Colab-Client-Agent: colabdash, over http.DefaultTransport. It has no
// overall timeout (SSE streams are long): use per-request contexts. A
// failure to mint a token is the request's error and unwraps to *Error.
func (c *Credentials) HTTPClient() *http.Client {
	return &http.Client{Transport: c.Transport(nil)}
}

// Transport returns the RoundTripper used by HTTPClient, sending through
// base (http.DefaultTransport when nil). It clones each request before
// adding headers; the caller's request is never modified. A 401 reply is
// remembered so ForceRefresh knows which token was rejected. base is
// wrapped in safehttp.Transport, so a redirected request that would carry
// the bearer token to another scheme, host or port is refused, whoever
// builds the http.Client around it.
func (c *Credentials) Transport(base http.RoundTripper) http.RoundTripper {
	return &transport{c: c, base: safehttp.Transport(base)}
}

type transport struct {
	c    *Credentials
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, gen, err := t.c.token(req.Context())
	if err != nil {
		closeBody(req.Body)
		return nil, err
	}
	r := req.Clone(req.Context())
	tok.SetAuthHeader(r)
	if q := t.c.quotaHeader(); q != "" {
		r.Header.Set(HeaderUserProject, q)
	}
	r.Header.Set(HeaderClientAgent, ClientAgent)
	resp, err := t.base.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		t.c.noteRejected(gen)
	}
	return resp, err
}

func closeBody(b io.ReadCloser) {
	if b != nil {
		b.Close()
	}
}
