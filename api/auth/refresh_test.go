package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api/auth/authtest"
	"github.com/colabdash/colabdash/api/colabfake"
)

func adcCreds(t *testing.T, ts *authtest.TokenServer, clock *colabfake.Clock) *Credentials {
	t.Helper()
	env := newEnv(t)
	env.useADC(ts, nil)
	o := env.opts()
	if clock != nil {
		o.Now = clock.Now
	}
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// doWithRetry is what the MCP client does: on 401 ask ForceRefresh, and
// retry once when it says so.
func doWithRetry(t *testing.T, c *Credentials, url string) (code int, refreshed bool) {
	code, err := get(t, c, url)
	if err != nil {
		t.Error(err)
		return 0, false
	}
	if code != http.StatusUnauthorized {
		return code, false
	}
	if !c.ForceRefresh(context.Background()) {
		return code, false
	}
	code, err = get(t, c, url)
	if err != nil {
		t.Error(err)
	}
	return code, true
}

// firstTokenRejected returns a loopback token endpoint, an API server and
// ADC credentials for them whose first token (ya29.minted-1) is cached by
// one request and from then on rejected by the API server; before runs
// ahead of each later API request.
func firstTokenRejected(t *testing.T, before func()) (*authtest.TokenServer, *authtest.APIServer, *Credentials) {
	t.Helper()
	ts := authtest.NewTokenServer(t)
	api := authtest.NewAPIServer(t)
	c := adcCreds(t, ts, nil)
	if _, err := get(t, c, api.URL); err != nil { // caches ya29.minted-1
		t.Fatal(err)
	}
	api.Gate(func(tok string) bool { return tok != "ya29.minted-1" }, before)
	return ts, api, c
}

// Three concurrent calls all get 401 (invalid_token while
// the local expiry is an hour away); their ForceRefresh calls cause exactly
// one token fetch and all three retries succeed with the new token.
func TestForceRefreshSingleFlight(t *testing.T) {
	// The server rejects token 1; the first three requests wait for
	// each other so all three are sent with token 1.
	var arrived sync.WaitGroup
	arrived.Add(3)
	var arrivals atomic.Int32
	ts, api, c := firstTokenRejected(t, func() {
		if arrivals.Add(1) <= 3 {
			arrived.Done()
			arrived.Wait()
		}
	})

	var wg sync.WaitGroup
	codes := make([]int, 3)
	refreshed := make([]bool, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], refreshed[i] = doWithRetry(t, c, api.URL)
		}()
	}
	wg.Wait()
	for i := range 3 {
		if codes[i] != 200 || !refreshed[i] {
			t.Errorf("call %d: status %d refreshed %v, want a refresh then 200", i, codes[i], refreshed[i])
		}
	}
	if n := ts.Hits.Load(); n != 2 {
		t.Errorf("token endpoint hits = %d, want 2 (initial + one shared refresh)", n)
	}
	if got := api.Last().Get("Authorization"); got != "Bearer ya29.minted-2" {
		t.Errorf("retry sent %q", got)
	}
}

// A 401 that arrives after another caller's refresh already replaced the
// rejected token retries with the new token, without another fetch.
func TestForceRefreshLate401(t *testing.T) {
	var arrived sync.WaitGroup
	arrived.Add(2)
	release := make(chan struct{})
	var arrivals atomic.Int32
	ts, api, c := firstTokenRejected(t, func() {
		switch arrivals.Add(1) {
		case 1:
			arrived.Done()
			arrived.Wait()
		case 2: // sent with token 1 too, answered only after the other call is done
			arrived.Done()
			arrived.Wait()
			<-release
		}
	})

	type result struct {
		code      int
		refreshed bool
	}
	done := make(chan result, 2)
	for range 2 {
		go func() {
			code, refreshed := doWithRetry(t, c, api.URL)
			done <- result{code, refreshed}
		}()
	}
	first := <-done
	close(release)
	second := <-done
	for i, r := range []result{first, second} {
		if r.code != 200 || !r.refreshed {
			t.Errorf("call %d: status %d refreshed %v", i, r.code, r.refreshed)
		}
	}
	if n := ts.Hits.Load(); n != 2 {
		t.Errorf("token endpoint hits = %d, want 2", n)
	}
}

// A second 401 after a forced refresh is final (no loop);
// after RefreshCooldown a new 401 may refresh again.
func TestForceRefreshSecond401(t *testing.T) {
	ts := authtest.NewTokenServer(t)
	api := authtest.NewAPIServer(t)
	api.Gate(func(string) bool { return false }, nil)
	clock := colabfake.NewClock(time.Now())
	c := adcCreds(t, ts, clock)

	code, refreshed := doWithRetry(t, c, api.URL)
	if code != 401 || !refreshed {
		t.Fatalf("first: %d refreshed=%v, want a refresh and a second 401", code, refreshed)
	}
	if n := ts.Hits.Load(); n != 2 {
		t.Fatalf("hits = %d, want 2", n)
	}
	if c.ForceRefresh(context.Background()) {
		t.Errorf("ForceRefresh after the refreshed token was rejected = true, want false")
	}
	if n := ts.Hits.Load(); n != 2 {
		t.Errorf("hits = %d after a refused refresh, want 2", n)
	}
	clock.Advance(RefreshCooldown + time.Second)
	if !c.ForceRefresh(context.Background()) {
		t.Errorf("ForceRefresh after the cooldown = false")
	}
	if n := ts.Hits.Load(); n != 3 {
		t.Errorf("hits = %d, want 3", n)
	}
}

// ForceRefresh without the package's transport (no record of which token was
// rejected): one refresh, then false within the cooldown.
func TestForceRefreshDirect(t *testing.T) {
	ts := authtest.NewTokenServer(t)
	c := adcCreds(t, ts, nil)
	if _, err := c.TokenSource().Token(); err != nil {
		t.Fatal(err)
	}
	if !c.ForceRefresh(context.Background()) {
		t.Fatal("first ForceRefresh = false")
	}
	if c.ForceRefresh(context.Background()) {
		t.Error("second ForceRefresh = true, want false (cooldown)")
	}
	tok, _ := c.TokenSource().Token()
	if tok.AccessToken != "ya29.minted-2" || ts.Hits.Load() != 2 {
		t.Errorf("token %q after %d hits", tok.AccessToken, ts.Hits.Load())
	}
}

// A token is replaced EarlyRefresh before expiry, not in
// x/oauth2's last 10 s, so a long call does not start with a dying token.
func TestEarlyRefresh(t *testing.T) {
	ts := authtest.NewTokenServer(t)
	clock := colabfake.NewClock(time.Now())
	c := adcCreds(t, ts, clock)
	tok := func() string {
		tk, err := c.TokenSource().Token()
		if err != nil {
			t.Fatal(err)
		}
		return tk.AccessToken
	}
	if tok() != "ya29.minted-1" {
		t.Fatal("first token")
	}
	clock.Advance(3600*time.Second - EarlyRefresh - 5*time.Second)
	if got := tok(); got != "ya29.minted-1" {
		t.Errorf("replaced %v before expiry: %s", EarlyRefresh+5*time.Second, got)
	}
	clock.Advance(30 * time.Second) // 40 s left: x/oauth2 would keep it
	if got := tok(); got != "ya29.minted-2" {
		t.Errorf("token with 40 s left not replaced: %s", got)
	}
}

// A short-lived token (9 s) is replaced at half its life, not on every call.
func TestEarlyRefreshShortToken(t *testing.T) {
	ts := authtest.NewTokenServer(t)
	ts.SetReply(func(w http.ResponseWriter, _ *http.Request, n int64) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"ya29.short-%d","token_type":"Bearer","expires_in":9}`, n)
	})
	clock := colabfake.NewClock(time.Now())
	c := adcCreds(t, ts, clock)
	for range 3 {
		if _, err := c.TokenSource().Token(); err != nil {
			t.Fatal(err)
		}
	}
	if n := ts.Hits.Load(); n != 1 {
		t.Errorf("hits = %d for a fresh 9 s token, want 1", n)
	}
	clock.Advance(5 * time.Second)
	_, _ = c.TokenSource().Token()
	if n := ts.Hits.Load(); n != 2 {
		t.Errorf("hits = %d with 4 s left, want 2", n)
	}
}

// invalid_grant / invalid_rapt from the token endpoint. The
// request fails with a typed *Error (KindReauthRequired) that still unwraps
// to *oauth2.RetrieveError, Explain gives the re-login command, later
// requests do not hit the token endpoint again, and a new login (the ADC
// file rewritten) is picked up without restarting.
func TestReauthRequired(t *testing.T) {
	for name, desc := range map[string]string{
		"invalid_rapt": `"error_description":"reauth related error (invalid_rapt)","error_subtype":"invalid_rapt"`,
		"revoked":      `"error_description":"Token has been expired or revoked."`,
	} {
		t.Run(name, func(t *testing.T) {
			env := newEnv(t)
			ts := authtest.NewTokenServer(t)
			ts.SetReply(func(w http.ResponseWriter, _ *http.Request, _ int64) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"error":"invalid_grant",`+desc+`}`)
			})
			api := authtest.NewAPIServer(t)
			path := env.useADC(ts, nil)
			c, err := New(context.Background(), env.opts())
			if err != nil {
				t.Fatal(err)
			}
			_, err = get(t, c, api.URL)
			var ae *Error
			if !errors.As(err, &ae) || ae.Kind != KindReauthRequired {
				t.Fatalf("err = %v, want KindReauthRequired", err)
			}
			var re *oauth2.RetrieveError
			if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
				t.Errorf("no *oauth2.RetrieveError invalid_grant in %v", err)
			}
			if !strings.HasPrefix(ae.Error(), "re-authentication required: the token endpoint answered invalid_grant (") {
				t.Errorf("Error() = %q", ae.Error())
			}
			assertNoSecrets(t, err.Error())
			head, fix := Explain(err, c)
			wantFix := "run `" + LoginCommand + "` and unset GOOGLE_APPLICATION_CREDENTIALS (gcloud writes its own file, not " + path + ")"
			if !strings.HasPrefix(head, "re-authentication required") || fix != wantFix {
				t.Errorf("Explain = %q / %q", head, fix)
			}
			// The bare RetrieveError (as another layer may hold it) explains the same.
			if h2, f2 := Explain(re, c); !strings.HasPrefix(h2, "re-authentication required") || f2 != fix {
				t.Errorf("Explain(RetrieveError) = %q / %q", h2, f2)
			}
			for range 3 {
				if _, err := get(t, c, api.URL); !errors.Is(err, &Error{Kind: KindReauthRequired}) {
					t.Errorf("later request err = %v", err)
				}
			}
			if c.ForceRefresh(context.Background()) {
				t.Errorf("ForceRefresh = true while re-authentication is required")
			}
			if n := ts.Hits.Load(); n != 1 {
				t.Errorf("token endpoint hit %d times, want 1 (no hammering)", n)
			}
			if api.Count() != 0 {
				t.Errorf("API server reached without a token")
			}

			// The user logs in again: the file changes, the next request works.
			ts.SetReply(nil)
			authtest.Rewrite(t, path, mustJSON(authorizedUser(ts, map[string]string{"refresh_token": "1//SECRET-new"})))
			if code, err := get(t, c, api.URL); err != nil || code != 200 {
				t.Fatalf("after re-login: %d %v", code, err)
			}
			if ts.LastForm()["refresh_token"] != "1//SECRET-new" {
				t.Errorf("the rewritten ADC file was not used")
			}
		})
	}
}

func mustJSON(v any) string {
	var b strings.Builder
	fmt.Fprint(&b, "{")
	first := true
	for k, val := range v.(map[string]string) {
		if !first {
			b.WriteString(",")
		}
		first = false
		fmt.Fprintf(&b, "%q:%q", k, val)
	}
	b.WriteString("}")
	return b.String()
}

// A token endpoint outage is KindTokenFetch, not a re-login, and is not
// sticky: the next request tries again.
func TestTokenEndpointOutage(t *testing.T) {
	ts := authtest.NewTokenServer(t)
	ts.SetReply(func(w http.ResponseWriter, _ *http.Request, _ int64) {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, "<html>down</html>")
	})
	api := authtest.NewAPIServer(t)
	c := adcCreds(t, ts, nil)
	_, err := get(t, c, api.URL)
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindTokenFetch || ae.Error() != "cannot get an access token: the token endpoint answered HTTP 503 ["+c.Path()+" (from GOOGLE_APPLICATION_CREDENTIALS)]" {
		t.Fatalf("err = %v", err)
	}
	ts.SetReply(nil)
	if code, err := get(t, c, api.URL); err != nil || code != 200 {
		t.Errorf("after recovery: %d %v", code, err)
	}
}
