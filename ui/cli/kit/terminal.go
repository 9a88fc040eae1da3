package kit

import (
	"os"

	"github.com/charmbracelet/x/term"

	"github.com/colabdash/colabdash/ui/theme"
)

// IsTerminal reports whether f is a terminal (TTY); false for nil.
func IsTerminal(f *os.File) bool { return f != nil && term.IsTerminal(f.Fd()) }

// NoColorFromEnv reports whether NO_COLOR is set to a non-empty value
// (https://no-color.org; theme.NoColorFromEnv).
func NoColorFromEnv() bool { return theme.NoColorFromEnv() }
