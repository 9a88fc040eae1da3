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

// StatusLines is an error status that does not fit one line of room
// cells, on up to two: broken at the last space that fits (a command's
// options stay whole), at the edge when there is none or when only that
// keeps the whole message on two lines, the second line
// cut with StatusText's hint when it still does not fit. A message that
// fits, or one that is not an error, is StatusText's one line.
func StatusLines(c *Context, room int) []string {
	s := termtext.Line(c.Status.Text)
	if !c.Status.Err || ansi.StringWidth(s) <= room {
		return []string{StatusText(c, room)}
	}
	first := ansi.Truncate(s, room, "")
	rest := s[len(first):]
	if i := strings.LastIndexByte(first, ' '); i > 0 && !strings.HasPrefix(rest, " ") &&
		(ansi.StringWidth(s[i+1:]) <= room || ansi.StringWidth(rest) > room) {
		first, rest = first[:i], s[i:]
	}
	second := *c
	second.Status.Text = strings.TrimPrefix(rest, " ")
	return []string{c.Styles.ErrText.Render(first), StatusText(&second, room)}
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
