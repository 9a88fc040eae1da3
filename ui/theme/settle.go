package theme

import (
	"os"

	_ "github.com/charmbracelet/bubbletea" // its init must have run before Settle: see package termquiet
	"github.com/muesli/termenv"

	"github.com/colabdash/colabdash/ui/termquiet"
)

// init ends termquiet's hush: Bubble Tea's init, which this package
// imports and so follows, has asked Lip Gloss for the background while
// TERM said "dumb" (no terminal query; COLORFGBG or dark). termenv's
// default output computed its colour profile then, so it is made anew.
func init() {
	termquiet.Settle()
	termenv.SetDefaultOutput(termenv.NewOutput(os.Stdout))
}
