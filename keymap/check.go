package keymap

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
)

// namedKeys are the Bubble Tea v1 key names (KeyMsg.String()) other than
// single characters; "alt+" may precede any of them.
var namedKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields("tab enter esc backspace delete insert up down left right home end pgup pgdown " +
		"shift+tab ctrl+home ctrl+end shift+home shift+end ctrl+shift+home ctrl+shift+end ctrl+pgup ctrl+pgdown " +
		"ctrl+up ctrl+down ctrl+left ctrl+right shift+up shift+down shift+left shift+right " +
		"ctrl+shift+up ctrl+shift+down ctrl+shift+left ctrl+shift+right " +
		`ctrl+@ ctrl+\ ctrl+] ctrl+^ ctrl+_`) {
		m[k] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		if c != 'i' && c != 'm' { // ctrl+i is tab, ctrl+m is enter
			m["ctrl+"+string(c)] = true
		}
	}
	for i := 1; i <= 20; i++ {
		m[fmt.Sprintf("f%d", i)] = true
	}
	return m
}()

// CheckKey reports whether s is a key Bubble Tea can deliver, written as
// KeyMsg.String() spells it: one character ("r", "G", "/", " " or "space"
// for the space bar),
// a name ("enter", "esc", "tab", "up", "pgdown", "f5", "ctrl+r",
// "shift+tab"), optionally prefixed with "alt+". It returns an error
// saying what is accepted, or nil.
func CheckKey(s string) error {
	k := strings.TrimPrefix(normalizeKey(s), "alt+")
	if utf8.RuneCountInString(k) == 1 || namedKeys[k] {
		return nil
	}
	switch strings.ToLower(k) {
	case "return":
		return fmt.Errorf("key %q: write it as enter", s)
	case "escape":
		return fmt.Errorf("key %q: write it as esc", s)
	}
	return fmt.Errorf("key %q is not a key name (accepted: one character, enter, esc, tab, shift+tab, space (or \" \"), "+
		"up/down/left/right, home, end, pgup, pgdown, delete, insert, f1–f20, ctrl+a–z, with an optional alt+ prefix)", s)
}

// screenLocal actions are read only on their own screen (the
// no-credentials screen), so they may share keys with dashboard actions.
var screenLocal = map[string]bool{ActionDemo: true}

// Conflict is one key bound to more than one dashboard action.
type Conflict struct {
	// Key is the key string ("r").
	Key string
	// Actions are the action names bound to it, sorted.
	Actions []string
}

// String renders `key "r" is bound to refresh and sort`.
func (c Conflict) String() string {
	return fmt.Sprintf("key %q is bound to %s", c.Key, strings.Join(c.Actions, " and "))
}

// Conflicts returns every key bound to two or more dashboard actions,
// sorted by key. Actions of other screens (demo) are not compared.
func (k *KeyMap) Conflicts() []Conflict {
	by := map[string][]string{}
	for _, a := range Actions() {
		if screenLocal[a] {
			continue
		}
		for _, s := range k.binding(a).Keys() {
			by[s] = append(by[s], a)
		}
	}
	var out []Conflict
	for s, acts := range by {
		if len(acts) > 1 {
			sort.Strings(acts)
			out = append(out, Conflict{Key: s, Actions: acts})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Binding returns the binding of action (one of the Action* names) and
// whether the action exists.
func (k *KeyMap) Binding(action string) (key.Binding, bool) {
	b := k.binding(action)
	if b == nil {
		return key.Binding{}, false
	}
	return *b, true
}
