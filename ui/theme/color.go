package theme

import (
	"os"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// NoColorFromEnv reports whether the NO_COLOR environment variable is set
// to any non-empty value (https://no-color.org: "1", "true" and "yes" all
// count, unlike strconv.ParseBool-based checks).
func NoColorFromEnv() bool { return os.Getenv("NO_COLOR") != "" }

// ConfigureColor makes the process-wide Lip Gloss renderer emit no colour
// or style escape codes at all when noColor is true (termenv.Ascii). Call
// it once before building models, with NoColorFromEnv() or a --no-color
// flag, and pass the same value to the models.
func ConfigureColor(noColor bool) {
	if noColor {
		lipgloss.SetColorProfile(termenv.Ascii)
	}
}
