package keymap

import (
	"fmt"
	"slices"
	"strings"
)

// AlwaysQuit is the key that quits whatever the config says (as in k9s
// and lazygit): Rebind keeps it on quit, so a config binding it to another
// action is a conflict.
const AlwaysQuit = "ctrl+c"

// Rebind replaces the keys of action (one of the Action* names) with keys,
// written as Bubble Tea key strings ("ctrl+r", "f5", "x"; " " or "space"
// for the space bar). The help text then shows the new keys. quit always
// keeps AlwaysQuit (ctrl+c) besides the keys given. It returns an error for
// an unknown action or an empty key list, saying what is accepted, and
// leaves the binding unchanged. The action's binding changes in every
// scope that reads it.
func (k *KeyMap) Rebind(action string, keys ...string) error {
	bs := k.bindings(action)
	if len(bs) == 0 {
		return fmt.Errorf("unknown action %q (accepted: %s)", action, strings.Join(Actions(), ", "))
	}
	var clean []string
	for _, s := range keys {
		if s = normalizeKey(s); s != "" && !slices.Contains(clean, s) {
			clean = append(clean, s)
		}
	}
	if len(clean) == 0 {
		return fmt.Errorf("no key given for action %q (accepted: a key such as r, ctrl+r, \" \" or space, or a list [r, f5])", action)
	}
	if action == ActionQuit && !slices.Contains(clean, AlwaysQuit) {
		clean = append(clean, AlwaysQuit)
	}
	for _, b := range bs {
		b.SetKeys(clean...)
		b.SetHelp(helpKeys(clean), b.Help().Desc)
	}
	return nil
}

// normalizeKey turns a key as written in a config into Bubble Tea's
// KeyMsg.String() spelling: " " and "space" are the space bar (" "),
// surrounding blanks are dropped from any other key.
func normalizeKey(s string) string {
	if s != "" && strings.TrimSpace(s) == "" {
		return " "
	}
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "space") {
		return " "
	}
	if rest, ok := strings.CutPrefix(s, "alt+"); ok && strings.EqualFold(rest, "space") {
		return "alt+ "
	}
	return s
}
