package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The end-to-end path in --demo: create a runtime, open a session,
// run print(1), delete the runtime — each outcome read from the screen.
// Dialogs ignore keys for a moment after they open; the test waits until
// one takes keys (waitDialog) instead of sleeping.
func TestE2EActionsDemo(t *testing.T) {
	p := startDemo(t, 120, 40, "TERM=xterm-256color")
	state := filepath.Join(os.Getenv("HOME"), "state") // startDemo's
	p.waitText("rt-t4demo7k2p")
	// NO_COLOR=1: no colour and no other attribute in any cell
	// (TestDashboardInTmux is the control: without it there is colour).
	if c := p.coloured(); c != "" {
		t.Errorf("with NO_COLOR=1 the screen has escape codes: %q", c)
	}

	// Create: CPU (one accelerator: skipped), STANDARD, latest, id e2e-rt.
	p.keys("n")
	p.waitDialog("New runtime: variant")
	p.keys("Enter") // CPU
	p.waitDialog("New runtime: shape")
	p.keys("Enter") // STANDARD
	p.waitDialog("runtime version")
	p.keys("Enter")
	p.waitDialog("runtime id")
	p.text("e2e-rt")
	p.waitText("✓ valid")
	p.keys("Enter")
	// Wait on what stays on screen, not on the create row (it lives as
	// long as the 2 s demo create) or a status line (5 s).
	p.waitFor("the created runtime's row", waitTimeout, e2eRow.MatchString)
	// Demo creates are remembered in memory only: the user's state dir is
	// left alone, so a demo spec never becomes the real account's N.
	if b, err := os.ReadFile(filepath.Join(state, "colabdash", "last-spec.json")); err == nil {
		t.Fatalf("demo mode wrote the last spec to the state dir: %q", b)
	}

	// Open a session on it.
	p.keys("o")
	p.waitDialog("Open a session on e2e-rt")
	p.text("e2e-sess")
	p.keys("Enter")
	p.waitFor("the session in the sessions panel", waitTimeout, func(s string) bool {
		return strings.Contains(s, "e2e-sess") && !strings.Contains(s, "Open a session on")
	})

	// Run print(1).
	p.keys("e")
	p.waitText("RUN CODE · e2e-rt")
	p.text("print(1)")
	p.keys("Enter")
	s := p.waitText("✓ done")
	if !strings.Contains(s, "In [e2e-sess]: print(1)") || !strings.Contains(s, "\n  1") {
		t.Fatalf("no output 1:\n%s", s)
	}
	p.keys("Escape")
	p.waitText("RUNTIMES")

	// Delete it: Enter cancels, y deletes.
	p.keys("d")
	p.waitDialog("Delete runtime e2e-rt?")
	p.keys("Enter")
	p.waitFor("the dialog gone and the runtime kept", waitTimeout, func(s string) bool {
		return !strings.Contains(s, "Delete runtime e2e-rt?") && e2eRow.MatchString(s)
	})
	p.keys("d") // asks about e2e-rt again: a cancelled delete that deleted fails here
	p.waitDialog("Delete runtime e2e-rt?")
	p.keys("y")
	p.waitFor("the runtime's row gone", waitTimeout, func(s string) bool {
		return !strings.Contains(s, "Delete runtime e2e-rt?") && !e2eListed.MatchString(s)
	})

	p.keys("q")
	p.waitExit()
}

// A long run in the demo can be left with esc and
// stopped with ctrl+c, which never quits. ctrl+c interrupts
// the kernel through the runtime proxy (the run ends with
// KeyboardInterrupt, the session stays); the stop offer (delete_session)
// is the fallback when that fails (ui's TestConsoleCtrlCStopsInsteadOfQuitting).
func TestE2ELongRunStopsWithoutQuitting(t *testing.T) {
	p := startDemo(t, 120, 40)
	p.waitText("rt-t4demo7k2p")
	p.keys("Tab", "e") // the first runtime's first session
	p.waitText("RUN CODE")
	p.text("print('start')")
	p.keys("C-j")
	p.text("time.sleep(600)")
	p.keys("Enter")
	p.waitText("running…")
	p.keys("Escape")
	p.waitText("code running")
	p.keys("e")
	p.waitText("running…")
	p.keys("C-c")
	p.waitText("interrupted the kernel")
	p.waitText("KeyboardInterrupt")
	if !p.alive() {
		t.Fatal("ctrl+c quit the dashboard")
	}
	p.keys("Escape")
	p.waitGone("RUN CODE")
	p.keys("q")
	p.waitExit()
}

// e2eRow is the created runtime's row in the table once it exists (the
// create row in progress shows "creating…" instead of a countdown);
// e2eListed is any row of it.
var (
	e2eRow    = regexp.MustCompile(`e2e-rt .*CPU/STANDARD +latest +\d+ +(\d+[hms])+ OK`)
	e2eListed = regexp.MustCompile(`e2e-rt .*CPU/STANDARD`)
)

// tableRow is a runtimes-table row on screen: the cursor, marker and mark
// cells, then the runtime id.
var tableRow = regexp.MustCompile(`(?m)^[› ][ !+]([ *])(rt-[a-z0-9-]+) `)

// tableOrder is the runtime ids of the table's rows in screen order, each
// with "*" in front when marked.
func tableOrder(screen string) string {
	var out []string
	for _, m := range tableRow.FindAllStringSubmatch(screen, -1) {
		out = append(out, strings.TrimSpace(m[1])+m[2])
	}
	return strings.Join(out, " ")
}

// End to end in --demo without colour: a sort key per column
// and the reverse key, the header's arrow saying which; space marks rows
// ("*", readable without colour), d asks one y-only question listing
// every marked runtime, y deletes exactly those.
func TestE2EMarksBulkDeleteAndSort(t *testing.T) {
	p := startDemo(t, 100, 30)
	p.waitText("rt-v6edemo2mw")

	// T sorts by the token's expiry (the T4's comes first), O reverses.
	p.keys("T")
	p.waitFor("the table sorted by expiry", waitTimeout, func(s string) bool {
		return strings.Contains(s, "TOKEN↑") && strings.HasPrefix(tableOrder(s), "rt-t4demo7k2p ")
	})
	p.keys("O")
	p.waitFor("the order reversed", waitTimeout, func(s string) bool {
		return strings.Contains(s, "TOKEN↓") && strings.HasSuffix(tableOrder(s), " rt-t4demo7k2p")
	})
	p.keys("A")
	p.waitFor("the table sorted by name", waitTimeout, func(s string) bool {
		return strings.Contains(s, "NAME↑") && tableOrder(s) == "rt-cpudemo4qx rt-t4demo7k2p rt-v6edemo2mw"
	})

	// Mark the first two rows, then one question for both.
	p.keys("g", "Space", "Space")
	p.waitFor("two rows marked", waitTimeout, func(s string) bool {
		return strings.Contains(s, "RUNTIMES 3 · 2 marked") && tableOrder(s) == "*rt-cpudemo4qx *rt-t4demo7k2p rt-v6edemo2mw"
	})
	p.keys("d")
	s := p.waitDialog("Delete 2 marked runtimes?")
	for _, want := range []string{"rt-cpudemo4qx (CPU", "rt-t4demo7k2p (GPU"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the question does not list %q:\n%s", want, s)
		}
	}
	p.keys("y")
	p.waitFor("both marked runtimes deleted, the other kept", waitTimeout, func(s string) bool {
		return tableOrder(s) == "rt-v6edemo2mw" && strings.Contains(s, "RUNTIMES 1 · sort") && !strings.Contains(s, "Delete 2")
	})
	p.keys("q")
	p.waitExit()
}
