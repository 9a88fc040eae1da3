package auth

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api/auth/authtest"
)

// TestGrantReportsScopesAndExpiry: the scopes the token endpoint granted
// and the token's expiry come back from Grant; a reply without "scope"
// leaves them unknown, and an access token file has neither.
func TestGrantReportsScopesAndExpiry(t *testing.T) {
	e := newEnv(t)
	ts := authtest.NewTokenServer(t)
	ts.SetReply(func(w http.ResponseWriter, _ *http.Request, n int64) {
		w.Header().Set("Content-Type", "application/json")
		scope := `,"scope":"https://www.googleapis.com/auth/cloud-platform openid"`
		if n > 1 {
			scope = ""
		}
		fmt.Fprintf(w, `{"access_token":"ya29.minted-%d","token_type":"Bearer","expires_in":1800%s}`, n, scope)
	})
	path := authtest.WriteJSON(t, e.home, "adc.json", authorizedUser(ts, nil))
	e.set("GOOGLE_APPLICATION_CREDENTIALS", path)
	c, err := New(context.Background(), e.opts())
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	g, err := c.Grant(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if has, known := g.HasScope(ColabScope); has || !known {
		t.Errorf("HasScope(colab) = %v, %v; want false, true (granted %v)", has, known, g.Scopes)
	}
	if d := g.Expiry.Sub(before); d < 29*time.Minute || d > 31*time.Minute {
		t.Errorf("Expiry is %v from now, want about 30m", d)
	}
	if kind, from := c.Source(); kind != "ADC" || from != "GOOGLE_APPLICATION_CREDENTIALS" {
		t.Errorf("Source = %q, %q", kind, from)
	}
	if c.BillsOwnProject() {
		t.Error("authorized_user credentials said to bill their own project")
	}
	c.ForceRefresh(context.Background())
	if g, err = c.Grant(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, known := g.HasScope(ColabScope); known {
		t.Errorf("a reply without scope gave scopes %v", g.Scopes)
	}

	tok := authtest.WriteFile(t, e.home, "token.txt", "ya29.from-a-file\n")
	c, err = New(context.Background(), Options{Getenv: e.getenv, AccessTokenFile: tok})
	if err != nil {
		t.Fatal(err)
	}
	if g, err = c.Grant(context.Background()); err != nil || !g.Expiry.IsZero() || g.Scopes != nil {
		t.Errorf("access token file: Grant = %+v, %v; want nothing known", g, err)
	}
}
