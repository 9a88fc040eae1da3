package theme

import (
	"bytes"
	"image/color"
	"regexp"
	"sync"

	"github.com/charmbracelet/x/ansi"
)

// backgroundQuery is what DetectTheme writes to the terminal: OSC 11 (the
// background colour), then a cursor-position request (DSR 6), which every
// terminal answers, so an answer to the second without one to the first
// means "no background colour to be had" without waiting out a timeout.
const backgroundQuery = ansi.RequestBackgroundColor + ansi.RequestCursorPositionReport

// cursorReport matches a terminal's answer to the cursor-position request.
var cursorReport = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[[0-9]+;[0-9]+R`) })

// oscBackground matches an answer to OSC 11: the colour spec (e.g.
// rgb:1e1e/1e1e/1e1e) up to BEL or ST.
var oscBackground = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\]11;([^\x07\x1b]*)(?:\x07|\x1b\\)`) })

// answered reports whether reply holds the cursor-position answer, the
// last thing a terminal sends back to backgroundQuery.
func answered(reply []byte) bool { return cursorReport().Match(reply) }

// parseBackground reads the terminal's reply to backgroundQuery: dark
// reports an HSL lightness under one half; ok is false when the reply
// holds no readable OSC 11 answer.
func parseBackground(reply []byte) (dark, ok bool) {
	m := oscBackground().FindSubmatch(reply)
	if m == nil {
		return false, false
	}
	c := ansi.XParseColor(string(bytes.TrimSpace(m[1])))
	if c == nil {
		return false, false
	}
	return lightness(c) < 0.5, true
}

// lightness is c's HSL lightness in [0, 1]: the mean of its largest and
// smallest channel.
func lightness(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	hi, lo := max(r, g, b), min(r, g, b)
	return (float64(hi) + float64(lo)) / 2 / 0xffff
}
