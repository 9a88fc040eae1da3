package header

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

var t0 = commontest.T0

// fixture is the Context of a w-wide dashboard at t0 whose snapshot is
// loaded (tier Pro, one runtime listed 5 seconds ago), with the default
// key map and no colours.
func fixture(w int) *common.Context {
	snap := state.New(state.Config{})
	snap.ApplySubscription(t0.Add(-5*time.Second), api.Subscription{Tier: api.TierPro})
	snap.ApplyRuntimes(t0.Add(-5*time.Second), []api.Runtime{{Name: "runtimes/r-alpha",
		RuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard}}})
	c := commontest.Context(w, 24)
	c.Snap = snap
	return c
}

// view is View checked for its shape: exactly two lines, none wider
// than w.
func view(t *testing.T, c *common.Context, w int, s State) (who, conn string) {
	t.Helper()
	lines := commontest.MustSize(t, "header", View(c, w, s), w, 2)
	return lines[0], lines[1]
}

func TestHeaderConnected(t *testing.T) {
	c := fixture(120)
	c.Profile = "work"
	who, conn := view(t, c, 120, State{Endpoint: "https://colab.googleapis.com/mcp"})
	if who != "colabdash · profile work · tier Pro · colab.googleapis.com" {
		t.Errorf("who: %q", who)
	}
	if conn != "● connected · updated 5s ago" {
		t.Errorf("connection: %q", conn)
	}
	// A switch under way: the profile it goes to; a port is kept.
	c.Profile = "work"
	who, _ = view(t, c, 120, State{Switching: "lab", Endpoint: "http://127.0.0.1:8080/mcp"})
	if who != "colabdash · profile work → lab… · tier Pro · 127.0.0.1:8080" {
		t.Errorf("switching: %q", who)
	}
	// The demo is the embedded emulator, not its loopback port.
	if who, _ = view(t, c, 120, State{Endpoint: "http://127.0.0.1:41455/mcp", Demo: true}); !strings.Contains(who, "tier Pro · embedded emulator") {
		t.Errorf("demo: %q", who)
	}
}

// The header names the server, never the credentials or the
// token file's path (the old header showed the account description).
func TestHeaderNamesTheServer(t *testing.T) {
	for _, tc := range []struct{ endpoint, want string }{
		{"https://colab.googleapis.com/mcp", "colab.googleapis.com"},
		{"https://colab.example.org:8443/v1/mcp?x=1", "colab.example.org:8443"},
		{"colab-endpoint", "colab-endpoint"},
		{"", ""},
	} {
		if got := Server(tc.endpoint, false); got != tc.want {
			t.Errorf("Server(%q) = %q, want %q", tc.endpoint, got, tc.want)
		}
	}
	if got := Server("http://127.0.0.1:41455/mcp", true); got != "embedded emulator" {
		t.Errorf("demo: %q", got)
	}
	c := fixture(100)
	c.Profile = "work"
	who, _ := view(t, c, 100, State{Endpoint: "https://colab.googleapis.com/mcp"})
	if !strings.HasSuffix(who, " · colab.googleapis.com") || strings.Contains(who, "/mcp") {
		t.Errorf("header: %q", who)
	}
}

// Before the first answers: the tier loads, the list connects.
func TestHeaderLoading(t *testing.T) {
	c := fixture(80)
	c.Snap = state.New(state.Config{})
	who, conn := view(t, c, 80, State{})
	if who != "colabdash · tier …" || conn != "◌ connecting…" {
		t.Errorf("loading: %q / %q", who, conn)
	}
}

// The badges (DEMO, READONLY) say what the keys will do: on a narrow
// screen the account or endpoint is cut for them, never the badges.
func TestHeaderBadgesSurviveANarrowScreen(t *testing.T) {
	for _, endpoint := range []string{"", "https://a-very-long-server-name-of-some-organisation.example-organisation.com/mcp"} {
		c := fixture(60)
		c.ReadOnly, c.Profile = true, "demo"
		for _, w := range []int{60, 80, 100} {
			who, _ := view(t, c, w, State{Demo: endpoint == "", Endpoint: endpoint})
			wants := []string{"READONLY", "tier Pro"}
			if endpoint == "" {
				wants = append(wants, "DEMO")
			}
			for _, want := range wants {
				if !strings.Contains(who, want) {
					t.Errorf("%d, %s: %q lacks %q", w, endpoint, who, want)
				}
			}
		}
	}
}

// A long get_subscription error does not push the profile and the tier off
// a 60-column header: they come first, the error is cut to what is left.
func TestHeaderKeepsProfileAndTierBeforeAnError(t *testing.T) {
	c := fixture(60)
	c.Snap = state.New(state.Config{})
	c.Snap.ApplyError(state.ListSubscription, t0, &api.Error{Code: api.Internal,
		Message: "internal error: get_subscription panicked: runtime error: invalid memory address or nil pointer dereference"})
	c.Profile = "work"
	who, _ := view(t, c, 60, State{Endpoint: "https://a-very-long-server-name.example-organisation.com/mcp"})
	if !strings.HasPrefix(who, "colabdash · profile work · tier unknown (retrying: INTERN") {
		t.Errorf("header line: %q", who)
	}
	if !strings.HasSuffix(who, "…)") {
		t.Errorf("the reason is not cut to the line: %q", who)
	}
}

// A stale list says since when, when it is retried, what to check for a
// credentials error, and why (cut last); never reached: not connected.
func TestHeaderStale(t *testing.T) {
	c := fixture(160)
	c.Snap.ApplyError(state.ListRuntimes, t0, &api.Error{Code: api.Unavailable, HTTPStatus: 503, Message: "backend unavailable"})
	_, conn := view(t, c, 160, State{NextRefresh: t0.Add(30 * time.Second)})
	for _, want := range []string{"▲ STALE · updated 5s ago", "retry in 30s", "refresh failing: ", "UNAVAILABLE", "backend unavailable"} {
		if !strings.Contains(conn, want) {
			t.Errorf("stale line %q lacks %q", conn, want)
		}
	}
	if strings.Contains(conn, "credentials") {
		t.Errorf("a server error sends the user to the credentials: %q", conn)
	}
	c.Snap = state.New(state.Config{})
	c.Snap.ApplyError(state.ListRuntimes, t0, &api.Error{Code: api.PermissionDenied, HTTPStatus: 403, Message: "caller lacks permission " + strings.Repeat("x", 200)})
	_, conn = view(t, c, 120, State{NextRefresh: t0.Add(-time.Second)})
	if !strings.HasPrefix(conn, "✕ not connected · check your Google credentials · refresh failing: PERMISSION_DENIED") || !strings.HasSuffix(conn, "…") {
		t.Errorf("never connected, auth error: %q", conn)
	}
	if strings.Contains(conn, "retry in") {
		t.Errorf("a retry already due is counted down: %q", conn)
	}
	c.Snap.ApplyError(state.ListRuntimes, t0, errors.New("dial tcp: \x1b]0;pwned\x07 refused"))
	if _, conn = view(t, c, 80, State{}); strings.ContainsAny(conn, "\x1b\x07") {
		t.Errorf("a control reached the header: %q", conn)
	}
}

// The server gets the room the profile, the tier and the badges leave:
// shown whole when it fits exactly, cut with "…" when at least 8 cells
// are left, and left out when fewer are (never the badges).
func TestHeaderCutsTheServerToTheRoomLeft(t *testing.T) {
	c := fixture(200)
	c.Profile, c.ReadOnly = "work", true
	bare, _ := view(t, c, 200, State{}) // no server: the profile, the tier, the badge
	if !strings.HasSuffix(bare, "READONLY ") {
		t.Fatalf("no server: %q", bare)
	}
	withServer := func(server string) string {
		return strings.Replace(bare, "tier Pro", "tier Pro"+server, 1)
	}
	w0 := len([]rune(bare))
	for _, tc := range []struct {
		endpoint string
		w        int
		want     string
	}{
		{"https://ab/mcp", w0 + 5, withServer(" · ab")},                                      // exactly the room left
		{"https://colab.googleapis.com/mcp", w0 + 8, withServer(" · cola…")},                 // cut to 8 cells
		{"https://colab.googleapis.com/mcp", w0 + 7, bare},                                   // too little room
		{"https://colab.googleapis.com/mcp", w0 + 3, bare},                                   // far too little
		{"https://colab.googleapis.com/mcp", w0 + 23, withServer(" · colab.googleapis.com")}, // whole
	} {
		c.Layout.W = tc.w
		if who, _ := view(t, c, tc.w, State{Endpoint: tc.endpoint}); who != tc.want {
			t.Errorf("%s in %d cells: %q, want %q", tc.endpoint, tc.w, who, tc.want)
		}
	}
}

// While the tier is unknown the reason gets the room the badges leave
// (they are never cut), and the server still shows when the whole line
// fits, however exactly.
func TestHeaderRetryReasonLeavesTheBadges(t *testing.T) {
	c := fixture(200)
	c.Snap = state.New(state.Config{})
	c.Snap.ApplyError(state.ListSubscription, t0, errors.New("connection reset by the peer while reading the reply"))
	c.Profile, c.ReadOnly = "work", true
	st := State{Endpoint: "https://ab/mcp", Demo: false}
	full, _ := view(t, c, 200, st)
	if !strings.Contains(full, "tier unknown (retrying: connection reset by the peer while reading the reply) · ab") || !strings.HasSuffix(full, "READONLY ") {
		t.Fatalf("wide: %q", full)
	}
	w := len([]rune(full))
	if who, _ := view(t, c, w, st); who != full {
		t.Errorf("exactly %d cells: %q, want %q", w, who, full)
	}
	who, _ := view(t, c, 75, st)
	if !strings.HasSuffix(who, "…) READONLY ") && !strings.HasSuffix(who, "…)  READONLY ") {
		t.Errorf("75 cells: the reason is not cut before the badge: %q", who)
	}
	if strings.Contains(who, "· ab") {
		t.Errorf("75 cells: the server shows beside a cut reason: %q", who)
	}
}

// A retry that is due now is not counted down.
func TestHeaderNoCountdownForARetryDueNow(t *testing.T) {
	c := fixture(160)
	c.Snap.ApplyError(state.ListRuntimes, t0, &api.Error{Code: api.Unavailable, HTTPStatus: 503, Message: "backend unavailable"})
	if _, conn := view(t, c, 160, State{NextRefresh: c.Now()}); strings.Contains(conn, "retry in") {
		t.Errorf("a retry due now is counted down: %q", conn)
	}
	if _, conn := view(t, c, 160, State{NextRefresh: c.Now().Add(time.Second)}); !strings.Contains(conn, "retry in 1s") {
		t.Errorf("a retry due in a second: %q", conn)
	}
}

// On a screen too narrow for a reason, "(retrying)" shows when it fits
// beside the badges and is left out when it does not: the badges are
// never cut for it.
func TestHeaderRetryingNeverCutsTheBadges(t *testing.T) {
	c := fixture(60)
	c.Snap = state.New(state.Config{})
	c.Snap.ApplyError(state.ListSubscription, t0, errors.New("connection reset"))
	c.Profile, c.ReadOnly = "work", true
	bare, _ := view(t, c, 200, State{}) // the reason whole
	bare = bare[:strings.Index(bare, " (retrying")] + bare[strings.Index(bare, ")")+1:]
	w := len([]rune(bare)) + len(" (retrying)")
	if who, _ := view(t, c, w, State{}); who != strings.Replace(bare, "tier unknown", "tier unknown (retrying)", 1) {
		t.Errorf("%d cells: %q", w, who)
	}
	if who, _ := view(t, c, w-1, State{}); who != bare {
		t.Errorf("%d cells: %q, want %q", w-1, who, bare)
	}
}
