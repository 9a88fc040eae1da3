package ui

import (
	"io"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/colabdash/colabdash/state"
)

// styles are built once per model (never in View). Colours are ANSI palette
// indexes, so the user's terminal palette applies on light and dark
// backgrounds alike. The selected row uses reverse video plus a "›" marker,
// so it shows without colour too.
type styles struct {
	title, bold, dim, colHeader, selected, stale, gone, errText, warn, badge lipgloss.Style
	panelTitle, panelFocus                                                   lipgloss.Style
	token                                                                    [4]lipgloss.Style // by state.TokenStatus
	help                                                                     help.Styles
}

func newStyles(noColor bool) styles {
	r := lipgloss.DefaultRenderer()
	if noColor {
		r = lipgloss.NewRenderer(io.Discard)
		r.SetColorProfile(termenv.Ascii)
	}
	n := r.NewStyle
	s := styles{
		title:      n().Bold(true),
		bold:       n().Bold(true),
		dim:        n().Faint(true),
		colHeader:  n().Bold(true).Underline(true),
		selected:   n().Reverse(true),
		stale:      n().Faint(true),
		gone:       n().Faint(true).Strikethrough(true),
		errText:    n().Foreground(lipgloss.Color("1")),
		warn:       n().Foreground(lipgloss.Color("3")),
		badge:      n().Reverse(true).Bold(true),
		panelTitle: n().Bold(true),
		panelFocus: n().Bold(true).Foreground(lipgloss.Color("6")),
	}
	s.token[state.TokenUnknown] = n().Foreground(lipgloss.Color("8"))
	s.token[state.TokenOK] = n().Foreground(lipgloss.Color("2"))
	s.token[state.TokenExpiring] = n().Foreground(lipgloss.Color("3")).Bold(true)
	s.token[state.TokenExpired] = n().Foreground(lipgloss.Color("1")).Bold(true)
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
