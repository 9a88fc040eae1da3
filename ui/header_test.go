package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/colabfake"
)

// The badges (DEMO, READONLY) say what the keys will do: on a narrow
// screen the account or endpoint is cut for them, never the badges.
func TestHeaderBadgesSurviveANarrowScreen(t *testing.T) {
	for _, tc := range []struct {
		name    string
		account string
	}{
		{"embedded emulator", "embedded emulator"},
		{"long account", "someone.with.a.very.long.name@example-organisation.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, m := emuModel(t, colabfake.Options{}, func(o *Options) {
				o.Demo, o.ReadOnly, o.Profile, o.Account = true, true, "demo", tc.account
			})
			for _, w := range []int{60, 80, 100} {
				m, _ = update(m, tea.WindowSizeMsg{Width: w, Height: 24})
				head := strings.SplitN(m.View(), "\n", 2)[0]
				mustContain(t, head, "DEMO", "READONLY", "tier Pro")
			}
		})
	}
}
