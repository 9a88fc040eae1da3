// Package theme holds the dashboard's styles: one Styles value built once
// per dashboard (never while drawing) from a palette chosen for a light or
// a dark terminal background, and the detection of that background.
package theme

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"

	"github.com/colabdash/colabdash/state"
)

// Styles are the dashboard's lipgloss styles. Colours are ANSI palette
// indexes, so the user's terminal palette applies. The selected row uses
// reverse video plus a "›" marker, so it shows without colour too.
type Styles struct {
	Title, Bold, Dim, ColHeader, Selected, Stale, Gone, ErrText, Warn, Badge lipgloss.Style
	PanelTitle, PanelFocus                                                   lipgloss.Style
	// Token is the style of a token's countdown, indexed by state.TokenStatus.
	Token [4]lipgloss.Style
	// Help styles bubbles' help view (the footer's key help).
	Help help.Styles
}

// New builds the styles of theme (Dark or Light; anything else is Dark);
// noColor turns every colour and style escape off.
func New(noColor bool, theme string) *Styles {
	return newStyles(rendererFor(noColor), paletteFor(theme))
}

func newStyles(r *lipgloss.Renderer, p palette) *Styles {
	n := r.NewStyle
	fg := func(c string) lipgloss.Style {
		if c == "" {
			return n()
		}
		return n().Foreground(lipgloss.Color(c))
	}
	s := &Styles{
		Title:      n().Bold(true),
		Bold:       n().Bold(true),
		Dim:        n().Faint(true),
		ColHeader:  n().Bold(true).Underline(true),
		Selected:   n().Reverse(true),
		Stale:      n().Faint(true),
		Gone:       n().Faint(true).Strikethrough(true),
		ErrText:    fg(p.err),
		Warn:       fg(p.warn),
		Badge:      n().Reverse(true).Bold(true),
		PanelTitle: n().Bold(true),
		PanelFocus: fg(p.focus).Bold(true),
	}
	s.Token[state.TokenUnknown] = fg(p.unknown)
	s.Token[state.TokenOK] = fg(p.ok)
	s.Token[state.TokenExpiring] = fg(p.warn).Bold(true)
	s.Token[state.TokenExpired] = fg(p.err).Bold(true)
	s.Help = help.Styles{
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

// NewWith builds the styles of theme with renderer r (tests: a renderer
// with a fixed colour profile).
func NewWith(r *lipgloss.Renderer, theme string) *Styles { return newStyles(r, paletteFor(theme)) }
