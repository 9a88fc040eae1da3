package theme

import (
	"fmt"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// The values of the global --color flag: ColorAuto follows the terminal
// and the environment (ColorOn), ColorAlways and ColorNever override both.
const (
	ColorAuto   = "auto"
	ColorAlways = "always"
	ColorNever  = "never"
)

// CheckColorMode returns nil for "" (not given), auto, always and never,
// else a one-line error naming the accepted values.
func CheckColorMode(mode string) error {
	switch mode {
	case "", ColorAuto, ColorAlways, ColorNever:
		return nil
	}
	return fmt.Errorf("--color %q is not accepted (accepted: auto, always, never)", mode)
}

// ColorOn decides whether output to a stream draws colour, by the rules gh
// documents: mode "always" or "never" (the --color flag) wins over
// everything; otherwise CLICOLOR_FORCE set to anything but "" or "0"
// forces colour even on a pipe; otherwise NO_COLOR set to any non-empty
// value (https://no-color.org) or CLICOLOR=0 turns it off; otherwise the
// stream has colour when tty (it is a terminal). mode "" is auto. getenv
// is os.Getenv outside tests.
func ColorOn(mode string, tty bool, getenv func(string) string) bool {
	switch mode {
	case ColorAlways:
		return true
	case ColorNever:
		return false
	}
	if f := getenv("CLICOLOR_FORCE"); f != "" && f != "0" {
		return true
	}
	if getenv("NO_COLOR") != "" || getenv("CLICOLOR") == "0" {
		return false
	}
	return tty
}

// ConfigureColor makes the process-wide Lip Gloss renderer emit no colour
// or style escape codes at all when noColor is true (termenv.Ascii). Call
// it once before building models, with !ColorOn(...), and pass the same
// value to the models.
func ConfigureColor(noColor bool) {
	if noColor {
		lipgloss.SetColorProfile(termenv.Ascii)
	}
}
