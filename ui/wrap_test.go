package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/ui/theme"
)

// The console's stop dialog names the session whole (it was split at its
// hyphen: "colabdash-" / "22211b87").
func TestDialogKeepsTheSessionIDWhole(t *testing.T) {
	d := newDialog(dlgConfirm, time.Unix(0, 0), "Stop the running code?", intent{},
		"Colab cannot interrupt code: stopping it closes session colabdash-22211b87 (delete_session).")
	box := strings.Join(d.lines(theme.New(true, theme.Dark), 100, time.Unix(0, 0)), "\n")
	mustContain(t, box, "colabdash-22211b87")
}
