package cli

import (
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/ui/cli/runtimes"
	"github.com/colabdash/colabdash/ui/report"
)

// tokenExpiresInSeconds counts down to an expireTime within a year either
// way and is null beyond (a far-future placeholder made it 9223372036,
// time.Duration's limit), in status --json and url --json alike, while
// connectionInfo.expireTime still says what the server sent.
func TestTokenExpiresInSecondsIsSane(t *testing.T) {
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	now := time.Now().UTC()
	cases := []struct {
		id      string
		expire  time.Time
		nullish bool
		near    int64 // about this many seconds when not null
	}{
		{"rt-soon", now.Add(50 * time.Minute), false, 3000},
		{"rt-expired", now.Add(-2 * time.Hour), false, -7200},
		{"rt-month", now.Add(30 * 24 * time.Hour), false, 30 * 24 * 3600},
		{"rt-far", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), true, 0},
		{"rt-twoyears", now.Add(2 * 366 * 24 * time.Hour), true, 0},
		{"rt-ancient", now.Add(-2 * 366 * 24 * time.Hour), true, 0},
	}
	for _, c := range cases {
		if _, err := e.srv.AddRuntime(api.Runtime{Name: c.id, RuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU, Shape: api.ShapeStandard},
			ConnectionInfo: &api.ConnectionInfo{ExpireTime: c.expire}}); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := e.run("status", "--json")
	if code != 0 {
		t.Fatalf("status: exit %d %q", code, errs)
	}
	var rep report.Report
	mustJSON(t, out, &rep)
	got := map[string]report.Runtime{}
	for _, r := range rep.Runtimes {
		got[r.Name] = r
	}
	check := func(what string, secs *int64, exp *string, c struct {
		id      string
		expire  time.Time
		nullish bool
		near    int64
	}) {
		t.Helper()
		if exp == nil || *exp != c.expire.Format(time.RFC3339) {
			t.Errorf("%s %s: expireTime %v, want %s", what, c.id, exp, c.expire.Format(time.RFC3339))
		}
		switch {
		case c.nullish && secs != nil:
			t.Errorf("%s %s: tokenExpiresInSeconds %d, want null", what, c.id, *secs)
		case !c.nullish && (secs == nil || *secs > c.near+60 || *secs < c.near-60):
			t.Errorf("%s %s: tokenExpiresInSeconds %v, want about %d", what, c.id, secs, c.near)
		}
	}
	for _, c := range cases {
		r := got[api.RuntimeName(c.id)]
		check("status", r.TokenExpiresInSeconds, r.ConnectionInfo.ExpireTime, c)
	}
	code, out, errs = e.run("url", "rt-far", "--json")
	if code != 0 {
		t.Fatalf("url: exit %d %q", code, errs)
	}
	var cr runtimes.ConnectionReport
	mustJSON(t, out, &cr)
	check("url", cr.TokenExpiresInSeconds, cr.ConnectionInfo.ExpireTime, cases[3])
}
