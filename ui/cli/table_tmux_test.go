package cli

import (
	"regexp"
	"strings"
	"testing"
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
	bin := binary(t)
	home := isolate(t)
	p := startTmux(t, 100, 30, []string{"HOME=" + home, "XDG_STATE_HOME=" + home + "/state", "GOOGLE_APPLICATION_CREDENTIALS=",
		"NO_COLOR=1"}, bin, "--demo")
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
