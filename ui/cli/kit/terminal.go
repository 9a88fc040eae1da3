package kit

import (
	"os"

	"github.com/charmbracelet/x/term"
)

// IsTerminal reports whether f is a terminal (TTY); false for nil.
func IsTerminal(f *os.File) bool { return f != nil && term.IsTerminal(f.Fd()) }
