package cli

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/api"
)

// termBlock renders untrusted text (a server's reply, the output of code
// run on a runtime) for a terminal, keeping its lines: escape sequences
// are removed whole, a CR ending a line or standing alone becomes a
// newline (a lone CR could overwrite what was printed before it), every
// other C0 control but tab, DEL, the C1 controls (U+0080–U+009F) and the
// bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) are
// dropped, and invalid UTF-8 becomes U+FFFD.
//
// It is the verbs' one door to the terminal for such text (issue 9 §1);
// when the product's shared sanitizer lands, this delegates to it.
func termBlock(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = ansi.Strip(s)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r':
			return '\n'
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return -1
		}
		return r
	}, s)
}

// termLine is termBlock folded onto one line (whitespace runs become one
// space), for a table cell or a message; max > 0 cuts it to max runes.
func termLine(s string, max int) string { return api.OneLine(termBlock(s), max) }
