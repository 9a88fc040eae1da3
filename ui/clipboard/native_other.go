//go:build !(linux || freebsd || netbsd || openbsd || solaris || dragonfly)

package clipboard

import "github.com/atotto/clipboard"

// nativeCopy puts text on the system's clipboard through
// github.com/atotto/clipboard (pbcopy on macOS, the clipboard API on
// Windows), whose package initialisation searches nothing there.
func nativeCopy(text string) error { return clipboard.WriteAll(text) }
