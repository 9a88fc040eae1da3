package state

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
)

var t0 = time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC)

func rt(id string, expire time.Time, spec api.RuntimeSpecKey) api.Runtime {
	r := api.Runtime{Name: "runtimes/" + id, RuntimeSpec: spec}
	if !expire.IsZero() {
		r.ConnectionInfo = &api.ConnectionInfo{URL: "https://" + id + ".example", Token: "secret-" + id, ExpireTime: expire}
	}
	return r
}

var (
	t4  = api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4", Shape: api.ShapeStandard}
	cpu = api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}
	tpu = api.RuntimeSpecKey{Variant: api.VariantTPU, Accelerator: "V6E1", Shape: api.ShapeHighMem}
)

// Every duration a person reads is written one way, as k9s writes it:
// the two largest units, a unit beside every figure.
func TestFormatDurationTwoLargestUnits(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{time.Second - 1, "0s"},
		{-time.Millisecond, "0s"},
		{46 * time.Second, "46s"},
		{4*time.Minute + 12*time.Second, "4m12s"},
		{4 * time.Minute, "4m"},
		{59*time.Minute + 46*time.Second, "59m46s"},
		{time.Hour + 12*time.Minute + 59*time.Second, "1h12m"},
		{time.Hour + 5*time.Second, "1h"}, // the second unit is minutes: zero, so not written
		{51*time.Hour + 7*time.Minute, "2d3h"},
		{400 * 24 * time.Hour, "1y35d"},
		{-(4*time.Minute + 12*time.Second), "-4m12s"}, // overdue
		{-3000 * time.Hour, "-125d"},
		{1<<63 - 1, "292y171d"}, // the longest duration keeps its figures
		{-1 << 63, "-292y171d"}, // and the most negative one
	} {
		if got := FormatDuration(tc.d); got != tc.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestFormatCountdownRoundsUpAndStopsAtZero(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{-5 * time.Second, "0s"},
		{-1000 * time.Hour, "0s"},
		{1, "1s"}, // partial second rounds up: 0s only once expired
		{59*time.Second + 500*time.Millisecond, "1m"},
		{4*time.Minute + 59*time.Second, "4m59s"},
		{59*time.Minute + 46*time.Second, "59m46s"},
		{time.Hour, "1h"},
		{time.Hour + 2*time.Minute + 3*time.Second, "1h2m"},
		{1<<63 - 1, "292y171d"}, // no overflow when rounding up the longest
	} {
		if got := FormatCountdown(tc.d); got != tc.want {
			t.Errorf("FormatCountdown(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestFormatMinutesAndAgo(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Hour: "0s", 0: "0s", 12*time.Second + 700*time.Millisecond: "12s", 59 * time.Second: "59s", 4*time.Minute + 59*time.Second: "4m",
		time.Hour + 12*time.Minute + 30*time.Second: "1h12m", 26*time.Hour + 5*time.Minute: "1d2h",
	} {
		if got := FormatMinutes(d); got != want {
			t.Errorf("FormatMinutes(%v) = %q, want %q", d, got, want)
		}
	}
	for d, want := range map[time.Duration]string{
		-time.Hour: "just now", 0: "just now", 12 * time.Second: "12s ago",
		5*time.Minute + 59*time.Second: "5m59s ago", 72 * time.Hour: "3d ago",
	} {
		if got := FormatAgo(d); got != want {
			t.Errorf("FormatAgo(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestMaskTokenNeverShowsToken(t *testing.T) {
	tok := "ya29.a0AfH6SMBxyz"
	got := MaskToken(tok)
	for i := 0; i+3 <= len(tok); i++ {
		if contains(got, tok[i:i+3]) {
			t.Fatalf("MaskToken leaks %q in %q", tok[i:i+3], got)
		}
	}
	if MaskToken("") != "(none)" {
		t.Fatalf("empty token: %q", MaskToken(""))
	}
}

func contains(s, sub string) bool { return index(s, sub) >= 0 }
func index(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// expireTime edge cases decoded from the wire give equal
// countdowns for equal instants, and unknown for invalid ones.
func TestCountdownFromWireExpireTime(t *testing.T) {
	now := time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, conn string
		status     TokenStatus
		countdown  string
	}{
		{"Z", `{"expireTime":"2026-11-29T18:00:00Z"}`, TokenOK, "1h"},
		{"+00:00", `{"expireTime":"2026-11-29T18:00:00+00:00"}`, TokenOK, "1h"},
		{"fraction+05:30", `{"expireTime":"2026-11-29T23:30:00.5+05:30"}`, TokenOK, "1h"},
		{"+05:45", `{"expireTime":"2026-11-29T23:45:00+05:45"}`, TokenOK, "1h"},
		{"9 digits", `{"expireTime":"2026-11-29T18:00:00.123456789Z"}`, TokenOK, "1h"},
		{"10 digits", `{"expireTime":"2026-11-29T18:00:00.1234567891Z"}`, TokenOK, "1h"},
		{"lowercase t z", `{"expireTime":"2026-11-29t18:00:00z"}`, TokenOK, "1h"},
		{"space", `{"expireTime":"2026-11-29 18:00:00Z"}`, TokenOK, "1h"},
		{"empty", `{"expireTime":""}`, TokenUnknown, ""},
		{"absent", `{}`, TokenUnknown, ""},
		{"soon", `{"expireTime":"soon"}`, TokenUnknown, ""},
		{"year 1", `{"expireTime":"0001-01-01T00:00:00Z"}`, TokenUnknown, ""},
		{"past", `{"expireTime":"2026-11-29T16:59:30Z"}`, TokenExpired, "0s"},
		{"expiring", `{"expireTime":"2026-11-29T17:04:59Z"}`, TokenExpiring, "4m59s"},
		{"threshold edge", `{"expireTime":"2026-11-29T17:05:00Z"}`, TokenExpiring, "5m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ci api.ConnectionInfo
			if err := json.Unmarshal([]byte(tc.conn), &ci); err != nil {
				t.Fatal(err)
			}
			st, rem := TokenAt(ci.ExpireTime, now, 0)
			if st != tc.status {
				t.Fatalf("status = %v, want %v", st, tc.status)
			}
			if st == TokenUnknown {
				if rem != 0 {
					t.Fatalf("unknown token has remaining %v", rem)
				}
				return
			}
			if got := FormatCountdown(rem); got != tc.countdown {
				t.Fatalf("countdown = %q, want %q", got, tc.countdown)
			}
		})
	}
}

func TestTokenAtIgnoresMonotonicClock(t *testing.T) {
	// A time.Now() reading carries a monotonic clock that does not advance
	// during suspend; remaining must follow the wall clock.
	now := time.Now()
	expire := now.Round(0).Add(10 * time.Minute)
	jumped := now.Add(20 * time.Minute).Round(0) // wall-clock only
	if st, _ := TokenAt(expire, jumped, 0); st != TokenExpired {
		t.Fatalf("after a 20 min jump status = %v, want EXPIRED", st)
	}
	if st, rem := TokenAt(expire, now, time.Minute); st != TokenOK || FormatCountdown(rem) != "10m" {
		t.Fatalf("got %v %v", st, rem)
	}
}

func TestTokenStatusString(t *testing.T) {
	want := map[TokenStatus]string{TokenOK: "OK", TokenExpiring: "EXPIRING", TokenExpired: "EXPIRED", TokenUnknown: "UNKNOWN", 42: "UNKNOWN"}
	for s, w := range want {
		if s.String() != w {
			t.Errorf("%d.String() = %q, want %q", s, s.String(), w)
		}
	}
}

func TestEmptySnapshotIsLoading(t *testing.T) {
	s := New(Config{})
	if !s.RuntimesFresh.Loading() || s.RuntimesFresh.Loaded() || s.RuntimesFresh.Stale() {
		t.Fatalf("fresh snapshot: %+v", s.RuntimesFresh)
	}
	if s.Len() != 0 || len(s.Rows(SortByName, "")) != 0 {
		t.Fatal("not empty")
	}
}

// A runtime whose token expired but which is still listed is
// not gone; a runtime missing from the list is gone, with its
// last-seen time, its sessions cleared, and pruned after the retention.
func TestApplyRuntimesGoneVersusExpired(t *testing.T) {
	s := New(Config{GoneRetention: 10 * time.Minute})
	s.ApplyRuntimes(t0, []api.Runtime{rt("r-abc", t0.Add(-30*time.Second), t4), rt("r-old", t0.Add(time.Hour), cpu)})
	s.ApplySessions(t0, "runtimes/r-old", []api.Session{{Name: "runtimes/r-old/sessions/s1"}})

	t1 := t0.Add(30 * time.Second)
	s.ApplyRuntimes(t1, []api.Runtime{rt("r-abc", t0.Add(-30*time.Second), t4)})

	abc := s.Runtime("runtimes/r-abc")
	if abc.Gone() {
		t.Fatal("expired-token runtime marked gone")
	}
	if st, _ := s.TokenStatus(t1, abc.Name); st != TokenExpired {
		t.Fatalf("token status %v, want EXPIRED", st)
	}
	old := s.Runtime("runtimes/r-old")
	if old == nil || !old.Gone() {
		t.Fatal("missing runtime was dropped or not marked gone")
	}
	if !old.LastSeen.Equal(t0) || !old.GoneAt.Equal(t1) || old.GoneReason == "" {
		t.Fatalf("gone runtime: lastSeen %v goneAt %v reason %q", old.LastSeen, old.GoneAt, old.GoneReason)
	}
	if len(old.Sessions) != 0 {
		t.Fatal("gone runtime kept its sessions")
	}
	// A late list_sessions answer for the gone runtime is ignored.
	s.ApplySessions(t1, old.Name, []api.Session{{Name: "runtimes/r-old/sessions/s1"}})
	if len(old.Sessions) != 0 {
		t.Fatal("late sessions landed on a gone runtime")
	}
	rows := s.Rows(SortByName, "")
	if len(rows) != 2 || rows[1] != old {
		t.Fatal("gone runtime must sort last")
	}
	if s.Prune(t1.Add(9 * time.Minute)) {
		t.Fatal("pruned before the retention")
	}
	if !s.Prune(t1.Add(11*time.Minute)) || s.Runtime(old.Name) != nil || s.Len() != 1 {
		t.Fatal("not pruned after the retention")
	}
}

func TestGoneRuntimeComesBack(t *testing.T) {
	s := New(Config{})
	s.ApplyRuntimes(t0, []api.Runtime{rt("a", t0.Add(time.Hour), t4)})
	s.ApplyRuntimes(t0.Add(time.Minute), nil)
	s.ApplyRuntimes(t0.Add(2*time.Minute), []api.Runtime{rt("a", t0.Add(time.Hour), t4)})
	if r := s.Runtime("runtimes/a"); r.Gone() || r.GoneReason != "" {
		t.Fatal("listed again but still gone")
	}
}

func TestRenewal(t *testing.T) {
	s := New(Config{})
	s.ApplyRuntimes(t0, []api.Runtime{rt("a", t0.Add(-time.Second), t4), rt("b", t0.Add(-time.Second), t4)})
	// Renewed token: countdown back to about an hour.
	s.UpdateRuntime(t0, rt("a", t0.Add(time.Hour), t4))
	if st, rem := s.TokenStatus(t0, "runtimes/a"); st != TokenOK || FormatCountdown(rem) != "1h" {
		t.Fatalf("after renewal: %v %v", st, rem)
	}
	// Network failure: row stays, state unknown.
	netErr := &api.Error{Code: api.Unavailable, Message: "connection refused"}
	s.ApplyRenewError(t0, "runtimes/b", netErr)
	if r := s.Runtime("runtimes/b"); r.Gone() || !errors.Is(r.RenewErr, netErr) {
		t.Fatalf("network failure: gone=%v err=%v", r.Gone(), r.RenewErr)
	}
	// NOT_FOUND confirms it is gone.
	s.ApplyRenewError(t0, "runtimes/b", &api.Error{Code: api.NotFound, HTTPStatus: 404})
	if r := s.Runtime("runtimes/b"); !r.Gone() || r.GoneReason != "NOT_FOUND" {
		t.Fatalf("NOT_FOUND: gone=%v reason=%q", r.Gone(), r.GoneReason)
	}
	s.UpdateRuntime(t0, rt("b", t0.Add(time.Hour), t4))
	if r := s.Runtime("runtimes/b"); r.Gone() || r.RenewErr != nil {
		t.Fatal("successful get_runtime did not restore the runtime")
	}
}

// A failed refresh keeps the data, marked stale with the
// reason; a success clears it.
func TestFreshness(t *testing.T) {
	s := New(Config{})
	s.ApplyRuntimes(t0, []api.Runtime{rt("a", t0.Add(time.Hour), t4)})
	err := &api.Error{Code: api.Unauthenticated, HTTPStatus: 401}
	s.ApplyError(ListRuntimes, t0.Add(time.Minute), err)
	s.ApplyError(ListRuntimes, t0.Add(2*time.Minute), err)
	f := s.RuntimesFresh
	if !f.Stale() || f.Failures != 2 || !f.FetchedAt.Equal(t0) || f.Err != err {
		t.Fatalf("after failures: %+v", f)
	}
	if s.Len() != 1 || s.Runtime("runtimes/a").Gone() {
		t.Fatal("failure dropped data")
	}
	s.ApplyRuntimes(t0.Add(3*time.Minute), []api.Runtime{rt("a", t0.Add(time.Hour), t4)})
	if s.RuntimesFresh.Stale() || s.RuntimesFresh.Failures != 0 {
		t.Fatal("success did not clear stale mark")
	}
	s.ApplyError(ListSubscription, t0, err)
	s.ApplyError(ListSpecs, t0, err)
	if !s.SubscriptionFresh.Stale() || !s.SpecsFresh.Stale() {
		t.Fatal("subscription/specs errors not recorded")
	}
	s.ApplySubscription(t0, api.Subscription{Tier: api.TierPro})
	s.ApplySpecs(t0, []api.RuntimeSpec{{Key: t4, Eligible: true}})
	if s.SubscriptionFresh.Stale() || s.SpecsFresh.Stale() || s.Subscription.Tier != api.TierPro || len(s.Specs) != 1 {
		t.Fatal("subscription/specs not applied")
	}
	s.ApplySessions(t0, "runtimes/a", []api.Session{{Name: "runtimes/a/sessions/x"}})
	s.ApplySessionsError(t0.Add(time.Second), "runtimes/a", err)
	if r := s.Runtime("runtimes/a"); len(r.Sessions) != 1 || !r.SessionsFresh.Stale() {
		t.Fatal("sessions error dropped data or not stale")
	}
}

func TestRowsSortAndFilter(t *testing.T) {
	s := New(Config{})
	s.ApplyRuntimes(t0, []api.Runtime{
		rt("charlie", t0.Add(10*time.Minute), cpu),
		rt("alpha", t0.Add(50*time.Minute), tpu),
		rt("bravo", time.Time{}, t4),
		rt("delta", t0.Add(time.Minute), t4),
		{Name: ""}, // nameless entries are ignored
	})
	ids := func(rows []*Runtime) (out []string) {
		for _, r := range rows {
			out = append(out, r.ID())
		}
		return out
	}
	for _, tc := range []struct {
		key    SortKey
		filter string
		want   []string
	}{
		{SortByName, "", []string{"alpha", "bravo", "charlie", "delta"}},
		{SortByExpiry, "", []string{"delta", "charlie", "alpha", "bravo"}},
		{SortByAccelerator, "", []string{"charlie", "bravo", "delta", "alpha"}},
		{SortByName, "T4", []string{"bravo", "delta"}},
		{SortByName, " gpu ", []string{"bravo", "delta"}},
		{SortByName, "variant_tpu", []string{"alpha"}},
		{SortByName, "ALP", []string{"alpha"}},
		{SortByName, "zzz", nil},
		// An empty version is displayed as "latest", so it filters as such.
		{SortByName, "latest", []string{"alpha", "bravo", "charlie", "delta"}},
	} {
		if got := ids(s.Rows(tc.key, tc.filter)); !equal(got, tc.want) {
			t.Errorf("Rows(%v, %q) = %v, want %v", tc.key, tc.filter, got, tc.want)
		}
	}
	if SortByName.Next() != SortByExpiry || SortByAccelerator.Next() != SortByName || SortByAccelerator.String() != "accelerator" {
		t.Fatal("sort key cycle")
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestOwnedSessions(t *testing.T) {
	s := New(Config{})
	s.MarkOwned("runtimes/a/sessions/3f2c9a")
	for name, want := range map[string]bool{
		"runtimes/a/sessions/colabdash-1": true,
		"runtimes/a/sessions/3f2c9a":      true,
		"runtimes/a/sessions/notebook-x":  false,
		"runtimes/b/sessions/3f2c9a":      false,
	} {
		if s.Owned(name) != want {
			t.Errorf("Owned(%q) = %v", name, !want)
		}
	}
}

func TestVersionBumpsOnChanges(t *testing.T) {
	s := New(Config{})
	v := s.Version()
	s.ApplyRuntimes(t0, nil)
	if s.Version() == v {
		t.Fatal("ApplyRuntimes did not bump version")
	}
	v = s.Version()
	s.ApplyError(ListRuntimes, t0, errors.New("x"))
	if s.Version() != v {
		t.Fatal("an error must not reorder rows")
	}
}

// The user's delete answers after a renewal met NOT_FOUND (the runtime was
// already gone on the server, e.g. while the monitor renewed its token):
// the runtime leaves the list as a delete, not as one Colab took back.
func TestDeleteAfterNotFoundLeavesTheList(t *testing.T) {
	t4 := api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4", Shape: api.ShapeStandard}
	s := New(Config{})
	s.ApplyRuntimes(t0, []api.Runtime{rt("r-a", t0.Add(time.Hour), t4), rt("r-b", t0.Add(time.Hour), t4)})
	s.ApplyRenewError(t0, "runtimes/r-b", &api.Error{Code: api.NotFound})
	s.MarkRuntimeGone(t0.Add(time.Second), "runtimes/r-b", ReasonDeleted)
	if r := s.Runtime("runtimes/r-b"); !r.Deleted() {
		t.Fatalf("r-b gone for %q, want deleted", r.GoneReason)
	}
	if rows := s.Rows(SortByName, ""); len(rows) != 1 || rows[0].Name != "runtimes/r-a" {
		t.Fatalf("rows after the delete: %d, want only r-a", len(rows))
	}
	// Deleted stays deleted: a later NOT_FOUND does not turn it back.
	s.MarkRuntimeGone(t0.Add(2*time.Second), "runtimes/r-b", string(api.NotFound))
	if !s.Runtime("runtimes/r-b").Deleted() {
		t.Fatal("a later reason replaced the delete")
	}
}

// A list_runtimes sent before a create or delete finished must not undo
// what that call established (two creates racing a refresh; a delete
// racing a refresh).
func TestApplyRuntimesSinceKeepsNewerFacts(t *testing.T) {
	t4 := api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4", Shape: api.ShapeStandard}
	s := New(Config{})
	s.ApplyRuntimes(t0, []api.Runtime{rt("r-a", t0.Add(time.Hour), t4), rt("r-b", t0.Add(time.Hour), t4)})
	sent := s.Version() // a refresh goes out
	s.UpdateRuntime(t0, rt("r-new", t0.Add(time.Hour), t4))
	s.MarkRuntimeGone(t0, "runtimes/r-b", "deleted")
	// The stale list: no r-new, r-b still there.
	s.ApplyRuntimesSince(t0, sent, []api.Runtime{rt("r-a", t0.Add(time.Hour), t4), rt("r-b", t0.Add(time.Hour), t4)})
	if r := s.Runtime("runtimes/r-new"); r == nil || r.Gone() {
		t.Fatal("the stale list hid a runtime created after it was sent")
	}
	if r := s.Runtime("runtimes/r-b"); !r.Gone() || r.GoneReason != "deleted" {
		t.Fatal("the stale list revived a runtime deleted after it was sent")
	}
	// A list sent afterwards is the truth again.
	s.ApplyRuntimesSince(t0, s.Version(), []api.Runtime{rt("r-a", t0.Add(time.Hour), t4)})
	if !s.Runtime("runtimes/r-new").Gone() {
		t.Fatal("a newer list could not mark the runtime gone")
	}
}

// Found by mutation testing (.ci/mutation): the edges a user sees.
func TestFormatEdges(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour + 10*time.Minute + 10*time.Second: "1h10m",
		10*time.Minute + 9*time.Second:              "10m9s",
		9*time.Minute + 10*time.Second:              "9m10s",
	} {
		if got := FormatCountdown(d); got != want {
			t.Errorf("FormatCountdown(%v) = %q, want %q", d, got, want)
		}
	}
	for d, want := range map[time.Duration]string{
		time.Second - 1:       "just now",
		time.Second:           "1s ago",
		time.Minute - 1:       "59s ago",
		time.Hour - 1:         "59m59s ago",
		time.Hour:             "1h ago",
		48*time.Hour - 1:      "1d23h ago",
		48 * time.Hour:        "2d ago",
		10*24*time.Hour + 1e9: "10d ago",
	} {
		if got := FormatAgo(d); got != want {
			t.Errorf("FormatAgo(%v) = %q, want %q", d, got, want)
		}
	}
}

// TokenAt at the edges: expired at expireTime itself, EXPIRING up to and
// including the threshold, OK a nanosecond beyond it.
func TestTokenAtEdges(t *testing.T) {
	exp := t0.Add(time.Hour)
	for _, c := range []struct {
		now  time.Time
		want TokenStatus
	}{
		{exp, TokenExpired},
		{exp.Add(-1), TokenExpiring},
		{exp.Add(-2 * time.Minute), TokenExpiring},
		{exp.Add(-2*time.Minute - 1), TokenOK},
	} {
		if got, _ := TokenAt(exp, c.now, 2*time.Minute); got != c.want {
			t.Errorf("%v before expiry: %v, want %v", exp.Sub(c.now), got, c.want)
		}
	}
}

// A zero Config means the documented defaults (5 min EXPIRING, 10 min gone
// retention); set values are used as they are.
func TestConfigDefaultsAndOverrides(t *testing.T) {
	fourMin := rt("r", t0.Add(4*time.Minute), cpu)
	for _, c := range []struct {
		cfg  Config
		want TokenStatus
	}{
		{Config{}, TokenExpiring},
		{Config{ExpiringThreshold: -time.Minute}, TokenExpiring},
		{Config{ExpiringThreshold: time.Minute}, TokenOK},
	} {
		s := New(c.cfg)
		s.ApplyRuntimes(t0, []api.Runtime{fourMin})
		if got, _ := s.TokenStatus(t0, "runtimes/r"); got != c.want {
			t.Errorf("%+v: 4 min left is %v, want %v", c.cfg, got, c.want)
		}
	}
	for _, c := range []struct {
		retention, after time.Duration
		kept             bool
	}{
		{0, DefaultGoneRetention, true}, // exactly the retention: still listed
		{0, DefaultGoneRetention + 1, false},
		{time.Minute, time.Minute, true},
		{time.Minute, time.Minute + 1, false},
	} {
		s := New(Config{GoneRetention: c.retention})
		s.ApplyRuntimes(t0, []api.Runtime{fourMin})
		s.ApplyRuntimes(t0, nil) // gone at t0
		v := s.Version()
		dropped := s.Prune(t0.Add(c.after))
		if dropped == c.kept || (s.Runtime("runtimes/r") != nil) != c.kept {
			t.Errorf("retention %v, %v after: dropped %v", c.retention, c.after, dropped)
		}
		if dropped && s.Version() <= v {
			t.Errorf("Prune dropped a runtime without a new version (%d → %d)", v, s.Version())
		}
	}
}

// Counts splits the list into live and gone; deleted runtimes count in
// neither. Rows puts gone runtimes after the live ones whatever the sort.
func TestCountsAndGoneRowsLast(t *testing.T) {
	s := New(Config{})
	s.ApplyRuntimes(t0, []api.Runtime{rt("a-gone", t0.Add(time.Hour), cpu), rt("b", t0.Add(time.Hour), cpu), rt("c", t0.Add(time.Hour), cpu), rt("d-del", t0.Add(time.Hour), cpu)})
	s.MarkRuntimeGone(t0, "runtimes/a-gone", "NOT_FOUND")
	s.MarkRuntimeGone(t0, "runtimes/d-del", ReasonDeleted)
	if live, gone := s.Counts(); live != 2 || gone != 1 {
		t.Fatalf("Counts = %d live, %d gone; want 2, 1", live, gone)
	}
	for _, key := range []SortKey{SortByName, SortByExpiry, SortByAccelerator} {
		var names []string
		for _, r := range s.Rows(key, "") {
			names = append(names, r.ID())
		}
		if len(names) != 3 || names[0] != "b" || names[1] != "c" || names[2] != "a-gone" {
			t.Errorf("sort %v: rows %v, want [b c a-gone]", key, names)
		}
	}
}

// A list sent after a get_runtime answered (same version) is newer than
// it: its data wins, and a runtime it lacks is gone. A NOT_FOUND renewal
// is a change callers see in Version.
func TestListSentAfterAChangeWins(t *testing.T) {
	s := New(Config{})
	s.ApplyRuntimes(t0, []api.Runtime{rt("a", t0.Add(time.Hour), cpu), rt("b", t0.Add(time.Hour), cpu)})
	s.UpdateRuntime(t0, rt("b", t0.Add(2*time.Hour), cpu))
	s.UpdateRuntime(t0, rt("a", t0.Add(2*time.Hour), cpu))
	since := s.Version() // the list is sent now, right after a's renewal
	s.ApplyRuntimesSince(t0.Add(time.Second), since, []api.Runtime{rt("a", t0.Add(3*time.Hour), cpu)})
	if got := s.Runtime("runtimes/a").ExpireTime(); !got.Equal(t0.Add(3 * time.Hour)) {
		t.Errorf("the newer list's expireTime was not applied: %v", got)
	}
	if !s.Runtime("runtimes/b").Gone() {
		t.Error("a runtime missing from a list sent after its last change is not gone")
	}
	v := s.Version()
	s.ApplyRenewError(t0, "runtimes/a", &api.Error{Code: api.NotFound})
	if !s.Runtime("runtimes/a").Gone() || s.Version() <= v {
		t.Errorf("NOT_FOUND renewal: gone %v, version %d → %d", s.Runtime("runtimes/a").Gone(), v, s.Version())
	}
}

// A list sent right after a runtime's last change, which lacks it, marks
// it gone (the list is the newer word).
func TestListSentAfterAChangeMarksMissingGone(t *testing.T) {
	s := New(Config{})
	s.ApplyRuntimes(t0, []api.Runtime{rt("a", t0.Add(time.Hour), cpu), rt("c", t0.Add(time.Hour), cpu)})
	s.UpdateRuntime(t0, rt("c", t0.Add(2*time.Hour), cpu))
	s.ApplyRuntimesSince(t0.Add(time.Second), s.Version(), []api.Runtime{rt("a", t0.Add(time.Hour), cpu)})
	if !s.Runtime("runtimes/c").Gone() {
		t.Error("a runtime missing from a list sent right after its renewal is not gone")
	}
}

// Sorting by expiry puts runtimes whose expiry is unknown after every
// known one, whatever the order they were listed in.
func TestSortByExpiryUnknownLast(t *testing.T) {
	s := New(Config{})
	s.ApplyRuntimes(t0, []api.Runtime{rt("u1", time.Time{}, cpu), rt("k3", t0.Add(3*time.Hour), cpu), rt("u2", time.Time{}, cpu),
		rt("k1", t0.Add(time.Hour), cpu), rt("u3", time.Time{}, cpu), rt("k2", t0.Add(2*time.Hour), cpu)})
	var got []string
	for _, r := range s.Rows(SortByExpiry, "") {
		got = append(got, r.ID())
	}
	if strings.Join(got, ",") != "k1,k2,k3,u1,u2,u3" {
		t.Errorf("by expiry: %v", got)
	}
}
