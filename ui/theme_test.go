package ui

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/colabdash/colabdash/ui/theme"
	"github.com/muesli/termenv"
)

// The light and dark themes as a colour terminal receives them. EXPIRING
// is yellow (33) on dark and magenta (35) on light; the selected row is
// reverse video with a "›" marker in both, so it shows without colour.
func TestThemeGoldens(t *testing.T) {
	for _, name := range []string{ThemeDark, ThemeLight} {
		t.Run(name, func(t *testing.T) {
			_, _, m := fixture(t)
			m.opts.Theme = name
			m.cx.Styles = theme.NewWith(ansiRenderer(), name)
			v := m.View()
			golden.RequireEqual(t, []byte(styleMap(v)))
			var expiring string
			for _, ln := range strings.Split(v, "\n") {
				if strings.Contains(ln, "EXPIRING") && !strings.Contains(ln, "›") {
					expiring = ln
				}
			}
			yellow, magenta := strings.Contains(expiring, "\x1b[1;33m"), strings.Contains(expiring, "\x1b[1;35m")
			if name == ThemeDark && (!yellow || magenta) || name == ThemeLight && (yellow || !magenta) {
				t.Errorf("%s: EXPIRING row %q", name, expiring)
			}
			var sel string
			for _, ln := range strings.Split(v, "\n") {
				if strings.HasPrefix(ansi.Strip(ln), "› ") {
					sel = ln
				}
			}
			if !strings.Contains(sel, "\x1b[7m") {
				t.Errorf("%s: selected row not in reverse video: %q", name, sel)
			}
		})
	}
	// Options.Theme reaches the styles.
	if m := New(Options{Service: newFake(), Theme: ThemeLight}); m.opts.Theme != ThemeLight {
		t.Fatal("theme lost")
	}
}

// styleSeq is one SGR escape sequence and its parameters.
var styleSeq = regexp.MustCompile("\x1b\\[([0-9;]*)m")

// sgrNames names the SGR parameters the themes use (16-colour profile).
var sgrNames = func() map[string]string {
	m := map[string]string{"1": "bold", "2": "faint", "3": "italic", "4": "underline", "7": "reverse", "9": "strike"}
	for i, c := range []string{"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"} {
		m[strconv.Itoa(30+i)], m[strconv.Itoa(90+i)] = c, "bright-"+c
		m[strconv.Itoa(40+i)], m[strconv.Itoa(100+i)] = "on-"+c, "on-bright-"+c
	}
	return m
}()

// styleMap renders a coloured frame for review by eye: the plain text,
// then one line per run of same-styled cells, "line:from-to attributes
// "text"" (1-based line, 0-based cell columns, end exclusive), so a
// reviewer reads the layout as it looks and each span's style in words
// instead of an escape code around every character.
func styleMap(frame string) string {
	var plain, spans strings.Builder
	for n, line := range strings.Split(frame, "\n") {
		type cell struct {
			r     string
			style string
		}
		var cells []cell
		style := []string{}
		rest := line
		for rest != "" {
			loc := styleSeq.FindStringSubmatchIndex(rest)
			text := rest
			if loc != nil {
				text = rest[:loc[0]]
			}
			for _, r := range text {
				cells = append(cells, cell{string(r), strings.Join(style, " ")})
			}
			if loc == nil {
				break
			}
			for _, p := range strings.Split(rest[loc[2]:loc[3]], ";") {
				if p == "" || p == "0" {
					style = style[:0]
				} else if name, ok := sgrNames[p]; ok && !slices.Contains(style, name) {
					style = append(style, name)
				} else if !ok {
					style = append(style, "sgr"+p)
				}
			}
			rest = rest[loc[1]:]
		}
		col := 0
		for i := 0; i < len(cells); {
			j, text := i, ""
			for j < len(cells) && cells[j].style == cells[i].style {
				text += cells[j].r
				j++
			}
			w := ansi.StringWidth(text)
			if cells[i].style != "" {
				fmt.Fprintf(&spans, "%d:%d-%d %s %q\n", n+1, col, col+w, cells[i].style, text)
			}
			plain.WriteString(text)
			col += w
			i = j
		}
		plain.WriteString("\n")
	}
	return plain.String() + "--- styled spans (line:from-to attributes \"text\") ---\n" + spans.String()
}

// ansiRenderer renders with the 16-colour ANSI profile, so goldens show
// which palette index each theme uses.
func ansiRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI)
	return r
}
