package theme

import (
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Themes accepted by New and DetectTheme's result.
const (
	Dark  = "dark"
	Light = "light"
)

// DetectTimeout is how long DetectTheme waits for the terminal to answer
// the background-colour query (OSC 11) before assuming a dark background
// (300 ms): some terminals never answer, and one over SSH
// answers a round trip later.
const DetectTimeout = 300 * time.Millisecond

// palette is a theme's colours as ANSI palette indexes ("1" red … "8"
// bright black), so the user's own terminal palette applies. "" means the
// terminal's default foreground.
type palette struct {
	ok, warn, err, unknown, focus string
}

var (
	// darkPalette: yellow warnings and cyan focus read well on black.
	darkPalette = palette{ok: "2", warn: "3", err: "1", unknown: "8", focus: "6"}
	// lightPalette avoids yellow and cyan, which wash out on white:
	// magenta warnings, blue focus, default-colour unknowns.
	lightPalette = palette{ok: "2", warn: "5", err: "1", unknown: "", focus: "4"}
)

func paletteFor(theme string) palette {
	if theme == Light {
		return lightPalette
	}
	return darkPalette
}

// DetectTheme returns "light" or "dark" for the terminal's background
// without stalling start-up. COLORFGBG ("15;0" = light
// text on a dark background) decides when set. Otherwise it asks the
// terminal (OSC 11, then a cursor-position request every terminal
// answers) and waits at most DetectTimeout; no answer, or no terminal,
// counts as dark. Nothing else in the program queries the terminal
// (package termquiet keeps Bubble Tea's init from it), so call this once
// in main before the program starts, only when no theme was chosen and
// colour is on.
func DetectTheme() string {
	return detectTheme(os.Getenv, func() (bool, bool) { return queryBackground(DetectTimeout) }, 2*DetectTimeout)
}

// detectTheme is DetectTheme with its inputs injected. query reports
// (dark, answered); backstop bounds the wait whatever query does.
func detectTheme(getenv func(string) string, query func() (dark, ok bool), backstop time.Duration) string {
	if v := getenv("COLORFGBG"); v != "" {
		parts := strings.Split(v, ";")
		if bg, err := strconv.Atoi(parts[len(parts)-1]); err == nil {
			// 0–6 and 8 are dark colours in the 16-colour palette.
			if bg == 7 || bg >= 9 && bg <= 15 {
				return Light
			}
			return Dark
		}
	}
	type answer struct{ dark, ok bool }
	ch := make(chan answer, 1)
	go func() {
		// A query that panics is no answer: do not wait out the backstop.
		defer func() {
			if recover() != nil {
				ch <- answer{}
			}
		}()
		d, ok := query()
		ch <- answer{d, ok}
	}()
	t := time.NewTimer(backstop)
	defer t.Stop()
	select {
	case a := <-ch:
		if a.ok && !a.dark {
			return Light
		}
	case <-t.C:
	}
	return Dark
}

// rendererFor returns the renderer styles are built with: no colour or
// style escapes at all for noColor, else the process default.
func rendererFor(noColor bool) *lipgloss.Renderer {
	if noColor {
		r := lipgloss.NewRenderer(io.Discard)
		r.SetColorProfile(termenv.Ascii)
		return r
	}
	return lipgloss.DefaultRenderer()
}
