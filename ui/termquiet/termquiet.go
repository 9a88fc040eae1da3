// Package termquiet keeps the program from asking the terminal anything
// while it loads. Bubble Tea v1's package init asks Lip Gloss for the
// terminal's background, and termenv answers by writing ESC]11;? and ESC[6n
// to a terminal on stdout and waiting up to 5 s for a reply: every
// invocation of the binary, a verb or --help included, paid for a dashboard
// feature. This package's init runs before that one and sets TERM to "dumb"
// (for which termenv asks nothing and falls back to COLORFGBG, else a dark
// background); Settle puts TERM back as it was.
//
// The ordering rests on the Go specification's package initialisation
// order (Go 1.21+): packages initialise in import-path order as soon as
// their imports have, so this package, importing only os, always comes
// before github.com/muesli/termenv and so before Lip Gloss and Bubble Tea.
// Package theme calls Settle from its init, which imports Bubble Tea and
// so runs after Bubble Tea's init. The dashboard asks for the background
// itself, with a short timeout, only when it needs it (theme.DetectTheme).
package termquiet

import "os"

// hushedTERM is what TERM holds between this package's init and Settle:
// termenv sends no status report to a terminal whose TERM starts "dumb".
const hushedTERM = "dumb"

var (
	savedTERM string // TERM as the process got it
	hadTERM   bool   // whether TERM was set at all
	hushed    bool   // init replaced TERM and Settle has not put it back
)

func init() {
	savedTERM, hadTERM = os.LookupEnv("TERM")
	if os.Setenv("TERM", hushedTERM) == nil {
		hushed = true
	}
}

// Settle puts TERM back as the process got it. Call it once the package
// inits that would query the terminal have run (package theme's init
// does); later calls do nothing. Not safe for concurrent use: inits run
// on one goroutine.
func Settle() {
	if !hushed {
		return
	}
	hushed = false
	if hadTERM {
		_ = os.Setenv("TERM", savedTERM)
		return
	}
	_ = os.Unsetenv("TERM")
}
