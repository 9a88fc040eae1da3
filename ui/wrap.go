package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// nbHyphen stands in for "-" while wrapping: ansi's wrappers always break
// after a hyphen, which splits ids, URLs and flags.
const nbHyphen = "\u2011"

// wrapText wraps s (which may hold ANSI styles) into lines of at most w
// cells, at spaces only; a word longer than w is broken. Unlike ansi.Wrap
// it never breaks at a hyphen, so colabdash-22211b87,
// https://8080-m-s-rt-abc.prod.colab.dev or --request-id stay whole.
func wrapText(s string, w int) string {
	if strings.Contains(s, nbHyphen) { // cannot stand in: wrap as ansi does
		return ansi.Wrap(s, w, "")
	}
	return strings.ReplaceAll(ansi.Wrap(strings.ReplaceAll(s, "-", nbHyphen), w, ""), nbHyphen, "-")
}
