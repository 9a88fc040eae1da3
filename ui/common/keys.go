package common

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/ui/termtext"
)

// PanelTitle renders a panel's title line (text: possibly untrusted), in
// the focus colour with a "▶" when focused.
func PanelTitle(c *Context, focused bool, text string) string {
	text = termtext.Line(text)
	if focused {
		return c.Styles.PanelFocus.Render("▶ " + text)
	}
	return c.Styles.PanelTitle.Render("  " + text)
}

// HelpKey is a footer entry that says keys do what (keys as they read,
// e.g. "esc" or "L/esc").
func HelpKey(keys, what string) key.Binding {
	return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, what))
}

// KeysOf is how bindings read together in the footer, each by its first
// key: "L/esc", "↑/↓".
func KeysOf(bs ...key.Binding) string {
	var ks []string
	for _, b := range bs {
		if k, _, _ := strings.Cut(b.Help().Key, "/"); k != "" {
			ks = append(ks, k)
		}
	}
	return strings.Join(ks, "/")
}

// KeyName is how a key string reads in a sentence: "n", "space" for " ".
func KeyName(k string) string {
	if strings.TrimPrefix(k, "alt+") == " " {
		return strings.TrimSuffix(k, " ") + "space"
	}
	return k
}

// StatusText is the status line's message in room cells. An error that
// does not fit is cut with a hint that the event log has it in full.
func StatusText(c *Context, room int) string {
	s := termtext.Line(c.Status.Text)
	if !c.Status.Err {
		return s
	}
	if ansi.StringWidth(s) > room {
		hint := " (" + c.Keys.Word(keymap.ActionEvents) + ": in full)"
		s = ansi.Truncate(s, max(room-ansi.StringWidth(hint), 8), "…") + hint
	}
	return c.Styles.ErrText.Render(s)
}
