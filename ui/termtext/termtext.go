// Package termtext renders untrusted text (server replies, files, the
// environment, pastes) for a terminal. It is the one choke point every
// terminal writer of colabdash goes through: nothing from outside ever
// reaches the terminal as a control sequence.
//
// What is untrusted and what becomes of it:
//
//   - C0 controls (U+0000–U+001F) except the layout ones, and DEL (U+007F),
//     are shown as their Control Pictures (ESC as "␛", BEL as "␇", DEL as
//     "␡"), so an escape sequence is visible but inert.
//   - C1 controls (U+0080–U+009F, including the one-character CSI U+009B)
//     and invalid UTF-8 become U+FFFD "�".
//   - Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069)
//     are removed, so text cannot be shown reordered.
//
// The package depends on nothing in colabdash, so any UI layout can use it.
package termtext

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Ellipsis ends text that Cut shortened.
const Ellipsis = "…"

// tabStop is the tab width of Block.
const tabStop = 8

// Line renders s for one terminal line: tabs, newlines, carriage returns,
// vertical tabs, form feeds, NEL (U+0085) and the Unicode line and
// paragraph separators become a space; every other control is made
// visible or removed as the package doc says. Plain printable text is
// returned unchanged without allocating.
func Line(s string) string {
	if plain(s) {
		return s
	}
	return render(s, false)
}

// Block renders s for several terminal lines: "\n" is kept, "\r\n" and a
// lone "\r" become "\n" (so no line can overwrite another), a tab becomes
// the spaces up to the next multiple of 8 columns (counted in runes), and
// every other control is made visible or removed as the package doc says.
func Block(s string) string {
	if plain(s) {
		return s
	}
	return render(s, true)
}

// Cut renders s with Line and cuts it to at most w display cells (wide
// and combining characters measured as the terminal shows them), ending
// in "…" when cut. w ≤ 0 gives "".
func Cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = Line(s)
	if len(s) <= w && plain(s) { // ASCII: bytes are cells
		return s
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, Ellipsis)
}

// Width is the display width of s in terminal cells, ignoring SGR and
// other escape sequences.
func Width(s string) int { return ansi.StringWidth(s) }

// Input cleans typed or pasted text (a bracketed paste arrives whole) for
// an input field: escape sequences are removed whole, printable text is
// kept, and so are tabs and newlines when multiline is true ("\r\n" and a
// lone "\r", which terminals send for Enter inside a paste, become "\n").
// In a one-line field (multiline false) tabs become a space and newlines
// and carriage returns are dropped. Every other control (C0, DEL, C1,
// bidirectional overrides and isolates) is dropped and invalid UTF-8
// becomes U+FFFD. For example a paste of "a1", ESC "]0;T" BEL, CR, "00"
// gives "a100" in a one-line field and "a1\n00" in a multi-line one.
func Input(s string, multiline bool) string {
	if plain(s) {
		return s
	}
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansi.Strip(strings.ToValidUTF8(s, "\uFFFD"))
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\r':
			if multiline {
				b.WriteByte('\n')
				if i < len(s) && s[i] == '\n' {
					i++
				}
			}
		case r == '\n':
			if multiline {
				b.WriteByte('\n')
			}
		case r == '\t':
			if multiline {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
		case isControl(r) || isBidi(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plain reports whether s is printable ASCII only (nothing to do).
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// isControl reports C0, DEL and C1 controls.
func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r <= 0x9f) }

// isBidi reports the bidirectional embeddings, overrides and isolates
// (LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI).
func isBidi(r rune) bool { return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) }

func render(s string, multiline bool) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	col := 0 // runes since the last newline, for tab stops
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
			col++
		case r == '\r' && multiline:
			if i < len(s) && s[i] == '\n' {
				i++
			}
			b.WriteByte('\n')
			col = 0
		case r == '\n' && multiline:
			b.WriteByte('\n')
			col = 0
		case r == '\t' && multiline:
			pad := tabStop - col%tabStop
			b.WriteString(strings.Repeat(" ", pad))
			col += pad
		case r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0x2028 || r == 0x2029:
			if multiline && r != '\t' {
				b.WriteByte('\n')
				col = 0
				continue
			}
			b.WriteByte(' ')
			col++
		case r < 0x20:
			b.WriteRune(0x2400 + r) // Control Pictures: ␀ … ␟
			col++
		case r == 0x7f:
			b.WriteRune('\u2421') // ␡
			col++
		case r <= 0x9f && r >= 0x80:
			b.WriteRune(utf8.RuneError)
			col++
		case isBidi(r):
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

// Frame is the last line of defence for a whole rendered frame (a View's
// output): SGR sequences (ESC "[" digits ";" ":" "m", the only sequences
// Lip Gloss emits) and "\n" survive; every other escape sequence (CSI,
// OSC, DCS, APC, PM, SOS and two-byte escapes) is removed whole, as is
// every other C0 or C1 control, DEL and every bidirectional override or
// isolate; invalid UTF-8 becomes U+FFFD. A frame without any of those is
// returned unchanged without allocating.
func Frame(s string) string {
	i := firstSuspect(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\n' || (c >= 0x20 && c < 0x7f):
			b.WriteByte(c)
			i++
		case c == 0x1b:
			n, keep := escapeLen(s[i:])
			if keep {
				b.WriteString(s[i : i+n])
			}
			i += n
		case c < 0x80: // other C0 and DEL
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			i += n
			switch {
			case r == utf8.RuneError && n == 1:
				b.WriteRune(utf8.RuneError)
			case r <= 0x9f || isBidi(r):
			default:
				b.WriteString(s[i-n : i])
			}
		}
	}
	return b.String()
}

// firstSuspect is the index of the first byte of s that Frame must look
// at more closely (an escape that is not SGR, a control, a C1 or bidi
// control, invalid UTF-8), or -1.
func firstSuspect(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n' || (c >= 0x20 && c < 0x7f):
			i++
		case c == 0x1b:
			n, keep := escapeLen(s[i:])
			if !keep {
				return i
			}
			i += n
		case c < 0x80:
			return i
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && n == 1) || r <= 0x9f || isBidi(r) {
				return i
			}
			i += n
		}
	}
	return -1
}

// escapeLen returns the length of the escape sequence at the start of s
// (s[0] is ESC) and whether it is an SGR sequence to keep. An unterminated
// sequence runs to the end of s.
func escapeLen(s string) (n int, sgr bool) {
	if len(s) < 2 {
		return len(s), false
	}
	switch s[1] {
	case '[': // CSI: parameters 0x30–0x3F, intermediates 0x20–0x2F, final 0x40–0x7E
		onlySGRParams := true
		for j := 2; j < len(s); j++ {
			c := s[j]
			switch {
			case c >= '0' && c <= '9', c == ';', c == ':':
			case c >= 0x20 && c <= 0x3f:
				onlySGRParams = false
			case c >= 0x40 && c <= 0x7e:
				return j + 1, c == 'm' && onlySGRParams
			default: // not part of a CSI: the sequence ends before it
				return j, false
			}
		}
		return len(s), false
	case ']', 'P', 'X', '^', '_': // strings ended by BEL or ST (ESC \)
		for j := 2; j < len(s); j++ {
			switch s[j] {
			case 0x07:
				return j + 1, false
			case 0x1b:
				if j+1 < len(s) && s[j+1] == '\\' {
					return j + 2, false
				}
				return j, false
			}
		}
		return len(s), false
	}
	if s[1] >= 0x20 && s[1] < 0x7f {
		return 2, false
	}
	return 1, false
}

// JSON makes encoded JSON (encoding/json output) safe for a terminal
// without changing what it decodes to: every C1 control (U+0080–U+009F,
// such as the one-character CSI U+009B) and every bidirectional override
// or isolate is written as a \uXXXX escape, which encoding/json leaves
// raw. ASCII controls are already escaped by encoding/json, and these
// runes only occur inside JSON strings, where the escape means the same
// rune. b is returned unchanged (not copied) when there is nothing to do.
func JSON(b []byte) []byte {
	i := 0
	for i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 == 0 {
		i += 8 // eight ASCII bytes at a time
	}
	for i < len(b) && b[i] < 0x80 {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if (r >= 0x80 && r <= 0x9f) || isBidi(r) {
			out = append(out, fmt.Sprintf(`\u%04x`, r)...)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// Output renders program output (execute_code stdout, stderr, results,
// tracebacks) like Block, after removing SGR sequences (a kernel's colours,
// which the transcript does not reproduce). Every other escape sequence is
// made visible by Block, not removed, so nothing the output held is hidden.
func Output(s string) string {
	if plain(s) {
		return s
	}
	if strings.IndexByte(s, 0x1b) >= 0 {
		var b strings.Builder
		b.Grow(len(s))
		for i := 0; i < len(s); {
			j := strings.IndexByte(s[i:], 0x1b)
			if j < 0 {
				b.WriteString(s[i:])
				break
			}
			b.WriteString(s[i : i+j])
			i += j
			if n, sgr := escapeLen(s[i:]); sgr {
				i += n
			} else {
				b.WriteByte(0x1b) // made visible by Block
				i++
			}
		}
		s = b.String()
	}
	return render(s, true)
}
