// The client against the emulator: the OAuth bearer token, refreshed once
// on UNAUTHENTICATED, and the auth failures that end a call.

package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
)

func TestUnauthenticatedRefreshOnce(t *testing.T) {
	body := colabfake.GoogleErrorText(api.Unauthenticated, "Request had invalid authentication credentials.", "", 0)
	for _, times := range []int{1, -1} {
		emu, ep := startEmu(t, modes[0], colabfake.Options{Seed: colabfake.SeedDemo})
		var refreshes atomic.Int32
		c, sl := emuClient(t, ep, func(o *Options) {
			o.OnUnauthenticated = func(ctx context.Context) bool { refreshes.Add(1); return true }
		})
		emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Tool: api.ToolListRuntimes, Status: 401, Body: body, Times: times})
		_, err := c.ListRuntimes(context.Background())
		if refreshes.Load() != 1 || len(sl.waits()) != 0 {
			t.Fatalf("times=%d: refreshes %d, waits %v", times, refreshes.Load(), sl.waits())
		}
		if times == 1 && err != nil {
			t.Fatalf("after one refresh: %v", err)
		}
		if times == -1 {
			e := asAPI(t, err)
			if e.Code != api.Unauthenticated || e.HTTPStatus != 401 || !e.IsAuth() {
				t.Fatalf("err = %v", e)
			}
		}
	}
}

func TestNoBearerIs401(t *testing.T) {
	_, ep := startEmu(t, modes[1], colabfake.Options{})
	c, sl := newClient(t, ep) // no auth headers
	_, err := c.GetSubscription(context.Background())
	e := asAPI(t, err)
	if e.Code != api.Unauthenticated || e.HTTPStatus != 401 || len(sl.waits()) != 0 {
		t.Fatalf("err = %v", e)
	}
}

// A scope error is PERMISSION_DENIED with its reason, never
// retried or refreshed.
func TestScopeInsufficient(t *testing.T) {
	emu, ep := startEmu(t, modes[0], colabfake.Options{})
	var refreshes atomic.Int32
	c, sl := emuClient(t, ep, func(o *Options) {
		o.OnUnauthenticated = func(context.Context) bool { refreshes.Add(1); return true }
	})
	// Listed OK but calls denied, the pattern other Google MCP servers show.
	emu.Inject(colabfake.Fault{Kind: colabfake.FaultHTTPStatus, Method: "tools/call", Status: 403, Times: -1,
		Body: colabfake.GoogleErrorText(api.PermissionDenied, "Request had insufficient authentication scopes.", api.ReasonScopeInsufficient, 0)})
	_, err := c.ListRuntimes(context.Background())
	e := asAPI(t, err)
	if e.Code != api.PermissionDenied || e.Reason != api.ReasonScopeInsufficient || refreshes.Load() != 0 || len(sl.waits()) != 0 {
		t.Fatalf("err = %v, refreshes %d, waits %v", e, refreshes.Load(), sl.waits())
	}
}

// A revoked refresh token (invalid_grant) is UNAUTHENTICATED
// with a re-login hint; the token endpoint is hit once per call.
func TestInvalidGrant(t *testing.T) {
	_, ep := startEmu(t, modes[0], colabfake.Options{})
	var hits atomic.Int32
	tokSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"reauth related error (invalid_rapt)","error_subtype":"invalid_rapt"}`))
	}))
	defer tokSrv.Close()
	conf := &oauth2.Config{ClientID: "cid", ClientSecret: "s", Endpoint: oauth2.Endpoint{TokenURL: tokSrv.URL, AuthStyle: oauth2.AuthStyleInParams}}
	hc := conf.Client(context.Background(), &oauth2.Token{RefreshToken: "1//r", Expiry: time.Now().Add(-time.Hour)})
	c, sl := newClient(t, ep, func(o *Options) { o.HTTPClient = hc })
	_, err := c.ListRuntimes(context.Background())
	e := asAPI(t, err)
	var re *oauth2.RetrieveError
	if e.Code != api.Unauthenticated || !errors.As(err, &re) || re.ErrorCode != "invalid_grant" || !strings.Contains(e.Message, "login") {
		t.Fatalf("err = %v", e)
	}
	if hits.Load() != 1 || len(sl.waits()) != 0 {
		t.Fatalf("token endpoint hit %d times, waits %v", hits.Load(), sl.waits())
	}
}
