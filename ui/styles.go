package ui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"

	"github.com/colabdash/colabdash/state"
)

// styles are built once per model (never in View). Colours are ANSI palette
// indexes, so the user's terminal palette applies, chosen per theme for
// light or dark backgrounds (theme.go). The selected row uses reverse video plus a "›" marker,
// so it shows without colour too.
type styles struct {
	title, bold, dim, colHeader, selected, stale, gone, errText, warn, badge lipgloss.Style
	panelTitle, panelFocus                                                   lipgloss.Style
	token                                                                    [4]lipgloss.Style // by state.TokenStatus
	help                                                                     help.Styles
}

func newStyles(noColor bool) *styles { return newThemeStyles(rendererFor(noColor), darkPalette) }

// newThemeStyles builds the styles of palette p with renderer r.
func newThemeStyles(r *lipgloss.Renderer, p palette) *styles {
	n := r.NewStyle
	fg := func(c string) lipgloss.Style {
		if c == "" {
			return n()
		}
		return n().Foreground(lipgloss.Color(c))
	}
	s := &styles{
		title:      n().Bold(true),
		bold:       n().Bold(true),
		dim:        n().Faint(true),
		colHeader:  n().Bold(true).Underline(true),
		selected:   n().Reverse(true),
		stale:      n().Faint(true),
		gone:       n().Faint(true).Strikethrough(true),
		errText:    fg(p.err),
		warn:       fg(p.warn),
		badge:      n().Reverse(true).Bold(true),
		panelTitle: n().Bold(true),
		panelFocus: fg(p.focus).Bold(true),
	}
	s.token[state.TokenUnknown] = fg(p.unknown)
	s.token[state.TokenOK] = fg(p.ok)
	s.token[state.TokenExpiring] = fg(p.warn).Bold(true)
	s.token[state.TokenExpired] = fg(p.err).Bold(true)
	s.help = help.Styles{
		ShortKey:       n().Bold(true),
		ShortDesc:      n().Faint(true),
		ShortSeparator: n().Faint(true),
		Ellipsis:       n().Faint(true),
		FullKey:        n().Bold(true),
		FullDesc:       n().Faint(true),
		FullSeparator:  n().Faint(true),
	}
	return s
}
