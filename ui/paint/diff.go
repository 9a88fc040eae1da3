package paint

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Terminal sequences the painter writes (ECMA-48 and the DEC private
// modes every terminal colabdash supports knows; one that does not know
// synchronized output ignores its two sequences).
const (
	syncBegin  = "\x1b[?2026h" // hold the screen until syncEnd: no torn frame
	syncEnd    = "\x1b[?2026l"
	eraseRight = "\x1b[K"        // from the cursor to the end of its line
	eraseBelow = "\x1b[J"        // from the cursor to the end of the screen
	clearAll   = "\x1b[H\x1b[2J" // home, then the whole screen
)

// frameLines cuts frame into the lines a w×h screen shows: at most h
// lines (all when h <= 0), none wider than w cells (uncut when w <= 0).
func frameLines(frame string, w, h int) []string {
	lines := strings.Split(frame, "\n")
	if h > 0 && len(lines) > h {
		lines = lines[:h]
	}
	if w > 0 {
		for i, l := range lines {
			if ansi.StringWidth(l) > w {
				lines[i] = ansi.Truncate(l, w, "")
			}
		}
	}
	return lines
}

// diff returns the bytes that turn a screen showing last into one showing
// next on a w-cell-wide screen: each changed line is rewritten in place
// (cursor to its row, the line, the rest of the row erased unless the line
// fills it: erasing at the last column would take its character), rows
// past next's end are erased, and all of it sits between the synchronized
// output marks. full repaints every line on a cleared screen. Nothing
// changed and not full: nil.
func diff(last, next []string, w int, full bool) []byte {
	var b bytes.Buffer
	if full {
		b.WriteString(clearAll)
	}
	for i, l := range next {
		if !full && i < len(last) && last[i] == l {
			continue
		}
		moveTo(&b, i)
		b.WriteString(l)
		if w <= 0 || ansi.StringWidth(l) < w {
			b.WriteString(eraseRight)
		}
	}
	if !full && len(last) > len(next) {
		moveTo(&b, len(next))
		b.WriteString(eraseBelow)
	}
	if b.Len() == 0 {
		return nil
	}
	return append(append([]byte(syncBegin), b.Bytes()...), syncEnd...)
}

// moveTo puts the cursor at the start of row (0-based).
func moveTo(b *bytes.Buffer, row int) {
	b.WriteString("\x1b[")
	b.WriteString(strconv.Itoa(row + 1))
	b.WriteString(";1H")
}
