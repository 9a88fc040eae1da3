package details

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter/jobs"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/common/commontest"
)

func fixture(expire time.Time) (*common.Context, *state.Runtime) {
	spec := api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4", Shape: api.ShapeStandard}
	c := commontest.Context(100, 30, commontest.Runtime("r-alpha", spec, expire))
	return c, c.Snap.Runtime("runtimes/r-alpha")
}

func TestTokenIsMaskedUntilRevealed(t *testing.T) {
	c, r := fixture(commontest.T0.Add(48 * time.Minute))
	v := strings.Join(View(c, r, commontest.T0, 60, 7), "\n")
	if strings.Contains(v, "tok-r-alpha") || !strings.Contains(v, "in 48m · OK") || !strings.Contains(v, "GPU · T4 · STANDARD") {
		t.Fatalf("details:\n%s", v)
	}
	c.Activity.Revealed = r.Name
	if v := strings.Join(View(c, r, commontest.T0, 60, 7), "\n"); !strings.Contains(v, "tok-r-alpha (revealed; v hides)") {
		t.Fatalf("revealed details:\n%s", v)
	}
}

// A short pane keeps the expiry and drops the token line first.
func TestShortPaneKeepsTheMostUsefulLines(t *testing.T) {
	c, r := fixture(commontest.T0.Add(48 * time.Minute))
	lines := View(c, r, commontest.T0, 50, 3)
	commontest.AssertSize(t, "details", lines, 50, 3)
	if v := strings.Join(lines, "\n"); !strings.Contains(v, "expires") || strings.Contains(v, "token") {
		t.Fatalf("3-line details:\n%s", v)
	}
}

func TestExpiredTokenSaysWhereItsRenewalStands(t *testing.T) {
	c, r := fixture(commontest.T0.Add(-time.Minute))
	if w := RenewWord(c, r, commontest.T0); w != "renews in 30s" {
		t.Errorf("idle renewal: %q", w)
	}
	c.Activity.Renewals = commontest.Renewals{Renewing: map[string]bool{r.Name: true}}
	if v := strings.Join(View(c, r, commontest.T0, 80, 7), "\n"); !strings.Contains(v, "EXPIRED, renewing…") {
		t.Errorf("in flight:\n%s", v)
	}
	c.Activity.Renewals = commontest.Renewals{Manual: true}
	if w := RenewWord(c, r, commontest.T0); !strings.HasPrefix(w, "auto-renew off") {
		t.Errorf("auto-renew off: %q", w)
	}
	c.Activity.Renewals = commontest.Renewals{}
	r.RenewErr = errors.New("deadline exceeded")
	if v := strings.Join(View(c, r, commontest.T0, 100, 8), "\n"); !strings.Contains(v, "failed, state unknown, retry in 30s: deadline exceeded") {
		t.Errorf("failed renewal:\n%s", v)
	}
}

// A healthy token's details say when it renews, from the
// renewal plan (Activity.Renewals), counting down with the clock; under
// way it says renewing…, with auto-renew off it says so; a gone runtime
// or a failed renewal says nothing of the sort.
func TestHealthyTokenSaysWhenItRenews(t *testing.T) {
	c, r := fixture(commontest.T0.Add(48 * time.Minute))
	c.Activity.Renewals = commontest.Renewals{Next: 43*time.Minute + 5*time.Second}
	v := strings.Join(View(c, r, commontest.T0, 60, 8), "\n")
	if !strings.Contains(v, "renew    renews in 43m5s") || !strings.Contains(v, "in 48m · OK") {
		t.Fatalf("healthy token:\n%s", v)
	}
	// A pane of 3 lines: the expiry and the renewal stay.
	if v := strings.Join(View(c, r, commontest.T0, 60, 3), "\n"); !strings.Contains(v, "expires") || !strings.Contains(v, "renews in 43m5s") {
		t.Fatalf("short pane:\n%s", v)
	}
	c.Activity.Renewals = commontest.Renewals{Renewing: map[string]bool{r.Name: true}}
	if v := strings.Join(View(c, r, commontest.T0, 60, 8), "\n"); !strings.Contains(v, "renew    renewing…") {
		t.Fatalf("in flight:\n%s", v)
	}
	c.Activity.Renewals = commontest.Renewals{Manual: true}
	if v := strings.Join(View(c, r, commontest.T0, 60, 8), "\n"); !strings.Contains(v, "renew    auto-renew off (r refreshes)") {
		t.Fatalf("auto-renew off:\n%s", v)
	}
	c.Activity.Renewals = commontest.Renewals{}
	r.RenewErr = errors.New("deadline exceeded")
	if v := strings.Join(View(c, r, commontest.T0, 100, 8), "\n"); strings.Contains(v, "renews in") {
		t.Fatalf("a failed renewal also says renews in:\n%s", v)
	}
	r.RenewErr = nil
	r.GoneAt, r.GoneReason, r.LastSeen = commontest.T0, "NOT_FOUND", commontest.T0
	if v := strings.Join(View(c, r, commontest.T0, 100, 8), "\n"); strings.Contains(v, "renews in") || !strings.Contains(v, "GONE") {
		t.Fatalf("a gone runtime says renews in:\n%s", v)
	}
}

// A runtime without an accelerator shows its spec as the table does,
// without the word NONE.
func TestSpecLineLeavesOutNoAccelerator(t *testing.T) {
	for _, acc := range []string{api.AcceleratorNone, ""} {
		spec := api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: acc, Shape: api.ShapeStandard}
		c := commontest.Context(100, 30, commontest.Runtime("r-cpu", spec, commontest.T0.Add(time.Hour)))
		v := strings.Join(View(c, c.Snap.Runtime("runtimes/r-cpu"), commontest.T0, 60, 7), "\n")
		if !strings.Contains(v, "spec     CPU · STANDARD") || strings.Contains(v, "NONE") {
			t.Errorf("accelerator %q:\n%s", acc, v)
		}
	}
}

// The revealed token outranks every other line: on a pane of two lines
// below the title it stays with the expiry, and on a pane of one it is
// what stays (the view is drawn, not stuck choosing).
func TestRevealedTokenStaysOnTheShortestPane(t *testing.T) {
	c, r := fixture(commontest.T0.Add(48 * time.Minute))
	c.Activity.Revealed = r.Name
	v := strings.Join(View(c, r, commontest.T0, 60, 3), "\n")
	if !strings.Contains(v, "tok-r-alpha (revealed") || !strings.Contains(v, "expires") || strings.Contains(v, "renew") {
		t.Fatalf("3-line details with the token revealed:\n%s", v)
	}
	done := make(chan []string, 1)
	go func() { done <- View(c, r, commontest.T0, 60, 2) }()
	select {
	case lines := <-done:
		commontest.AssertSize(t, "details", lines, 60, 2)
		if !strings.Contains(lines[1], "tok-r-alpha (revealed") {
			t.Fatalf("2-line details with the token revealed:\n%s", strings.Join(lines, "\n"))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the details of a 2-line pane were never drawn")
	}
}

// A renewal the server answered without a later expiry says so, with the
// retry, on the expired token's line and on its own.
func TestRenewalNotExtendedSaysSo(t *testing.T) {
	c, r := fixture(commontest.T0.Add(-time.Minute))
	r.RenewErr = state.ErrNotExtended
	v := strings.Join(View(c, r, commontest.T0, 120, 8), "\n")
	if !strings.Contains(v, "EXPIRED, renewal did not extend the token, retry in 30s") || !strings.Contains(v, "renew    renewal did not extend the token, retry in 30s") {
		t.Errorf("not extended:\n%s", v)
	}
}

// jobsOf is a common.Jobs with js for every runtime.
type jobsOf []common.Job

func (j jobsOf) Jobs(string) ([]common.Job, bool) { return j, true }
func (j jobsOf) ByRun(string) bool                { return false }

// The job rows line up: the "│" before each job's last line is in one
// column whatever the state words and durations are.
func TestJobRowsAlignTheirLastLines(t *testing.T) {
	c, r := fixture(commontest.T0.Add(48 * time.Minute))
	t0 := commontest.T0
	c.Jobs = jobsOf{
		{Record: jobs.Record{Spec: jobs.Spec{ID: "train-a2rtdx"}, Modified: t0,
			Status: &jobs.Status{Started: t0.Add(-106 * time.Second), Heartbeat: t0}}, Last: "epoch 3/10"},
		{Record: jobs.Record{Spec: jobs.Spec{ID: "prep-9xk"}, Modified: t0,
			Status: &jobs.Status{Started: t0.Add(-10 * time.Minute), Ended: t0.Add(-8 * time.Minute), ExitCode: 0}}, Last: "done"},
	}
	lines := View(c, r, t0, 100, 30)
	cols := map[int]bool{}
	var rows []string
	for _, ln := range lines {
		ln = ansi.Strip(ln)
		if i := strings.Index(ln, " │ "); i >= 0 && (strings.Contains(ln, "train-") || strings.Contains(ln, "prep-")) {
			cols[ansi.StringWidth(ln[:i])] = true
			rows = append(rows, ln)
		}
	}
	if len(rows) != 2 || len(cols) != 1 {
		t.Fatalf("job rows with their last lines not aligned:\n%s", strings.Join(rows, "\n"))
	}
}
